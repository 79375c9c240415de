"""simulator in lockstep: it steps a tick only with the command that answers it (the ``answers_ns``
dimension of the array), ignores an answer to an older tick, holds and reports on /diagnostics when no
answer comes, and takes an unstamped command as the answer to the tick it waits on; with velocity commands
(the default) the tick waits for the β̇_d answering it too and the motor PD feeds that forward; β_d from the topic
is clamped to the joint limits and the servo's speed, and a command that is no joint angle is never stepped on.
Each assertion is on the simulation's time (the stamps of /joint_states): how long the harness waits changes
nothing."""

import numpy as np
import pytest

PERIOD = 10_000_000  # [ns] at rate 100 Hz
N = 5  # koopaee6


def make(ros, **params):
    from snake_sim_ros.simulator import SimulatorNode

    return ros.make(SimulatorNode, **{"use_sim_time": False, "scenario": "pedal-wave", "overrides": [
        "robot.name=koopaee6", "world.file=flat"], "rate": 100.0, "lockstep": True, "real_time_factor": 0.0,
        "lockstep_timeout": 0.001, **params})


def stamps(ros) -> list[int]:
    return [m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec for m in ros.messages("/joint_states")]


def republished(ros) -> None:
    """Wait until the simulator has published again (a tick it waits on is republished for late nodes)."""
    from snake_test_support.ros import wait_for

    n = len(ros.messages("/joint_states"))
    wait_for(lambda: len(ros.messages("/joint_states")) > n + 1, ros.spin, "the simulator to publish again")


def command(ros, beta_d, answers=None, topic="/motor_position_controller/commands"):
    from snake_control.ros_interface import float_array

    ros.publish(topic, float_array(beta_d, answers=answers))


def motors(ros) -> list[float]:
    last = ros.messages("/joint_states")[-1]
    return [last.position[last.name.index(f"motor_{j}")] for j in range(1, N + 1)]


def test_lockstep_steps_only_with_the_command_answering_the_tick_and_holds_without_it(ros):
    from snake_test_support.ros import wait_for

    make(ros, velocity_commands=False)  # β_d only: the motor PD feeds forward their backward difference
    republished(ros)
    # tick 0 is stepped with the start command; tick 1 (one period) waits for its answer, and says so
    assert max(stamps(ros)) == PERIOD
    wait_for(lambda: any("holding at t = 0.010 s" in s.message for m in ros.messages("/diagnostics")
                         for s in m.status if s.level == b"\x01"), ros.spin, "the WARN of the wait")
    start = motors(ros)

    command(ros, [0.3] * N, answers=0)  # an answer to tick 0, late: not this tick's
    republished(ros)
    assert max(stamps(ros)) == PERIOD and motors(ros) == start

    command(ros, [0.3] * N, answers=PERIOD)  # the answer: one step, then it waits on tick 2
    republished(ros)
    assert max(stamps(ros)) == 2 * PERIOD
    assert np.all(np.array(motors(ros)) > np.array(start))  # the motors turn towards 0.3 rad

    command(ros, [0.3] * N)  # unstamped (a tool's): the answer to the tick waited on
    republished(ros)
    assert max(stamps(ros)) == 3 * PERIOD
    assert sorted(set(stamps(ros))) == [0, PERIOD, 2 * PERIOD, 3 * PERIOD][-len(set(stamps(ros))):]


def test_free_running_simulator_needs_a_real_time_factor(ros):
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match="real_time_factor"):
        make(ros, lockstep=False)


def reference_stepper():
    """The model the node steps (its scenario, overrides and rate), stepped here without ROS."""
    from snake_sim.core.scenario import load_scenario
    from snake_sim.core.stepping import stepper

    return stepper(load_scenario("pedal-wave", ["robot.name=koopaee6", "world.file=flat", "sim.control_rate=100.0"]))


def statuses(ros, level):
    return [s for m in ros.messages("/diagnostics") for s in m.status if s.level == level]


def test_beta_d_beyond_the_joint_limits_and_the_servo_speed_is_stepped_clamped_and_reported_with_a_count(ros):
    ticks, target = 30, 1.2  # rad: beyond koopaee6's ±60° (1.047 rad), a joint angle all the same
    node = make(ros, lockstep_timeout=600.0, velocity_commands=False)  # β_d only; no WARN of a wait
    republished(ros)
    for k in range(1, ticks + 1):
        command(ros, [target] * N, answers=k * PERIOD)
    republished(ros)
    assert max(stamps(ros)) == (ticks + 1) * PERIOD

    # by hand: each step's β_d within 6.30 rad/s × 10 ms of the last step's, then within ±60° (the robot file)
    clamped, free = reference_stepper(), reference_stepper()
    beta_d = clamped.hold_command()  # tick 0: the start command
    for sim in (clamped, free):
        sim.step(beta_d)
    for _ in range(ticks):
        beta_d = np.clip(np.clip(target, beta_d - 6.30 * 0.01, beta_d + 6.30 * 0.01), -np.pi / 3, np.pi / 3)
        clamped.step(beta_d)
        free.step(np.full(N, target))
    assert motors(ros) == pytest.approx(clamped.joints().beta.tolist(), abs=1e-12)
    assert np.abs(free.joints().beta - clamped.joints().beta).max() > 0.05  # unclamped, the motors would differ
    assert np.abs(motors(ros)).max() < np.pi / 3 + 0.01

    assert node.commands_clamped == ticks * N  # every value of every step: first the speed, then the limit
    warnings = [s for s in statuses(ros, b"\x01") if "clamped" in s.message]
    assert warnings and "±60° and 6.3 rad/s" in warnings[0].message
    assert 0 < int({v.key: v.value for v in warnings[-1].values}["commands_clamped"]) <= ticks * N
    assert len(warnings) < ticks  # reported once (and at the diagnostics' period), not per command


