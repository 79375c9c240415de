"""The reproduction sections' report halves: ``render(results)`` (and ``figures``) from the stored ``Results``
alone; a module per section, named as in :data:`snake_studies.reproduction.SECTIONS`
(:mod:`snake_studies.reproduction.document` lists them)."""
