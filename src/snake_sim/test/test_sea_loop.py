"""The one SEA control loop (snake_sim.core.sea_loop): every path that runs it — the vertical runtime, the batched runs,
the MuJoCo and DART runtimes and the ROS simulator's stepper — gives the commands of the loop driven on a recorded
plant, and the stepper driven by the runtime's controllers is the runtime's run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from snake_core.robot import load_robot
from snake_sim.core.models import runtime_for
from snake_sim.core.runlog import RunLog
from snake_sim.core.scenario import load_scenario
from snake_sim.core.sea_loop import (
    Reading,
    Samples,
    Tick,
    control_steps,
    gait_references,
    motor_commands,
    run,
    sea_control,
    step_period,
)
from snake_sim.engines.vertical import runtime
from snake_sim.engines.vertical.batch import simulate_batch

#: A sample every control period, so that the log holds every command.
EVERY_PERIOD = ("sim.duration=1.5", "sim.log_rate=100")
SCENARIOS = {
    "position": ("pedal-wave", EVERY_PERIOD),
    "tsc at an obstacle": ("tsc-obstacle", (*EVERY_PERIOD, "world.start_x=0.14")),
    "stiffness": ("open-loop-obstacle", (*EVERY_PERIOD, "world.start_x=0.14", "controller.mode=stiffness",
                                        "controller.stiffness=1.0")),
    "tsc on MuJoCo's stairs": ("tsc-stairs-3d", (*EVERY_PERIOD, "controller.torque_gain=6")),
    "tsc on DART's stairs": ("tsc-stairs-3d", (*EVERY_PERIOD, "model=dart", "controller.torque_gain=6")),
}


@dataclass
class Recorded:
    """A plant that replays a run's log: each control instant reads the logged measurements; a period's steps only
    move the replay on."""

    log: RunLog
    time_step: float
    substeps: int
    command_timing = "end"

    def read(self, data: list[int]) -> Reading:
        k, log = data[0] // self.substeps, self.log
        return Reading(log.alpha[k], log.alpha_dot[k], log.beta[k], log.tau[k], log.motor_torque[k],
                       int(log.contact_count[k]))

    def step(self, data: list[int], beta_d: np.ndarray, beta_d_dot: np.ndarray) -> None:
        data[0] += 1

    def advance(self, data: list[int], beta_d: np.ndarray, beta_d_dot: np.ndarray, beta_d_acc: np.ndarray) -> None:
        step_period(self, data, beta_d, beta_d_dot, beta_d_acc)

    def poses(self, data: list[int]) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray]:
        k = data[0] // self.substeps
        return (self.log.link_position[k, :, 0], self.log.link_position[k, :, 2]), self.log.link_angle[k]

    def finite(self, data: list[int]) -> bool:
        return True

    def non_finite_status(self, data: list[int], t: float, kept_until: float) -> str:
        raise AssertionError("a recorded plant stays finite")


def replayed_commands(scenario_name: str, overrides: tuple[str, ...], log: RunLog) -> np.ndarray:
    """β_d of the loop run with the scenario's fresh gait and controllers on the recorded plant of ``log``."""
    scenario = load_scenario(scenario_name, list(overrides))
    gait, controllers = sea_control(scenario, log.robot)
    substeps, _ = control_steps(scenario, scenario.time_step)
    n_ticks = len(log.t) - 1
    tick = Tick(controllers, gait_references(gait, log.robot.n_joints), Samples.allocate(log.robot.n_links,
                n_ticks + 1), 1, scenario.control_period)
    assert run(Recorded(log, scenario.time_step, substeps), [0], tick, n_ticks) == "ok"
    return tick.samples.joints["beta_ref"]


@pytest.mark.parametrize("case", SCENARIOS)
def test_the_runtime_gives_the_commands_of_the_loop_on_its_recorded_plant(case):
    name, overrides = SCENARIOS[case]
    scenario = load_scenario(name, list(overrides))
    log = runtime_for(scenario.model).run_scenario(scenario)
    assert log.status == "ok" and np.ptp(log.beta_ref) > 0.1
    np.testing.assert_allclose(replayed_commands(name, overrides, log), log.beta_ref, rtol=0.0, atol=1e-12)


def test_batched_runs_give_the_commands_of_the_loop_on_their_recorded_plants():
    name, overrides = SCENARIOS["tsc at an obstacle"]
    variants = [(*overrides, "controller.stiffness=17.5"), (*overrides, "controller.torque_gain=6")]
    logs = simulate_batch([runtime.build(load_scenario(name, list(v))) for v in variants])
    assert not np.allclose(logs[0].beta_ref, logs[1].beta_ref, atol=1e-3)
    for variant, log in zip(variants, logs, strict=True):
        np.testing.assert_allclose(replayed_commands(name, variant, log), log.beta_ref, rtol=0.0, atol=1e-12)


def drive_stepper(scenario_name: str, overrides: tuple[str, ...], with_rate: bool) -> tuple[np.ndarray, ...]:
    """(α, β, β_d) per control instant of the stepper closed by the scenario's gait and controllers outside it,
    passing the controllers' β̇_d (``with_rate``) or β_d only, as the ROS controller does."""
    scenario = load_scenario(scenario_name, list(overrides))
    sim, control = runtime.stepper(scenario), runtime.build(scenario)
    alpha, beta, beta_ref = [], [], []
    for k in range(round(scenario.duration / sim.control_period) + 1):
        j, t = sim.joints(), k * sim.control_period
        alpha_d, alpha_d_dot = control.gait.reference(t)
        beta_d, beta_d_dot = motor_commands(control.controllers, t, sim.control_period,
                                            j.alpha, j.alpha_dot, j.beta, j.tau, alpha_d, alpha_d_dot)
        alpha.append(j.alpha), beta.append(j.beta), beta_ref.append(beta_d)
        sim.step(beta_d, beta_d_dot if with_rate else None)
    return np.array(alpha), np.array(beta), np.array(beta_ref)


