"""Sub-commands of ``snake-sim``; see :mod:`snake_sim.commands.cli`."""
