"""The reproduction sections' experiment halves: ``plan``, ``measure``, ``assemble`` and the frozen dataclass
``Results``; a module per section, named as in :data:`snake_studies.reproduction.SECTIONS`
(:mod:`snake_studies.reproduction.document` lists them)."""
