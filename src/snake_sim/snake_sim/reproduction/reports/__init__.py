"""The reproduction sections' report halves: ``render(results)`` (and ``figures``) from the stored ``Results``
alone; a module per section, named as in :data:`snake_sim.reproduction.SECTIONS`
(:mod:`snake_sim.reproduction.document` lists them)."""
