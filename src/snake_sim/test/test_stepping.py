"""The planar model (004) stepped from outside with joint torques (snake_sim.engines.planar.stepper.PlanarStepper),
as the embedded simulator's ROS node steps it, without ROS."""

import numpy as np
import pytest

from snake_core.planar.convention import q_from_world, qd_from_world, reverse_joints
from snake_core.validation import ConfigError
from snake_sim.core.scenario import load_scenario
from snake_sim.core.stepping import HeadSample, SimulationDiverged, stepper
from snake_sim.engines.planar.runtime import build, run_scenario
from snake_sim.engines.planar.stepper import PlanarStepper

#: Head-tracking window compared with the runtime: the PFL scenario's evaluation window (its torques
#: blow up near 3.9 s by design).
DURATION = 3.0
#: Largest distance between the head paths of the stepped model with the tracker sampled at 100 Hz
#: (zero-order hold) and of the runtime's continuous-time loop (measured: 0.24 mm over 3 s).
HEAD_PATH_TOLERANCE = 1e-3  # [m]


def world_head_state(head: HeadSample) -> tuple[np.ndarray, float, np.ndarray, float]:
    """(X, Y), ψ, world velocity and ψ̇ from a head sample (quaternion about z, twist in the head frame)."""
    psi = 2.0 * np.arctan2(head.orientation[2], head.orientation[3])
    c, s = np.cos(psi), np.sin(psi)
    forward, left = head.linear[:2]
    return head.position[:2], psi, np.array([c * forward - s * left, s * forward + c * left]), head.angular[2]


def tracked_head_path(scenario) -> tuple[np.ndarray, np.ndarray]:
    """(t, head (X, Y)) of the scenario's tracker closing the loop around the stepper at the control rate."""
    sim, setup = stepper(scenario), build(scenario)
    steps = round(DURATION / sim.control_period)
    t, path = np.arange(steps + 1) * sim.control_period, np.zeros((steps + 1, 2))
    for k in range(steps + 1):
        joints = sim.joints()
        xy, psi, v, rate = world_head_state(sim.head())
        path[k] = xy
        if k < steps:
            q, qd = q_from_world(xy, psi, joints.alpha), qd_from_world(v, rate, joints.alpha_dot)
            sim.step(reverse_joints(setup.tracker.step(t[k], q, qd, setup.reference(t[k]))))  # suite order
    return t, path


def test_stepped_planar_model_under_the_scenarios_tracker_follows_the_runtimes_head_path():
    scenario = load_scenario("head-tracking-pfl", [f"sim.duration={DURATION}"])
    t, path = tracked_head_path(scenario)
    log = run_scenario(scenario)
    expected = log.head_position[:, :2]
    got = np.column_stack([np.interp(log.t, t, path[:, i]) for i in range(2)])
    assert np.max(np.linalg.norm(got - expected, axis=1)) < HEAD_PATH_TOLERANCE
    assert path[-1, 0] == pytest.approx(-0.1 * DURATION, abs=0.02)  # (80): tail first, along −X at 0.1 m/s


def test_planar_stepper_starts_where_the_runtime_starts():
    scenario = load_scenario("head-tracking-pfl")
    sim, log = stepper(scenario), run_scenario(load_scenario("head-tracking-pfl", ["sim.duration=0.01"]))
    assert isinstance(sim, PlanarStepper) and sim.command_interface == "effort"
    assert np.allclose(sim.joints().alpha, log.alpha[0]) and np.allclose(sim.joints().alpha, np.pi / 6)
    assert np.allclose(sim.head().position[:2], log.head_position[0, :2])
    assert np.allclose(sim.head().linear, 0.0) and sim.joints().beta is None


def test_positive_joint_torque_opens_its_joint_angle():
    """Suite order and sign (tail → head, τ_j drives α_j): from rest, τ on one joint accelerates that α."""
    sim = stepper(load_scenario("head-tracking-pfl", ["sim.control_rate=1000", "sim.time_step=0.001"]))
    j = 2
    tau = np.zeros(9)
    tau[j] = 0.01
    alpha0 = sim.joints().alpha
    sim.step(tau)
    change = sim.joints().alpha - alpha0
    assert change[j] > 0 and np.argmax(np.abs(change)) == j
    assert np.array_equal(sim.joints().tau, tau)


def test_head_twist_is_the_rate_of_the_head_pose_in_the_head_frame():
    """REP 105: the twist turned by ψ is the world velocity of the tip; central differences agree to O(T²)."""
    sim = stepper(load_scenario("head-tracking-pfl", ["sim.control_rate=1000", "sim.time_step=0.001"]))
    tau = np.linspace(0.005, -0.003, 9)  # [N·m]
    samples = []
    for _ in range(200):
        sim.step(tau)
        samples.append(world_head_state(sim.head()))
    (p0, psi0, _, _), (_, _, v1, rate1), (p2, psi2, _, _) = samples[-3:]
    assert np.linalg.norm(v1) > 1e-3  # the head moves
    assert np.allclose(v1, (p2 - p0) / (2 * sim.control_period), rtol=1e-3, atol=1e-6)
    assert rate1 == pytest.approx((psi2 - psi0) / (2 * sim.control_period), rel=1e-3, abs=1e-6)


def test_held_torque_gives_the_same_motion_whatever_the_control_period():
    """A constant τ is the same input at 100 Hz and 1 kHz: what remains is the integration error."""
    tau = np.linspace(0.005, -0.003, 9)  # [N·m]
    ends = []
    for rate in (100, 1000):
        sim = stepper(load_scenario("head-tracking-pfl", [f"sim.control_rate={rate}", "sim.time_step=0.001"]))
        for _ in range(round(0.5 * rate)):
            sim.step(tau)
        ends.append((sim.joints().alpha, sim.head().position))
    assert np.allclose(ends[0][0], ends[1][0], atol=1e-7) and np.allclose(ends[0][1], ends[1][1], atol=1e-7)


def test_free_joint_takes_no_torque():
    sim = stepper(load_scenario("head-tracking-lyapunov", ["robot.free_joints=[5]"]))
    sim.step(np.full(9, 0.1))
    assert sim.joints().tau[4] == 0.0 and np.all(np.delete(sim.joints().tau, 4) == 0.1)


def test_torque_beyond_the_blowup_limit_stops_the_simulation():
    sim = stepper(load_scenario("head-tracking-pfl"))
    with pytest.raises(SimulationDiverged, match="blowup_torque"):
        sim.step(np.full(9, 5.0))  # ‖τ‖ = 15 N·m > 10


def test_planar_robot_with_seas_is_refused():
    scenario = load_scenario("head-tracking-lyapunov", ["robot.name=koopaee6", "controller.K_phi=20"])
    with pytest.raises(ConfigError, match=r"robot\.joints"):
        stepper(scenario)
