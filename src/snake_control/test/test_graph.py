"""The ROS 2 graph on the real middleware, every node in its own process started from its console
script with the parameter files the launch files pass (snake_control.graph, the one definition both
read), in lockstep on the simulator's /clock: gait_generator → sea_joint_controller(s) →
(motor_command_mux) → simulator, and on the planar model (004) head_tracking_controller →
motor_command_mux (effort) → simulator with manipulability_monitor watching.

In lockstep the graph computes exactly what the same command path computes stepped without ROS (the
simulator node's loop over snake_sim.core.stepping driven in-process, the controllers and the gait of
snake_core with the nodes' parameter files): every sample agrees to EXACT, on any machine at any load.
Against ``snake-sim run`` of the same scenario the graph differs by a stated tolerance, for a stated
reason (its run starts one control period later, from a period of holding the start command; the torques of
the planar model are held through a period)."""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np
import pytest
import yaml

from snake_control import graph as launcher
from snake_control.graph import control_nodes, sea_mode_params, simulator_node
from snake_core.controllers.limits import command_limits
from snake_core.interface import JointStateLayout
from snake_core.locator import data_dir
from snake_core.robot import load_robot
from snake_sim.core.scenario import load_scenario
from snake_sim.core.stepping import stepper
from snake_sim.engines.vertical.runtime import run_scenario
from snake_test_support.ros import graph_harness

#: The graph tests run one after another on one pytest-xdist worker (each starts up to 8 processes).
pytestmark = pytest.mark.xdist_group("ros_graph")

ROBOT = "koopaee6"
RATE = 100.0  # [Hz] of the simulator and of every controller (config/snake_control.yaml)
PERIOD = 2.0  # [s] of the pedal wave at ω = π (config/snake_control.yaml, the scenario pedal-wave)
#: Head-tip progress compared over whole periods, after the first (the start from a straight body)
WINDOW = (PERIOD, 4 * PERIOD)
#: Graph against the same loop stepped without ROS, every state at every tick [rad, m]: the same float64
#: arithmetic on the same numbers (messages carry float64), so only a wrong tick, a reordered input or a
#: lost command can make a difference, and any of these makes one far above it.
EXACT = 1e-9
#: Graph against `snake-sim run`, head-tip progress over WINDOW: the simulator takes the SEA controllers' β̇_d
#: with their β_d (/motor_velocity_controller/commands), so a period is the runtime's period (the stepper driven
#: by the runtime's controllers is the runtime, snake_sim's test_sea_loop); the graph starts one period later, after
#: a period holding the start command (its first command answers t = one period), and its first period's β̈_d
#: estimate starts from that hold's β̇_d = 0: a difference well within this tolerance, which leaving out β̇_d
#: (the motor PD then feeds forward the backward difference of β_d) exceeds several times over, and under local
#: stiffness control, whose β̇_d is not the rate of its β_d, turns the crawl backwards.
PROGRESS_TOLERANCE = 0.01  # relative
PROGRESS_FLOOR = 1e-5  # [m] absolute, for gaits that barely move
#: The first tick [ns]: rclpy's timers never fire at ROS time 0, so the controllers' first answer, and the gait's
#: t = 0, is one period (the simulator steps tick 0 with its start command).
ORIGIN = round(1e9 / RATE)
SEA_CASES = [("position", "per_joint"), ("position", "composed"), ("tsc", "per_joint"), ("tsc", "composed"),
             ("stiffness", "composed")]
COMPOSED_CASES = [c for c in SEA_CASES if c[1] == "composed"]
#: Seconds of gait a case runs: WINDOW's end for the progress on the composed layout; two periods for the
#: per-joint layout (five controller processes and the mux), whose run is the same loop without ROS as the
#: composed one's to EXACT (the progress follows from that), so that its every tick is checked over a period of
#: gait after the first, in half the time.
GAIT_SECONDS = {"composed": WINDOW[1], "per_joint": 2 * PERIOD}


