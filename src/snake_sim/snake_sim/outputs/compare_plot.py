"""The table and the figure of ``snake-sim compare`` (002 Figs. 7.2–7.5 side by side).

The figure has the progress of every run on top (centre of mass and tail tip along x, with the
climb goal), then, per joint, the amplitude and the phase (relative to the tail joint) of the
measured motor angle β_j cycle by cycle (:mod:`snake_sim.analysis.wave_analysis`): TSC modulates both in
contact with an obstacle and leaves them constant on smooth ground (002 §7.3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from ..analysis.climb import ClimbResult, tail_tip_x
from ..analysis.wave_analysis import CycleWaves, cycle_waves
from ..core.runlog import RunLog
from .output_folder import save_figure


@dataclass(frozen=True)
class ComparedRun:
    name: str  # scenario name
    mode: str  # controller.mode
    log: RunLog
    omega: float  # gait frequency ω [rad/s]
    summary: dict[str, Any]  # summary.json of the run
    climb: ClimbResult
    model: str = "vertical"  # the scenario's ``model:`` (a name of snake_sim.core.models.models())

    @property
    def motor_angles(self) -> np.ndarray:
        """β (T, N−1) where the run has motor angles, else α."""
        return self.log.beta if self.log.beta is not None else self.log.alpha

    def waves(self) -> CycleWaves:
        return cycle_waves(self.log.t, self.motor_angles, self.omega)


def _fmt(v: Any, spec: str) -> str:
    return "–" if v is None else format(v, spec)


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:+.1f} %"


def compare_rows(runs: Sequence[ComparedRun]) -> list[dict[str, Any]]:
    """One row per run; speeds also relative to the first run (the baseline)."""
    base = runs[0]
    rows = []
    for r in runs:
        speed = r.summary.get("average_speed_mps")
        b_speed = base.summary.get("average_speed_mps")
        climb_speed, b_climb = r.climb.climb_average_speed_mps, base.climb.climb_average_speed_mps
        rows.append({
            "scenario": r.name,
            "mode": r.mode,
            "model": r.model,
            "status": r.summary.get("status"),
            "distance_m": r.summary.get("distance_m"),
            "average_speed_mps": speed,
            "speed_vs_first_pct": 100.0 * (speed / b_speed - 1.0) if speed is not None and b_speed else None,
            "climbed": r.climb.climbed,
            "time_to_climb_s": r.climb.time_to_climb_s,
            "climb_average_speed_mps": climb_speed,
            "climb_speed_vs_first_pct": (100.0 * (climb_speed / b_climb - 1.0)
                                         if climb_speed is not None and b_climb else None),
            "max_abs_tau_Nm": float(np.max(np.abs(r.log.tau))) if r.log.tau.size else None,
            "rolled_over": r.summary.get("rolled_over"),  # 3-D models only
            "max_roll_deg": r.summary.get("max_roll_deg"),
        })
    return rows


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    head = ("| scenario | mode | model | status | distance [m] | speed [mm/s] | vs first | climbed "
            "| time to climb [s] | climb speed [mm/s] | vs first | max abs τ [N·m] | rolled over (max roll [°]) |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        speed = None if r["average_speed_mps"] is None else 1e3 * r["average_speed_mps"]
        cspeed = None if r["climb_average_speed_mps"] is None else 1e3 * r["climb_average_speed_mps"]
        climbed = {True: "yes", False: "no", None: "–"}[r["climbed"]]
        rolled = ("–" if r["rolled_over"] is None else
                  f"{'yes' if r['rolled_over'] else 'no'} ({_fmt(r['max_roll_deg'], '.0f')})")
        lines.append(f"| {r['scenario']} | {r['mode']} | {r['model']} | {r['status']} | {_fmt(r['distance_m'], '.3f')} "
                     f"| {_fmt(speed, '.1f')} | {_pct(r['speed_vs_first_pct'])} | {climbed} "
                     f"| {_fmt(r['time_to_climb_s'], '.1f')} | {_fmt(cspeed, '.1f')} "
                     f"| {_pct(r['climb_speed_vs_first_pct'])} | {_fmt(r['max_abs_tau_Nm'], '.2f')} | {rolled} |")
    return "\n".join(lines)


def compare_figure(runs: Sequence[ComparedRun], path: Path, title: str = "") -> Path:
    """Progress, per-cycle amplitude and phase of every joint, one colour per run."""
    n_j = runs[0].log.alpha.shape[1]
    fig = plt.figure(figsize=(3.0 * n_j, 9.0))
    grid = fig.add_gridspec(3, n_j, height_ratios=(1.3, 1.0, 1.0))
    ax_p = fig.add_subplot(grid[0, :])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    goal = next((r.climb.goal_x_m for r in runs if r.climb.goal_x_m is not None), None)
    amp_axes = [fig.add_subplot(grid[1, j]) for j in range(n_j)]
    ph_axes = [fig.add_subplot(grid[2, j], sharex=amp_axes[j]) for j in range(n_j)]
    for k, r in enumerate(runs):
        c = colours[k % len(colours)]
        ax_p.plot(r.log.t, r.log.com[:, 0], color=c, label=f"{r.name} ({r.mode}): centre of mass")
        ax_p.plot(r.log.t, tail_tip_x(r.log), color=c, ls="--", lw=0.8, label=f"{r.name}: tail tip")
        if r.climb.time_to_climb_s is not None:
            ax_p.axvline(r.log.t[0] + r.climb.time_to_climb_s, color=c, ls=":", lw=0.8)
        w = r.waves()
        t_mid = w.t_start + np.pi / r.omega
        for j in range(n_j):
            amp_axes[j].plot(t_mid, np.degrees(w.amplitude[:, j]), "o-", ms=3, color=c)
            ph_axes[j].plot(t_mid, np.degrees(w.phase[:, j]), "o-", ms=3, color=c)
    if goal is not None:
        ax_p.axhline(goal, color="k", lw=0.8, ls="-.", label="goal: far edge of the last box")
    ax_p.set_xlabel("t [s]")
    ax_p.set_ylabel("x [m]")
    ax_p.set_title(title or "progress along x")
    ax_p.legend(fontsize=7, ncol=2)
    ax_p.grid(alpha=0.3)
    for j in range(n_j):
        label = "tail" if j == 0 else ("head" if j == n_j - 1 else "")
        amp_axes[j].set_title(f"joint {j + 1} {label}".strip(), fontsize=9)
        amp_axes[j].grid(alpha=0.3)
        ph_axes[j].grid(alpha=0.3)
        ph_axes[j].set_xlabel("t [s] (cycle centre)")
    ph_axes[0].set_ylim(-10.0, 10.0)  # the reference joint: 0 by definition (rounding noise otherwise fills the axes)
    amp_axes[0].set_ylabel("amplitude of β_j per cycle [deg]")
    ph_axes[0].set_ylabel("phase of β_j vs joint 1 [deg]")
    fig.tight_layout()
    save_figure(fig, path, 110)
    return path
