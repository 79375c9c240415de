"""Measures of a run: summary.json, the climb criterion and mode, wave analysis, roll-over, step convergence."""