def stamp(msg) -> int:
    """header.stamp [ns]."""
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def node_parameters(section: str, mode: str | None = None) -> dict:
    """The ros__parameters of ``section`` in config/snake_control.yaml (and the gains of sea_modes/<mode>.yaml)."""
    params = yaml.safe_load((data_dir() / "config/snake_control.yaml").read_text())[section]["ros__parameters"]
    if mode is not None:
        modes = yaml.safe_load((data_dir() / sea_mode_params(mode)).read_text())
        params["controller"] = {**params["controller"], **modes["/**/sea_joint_controller"]["ros__parameters"]
                                ["controller"]}
    return params


@dataclass
class Trajectory:
    """Per tick k (t_k = k / RATE): the joint angles α, the motor angles β (SEA robots) and the head tip."""

    t_ns: np.ndarray
    alpha: np.ndarray
    beta: np.ndarray | None
    head: np.ndarray

    def at(self, t_ns: np.ndarray) -> Trajectory:
        """The samples of the ticks ``t_ns``."""
        k = np.searchsorted(self.t_ns, t_ns)
        assert np.array_equal(self.t_ns[k], t_ns)
        return Trajectory(self.t_ns[k], self.alpha[k], None if self.beta is None else self.beta[k], self.head[k])

    def progress(self, t0_ns: int) -> float:
        """Head-tip progress along x over WINDOW of gait time (t = 0 at t0_ns)."""
        t = (self.t_ns - t0_ns) * 1e-9
        # (np.interp holds the end values outside the samples: a short record would give 0 progress)
        assert len(t) and t[0] <= WINDOW[0] and t[-1] >= WINDOW[1], \
            f"the trajectory covers {t[:1]}..{t[-1:]} s of gait time, not the window {WINDOW} s"
        return float(np.interp(WINDOW[1], t, self.head[:, 0]) - np.interp(WINDOW[0], t, self.head[:, 0]))


def recorded(joint_states, odometry, n_joints: int, sea: bool) -> Trajectory:
    """The graph's trajectory from what the probe recorded, one sample per tick (the simulator republishes the
    tick it waits on: the copies are the same message)."""
    layout = JointStateLayout(n_joints, sea=sea)
    joints = {stamp(m): layout.read(m.name, m.position, m.velocity, m.effort) for m in joint_states}
    heads = {stamp(m): (m.pose.pose.position.x, m.pose.pose.position.y) for m in odometry}
    ticks = sorted(set(joints) & set(heads))
    return Trajectory(np.array(ticks), np.array([joints[k].alpha for k in ticks]),
                      np.array([joints[k].beta for k in ticks]) if sea else None, np.array([heads[k] for k in ticks]))


def reached(end_ns: int, *recorded_topics) -> bool:
    """Every topic has been recorded up to ``end_ns``."""
    return all(r and stamp(r[-1]) >= end_ns for r in recorded_topics)


def missed_ticks(graph: Trajectory) -> str:
    """What keeps the record from having one sample per tick from the first tick (ORIGIN; tick 0 may precede the
    probe's match) on, none twice: empty if nothing."""
    if not len(graph.t_ns) or graph.t_ns[0] > ORIGIN:
        return f"the probe's record of joint states and odometry begins at {graph.t_ns[:1]} ns, after tick {ORIGIN}"
    gaps = np.flatnonzero(np.diff(graph.t_ns) != ORIGIN)
    return f"ticks missing or repeated after {graph.t_ns[gaps][:5]} ns ({len(gaps)} places)" if len(gaps) else ""


