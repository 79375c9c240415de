"""The ROS 2 graph on the real middleware, every node in its own process started from its console
script with the parameter files the launch files pass (snake_control.graph, the one definition both
read): gait_generator → sea_joint_controller(s) → (motor_command_mux) → simulator, in lockstep on
the simulator's /clock, moves the robot as ``snake-sim run`` of the same scenario does; on the planar
model (004), head_tracking_controller → motor_command_mux (effort) → simulator tracks the head reference
as ``snake-sim run head-tracking-pfl`` does, with manipulability_monitor watching."""

import dataclasses
import math

import numpy as np
import pytest
import yaml

from snake_control.graph import control_nodes, sea_mode_params, simulator_node
from snake_control.testing import lockstep_simulator
from snake_core.locator import data_dir
from snake_sim.scenario import load_scenario
from snake_sim.vertical.runtime import run_scenario

#: The graph tests run one after another on one pytest-xdist worker (each starts up to 8 processes).
pytestmark = pytest.mark.xdist_group("ros_graph")

ROBOT = "koopaee6"
PERIOD = 2.0  # [s] of the pedal wave at ω = π (config/snake_control.yaml, the scenario pedal-wave)
#: Head-tip progress compared over whole periods, after the first (the start from a straight body)
WINDOW = (PERIOD, 4 * PERIOD)
#: Graph against embedded run, head-tip progress (measured with 3 busy processes beside the suite on 2 cores:
#: position per joint 17.2–17.3 mm in 7 runs, composed 14.3–17.2 mm in 6 of 7 runs, TSC 1.4–3.2 mm, against
#: 16.1 and 2.7 mm; the same command path stepped without ROS gives 17.0 mm for position): the simulator
#: differences β_d for the β̇_d of (4.39), which the forward command controller does not carry, and the
#: graph's start (the gait's phase when the robot begins to follow) depends on when each process comes up.
#: The gait reference reaching a controller a period late (most ticks under load) no longer counts: the
#: controller tracks it at its own time (sea_joint_controller).
PROGRESS_TOLERANCE = 0.15  # relative
PROGRESS_FLOOR = 0.001  # [m] absolute, for gaits that barely move


def embedded_progress(mode: str) -> float:
    """Head-tip progress along x over WINDOW of `snake-sim run pedal-wave` with the gains of sea_modes/<mode>.yaml."""
    modes = yaml.safe_load((data_dir() / sea_mode_params(mode)).read_text())
    gains = modes["/**/sea_joint_controller"]["ros__parameters"]["controller"]
    log = run_scenario(load_scenario("pedal-wave", [f"controller.{k}={v}" for k, v in gains.items()]
                                     + [f"sim.duration={WINDOW[1]}"]))
    tip = log.head_position[:, 0]
    return float(np.interp(WINDOW[1], log.t, tip) - np.interp(WINDOW[0], log.t, tip))


def run_graph(ros_graph, mode: str, layout: str) -> float:
    """Head-tip progress along x over WINDOW of gait time through the graph."""
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState

    sim = simulator_node(ROBOT, "flat")
    ros_graph.start(lockstep_simulator(sim))
    for spec in control_nodes(ROBOT, controller=mode, layout=layout):
        ros_graph.start(spec)
    odometry = ros_graph.record("/head/odometry", Odometry)
    reference = ros_graph.record("/gait/reference", JointState)

    def stamp(msg):
        return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9

    ros_graph.spin_until(lambda: reference and odometry and stamp(odometry[-1]) > stamp(reference[0]) + WINDOW[1],
                         f"{WINDOW[1]} s of gait", timeout=300.0)
    t = np.array([stamp(m) for m in odometry])
    x = np.array([m.pose.pose.position.x for m in odometry])
    t0 = stamp(reference[0])  # the gait's t = 0
    return float(np.interp(t0 + WINDOW[1], t, x) - np.interp(t0 + WINDOW[0], t, x))


@pytest.mark.parametrize(("mode", "layout"), [
    ("position", "per_joint"), ("position", "composed"), ("tsc", "per_joint"),
    pytest.param("stiffness", "composed", marks=pytest.mark.xfail(strict=True, reason=(
        "known: local stiffness control's β̇_d is not the rate of its β_d; with β_d alone on "
        "/motor_position_controller/commands the simulator's differenced β̇_d changes the motion "
        "(−88 mm against +2.6 mm over three periods, even stepped without ROS)"))),
])
def test_pedal_wave_through_the_graph_moves_the_robot_as_the_embedded_simulator(ros_graph, mode, layout):
    got = run_graph(ros_graph, mode, layout)
    n_processes = len(ros_graph.processes)
    assert n_processes == (8 if layout == "per_joint" else 3)  # simulator, gait, 5 joints + mux | 1 node
    expected = embedded_progress(mode)
    assert math.isfinite(got)
    assert got == pytest.approx(expected, rel=PROGRESS_TOLERANCE, abs=PROGRESS_FLOOR), (got, expected)


