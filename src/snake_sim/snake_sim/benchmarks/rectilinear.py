"""Effort optimiser vs 003's ±Δ search on the same problems, measured in one run.

Problems: 003's baseline (l = 0.14 m, m = 0.015 kg, μ = 0.4, α = 45°, T = 1 s), step 1 (closed-loop M1, 6
free control points) and step 2 (M2, 9), each from 003's initial guess. Target: the gradient optimiser ends
with a lower effort after fewer objective evaluations (a complex-step gradient counts as n_vars evaluations).
"""

from __future__ import annotations

import numpy as np

from snake_core.rectilinear.cycle import plan
from snake_core.rectilinear.mechanism import build_model
from snake_core.rectilinear.optimise import StepProblem, optimise_step
from snake_core.robot import load_robot
from snake_sim.benchmarks import BenchRow

TITLE = "Rectilinear gait (003): SLSQP with complex-step gradients vs 003's ±Δ search"


def run() -> list[BenchRow]:
    model = build_model(load_robot("rectilinear6"))  # 003 §3.6: l = 0.14 m, m = 0.015 kg
    rows = []
    for spec in plan(6)[:2]:
        problem = StepProblem(model, spec, np.pi / 4)
        best = optimise_step(problem, "slsqp")
        ref = optimise_step(problem, "delta")
        label = f"step {spec.number} ({spec.kind})"
        # evaluations the ±Δ search had spent when it first reached its final best (the fairest count for it)
        first = next(k for k, e in enumerate(ref.history) if e == ref.history[-1])
        to_best = 1 + (first + 1) * (2 * problem.n_vars + 1)
        rows += [
            BenchRow(f"{label} effort, SLSQP", best.effort, "N²m²s", f"±Δ search {ref.effort:.4g}"),
            BenchRow(f"{label} effort ratio SLSQP / ±Δ", best.effort / ref.effort, "", "same run", "< 1",
                     best.feasible and ref.feasible and best.effort < ref.effort),
            BenchRow(f"{label} evaluations ratio SLSQP / ±Δ", best.evaluations / ref.evaluations, "",
                     f"{best.evaluations} vs {ref.evaluations}", "< 1", best.evaluations < ref.evaluations),
            BenchRow(f"{label} evaluations ratio SLSQP / ±Δ to its best", best.evaluations / to_best, "",
                     f"{best.evaluations} vs {to_best} (iteration {first + 1})"),
        ]
    return rows