def stepped_without_ros(scenario, command, ticks: int) -> Trajectory:
    """The simulator node's loop driven in-process: tick 0 steps with the start command, tick k ≥ 1 with
    ``command(t_ns, sim)`` (the arguments of the step: the command, and for SEA motors its rate), the answer to
    the states of t_k, as the lock-stepped graph does; β_d and β̇_d within the robot's command limits from the last
    step's (the node clamps what comes from the topic)."""
    sim = stepper(scenario)
    limits = command_limits(load_robot(scenario.section("robot")["name"])) \
        if sim.command_interface == "position" else None
    stepped = sim.hold_command()
    t_ns, alpha, beta, head = [], [], [], []
    for k in range(ticks + 1):
        now = round(1e9 * sim.t)
        j = sim.joints()
        t_ns.append(now)
        alpha.append(j.alpha)
        beta.append(j.beta)
        head.append(sim.head().position[:2])
        if k < ticks:
            args = (sim.hold_command(),) if now == 0 else tuple(command(now, sim))
            answer, rate = np.asarray(args[0], dtype=float), (np.asarray(args[1], dtype=float) if args[1:] else None)
            if limits is not None:
                answer, rate, _ = limits.command(answer, rate, stepped, sim.control_period, j.beta)
            stepped = answer
            sim.step(stepped, *(() if rate is None else (rate,)))
    return Trajectory(np.array(t_ns), np.array(alpha), None if beta[0] is None else np.array(beta), np.array(head))


def sea_loop(mode: str, origin_ns: int, ticks: int) -> Trajectory:
    """gait_generator → sea_joint_controller → simulator without ROS: the gait (t = 0 at ``origin_ns``) and the
    controllers of snake_core built from the nodes' parameter files, the measurements through the
    /joint_states layout the simulator writes and the controllers read."""
    from snake_control.gait_generator import SOURCE, build_gait
    from snake_core.controllers import JointMeasurement, JointReference, make_joint_controllers
    from snake_core.robot import load_robot

    robot = load_robot(ROBOT)
    gait_params = node_parameters("gait_generator")["gait"]
    gait = build_gait(gait_params.pop("type"), robot.n_joints, gait_params, SOURCE)
    controller = node_parameters("/**/sea_joint_controller", mode)["controller"]
    controllers = make_joint_controllers(mode, robot, controller, "test")
    layout = JointStateLayout(robot.n_joints, sea=True)

    def command(t_ns: int, sim) -> tuple[np.ndarray, np.ndarray]:
        j = sim.joints()
        reading = layout.read(layout.names, *(list(map(float, f)) for f in layout.write(
            j.alpha, j.alpha_dot, j.tau, j.beta, j.beta_dot, j.motor_torque)))
        alpha_d, alpha_d_dot = gait.reference(t_ns * 1e-9 - origin_ns * 1e-9)
        out = []
        for i, c in enumerate(controllers):
            alpha, alpha_dot, tau, beta = reading.of(i + 1)
            measured = JointMeasurement(alpha, alpha_dot, beta, tau, reading.of(i)[0] if i else None)
            out.append(c.step(t_ns * 1e-9, 1.0 / RATE, measured,
                              JointReference(float(alpha_d[i]), float(alpha_d_dot[i]), 0.0)))
        return np.array([c.beta_d for c in out]), np.array([c.beta_d_dot for c in out])

    scenario = load_scenario("pedal-wave", [f"robot.name={ROBOT}", "world.file=flat", f"sim.control_rate={RATE}"])
    return stepped_without_ros(scenario, command, ticks)


@functools.cache
def embedded_progress(mode: str) -> float:
    """Head-tip progress along x over WINDOW of `snake-sim run pedal-wave` with the gains of sea_modes/<mode>.yaml."""
    gains = node_parameters("/**/sea_joint_controller", mode)["controller"]
    log = run_scenario(load_scenario("pedal-wave", [f"controller.{k}={v}" for k, v in gains.items()]
                                     + [f"robot.name={ROBOT}", f"sim.duration={WINDOW[1]}"]))  # the graph's robot
    tip = log.head_position[:, 0]
    return float(np.interp(WINDOW[1], log.t, tip) - np.interp(WINDOW[0], log.t, tip))


@dataclass
class SeaRun:
    mode: str
    seconds: float  # of gait run (GAIT_SECONDS)
    graph: Trajectory
    loop: Trajectory
    processes: int
    references: list[tuple[int, list[float]]]  # (stamp, α_d) of the /gait/reference messages recorded
    answers: list[int | None]  # the stamps the simulator's commands answer, in order of arrival


#: (mode, layout) → its SeaRun, in the session's stash: each case runs once for all the tests that read it,
#: whatever their order and whenever pytest-xdist tears fixtures down (a worker with no next test queued
#: tears down the module's fixtures).
SEA_RUNS = pytest.StashKey[dict]()


