"""simulator in lockstep: it steps a tick only with the command that answers it (the ``answers_ns``
dimension of the array), ignores an answer to an older tick, holds and reports on /diagnostics when no
answer comes, and takes an unstamped command as the answer to the tick it waits on; with velocity commands
(the default) the tick waits for the β̇_d answering it too and the motor PD feeds that forward. Each
assertion is on the simulation's time (the stamps of /joint_states): how long the harness waits changes
nothing."""

import numpy as np
import pytest

PERIOD = 10_000_000  # [ns] at rate 100 Hz
N = 5  # koopaee6


def make(ros, **params):
    from snake_control.simulator import SimulatorNode

    return ros.make(SimulatorNode, **{"use_sim_time": False, "scenario": "pedal-wave", "overrides": [
        "robot.name=koopaee6", "world.file=flat"], "rate": 100.0, "lockstep": True, "real_time_factor": 0.0,
        "lockstep_timeout": 0.001, **params})


def stamps(ros) -> list[int]:
    return [m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec for m in ros.messages("/joint_states")]


def republished(ros) -> None:
    """Wait until the simulator has published again (a tick it waits on is republished for late nodes)."""
    from snake_control.testing import wait_for

    n = len(ros.messages("/joint_states"))
    wait_for(lambda: len(ros.messages("/joint_states")) > n + 1, ros.spin, "the simulator to publish again")


def command(ros, beta_d, answers=None, topic="/motor_position_controller/commands"):
    from snake_control.ros_interface import float_array

    ros.publish(topic, float_array(beta_d, answers=answers))


def motors(ros) -> list[float]:
    last = ros.messages("/joint_states")[-1]
    return [last.position[last.name.index(f"motor_{j}")] for j in range(1, N + 1)]


def test_lockstep_steps_only_with_the_command_answering_the_tick_and_holds_without_it(ros):
    from snake_control.testing import wait_for

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


def test_lockstep_waits_for_the_velocity_command_of_the_tick_and_feeds_it_forward(ros):
    from snake_control.testing import wait_for
    from snake_sim.scenario import load_scenario
    from snake_sim.stepping import stepper

    make(ros)
    republished(ros)
    beta_d, beta_d_dot = [0.3] * N, [2.0] * N
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
        sim = stepper(load_scenario("pedal-wave", ["robot.name=koopaee6", "world.file=flat", "sim.control_rate=100.0"]))
        sim.step(sim.hold_command())
        sim.step(np.array(beta_d), rate)
        return sim.joints().beta

    with_rate, differenced = stepped(np.array(beta_d_dot)), stepped(None)
    assert np.abs(np.array(motors(ros)) - with_rate).max() <= 1e-12
    assert np.abs(with_rate - differenced).max() > 1e-4
