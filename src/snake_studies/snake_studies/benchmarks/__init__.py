"""Benchmarks that time the studies, registered with ``snake-sim bench`` as entry points (snake_sim.benchmarks)."""
