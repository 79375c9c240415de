"""001 (pushing an object with a snake): Table 2 beside ours, case study 1, and a dynamic check.

The plan is three Tasks computed here: case study 2 (three joints, Table 2) with 001 Fig. 4's configuration, case
study 1 (two joints), and the dynamic check against the penalty-contact simulation.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from snake_core.pushing import Scenario
from snake_core.pushing.study import extremes
from snake_sim.engines.pushing.plant import CONTACT_STIFFNESS, FIT_WINDOW, WHEEL_DAMPING
from snake_studies.pushing import (
    CHECK_JOINTS_DEG,
    FAST_DIRECTIONS,
    FAST_STEP_DEG,
    FIG4_Q,
    Settings,
    run_case,
    run_check,
)
from snake_studies.reproduction.experiment import Task

#: Dynamic check runs (torque scale, contact stiffness [N/m], wheel damping [N·s/m]): the best pushing input
#: of (31); 4× that (the wheels slide); the best input with a 10× softer contact (the contact model's error).
CHECK_RUNS = ((1.0, CONTACT_STIFFNESS, WHEEL_DAMPING), (4.0, CONTACT_STIFFNESS, WHEEL_DAMPING),
              (1.0, CONTACT_STIFFNESS / 10, WHEEL_DAMPING / 10))


@dataclass(frozen=True)
class CheckRow:
    """One scenario of the dynamic check: analysis against the penalty-contact simulation."""

    scale: float  # torques as a multiple of the best input
    stiffness: float  # contact penalty k [N/m]
    scenario: int
    a_obj_analysis: float  # ‖a_obj‖ [m/s²]
    a_obj_sim: float
    a_obj_error: float  # relative
    qdd_error: float  # relative
    sr_analysis: float
    sr_sim: float
    wheels_sliding: tuple[int, ...]


@dataclass(frozen=True)
class RunSettings:
    """How the dynamic check was made, as the text states it: the joints, the contact and wheels of the best input's
    runs and the window the accelerations are fitted over."""

    check_joints_deg: tuple[float, ...]  # the two joints' angles [°]
    contact_stiffness: float  # penalty k [N/m]
    wheel_damping: float  # lateral damper c_w [N·s/m]
    fit_window: tuple[float, float]  # accelerations fitted over [s]


def run_settings(fast: bool) -> RunSettings:
    """The settings the dynamic check of a (``fast``) run of the section uses, stored with its results."""
    return RunSettings(tuple(CHECK_JOINTS_DEG), CHECK_RUNS[0][1], CHECK_RUNS[0][2], FIT_WINDOW)


@dataclass(frozen=True)
class PushingResults:
    """Case studies 2 and 1 over the joint grid, 001 Fig. 4's configuration, and the dynamic check."""

    fast: bool
    kappa: float
    step_deg: float
    limit_deg: float
    directions: int
    table: dict[str, tuple[float, float, float]]  # Table 2's rows, Scenarios 1–3
    configurations: int  # of case study 2's grid
    fig4: tuple[tuple[float, float], ...]  # per scenario: max ‖a_obj‖², max sr over (31)
    case1: dict[str, tuple[float, float, float]]  # case study 1's Table-2 rows
    case1_configurations: int
    check: tuple[CheckRow, ...]
    settings: RunSettings


#: The section's results type (reproduction.document loads stored results as it).
Results = PushingResults


def _check(runs: tuple[tuple[float, float, float], ...]) -> tuple[CheckRow, ...]:
    """The dynamic check runs ``runs`` (of CHECK_RUNS)."""
    rows = []
    for scale, stiffness, damping in runs:
        with tempfile.TemporaryDirectory(prefix="pushing-check-") as tmp:
            for r in run_check(Path(tmp), list(CHECK_JOINTS_DEG), None, scale, stiffness, damping):
                rows.append(CheckRow(scale, stiffness, r["scenario"], float(np.linalg.norm(r["a_obj_analysis"])),
                                     float(np.linalg.norm(r["a_obj_sim"])), float(r["a_obj_rel_error"]),
                                     float(r["qdd_rel_error"]), float(r["sr_analysis"]), float(r["sr_sim"]),
                                     tuple(int(v) for v in r["wheels_sliding"])))
    return tuple(rows)


def _settings(fast: bool) -> Settings:
    return Settings(kappa=100.0, step_deg=FAST_STEP_DEG if fast else 10.0, limit_deg=135.0,
                    directions=FAST_DIRECTIONS if fast else 48)


def plan(fast: bool = False) -> dict[str, Task]:
    """Case study 2 (Table 2, and Fig. 4's configuration), case study 1, and the dynamic check (the first run of
    CHECK_RUNS only when fast)."""
    return {"case 2": Task("case", (3, fast)), "fig. 4": Task("fig. 4"), "case 1": Task("case", (2, fast)),
            "check": Task("check", CHECK_RUNS[:1] if fast else CHECK_RUNS)}


def measure(run: Task, client: Any = None) -> Any:
    """A Task's numbers: a case study's table and grid size, Fig. 4's per-scenario maxima, or the check's rows."""
    if run.name == "case":
        n_joints, fast = run.args
        settings = _settings(fast)
        case = run_case(settings.model(n_joints), settings, progress=False)
        return {"table": case.table(), "configurations": len(case.q)}
    if run.name == "fig. 4":
        two = _settings(False).model(2)
        return tuple((float(e.a_obj_sq[0]), float(e.sr[0])) for e in (extremes(two, FIG4_Q[None], s) for s in Scenario))
    return _check(run.args)


def assemble(fast: bool, plan: dict[str, Task], rows: dict[str, Any]) -> PushingResults:
    settings = _settings(fast)
    case2, case1 = rows["case 2"], rows["case 1"]
    return PushingResults(
        fast=fast, kappa=settings.kappa, step_deg=settings.step_deg, limit_deg=settings.limit_deg,
        directions=settings.directions, table=case2["table"], configurations=case2["configurations"],
        fig4=rows["fig. 4"], case1={k: v for k, v in case1["table"].items() if k in ("best a_obj", "best sr")},
        case1_configurations=case1["configurations"], check=rows["check"], settings=run_settings(fast))
