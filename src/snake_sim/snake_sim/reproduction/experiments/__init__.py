"""The reproduction sections' experiment halves: ``plan``, ``measure``, ``assemble`` and the frozen dataclass
``Results``; a module per section, named as in :data:`snake_sim.reproduction.SECTIONS`
(:mod:`snake_sim.reproduction.document` lists them)."""
