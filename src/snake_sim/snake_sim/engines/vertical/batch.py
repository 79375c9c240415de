"""Batched runs of the vertical-plane model: B runs of one scenario with different parameter values stepped together.

:func:`simulate_batch` runs B set-ups (:func:`snake_sim.engines.vertical.model.build`) as :func:`~.runtime.simulate`
runs each, and returns the B logs, equal to the one-by-one logs bit for bit: both run the SEA loop
(:func:`snake_sim.core.sea_loop.run_batch`; a run alone is a batch of one), and a period is the same compiled call.

- physics: every control period is one compiled call for all runs (:class:`~.plant.BatchedPlant`,
  :func:`~.plant.sea_period_batch`), which runs a run alone's period (:func:`~.plant.sea_period`: the command
  extrapolation, the motor PD (4.39) within the torque–speed line and the step) over each run's own arrays;
- control: per control instant each run's tick of the SEA loop, as alone (:class:`snake_sim.core.sea_loop.Tick`), and
  one β̈_d estimate over the stacked commands for the period;
- a run whose state goes non-finite stops alone: its log ends at its last finite sample with the status text of a
  run alone, the others go on.

What may differ between the runs of a batch: any value that keeps the shapes, e.g. gait parameters, controller
gains, ``contact.*``, ``robot.sea_stiffness`` and ``robot.rotor_inertia_model``, ``world.start_x`` and
``world.side_friction``. What may not (:func:`check_batch` refuses with a ConfigError naming the field): the
robot's shape and actuator (``robot.motor_kp`` too), the world's box count, ``sim.time_step``, ``sim.control_rate``,
``sim.log_rate``, ``sim.duration``, ``controller.mode``; nor is there a ``tick_hook`` (run such runs with
``simulate``). Callers with mixed runs split them first: runs of equal :func:`batch_key` (a function of the
scenario, stricter than :func:`check_batch`: same robot and world file) always share a batch; the sweep engine
groups by it (``snake-sim sweep --batch N``).

Gain: the Python work of a control period's physics (argument passing) is paid once for the batch, the compiled
physics and each run's control (its tick: controllers, gait, sample) once per run. Since a run alone also steps a
period in one compiled call, batching saves nothing measurable: ``snake-sim bench`` measures the Table 5.2 grid both
ways (0.9–1.2× in CPU time for its 9 runs on one thread, against 1.8× when a run alone called every step from Python).
Where a batched run's time goes there (1 ms steps, 10 per control period, a sample every period): about two thirds in
the compiled physics (≈ 10 µs a sub-step), the rest in the per-run control. The controllers stay the per-joint objects
of a run alone; threads (``prange``) are not used.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from snake_core.validation import ConfigError

from ...core import sea_loop
from ...core.runlog import RunLog
from ...core.scenario import Scenario
from ...core.sea_loop import Samples, Tick, n_samples
from .model import VerticalData, VerticalSetup, build, period_shown, progress_bar, references
from .plant import BatchedPlant


def batch_key(scenario: Scenario) -> Hashable:
    """Scenarios with equal keys can share a batch: same model, robot and world file, motor K_p
    (``robot.motor_kp``), time step, control and log rates, duration and controller mode (the values of everything
    else may differ)."""
    sim = scenario.data["sim"]
    return (scenario.model, scenario.robot_name, scenario.section("robot").get("motor_kp"), scenario.world_file,
            sim["time_step"], sim["control_rate"], sim["log_rate"], sim["duration"],
            scenario.section("controller").get("mode", "position"))


def _shape(setup: VerticalSetup) -> dict[str, object]:
    """What the runs of a batch share, by the scenario field that sets it (robot: links and actuator PD, its K_p
    apart; world: boxes in the plane; sim.duration: control periods; controller.mode: the joint controllers'
    types)."""
    pd = setup.plant.pd
    return {"robot.name": (setup.model.n_links, pd.kd, pd.stall_torque, pd.max_speed, pd.saturate),
            "robot.motor_kp": pd.kp, "world.file": len(setup.terrain.boxes),
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
                                  "snake_sim.engines.vertical.batch.batch_key)", setup.scenario.source)


@dataclass(eq=False)
class _Stacked:
    """The runs' state stacked, (B, ·), stepped as one by the batched plant (the SEA loop's
    :class:`~snake_sim.core.sea_loop.Runs`); each run's data are views of its rows, ``going`` runs only stepped."""

    setups: Sequence[VerticalSetup]
    plant: BatchedPlant
    q: np.ndarray
    v: np.ndarray
    u: np.ndarray  # U of (4.39) at the end of the last step
    contacts: np.ndarray
    going: np.ndarray
    members: list[VerticalData] = field(init=False)

    def __post_init__(self) -> None:
        self.members = [VerticalData(self.q[b], self.v[b], self.u[b]) for b in range(len(self.setups))]

    def member(self, b: int) -> tuple[VerticalSetup, VerticalData]:
        return self.setups[b], self.members[b]

    def advance(self, beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        """One control period of every run still going, in one compiled call."""
        first = self.setups[0]
        self.plant.advance(self.q, self.v, self.u, self.contacts, first.time_step, first.substeps, beta_d, beta_d_dot,
                           beta_d_acc, self.going)
        for b in np.flatnonzero(self.going):
            self.members[b].contacts = int(self.contacts[b])

    def drop(self, b: int) -> None:
        """Parked: finite, no longer stepped."""
        self.going[b] = False
        self.q[b], self.v[b] = self.setups[b].q0, 0.0


def simulate_batch(setups: Sequence[VerticalSetup], progress: bool = False) -> list[RunLog]:
    """Run the set-ups together for their (common) duration; their logs in the same order (module docstring)."""
    check_batch(setups)
    first = setups[0]
    model, n_runs = first.model, len(setups)
    duration, Tc, log_every = first.scenario.duration, first.control_period, first.log_every
    n_ticks = round(duration / Tc)
    ticks = [Tick(s.controllers, references(s), Samples.allocate(model.n_links, n_samples(n_ticks, log_every)),
                  log_every, Tc) for s in setups]
    runs = _Stacked(setups, BatchedPlant([s.plant for s in setups]), np.stack([s.q0 for s in setups]),
                    np.zeros((n_runs, model.n_q)), np.zeros((n_runs, model.n_joints)), np.zeros(n_runs, dtype=np.int64),
                    np.ones(n_runs, dtype=bool))
    with progress_bar(duration, progress) as bar:
        status = sea_loop.run_batch(runs, ticks, n_ticks, after_period=period_shown(bar, Tc, n_ticks))
    return [tick.samples.run_log(setup.robot, st) for tick, setup, st in zip(ticks, setups, status, strict=True)]


def run_batch(scenarios: Sequence[Scenario], progress: bool = False) -> list[RunLog]:
    """Build every scenario and simulate them as one batch (:func:`simulate_batch`)."""
    return simulate_batch([build(s) for s in scenarios], progress)
