"""The simulator's core: scenarios, the model registry, run logs, the SEA loop, stepping from outside, worlds."""