@pytest.fixture(params=SEA_CASES, ids=lambda c: "-".join(c))
def sea_run(request, tmp_path_factory) -> SeaRun:
    runs = request.config.stash.setdefault(SEA_RUNS, {})
    if request.param not in runs:
        runs[request.param] = run_sea_graph(*request.param, tmp_path_factory.mktemp("-".join(request.param)))
    return runs[request.param]


def run_sea_graph(mode: str, layout: str, workdir) -> SeaRun:
    """One lock-stepped graph run of the layout's GAIT_SECONDS of gait, and the loop without ROS."""
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    from snake_control.ros_interface import answered

    with graph_harness(workdir, launcher) as ros_graph:
        odometry = ros_graph.record("/head/odometry", Odometry)
        joint_states = ros_graph.record("/joint_states", JointState)
        reference = ros_graph.record("/gait/reference", JointState)
        commands = ros_graph.record("/motor_position_controller/commands", Float64MultiArray)
        ros_graph.start_simulator(simulator_node(ROBOT, "flat", lockstep=True), joint_states, odometry)
        for spec in control_nodes(ROBOT, controller=mode, layout=layout, lockstep=True):
            ros_graph.start(spec)
        seconds = GAIT_SECONDS[layout]
        end = ORIGIN + round(seconds * 1e9)
        ros_graph.spin_until(lambda: reached(end, odometry, joint_states) and bool(commands)
                             and answered(commands[-1]) >= end, f"{seconds} s of gait", timeout=600.0)
        processes = len(ros_graph.processes)
    graph = recorded(joint_states, odometry, 5, sea=True)
    loop = sea_loop(mode, ORIGIN, round(graph.t_ns[-1] / ORIGIN)).at(graph.t_ns)
    return SeaRun(mode, seconds, graph, loop, processes, [(stamp(m), list(m.position)) for m in reference],
                  [answered(c) for c in commands])


def test_lockstep_graph_starts_the_gait_at_the_first_tick_and_answers_every_tick(sea_run):
    """The gait's t = 0 is the controllers' first tick, ORIGIN, whenever each process came up; the commands
    answer every tick (an answer the simulator did not get in time is sent again when it republishes the
    tick: a tick may be answered twice, the simulator steps once)."""
    from snake_control.gait_generator import SOURCE, build_gait

    assert sea_run.processes in (3, 8)  # simulator, gait, one composed node | five joints and the mux
    params = node_parameters("gait_generator")["gait"]
    gait = build_gait(params.pop("type"), 5, params, SOURCE)
    assert sea_run.references and all(alpha_d == list(gait.reference(t * 1e-9 - ORIGIN * 1e-9)[0])
                                      for t, alpha_d in sea_run.references)
    answers = sea_run.answers  # from when the probe matched the controller's publisher on
    assert None not in answers and max(answers) >= ORIGIN + round(sea_run.seconds * 1e9)
    assert set(range(min(answers), max(answers) + 1, ORIGIN)) == set(answers)


def test_lockstep_graph_moves_the_robot_exactly_as_the_loop_stepped_without_ros(sea_run, record_property):
    graph, loop = sea_run.graph, sea_run.loop
    assert not missed_ticks(graph), missed_ticks(graph)
    record_property("difference", float(max(np.abs(a - b).max() for a, b in  # a float: xdist serialises it
                                            ((graph.alpha, loop.alpha), (graph.beta, loop.beta),
                                             (graph.head, loop.head)))))
    assert graph.t_ns[-1] >= ORIGIN + round(sea_run.seconds * 1e9)
    assert np.abs(graph.alpha - loop.alpha).max() <= EXACT
    assert np.abs(graph.beta - loop.beta).max() <= EXACT
    assert np.abs(graph.head - loop.head).max() <= EXACT
    assert np.ptp(graph.alpha[graph.t_ns * 1e-9 > PERIOD]) > 0.1  # the gait moved the joints: the match is not trivial


