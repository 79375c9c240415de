"""snake-sim sub-commands of the studies, registered with snake_sim's command line as entry points
(snake_sim.commands)."""
