"""Batched runs of the vertical model (snake_sim.engines.vertical.batch, issue 20 item 4): B runs stepped together give
the logs of the same runs made one by one (bit for bit: one compiled period serves both), a run that goes non-finite
stops alone, and runs that cannot share a batch are refused naming the field."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest

from snake_core.validation import ConfigError
from snake_sim.core.models import runtime_for
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.vertical import runtime
from snake_sim.engines.vertical.batch import batch_key, check_batch, run_batch

#: Every logged series of a vertical run.
SIGNALS = ("t", "link_position", "link_angle", "alpha", "alpha_dot", "tau", "beta", "beta_ref", "alpha_ref",
           "alpha_ref_dot", "motor_torque", "contact_count")
SHORT = ("sim.duration=1.5", "sim.log_rate=100")
#: Beside the obstacle (its near face 150 mm ahead of the head tip at start_x = 0): the head reaches it in the run.
NEAR_BOX = "world.start_x=0.14"

CASES = {
    "gait and contact on flat ground": ("pedal-wave", (
        ("gait.amplitude=pi/6",),
        ("gait.amplitude=pi/3", "gait.phase_shift=(-2*pi-0.4)/5", "gait.frequency=2.5"),
        ("contact.friction=0.9", "contact.stiffness=700", "contact.damping=5", "world.start_x=0.02"),
        ("robot.sea_stiffness=3.0", "robot.rotor_inertia_model=reflected"),
    )),
    "TSC gains on an obstacle": ("tsc-obstacle", (
        (NEAR_BOX,),
        (NEAR_BOX, "controller.stiffness=17.5", "controller.torque_gain=6"),
        (NEAR_BOX, "controller.damping=7", "controller.inertia=0.8", "world.side_friction=1.5"),
    )),
    "local stiffness on an obstacle": ("open-loop-obstacle", (
        (NEAR_BOX, "controller.mode=stiffness", "controller.stiffness=1.0"),
        (NEAR_BOX, "controller.mode=stiffness", "controller.stiffness=[0.5, 0.8, 1.0, 1.2, 1.5]",
         "contact.friction=0.4"),
    )),
}


def assert_same_log(batched: RunLog, alone: RunLog) -> None:
    assert batched.status == alone.status
    for name in SIGNALS:
        a, b = getattr(batched, name), getattr(alone, name)
        assert a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)


@pytest.mark.parametrize("case", CASES)
def test_batched_runs_equal_the_same_runs_one_by_one(case):
    name, variants = CASES[case]
    scenarios = [load_scenario(name, [*SHORT, *v]) for v in variants]
    logs = run_batch(scenarios)
    alone = [runtime.run_scenario(s) for s in scenarios]
    for batched, single in zip(logs, alone, strict=True):
        assert_same_log(batched, single)
    # the runs differ (a batch that mixed them up could not pass), and the obstacle runs touched the box
    finals = [log.com[-1, 0] for log in alone]
    assert min(abs(a - b) for i, a in enumerate(finals) for b in finals[i + 1:]) > 1e-6
    if name != "pedal-wave":
        box = runtime.build(scenarios[0]).terrain.boxes[0]
        assert all(log.head_position[:, 0].max() > box[0] - 0.01 for log in alone)


def test_a_run_that_goes_non_finite_stops_alone_with_the_status_it_has_alone():
    scenarios = [load_scenario("pedal-wave", [*SHORT, *v]) for v in ((), (), ("gait.amplitude=pi/4",))]
    # a spring of 1e300 N·m/rad overflows within a few control periods; a scenario file may not say so (its numbers
    # are at most core.scenario.MAX_MAGNITUDE), so it is set on the loaded scenario
    overflowing = copy.deepcopy(scenarios[1].data)
    overflowing["robot"]["sea_stiffness"] = 1e300
    scenarios[1] = dataclasses.replace(scenarios[1], data=overflowing)
    with np.errstate(all="ignore"):
        logs = run_batch(scenarios)
        alone = [runtime.run_scenario(s) for s in scenarios]
    assert alone[1].status.startswith("non-finite state at t = ") and alone[1].t[-1] < 0.5
    for batched, single in zip(logs, alone, strict=True):
        assert_same_log(batched, single)
    assert logs[0].t[-1] == logs[2].t[-1] == pytest.approx(1.5)


@pytest.mark.parametrize(("override", "field"), [
    ("sim.time_step=0.002", "sim.time_step"),
    ("sim.control_rate=50", "sim.control_rate"),
    ("sim.log_rate=25", "sim.log_rate"),
    ("sim.duration=1", "sim.duration"),
    ("controller.mode=torque", "controller.mode"),
    ("world.file=single_obstacle", "world.file"),
    ("robot.motor_kp=40", "robot.motor_kp"),
])
def test_runs_that_cannot_share_a_batch_are_refused_naming_the_field(override, field):
    first, other = (load_scenario("pedal-wave", [*SHORT, *o]) for o in ((), (override,)))
    assert batch_key(first) != batch_key(other)
    with pytest.raises(ConfigError, match=rf"^pedal-wave.yaml: {field} = .* cannot share a batch"):
        run_batch([first, other])


def test_runs_that_differ_in_values_only_have_one_batch_key_and_an_empty_batch_is_refused():
    keys = {batch_key(load_scenario("tsc-obstacle", [*SHORT, o])) for o in (
        "controller.stiffness=12", "controller.torque_gain=6", "gait.amplitude=pi/4", "contact.friction=0.3",
        "world.start_x=-0.02", "world.side_friction=2", "robot.sea_stiffness=2.5")}
    assert len(keys) == 1
    with pytest.raises(ConfigError, match=r"batch = 0 .* at least one run"):
        check_batch([])


def test_the_vertical_runtime_offers_batches():
    vertical = runtime_for("vertical")
    scenarios = [load_scenario("pedal-wave", ["sim.duration=0.2", f"gait.amplitude={a}"]) for a in (0.3, 0.5)]
    logs = vertical.simulate_batch([vertical.build(s) for s in scenarios])
    assert [log.status for log in logs] == ["ok", "ok"]
    assert vertical.batch_key(scenarios[0]) == vertical.batch_key(scenarios[1])
    assert not hasattr(runtime_for("planar"), "simulate_batch")