@pytest.mark.parametrize("sea_run", COMPOSED_CASES, ids=lambda c: "-".join(c), indirect=True)
def test_lockstep_graph_progresses_as_the_embedded_simulator(sea_run):
    """Local stiffness control (002 §6) too, whose β̇_d = α̇_d is not the rate of its β_d = α_d + α_s: the motor PD
    feeds forward the controller's β̇_d in the graph as in the runtime. (The per-joint layout moves exactly as the
    composed one: both are the same loop without ROS to EXACT.)"""
    got = sea_run.graph.progress(ORIGIN)
    expected = embedded_progress(sea_run.mode)
    assert math.isfinite(got)
    assert got == pytest.approx(expected, rel=PROGRESS_TOLERANCE, abs=PROGRESS_FLOOR), (got, expected)


#: Head tracking on the planar model (004 §6.1.3): the PFL scenario over its evaluation window [0, 3] s
#: (its torques blow up near 3.9 s by design); the node's parameters (config/snake_control.yaml) are
#: the scenario's.
PLANAR_ROBOT = "ariizumi10"
PLANAR_SCENARIO = "head-tracking-pfl"
#: Graph against `snake-sim run head-tracking-pfl`, RMS head error over [0, 3] s of the reference: the graph's
#: tracker is sampled at 100 Hz with its torques held for a period (and the first period holds no torque),
#: the runtime's acts in continuous time.
HEAD_ERROR_TOLERANCE = 0.05  # relative
#: /manipulability's R against snake_core's monitor on a recorded joint state (same arithmetic on the
#: same float64 angles).
R_TOLERANCE = 1e-9  # relative


def head_tracking_loop(path, ticks: int) -> Trajectory:
    """head_tracking_controller → motor_command_mux → simulator without ROS: the tracker built from the node's
    parameters, its inputs through the /joint_states and /head/odometry conversions the nodes use, its first
    torque at the first tick (the tracker's t = 0)."""
    from snake_control.ros_interface import odometry, odometry_planar, seconds, time_msg, yaw
    from snake_core.gaits import make_gait
    from snake_core.planar.convention import free_joints_from_suite, q_from_world, qd_from_world, reverse_joints
    from snake_core.planar.model import build_model
    from snake_core.planar.path_reference import sampled_reference
    from snake_core.planar.trackers import TRACKERS
    from snake_core.robot import load_robot

    robot = load_robot(PLANAR_ROBOT)
    params = node_parameters("head_tracking_controller")
    tracker = TRACKERS.get(params["controller"]["mode"]).build(
        build_model(robot), {}, make_gait("serpenoid", robot.n_joints, params["gait"], "test"),
        free_joints_from_suite([], robot.n_links))
    reference = sampled_reference([seconds(p.header.stamp) for p in path.poses],
                                  [(p.pose.position.x, p.pose.position.y, yaw(p.pose.orientation)) for p in path.poses])
    layout = JointStateLayout(robot.n_joints, sea=False)
    first = round(1e9 / RATE)

    def command(t_ns: int, sim) -> tuple[np.ndarray]:
        j, h = sim.joints(), sim.head()
        reading = layout.read(layout.names, *(list(map(float, f)) for f in layout.write(j.alpha, j.alpha_dot, j.tau)))
        message = odometry(time_msg(t_ns), "world", "head_tip", h.position, h.orientation, h.linear, h.angular)
        x, y, heading, vx, vy, rate = odometry_planar(message)
        q = q_from_world(np.array([x, y]), heading, reading.alpha)
        qd = qd_from_world(np.array([vx, vy]), rate, reading.alpha_dot)
        return (reverse_joints(tracker.step(t_ns * 1e-9 - first * 1e-9, q, qd, reference(t_ns * 1e-9))),)

    scenario = load_scenario(PLANAR_SCENARIO, [f"robot.name={PLANAR_ROBOT}", "world.file=flat",
                                               f"sim.control_rate={RATE}"])
    return stepped_without_ros(scenario, command, ticks)