@pytest.mark.parametrize(("beta_d", "why"), [
    ([4.0] * N, "is no joint angle"),  # |β_d| > π: a wrong unit or a garbled array
    ([0.1, 0.1, float("nan"), 0.1, 0.1], "NaN or Inf"),
    ([1e6] * N, "is no joint angle"),
    ([0.1] * (N - 1), f"has {N - 1} values"),
])
def test_a_non_finite_or_absurd_command_is_never_stepped_on_and_reported(ros, beta_d, why):
    make(ros, velocity_commands=False)
    republished(ros)
    start = motors(ros)
    command(ros, beta_d, answers=PERIOD)
    republished(ros)
    assert max(stamps(ros)) == PERIOD and motors(ros) == start  # held: tick 1 still waits
    errors = [s.message for s in statuses(ros, b"\x02")]
    assert any(m.startswith("hold: command refused") and why in m for m in errors), errors
    command(ros, [0.01] * N, answers=PERIOD)  # a usable answer steps
    republished(ros)
    assert max(stamps(ros)) == 2 * PERIOD


def test_lockstep_waits_for_the_velocity_command_of_the_tick_and_feeds_it_forward(ros):
    from snake_test_support.ros import wait_for

    make(ros)
    republished(ros)
    # β_d one step of 3 rad/s from the start command: within the servo's speed, so the node steps it unclamped
    beta_d, beta_d_dot = (reference_stepper().hold_command() + 0.03).tolist(), [2.0] * N
    command(ros, beta_d, answers=PERIOD)  # β_d alone: the tick still waits for its β̇_d, and says so
    republished(ros)
    assert max(stamps(ros)) == PERIOD
    wait_for(lambda: any("on /motor_velocity_controller/commands within" in s.message
                         for m in ros.messages("/diagnostics") for s in m.status if s.level == b"\x01"),
             ros.spin, "the WARN naming the velocity commands")
    command(ros, [5.0] * N, answers=0, topic="/motor_velocity_controller/commands")  # an older tick's: ignored
    republished(ros)
    assert max(stamps(ros)) == PERIOD
    command(ros, beta_d_dot, answers=PERIOD, topic="/motor_velocity_controller/commands")
    republished(ros)
    assert max(stamps(ros)) == 2 * PERIOD

    # the step is the stepper's with that β̇_d (the same arithmetic), not with the backward difference of β_d
    def stepped(rate):
        sim = reference_stepper()
        sim.step(sim.hold_command())
        sim.step(np.array(beta_d), rate)
        return sim.joints().beta

    with_rate, differenced = stepped(np.array(beta_d_dot)), stepped(None)
    assert np.abs(np.array(motors(ros)) - with_rate).max() <= 1e-12
    assert np.abs(with_rate - differenced).max() > 1e-4


@pytest.mark.parametrize(("beta_d", "beta_d_dot"), [(1.04, 20.0), (0.0, 1e6), (0.0, -1e6)])
def test_a_speed_reference_beyond_the_servo_is_stepped_limited_and_never_turns_a_motor_past_the_joint_limit(
        ros, beta_d, beta_d_dot):
    from snake_test_support.ros import wait_for

    ticks, limit = 60, np.pi / 3
    node = make(ros, lockstep_timeout=600.0)
    republished(ros)
    for k in range(1, ticks + 1):
        command(ros, [beta_d] * N, answers=k * PERIOD)
        command(ros, [beta_d_dot] * N, answers=k * PERIOD, topic="/motor_velocity_controller/commands")
        wait_for(lambda k=k: max(stamps(ros)) == (k + 1) * PERIOD, ros.spin, f"tick {k + 1}")
    worst = max(abs(m.position[m.name.index(f"motor_{j}")]) for m in ros.messages("/joint_states")
                for j in range(1, N + 1))
    assert worst <= limit + 0.01
    assert node.commands_clamped >= ticks * N  # every β̇_d beyond 6.3 rad/s
    # the same β_d and β̇_d stepped as given turn the motors far past the limit
    free = reference_stepper()
    free.step(free.hold_command())
    for _ in range(ticks):
        free.step(np.full(N, beta_d), np.full(N, beta_d_dot))
    assert np.abs(free.joints().beta).max() > limit + 0.2
