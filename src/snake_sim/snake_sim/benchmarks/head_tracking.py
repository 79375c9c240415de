"""One head-tracking control step plus one manipulability evaluation for n = 10 (004's robot), beside
Pinocchio's CRBA (C++) of the same chain, measured in one run.

A step is what a 1 kHz head_tracking_controller + manipulability_monitor pair does per sample:
:func:`~snake_core.planar.model.compute_terms` (H (19) and h (20)), the controller (PFL (70) or
the Lyapunov-like law) and D, R from the same H. Targets: ≤ 50 µs per step and ≤ 20 µs for the
monitor alone on one core (a 1 kHz loop on a robot computer keeps a wide margin); the numeric cores are
compiled (numba), the Python left is argument handling. Times are the process's CPU time
(``time.process_time``: what the step costs on one core, not how long other processes on a loaded machine
kept it waiting), best of several repeats; the CRBA ratio says how much of a compiled library's speed the
Python step costs.
"""

from __future__ import annotations

import time
import timeit

import numpy as np
import pinocchio as pin

from snake_core.gaits.serpenoid import Serpenoid
from snake_core.planar.head_tracking import (
    LyapunovGains,
    LyapunovTracker,
    PartialFeedbackLinearisation,
    PFLGains,
    StraightLineReference,
)
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import PlanarModel, build_model, compute_terms
from snake_core.robot import load_robot
from snake_sim.benchmarks import BenchRow

TITLE = "Head tracking (004): controller step + manipulability, n = 10, vs Pinocchio CRBA"
TARGET_US = 50.0
TARGET_MONITOR_US = 20.0
NUMBER, REPEAT = 500, 7


def pinocchio_chain(model: PlanarModel) -> pin.Model:
    """The planar chain of 004 in Pinocchio: planar root at the head tip, revolute z joints."""
    pm = pin.Model()
    inertia = pin.Inertia(model.m, np.array([model.l, 0.0, 0.0]), np.diag([model.J] * 3))
    parent = pm.addJoint(0, pin.JointModelPlanar(), pin.SE3.Identity(), "root")
    pm.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    for i in range(1, model.n):
        parent = pm.addJoint(parent, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([2 * model.l, 0.0, 0.0])),
                             f"joint_{i}")
        pm.appendBodyToJoint(parent, inertia, pin.SE3.Identity())
    return pm


def _best_us(f) -> float:
    return min(timeit.repeat(f, number=NUMBER, repeat=REPEAT, timer=time.process_time)) / NUMBER * 1e6


def run() -> list[BenchRow]:
    model = build_model(load_robot("ariizumi10")).with_friction(c_y=5.0)
    shape = Serpenoid(9, np.pi / 6, 2.0, 1.5)
    reference = StraightLineReference((0.0, 0.0), np.pi, 0.05, 0.0)
    rng = np.random.default_rng(0)
    q = np.concatenate(([0.01, -0.02, 0.05], shape.phi(0.4)[0]))
    qd = rng.normal(0.0, 0.1, model.dof)
    monitor = ManipulabilityMonitor(model)
    workspace = model.create_data()
    pm = pinocchio_chain(model)
    pd = pm.createData()
    q_pin = np.concatenate((q[:2], [np.cos(q[2]), np.sin(q[2])], q[3:]))
    crba = _best_us(lambda: pin.crba(pm, pd, q_pin))
    rows = [BenchRow("Pinocchio CRBA (C++), n = 10", crba, "µs")]
    for name, tracker in (("PFL (70)", PartialFeedbackLinearisation(model, PFLGains.diagonal(9), shape)),
                          ("Lyapunov-like", LyapunovTracker(model, LyapunovGains.diagonal(9), shape))):
        def step(tracker=tracker):
            data = compute_terms(model, workspace, q, qd)
            tracker.step(0.4, q, qd, reference(0.4), data)
            monitor.evaluate_inertia(data.H)

        t = _best_us(step)
        rows.append(BenchRow(f"{name} step + D/R", t, "µs", f"{t / crba:.0f}x CRBA", f"<= {TARGET_US:g} µs",
                             t <= TARGET_US))
    t = _best_us(lambda: monitor.evaluate(q))
    rows.append(BenchRow("D/R alone (monitor.evaluate, incl. H)", t, "µs", f"{t / crba:.0f}x CRBA",
                         f"<= {TARGET_MONITOR_US:g} µs", t <= TARGET_MONITOR_US))
    return rows