#: Head tracking on the planar model (004 §6.1.3): the PFL scenario over its evaluation window [0, 3] s
#: (its torques blow up near 3.9 s by design); the node's parameters (config/snake_control.yaml) are
#: the scenario's.
PLANAR_ROBOT = "ariizumi10"
PLANAR_SCENARIO = "head-tracking-pfl"
#: Sim time from the controller's first torque to the reference's start: the head holds its start pose
#: meanwhile (the runtime's tracker and reference start together; a reference starting later changes
#: the stepped loop's RMS error by < 1e-8 m, one starting 10 ms earlier by +0.4 mm).
REFERENCE_DELAY = 0.5  # [s]
#: Graph against `snake-sim run head-tracking-pfl`, RMS head error over [0, 3] s of the reference
#: (measured: graph 6.555 mm, runtime 6.679 mm, the loop stepped without ROS 6.555 mm): the graph's
#: tracker is sampled at 100 Hz with its torques held, the runtime's acts in continuous time.
HEAD_ERROR_TOLERANCE = 0.05  # relative
#: /manipulability's R against snake_core's monitor on a recorded joint state (same arithmetic on the
#: same float64 angles; measured: 0 relative).
R_TOLERANCE = 1e-9  # relative


def test_planar_head_tracking_through_the_graph_tracks_as_the_embedded_simulator(ros_graph):
    """simulator (planar model, rigid joints) → head_tracking_controller → motor_command_mux (effort) →
    simulator, manipulability_monitor watching: the head follows the scenario's reference as in
    `snake-sim run`, and /manipulability is 004's R of the posture the simulator publishes."""
    from diagnostic_msgs.msg import DiagnosticArray
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Odometry, Path
    from rclpy.time import Time
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    from snake_control.ros_interface import LATCHED_QOS, quaternion_about_z, seconds
    from snake_control.testing import capture_qos
    from snake_core.gaits import make_gait
    from snake_core.interface import joint_names
    from snake_core.planar.convention import head_pose_to_world, q_from_world
    from snake_core.planar.head_tracking import PFLGains
    from snake_core.planar.manipulability import ManipulabilityMonitor
    from snake_core.planar.model import build_model
    from snake_core.planar.path_reference import sampled_reference
    from snake_core.robot import load_robot
    from snake_sim.planar import runtime as planar_runtime
    from snake_sim.planar.report import head_tracking_summary

    scenario = load_scenario(PLANAR_SCENARIO)
    setup = planar_runtime.build(scenario)
    robot = load_robot(PLANAR_ROBOT)
    t0, t1 = setup.evaluation_window
    # The controller's parameters, as the launch files pass them, are the scenario's tracker.
    params = yaml.safe_load((data_dir() / "config/snake_control.yaml").read_text())
    params = params["head_tracking_controller"]["ros__parameters"]
    assert params["controller"]["mode"] == scenario.section("controller")["mode"] == "pfl"
    assert not set(params["controller"]) - {"mode"}  # 004's gains (79), the scenario's
    assert all(np.array_equal(getattr(PFLGains.diagonal(robot.n_joints), f.name), getattr(setup.tracker.gains,
               f.name)) for f in dataclasses.fields(PFLGains))
    shape = make_gait("serpenoid", robot.n_joints, params["gait"], "config/snake_control.yaml")
    assert all(np.allclose(shape.phi(t), setup.shape.phi(t)) for t in np.linspace(t0, t1, 7))

    sim = simulator_node(PLANAR_ROBOT, "flat", PLANAR_SCENARIO)
    ros_graph.start(lockstep_simulator(sim))
    specs = control_nodes(PLANAR_ROBOT, head_tracking=True, manipulability=True)
    assert sorted(s.executable for s in specs) == ["head_tracking_controller", "manipulability_monitor",
                                                   "motor_command_mux"]
    assert [s.parameters["mode"] for s in specs if s.executable == "motor_command_mux"] == ["effort"]
    for spec in specs:
        ros_graph.start(spec)
    odometry = ros_graph.record("/head/odometry", Odometry)
    torques = ros_graph.record("/sea/torque_reference", JointState)
    diagnostics = ros_graph.record("/diagnostics", DiagnosticArray)
    arrivals: list[tuple[str, object]] = []  # /joint_states and /manipulability in the order they arrive
    capture = capture_qos()
    ros_graph.probe.create_subscription(JointState, "/joint_states", lambda m: arrivals.append(("joints", m)),
                                        capture)
    ros_graph.probe.create_subscription(Float64MultiArray, "/manipulability", lambda m: arrivals.append(("R", m)),
                                        capture)

    def on_sim_time(node: str) -> bool:  # ``node`` has reported on /diagnostics at a simulation time
        return any(s.name == node and seconds(d.header.stamp) > 0.0 for d in diagnostics for s in d.status)

    def waiting_for_reference() -> bool:  # inputs fresh, only the reference missing
        return any(s.name == "/head_tracking_controller" and "no /head/reference" in s.message
                   for d in diagnostics for s in d.status)

    ros_graph.spin_until(lambda: odometry and waiting_for_reference() and on_sim_time("/motor_command_mux")
                         and on_sim_time("/manipulability_monitor"),
                         "every node on the simulation's clock, the controller's inputs", timeout=60.0)
    period = scenario.control_period
    start = round((seconds(odometry[-1].header.stamp) + REFERENCE_DELAY) / period) * period
    s = np.arange(0.0, scenario.duration + 1e-9, scenario.log_period)  # reference time
    poses = head_pose_to_world(np.array([setup.reference(t).w for t in s]))  # (X, Y, ψ), 004 (80) in the world
    path = Path()
    path.header.frame_id = "world"
    path.header.stamp = Time(seconds=start).to_msg()
    for t, (x, y, psi) in zip(start + s, poses, strict=True):
        pose = PoseStamped()
        pose.header.frame_id, pose.header.stamp = "world", Time(seconds=t).to_msg()
        pose.pose.position.x, pose.pose.position.y = float(x), float(y)
        pose.pose.orientation = quaternion_about_z(float(psi))
        path.poses.append(pose)
    ros_graph.probe.create_publisher(Path, "/head/reference", LATCHED_QOS).publish(path)
    ros_graph.spin_until(lambda: seconds(odometry[-1].header.stamp) > start + t1 + period,
                         f"{t1} s of head tracking", timeout=300.0)
    assert len(ros_graph.processes) == 4

    # Lockstep: every step applies the torques computed from the state it starts at (zero-order hold),
    # once the simulator has taken the first command (the steps it ran on its own while the tracker's
    # first torques were on their way hold zero torque; it then takes the latest and locks)
    computed = {round(seconds(m.header.stamp) / period): list(m.effort) for m in torques}
    applied = {round(seconds(m.header.stamp) / period): list(m.effort) for kind, m in arrivals if kind == "joints"}
    assert computed, "no torque from head_tracking_controller"
    first = min(computed)
    assert first * period < start  # the tracker ran before the reference moved
    free = [k for k in sorted(applied) if k > first and not any(applied[k])]
    assert free == list(range(first + 1, first + 1 + len(free))) and len(free) <= 20, free  # ≤ 0.2 s, before the window
    out_of_step = [k * period for k in applied if k > first + len(free) and applied[k] != computed.get(k - 1)]
    assert not out_of_step, f"steps not applying the previous period's torque (from {first * period:.2f} s): " \
        f"{out_of_step[:10]}"

    # The head tracking error over the evaluation window, against the reference the controller received
    reference = sampled_reference(start + s, poses)
    t = np.array([seconds(m.header.stamp) for m in odometry])
    head = np.array([(m.pose.pose.position.x, m.pose.pose.position.y) for m in odometry])
    inside = (t >= start + t0 - 1e-6) & (t <= start + t1 + 1e-6)
    expected_xy = np.array([head_pose_to_world(reference(tk).w)[:2] for tk in t[inside]])
    error = np.linalg.norm(head[inside] - expected_xy, axis=1)
    got = float(np.sqrt(np.mean(error**2)))
    expected = head_tracking_summary(planar_runtime.run_scenario(
        load_scenario(PLANAR_SCENARIO, [f"sim.duration={t1}"])), scenario)["head_error_rms_m"]
    assert inside.sum() == round((t1 - t0) / period) + 1
    assert got == pytest.approx(expected, rel=HEAD_ERROR_TOLERANCE), (got, expected)
    assert head[inside][-1, 0] == pytest.approx(head[inside][0, 0] - 0.1 * (t1 - t0), abs=0.02)  # tail first, −X

    # /manipulability's R is snake_core's monitor on one of the joint states the simulator published (which
    # one the monitor held at its tick depends on delivery, so each R is matched against all of them)
    monitor = ManipulabilityMonitor(build_model(robot))
    names = joint_names(robot.n_joints)

    def R_of(msg) -> float:
        alpha = np.array([msg.position[msg.name.index(n)] for n in names])
        return monitor.evaluate(q_from_world(np.zeros(2), 0.0, alpha)).R

    postures = np.array([R_of(m) for kind, m in arrivals if kind == "joints"])
    published = [m.data[1] for kind, m in arrivals if kind == "R"]
    mismatch = [float(np.min(np.abs(postures - r))) / r for r in published]
    assert len(published) > 20 and max(mismatch) < R_TOLERANCE, max(mismatch)
    assert max(published) > 1.5 * min(published)  # the posture changes: the match is not trivial