def test_planar_head_tracking_through_the_graph_is_the_loop_without_ros_and_tracks_as_the_embedded_simulator(
        ros_graph, record_property):
    """simulator (planar model, rigid joints) → head_tracking_controller → motor_command_mux (effort) →
    simulator in lockstep, manipulability_monitor watching: every sample is the loop's without ROS, the head
    follows the scenario's reference as in `snake-sim run`, and /manipulability is 004's R of the posture the
    simulator publishes."""
    from geometry_msgs.msg import PoseStamped
    from nav_msgs.msg import Odometry, Path
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    from snake_control.ros_interface import LATCHED_QOS, quaternion_about_z, time_msg
    from snake_core.gaits import make_gait
    from snake_core.interface import joint_names
    from snake_core.planar.convention import head_pose_to_world, q_from_world
    from snake_core.planar.head_tracking import PFLGains
    from snake_core.planar.manipulability import ManipulabilityMonitor
    from snake_core.planar.model import build_model
    from snake_core.planar.path_reference import sampled_reference
    from snake_core.robot import load_robot
    from snake_sim.engines.planar import runtime as planar_runtime
    from snake_sim.engines.planar.report import head_tracking_summary

    scenario = load_scenario(PLANAR_SCENARIO)
    setup = planar_runtime.build(scenario)
    robot = load_robot(PLANAR_ROBOT)
    t0, t1 = setup.evaluation_window
    # The controller's parameters, as the launch files pass them, are the scenario's tracker.
    params = node_parameters("head_tracking_controller")
    assert params["controller"]["mode"] == scenario.section("controller")["mode"] == "pfl"
    assert not set(params["controller"]) - {"mode"}  # 004's gains (79), the scenario's
    assert all(np.array_equal(getattr(PFLGains.diagonal(robot.n_joints), f.name), getattr(setup.tracker.gains,
               f.name)) for f in dataclasses.fields(PFLGains))
    shape = make_gait("serpenoid", robot.n_joints, params["gait"], "config/snake_control.yaml")
    assert all(np.allclose(shape.phi(t), setup.shape.phi(t)) for t in np.linspace(t0, t1, 7))

    # The reference (latched) starts with the tracker, at its first tick: one period
    period_ns = round(1e9 / RATE)
    s = np.arange(0.0, scenario.duration + 1e-9, scenario.log_period)  # reference time
    poses = head_pose_to_world(np.array([setup.reference(t).w for t in s]))  # (X, Y, ψ), 004 (80) in the world
    path = Path()
    path.header.frame_id = "world"
    path.header.stamp = time_msg(period_ns)
    for t, (x, y, psi) in zip(s, poses, strict=True):
        pose = PoseStamped()
        pose.header.frame_id, pose.header.stamp = "world", time_msg(period_ns + round(t * 1e9))
        pose.pose.position.x, pose.pose.position.y = float(x), float(y)
        pose.pose.orientation = quaternion_about_z(float(psi))
        path.poses.append(pose)
    ros_graph.probe.create_publisher(Path, "/head/reference", LATCHED_QOS).publish(path)

    odometry = ros_graph.record("/head/odometry", Odometry)
    joint_states = ros_graph.record("/joint_states", JointState)
    torques = ros_graph.record("/sea/torque_reference", JointState)
    manipulability = ros_graph.record("/manipulability", Float64MultiArray)
    ros_graph.start_simulator(simulator_node(PLANAR_ROBOT, "flat", PLANAR_SCENARIO, lockstep=True),
                              joint_states, odometry)
    specs = {s.executable: s for s in control_nodes(PLANAR_ROBOT, head_tracking=True, manipulability=True,
                                                    lockstep=True)}
    assert sorted(specs) == ["head_tracking_controller", "manipulability_monitor", "motor_command_mux"]
    assert specs["motor_command_mux"].parameters["mode"] == "effort"
    # the mux, which sends the simulator its torques, last: the simulator holds its first tick until the probe
    # records the tracker's and the monitor's outputs
    ros_graph.start(specs["head_tracking_controller"], matched=("/sea/torque_reference",))
    ros_graph.start(specs["manipulability_monitor"], matched=("/manipulability",))
    ros_graph.start(specs["motor_command_mux"])
    end = period_ns + round(t1 * 1e9) + period_ns
    ros_graph.spin_until(lambda: reached(end, odometry, joint_states), f"{t1} s of head tracking", timeout=600.0)
    assert len(ros_graph.processes) == 4

    # Every sample is the loop's without ROS; each step applied the torque answering the tick it starts at
    graph = recorded(joint_states, odometry, robot.n_joints, sea=False)
    assert not missed_ticks(graph), missed_ticks(graph)
    loop = head_tracking_loop(path, round(graph.t_ns[-1] / period_ns)).at(graph.t_ns)
    record_property("difference", float(max(np.abs(graph.alpha - loop.alpha).max(),
                                            np.abs(graph.head - loop.head).max())))
    assert np.abs(graph.alpha - loop.alpha).max() <= EXACT
    assert np.abs(graph.head - loop.head).max() <= EXACT
    computed = {stamp(m): list(m.effort) for m in torques}
    applied = {stamp(m): list(m.effort) for m in joint_states}
    assert min(computed) == period_ns, f"the probe's first torque answers {min(computed)} ns, not the first tick"
    assert all(applied[k + period_ns] == computed[k] for k in computed if k + period_ns in applied)

    # The head tracking error over the evaluation window, against the reference the controller received
    reference = sampled_reference(period_ns * 1e-9 + s, poses)
    t = graph.t_ns * 1e-9
    inside = (t >= period_ns * 1e-9 + t0 - 1e-6) & (t <= period_ns * 1e-9 + t1 + 1e-6)
    expected_xy = np.array([head_pose_to_world(reference(tk).w)[:2] for tk in t[inside]])
    got = float(np.sqrt(np.mean(np.linalg.norm(graph.head[inside] - expected_xy, axis=1) ** 2)))
    expected = head_tracking_summary(planar_runtime.run_scenario(
        load_scenario(PLANAR_SCENARIO, [f"sim.duration={t1}"])), scenario)["head_error_rms_m"]
    assert inside.sum() == round((t1 - t0) * RATE) + 1
    assert got == pytest.approx(expected, rel=HEAD_ERROR_TOLERANCE), (got, expected)
    assert graph.head[inside][-1, 0] == pytest.approx(graph.head[inside][0, 0] - 0.1 * (t1 - t0), abs=0.02)  # −X

    # /manipulability's R is snake_core's monitor on one of the joint states the simulator published (which
    # one the monitor held at its tick depends on delivery: it is not in the lockstep, so each R is matched
    # against all of them)
    monitor = ManipulabilityMonitor(build_model(robot))
    names = joint_names(robot.n_joints)
    postures = np.array([monitor.evaluate(q_from_world(np.zeros(2), 0.0, np.array(
        [m.position[m.name.index(n)] for n in names]))).R for m in joint_states])
    published = [m.data[1] for m in manipulability]
    mismatch = [float(np.min(np.abs(postures - r))) / r for r in published]
    assert len(published) > 20 and max(mismatch) < R_TOLERANCE, max(mismatch)
    assert max(published) > 1.2 * min(published)  # the posture changes: the match is not trivial


def test_stop_ends_nodes_as_launch_does_ctrl_c_to_all_then_a_kill_for_what_ignores_it():
    """SIGINT to every process at once: a process that ends on Ctrl-C gives its own exit code, one that ignores it is
    killed (−9) once the timeout has passed."""
    import signal
    import subprocess
    import sys

    code = "import signal, sys, time; {}; print('ready', flush=True); time.sleep(60)"
    ending = "signal.signal(signal.SIGINT, lambda *_: sys.exit(3))"
    deaf = "signal.signal(signal.SIGINT, signal.SIG_IGN)"
    processes = [subprocess.Popen([sys.executable, "-c", code.format(how)], stdout=subprocess.PIPE, text=True)
                 for how in (deaf, ending, deaf)]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    assert launcher.stop(processes, timeout=0.5) == [-signal.SIGKILL, 3, -signal.SIGKILL]
    for process in processes:
        process.stdout.close()
