"""The lock-step runtime of the vertical-plane simulator (002 ch. 4–5): gait → per-joint SEA
controllers → motor-side PD (4.39) → model (4.35), producing a :class:`~snake_sim.core.runlog.RunLog`.

Every control period (``sim.control_rate``) the runtime reads what the joint modules measure
(α, α̇, β, τ = K(α − β)), asks the gait for α_d, α̇_d, lets each joint's controller compute β_d,
β̇_d, and then integrates ``sim.time_step`` sub-steps during which the actuator PD follows
β_d + β̇_d s + ½ β̈_d s² (s = t − t_k; β̈_d the rate change over the last period), a reference
without steps in its rate, as 002's continuous α̇_d. The state is checked after every control
period; a non-finite state stops the run, and the log up to the last finite sample is kept
with ``status`` saying when and where. The loop is :func:`snake_sim.core.sea_loop.run`; this module gives
it the model (:class:`VerticalSetup`'s ``read``, ``advance``, ``poses``) over a :class:`VerticalData`.

Other runtimes and controllers build on :func:`build` (validated set-up from a scenario,
:mod:`snake_sim.engines.vertical.model`) and :func:`simulate`; ``tick_hook(t, q, v, refs) -> refs`` lets a
caller change the per-joint references (α_d, α̇_d, τ_d arrays) each control period (head tracking, torque mode).
:func:`simulate_batch` steps several set-ups of one shape together (:mod:`snake_sim.engines.vertical.batch`; with
:func:`batch_key`, the :class:`snake_sim.core.models.BatchedRuntime` members).
"""

from __future__ import annotations

from typing import Any

from snake_core.validation import positive

from ...core.runlog import RunLog
from ...core.scenario import Scenario
from ...core.sea_loop import Samples, Tick, n_samples, run
from ...core.signals import StopRequest

# the batched runs of this model (snake_sim.core.models.BatchedRuntime)
from .batch import batch_key as batch_key
from .batch import simulate_batch as simulate_batch
from .model import (
    CONTACT_PARAMS,
    ROBOT_PARAMS,
    WORLD_PARAMS,
    TickHook,
    VerticalData,
    VerticalSetup,
    build,
    period_shown,
    progress_bar,
    references,
)
from .stepper import VerticalStepper

#: The figures of a run (:data:`snake_sim.outputs.figures.FIGURE_SETS`).
FIGURES = "side"
#: The specs of the model's own sections (:class:`snake_sim.core.models.ModelRuntime`).
PARAMS = {"robot": ROBOT_PARAMS, "world": WORLD_PARAMS, "contact": CONTACT_PARAMS}


def simulate(setup: VerticalSetup, duration: float | None = None, progress: bool = False,
             tick_hook: TickHook | None = None, stop: StopRequest | None = None, start: VerticalData | None = None,
             t0: float = 0.0) -> RunLog:
    """Run ``setup`` for ``duration`` seconds (default: the scenario's) and return the log (up to ``stop``); from
    ``start`` at time ``t0`` (the gait and controllers at t0 + t; default: at rest in the start configuration at 0),
    e.g. a window of a recording restarted from its recorded state (:mod:`snake_studies.calibrate`)."""
    duration = setup.scenario.duration if duration is None else positive(duration, "--duration")
    Tc = setup.control_period
    n_ticks = round(duration / Tc)
    tick = Tick(setup.controllers, references(setup, tick_hook),
                Samples.allocate(setup.model.n_links, n_samples(n_ticks, setup.log_every)), setup.log_every, Tc)
    data = VerticalData.start(setup) if start is None else start
    with progress_bar(duration, progress) as bar:
        status = run(setup, data, tick, n_ticks, stop, period_shown(bar, Tc, n_ticks, t0), t0)
    return tick.samples.run_log(setup.robot, status)


def run_scenario(scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
    """Build and simulate (:class:`snake_sim.core.models.ModelRuntime`)."""
    return simulate(build(scenario), progress=progress, stop=stop)


def summary_extra(log: RunLog, scenario: Scenario) -> dict[str, Any]:
    """No fields beyond :func:`snake_sim.analysis.summary.summarize`'s (climb, torques, contacts)."""
    return {}


def stepper(scenario: Scenario) -> VerticalStepper:
    """The scenario's model stepped by motor commands β_d (the ROS simulator node's)."""
    setup = build(scenario)
    return VerticalStepper(setup, VerticalData.start(setup))
