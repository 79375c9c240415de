"""Batched runs of the vertical-plane model: B runs of one scenario with different parameter values stepped together.

:func:`simulate_batch` runs B set-ups (:func:`snake_sim.vertical.runtime.build`) as :func:`~.runtime.simulate` runs
each, and returns the B logs, equal to the one-by-one logs to rounding (the tests hold them to 1e-12):

- physics: every sub-step is one compiled call for all runs (:class:`~.plant.BatchedPlant`,
  :func:`~.plant.plant_step_batch`), which runs the same kernels (``terms_kernel``, ``contact_kernel``,
  ``implicit_euler_step``) over each run's own arrays; the command extrapolation and the motor PD (4.39) are
  numpy over (B, N − 1) arrays;
- control: per control instant each run's gait and joint controllers, as alone
  (:func:`snake_sim.sea_loop.motor_commands`);
- a run whose state goes non-finite stops alone: its log ends at its last finite sample with the status text of a
  run alone, the others go on.

What may differ between the runs of a batch: any value that keeps the shapes, e.g. gait parameters, controller
gains, ``contact.*``, ``robot.sea_stiffness`` and ``robot.rotor_inertia_model``, ``world.start_x`` and
``world.side_friction``. What may not (:func:`check_batch` refuses with a ConfigError naming the field): the
robot's shape and actuator, the world's box count, ``sim.time_step``, ``sim.control_rate``, ``sim.log_rate``,
``sim.duration``, ``controller.mode``; nor is there a ``tick_hook`` (run such runs with ``simulate``). Callers
with mixed runs split them first: runs of equal :func:`batch_key` (a function of the scenario, stricter than
:func:`check_batch`: same robot and world file) always share a batch; the sweep engine groups by it
(``snake-sim sweep --batch N``).

Gain: the Python work of a sub-step (argument passing, the PD, the extrapolation) is paid once for the batch,
the compiled physics once per run; ``snake-sim bench`` measures the Table 5.2 grid both ways (about 1.8× in CPU
time for its 9 runs on one thread). Where a batched run's time goes there (1 ms steps, 10 per control period,
a sample every period; per run and control period, CPU time): the compiled physics ≈ 83 µs (8.3 µs a sub-step,
two thirds), the shared sub-step work ≈ 15 µs, the per-run control ≈ 28 µs (controllers 13, the sample 8, gait
3). The controllers stay the per-joint objects of a run alone (vectorising them would save at most a tenth);
threads (``prange``) are not used.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

from snake_core.validation import ConfigError
from snake_core.vertical.dynamics import sea_torque

from ..runlog import RunLog
from ..scenario import Scenario
from ..sea_loop import motor_commands
from .plant import BatchedPlant
from .runtime import VerticalSetup, _references, _Samples, build, extrapolated_command, non_finite_status, progress_bar


def batch_key(scenario: Scenario) -> Hashable:
    """Scenarios with equal keys can share a batch: same model, robot and world file, time step, control and
    log rates, duration and controller mode (the values of everything else may differ)."""
    sim = scenario.data["sim"]
    return (scenario.model, scenario.robot_name, scenario.world_file, sim["time_step"], sim["control_rate"],
            sim["log_rate"], sim["duration"], scenario.section("controller").get("mode", "position"))


def _shape(setup: VerticalSetup) -> dict[str, object]:
    """What the runs of a batch share, by the scenario field that sets it (robot: links and actuator PD; world: boxes
    in the plane; sim.duration: control periods; controller.mode: the joint controllers' types)."""
    return {"robot.name": (setup.model.n_links, setup.plant.pd), "world.file": len(setup.terrain.boxes),
            "sim.time_step": setup.time_step, "sim.control_rate": setup.substeps, "sim.log_rate": setup.log_every,
            "sim.duration": round(setup.scenario.duration / setup.control_period),
            "controller.mode": tuple(type(c).__name__ for c in setup.controllers)}


def check_batch(setups: Sequence[VerticalSetup]) -> None:
    """ConfigError naming the first field in which a run differs from the first run in a way a batch cannot hold."""
    if not setups:
        raise ConfigError("batch", 0, "needs at least one run")
    first = _shape(setups[0])
    for setup in setups[1:]:
        for name, value in _shape(setup).items():
            if value != first[name]:
                raise ConfigError(name, value, f"cannot share a batch with the first run's {first[name]!r}: the "
                                  "runs of a batch have equal robot shape and actuator, world box count, time step, "
                                  "control and log rates, duration and controller mode (group runs by "
                                  "snake_sim.vertical.batch.batch_key)", setup.scenario.source)


def simulate_batch(setups: Sequence[VerticalSetup], progress: bool = False) -> list[RunLog]:
    """Run the set-ups together for their (common) duration; their logs in the same order (module docstring)."""
    check_batch(setups)
    first = setups[0]
    model, n_runs = first.model, len(setups)
    duration, Tc, log_every = first.scenario.duration, first.control_period, first.log_every
    n_ticks = round(duration / Tc)
    samples = [_Samples.allocate(s.model, n_ticks // log_every + 1) for s in setups]
    for setup in setups:
        for c in setup.controllers:
            c.reset()
    plant = BatchedPlant([s.plant for s in setups])
    q, v = np.stack([s.q0 for s in setups]), np.zeros((n_runs, model.n_q))
    beta_d, beta_d_dot = np.zeros((n_runs, model.n_joints)), np.zeros((n_runs, model.n_joints))
    prev_rate = np.zeros((n_runs, model.n_joints))
    u = np.zeros((n_runs, model.n_joints))  # U of (4.39) at the end of the last sub-step
    n_contact = np.zeros(n_runs, dtype=np.int64)
    active = np.ones(n_runs, dtype=bool)
    status = ["ok"] * n_runs
    h, ia, ib = first.time_step, model.i_alpha, model.i_beta
    bar = progress_bar(duration, progress)
    bar_every = max(1, n_ticks // 100)
    for k in range(n_ticks + 1):
        t = k * Tc
        for b in np.flatnonzero(active):
            setup, qb, vb = setups[b], q[b], v[b]
            alpha, alpha_dot, beta = qb[ia], vb[ia], qb[ib]
            tau = sea_torque(setup.model, qb)
            refs = _references(setup, t, qb, vb, None)
            beta_d[b], beta_d_dot[b] = motor_commands(setup.controllers, t, Tc, alpha, alpha_dot, beta, tau,
                                                      refs["alpha_d"], refs["alpha_d_dot"], refs["tau_d"])
            if k % log_every == 0:
                samples[b].record(setup.model, t, qb, {
                    "alpha": alpha, "alpha_dot": alpha_dot, "tau": tau, "beta": beta, "beta_ref": beta_d[b],
                    "alpha_ref": refs["alpha_d"], "alpha_ref_dot": refs["alpha_d_dot"], "motor_torque": u[b]},
                    int(n_contact[b]))
        if k == n_ticks or not active.any():
            break
        beta_d_acc = np.zeros_like(beta_d) if k == 0 else (beta_d_dot - prev_rate) / Tc
        prev_rate = beta_d_dot.copy()
        for i in range(1, first.substeps + 1):  # as runtime._control_period, every run at once
            command, rate = extrapolated_command(i * h, beta_d, beta_d_dot, beta_d_acc)
            plant.step(q, v, h, command, rate, active, n_contact)
        u = plant.torque(q, v, command, rate)
        for b in np.flatnonzero(active):
            if not math.isfinite(float(q[b] @ q[b] + v[b] @ v[b])):  # NaN, inf or overflowing, as alone
                status[b] = non_finite_status(setups[b], t + Tc, q[b], v[b], samples[b].t[samples[b].count - 1])
                active[b] = False
                q[b], v[b] = setups[b].q0, 0.0  # parked: finite, no longer stepped
        if k % bar_every == 0:
            bar.n = round(t + Tc, 6)
            bar.refresh()
    bar.close()
    return [s.run_log(setup.robot, st) for s, setup, st in zip(samples, setups, status, strict=True)]


def run_batch(scenarios: Sequence[Scenario], progress: bool = False) -> list[RunLog]:
    """Build every scenario and simulate them as one batch (:func:`simulate_batch`)."""
    return simulate_batch([build(s) for s in scenarios], progress)