@pytest.mark.parametrize("case", ["position", "tsc at an obstacle"])
def test_the_stepper_driven_by_the_runtimes_controllers_is_the_runtime(case):
    name, overrides = SCENARIOS[case]
    log = runtime.run_scenario(load_scenario(name, list(overrides)))
    alpha, beta, beta_ref = drive_stepper(name, overrides, with_rate=True)
    for got, want in ((alpha, log.alpha), (beta, log.beta), (beta_ref, log.beta_ref)):
        np.testing.assert_array_equal(got[:len(want)], want)  # one compiled period serves both


def test_the_stepper_given_commands_only_follows_them_with_their_backward_difference():
    """β_d alone (the ROS forward command controller): the rate is the firmware's backward difference, so the run
    differs from the runtime's by a lag of about half a period in β̇_d, small against the gait's motion."""
    name, overrides = SCENARIOS["position"]
    log = runtime.run_scenario(load_scenario(name, list(overrides)))
    alpha, _, _ = drive_stepper(name, overrides, with_rate=False)
    gap = np.abs(alpha[:len(log.alpha)] - log.alpha).max()
    assert 1e-9 < gap < 0.05 * np.ptp(log.alpha)


def test_a_stopped_run_logs_the_instant_it_reached_between_logged_instants():
    """A stop between two logged instants ends the log at the instant the run reached (what an interrupted
    `snake-sim run` writes), not at the last logged one; the run's other samples are those of the run unstopped."""
    import signal

    from snake_sim.core.signals import StopRequest

    setup = runtime.build(load_scenario("pedal-wave", ["sim.log_rate=20"]))
    Tc = setup.control_period
    assert setup.log_every > 2  # instants between the logged ones
    stop = StopRequest()
    at = (setup.log_every + 1) * Tc  # one instant past a logged one

    def hook(t, alpha, alpha_dot, refs):
        if t >= at - 1e-12:
            stop.signum = signal.SIGINT
        return refs

    stopped = runtime.simulate(setup, duration=1.0, tick_hook=hook, stop=stop)
    whole = runtime.simulate(runtime.build(load_scenario("pedal-wave", ["sim.log_rate=20"])), duration=1.0)
    assert stopped.status == "interrupted"
    assert stopped.t[-1] == pytest.approx(at + Tc) and whole.t[1] == pytest.approx(setup.log_every * Tc)
    np.testing.assert_array_equal(stopped.t[:-1], whole.t[:2])


@pytest.mark.parametrize("reading", ["alpha", "beta"])
def test_each_joint_gets_its_tail_side_neighbours_link_and_servo_angles(reading):
    """TSC's first command from rest at α_j under (7.2)'s input K_d x_{j−1} (held over the period), x the neighbour's
    link angle α or, with ``controller.neighbour_angle: beta``, its servo angle β: the loop hands each joint the
    angles of joint j − 1, not its own nor another's."""
    scenario = load_scenario("tsc-obstacle", [f"controller.neighbour_angle={reading}"])
    robot = load_robot(scenario.robot_name)
    _, controllers = sea_control(scenario, robot)
    n = robot.n_joints
    alpha, beta = 0.1 * np.arange(1, n + 1), -0.05 * np.arange(1, n + 1) ** 2  # distinct per joint and per kind
    zero = np.zeros(n)
    period = scenario.control_period
    beta_d, _ = motor_commands(controllers, 0.0, period, alpha, zero, beta, zero, zero, zero)
    gains = controllers[1].gains
    phi, gamma = gains.transition(period)
    neighbour = {"alpha": alpha, "beta": beta}[reading]
    for j in range(1, n):
        expected = phi[0, 0] * alpha[j] + gamma[0] * gains.stiffness * neighbour[j - 1]
        assert beta_d[j] == pytest.approx(expected, abs=1e-12)


def test_position_mode_stepped_at_once_gives_each_joints_own_step():
    """The loop steps position mode's joints at once (``joints_step``): the same β_d, β̇_d as each controller's
    ``step``, within the joint limit, in it, beyond it on either side and for a NaN reference (passed on)."""
    from snake_core.controllers import JointMeasurement, JointReference

    robot = load_robot("koopaee6")
    _, controllers = sea_control(load_scenario("pedal-wave", ["robot.name=koopaee6"]), robot)
    limit = controllers[0].reference_limit
    alpha_d = np.array([0.3, -limit, 1.5 * limit, -2.0 * limit, np.nan])
    alpha_d_dot = np.array([0.5, -0.7, 0.9, -1.1, 1.3])
    zero = np.zeros(robot.n_joints)
    beta_d, beta_d_dot = motor_commands(controllers, 0.0, 0.01, zero, zero, zero, zero, alpha_d, alpha_d_dot)
    singly = [c.step(0.0, 0.01, JointMeasurement(0.0, 0.0, 0.0, 0.0), JointReference(a, r))
              for c, a, r in zip(controllers, alpha_d, alpha_d_dot, strict=True)]
    np.testing.assert_array_equal(beta_d, [cmd.beta_d for cmd in singly])
    np.testing.assert_array_equal(beta_d_dot, [cmd.beta_d_dot for cmd in singly])
    np.testing.assert_array_equal(beta_d[:4], [0.3, -limit, limit, -limit])
    np.testing.assert_array_equal(beta_d_dot, [0.5, -0.7, 0.0, 0.0, 0.0])  # the rate is dropped where clipped
