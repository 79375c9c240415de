"""The rosbag2/MCAP recording of a run, read back with rosbags' AnyReader (an independent reader),
and its /tf tree composed with transforms3d against the simulated link poses."""

import argparse
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
import transforms3d
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

from snake_core.planar.convention import q_from_world
from snake_core.planar.ellipse import DEFAULT_MARKER_SCALE, head_acceleration_ellipse
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import build_model
from snake_core.robot import load_robot
from snake_sim.commands.run import run as run_command
from snake_sim.core.models import runtime_for
from snake_sim.core.runlog import Diagnostic, RunLog
from snake_sim.core.scenario import DEMO_SCENARIO, load_scenario
from snake_sim.outputs.recording import TOPIC_TYPES, write_rosbag

T = 40


def chain_log(plane: str, with_sea: bool = True, extras: bool = False, robot_name: str = "koopaee6") -> RunLog:
    """A kinematically consistent run: a travelling wave on a chain of rigid links."""
    robot = load_robot(robot_name)
    n, two_l = robot.n_links, robot.link_length
    t = np.linspace(0.0, 0.78, T)
    j = np.arange(n - 1)
    alpha = 0.5 * np.sin(np.pi * t[:, None] - 1.2566 * j[None, :])
    # the suite's α_j = θ_j − θ_{j+1} (002 §4.3.1, snake_core.vertical.kinematics.link_angles)
    theta = np.concatenate([0.1 * np.sin(t)[:, None], 0.1 * np.sin(t)[:, None] - np.cumsum(alpha, axis=1)], axis=1)
    tail = np.zeros((T, 3))
    tail[:, 0] = 0.02 * t
    axis = np.stack([np.cos(theta), np.sin(theta)], axis=-1)
    starts = np.concatenate([np.zeros((T, 1, 2)), np.cumsum(two_l * axis, axis=1)[:, :-1]], axis=1)
    centres2 = starts + 0.5 * two_l * axis
    pos = np.repeat(tail[:, None, :], n, axis=1)
    second = 2 if plane == "xz" else 1
    pos[..., 0] += centres2[..., 0]
    pos[..., second] += centres2[..., 1]
    beta = alpha - 0.03 * np.cos(np.pi * t)[:, None] if with_sea else None
    log = RunLog(robot=robot, plane=plane, t=t, link_position=pos, link_angle=theta, alpha=alpha,
                 alpha_dot=np.gradient(alpha, t, axis=0),
                 tau=robot.sea.stiffness[0] * (alpha - beta) if with_sea else np.zeros_like(alpha), beta=beta,
                 alpha_ref=alpha + 0.01, alpha_ref_dot=np.gradient(alpha, t, axis=0), beta_ref=alpha + 0.02,
                 diagnostics=[Diagnostic(0.3, 1, "runtime", "joint 3 at its limit"),
                              Diagnostic(0.5, 2, "runtime", "stale")])
    if extras:
        log.manipulability = np.column_stack([np.full(T, 0.2), np.linspace(0.5, 0.1, T), np.full(T, 2.0),
                                              np.linspace(1.0, 0.2, T), np.full(T, 0.5)])
        log.head_reference = np.column_stack([0.1 * t, 0.02 * t, np.full(T, 0.2)])
    return log


def read(path: Path) -> dict[str, list]:
    out: dict[str, list] = {}
    with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        types = {c.topic: c.msgtype for c in reader.connections}
        for conn, t_ns, raw in reader.messages():
            out.setdefault(conn.topic, []).append((t_ns, reader.deserialize(raw, conn.msgtype)))
    out["__types__"] = types
    return out


@pytest.fixture(scope="module")
def xz_bag(tmp_path_factory):
    log = chain_log("xz")
    return log, read(write_rosbag(log, tmp_path_factory.mktemp("bag") / "rosbag"))


def test_bag_has_the_live_graph_topics_types_and_counts(xz_bag):
    log, bag = xz_bag
    types = bag.pop("__types__")
    expected = {k: v for k, v in TOPIC_TYPES.items() if not k.startswith(("/head/reference", "/manipulability"))}
    assert types == expected
    for topic in expected:
        want = 1 if topic in ("/tf_static", "/head/reference") else (4 if topic == "/diagnostics" else T)
        assert len(bag[topic]) == want, topic
        stamps = [t for t, _ in bag[topic]]
        assert all(b > a for a, b in pairwise(stamps)), f"{topic} not monotonic"
    assert bag["/clock"][-1][0] == round(log.t[-1] * 1e9)
    events = [(t_ns, s.level, s.message) for t_ns, msg in bag["/diagnostics"] for s in msg.status]
    assert [e[2] for e in events] == ["run started", "joint 3 at its limit", "stale", "run ended: ok"]
    assert [e[1] for e in events] == [0, 1, 2, 0]
    assert events[1][0] == round(log.t[np.searchsorted(log.t, 0.3)] * 1e9)  # at the first sample after 0.3 s


def test_joint_states_equal_the_run_at_the_same_times(xz_bag):
    log, bag = xz_bag
    for k, (t_ns, msg) in enumerate(bag["/joint_states"]):
        assert t_ns == round(log.t[k] * 1e9)
        assert msg.header.stamp.sec * 10**9 + msg.header.stamp.nanosec == t_ns
        idx = {name: i for i, name in enumerate(msg.name)}
        for j in range(1, 6):
            assert msg.position[idx[f"joint_{j}"]] == log.alpha[k, j - 1]
            assert msg.velocity[idx[f"joint_{j}"]] == log.alpha_dot[k, j - 1]
            assert msg.effort[idx[f"joint_{j}"]] == log.tau[k, j - 1]
            assert msg.position[idx[f"motor_{j}"]] == log.beta[k, j - 1]
            assert msg.position[idx[f"spring_{j}"]] == pytest.approx(log.alpha[k, j - 1] - log.beta[k, j - 1])
    ref = bag["/gait/reference"][7][1]
    assert list(ref.position) == pytest.approx(log.alpha_ref[7])


def _compose(transforms, frame):
    """World pose (R, p) of ``frame`` by chaining /tf parent → child transforms (transforms3d)."""
    by_child = {tf.child_frame_id: tf for tf in transforms}
    R, p = np.eye(3), np.zeros(3)
    chain = []
    while frame in by_child:
        chain.append(by_child[frame])
        frame = by_child[frame].header.frame_id
    assert frame == "world"
    for tf in reversed(chain):
        q = tf.transform.rotation
        tr = tf.transform.translation
        p = p + R @ np.array([tr.x, tr.y, tr.z])
        R = R @ transforms3d.quaternions.quat2mat([q.w, q.x, q.y, q.z])
    return R, p


@pytest.mark.parametrize("plane", ["xz", "xy"])
def test_tf_tree_reproduces_the_simulated_link_poses(plane, tmp_path):
    log = chain_log(plane, with_sea=plane == "xz")
    bag = read(write_rosbag(log, tmp_path / "rosbag"))
    normal = np.array([0.0, -1.0, 0.0]) if plane == "xz" else np.array([0.0, 0.0, 1.0])
    for k in (0, T // 2, T - 1):
        transforms = bag["/tf"][k][1].transforms
        for i in range(1, log.robot.n_links + 1):
            R, p = _compose(transforms, f"link_{i}")
            theta = log.link_angle[k, i - 1]
            centre = p + R @ np.array([0.5 * log.robot.link_length, 0.0, 0.0])
            assert centre == pytest.approx(log.link_position[k, i - 1], abs=1e-12)
            R_expected = transforms3d.axangles.axangle2mat(normal, theta)
            assert R == pytest.approx(R_expected, abs=1e-12)
        if plane == "xz":  # the rotor frame carries β: turned by β_j about the URDF's joint axis +y
            R_link, _ = _compose(transforms, "link_3")
            R_rotor, _ = _compose(transforms, "rotor_3")
            axis, angle = transforms3d.axangles.mat2axangle(R_link.T @ R_rotor)
            assert angle * axis[1] == pytest.approx(log.beta[k, 2], abs=1e-12)


def test_head_tracking_run_records_reference_manipulability_and_marker(tmp_path):
    log = chain_log("xy", with_sea=False, extras=True, robot_name="ariizumi10")
    bag = read(write_rosbag(log, tmp_path / "rosbag"))
    types = bag.pop("__types__")
    assert types["/head/reference"] == "nav_msgs/msg/Path"
    assert types["/manipulability/markers"] == "visualization_msgs/msg/MarkerArray"
    assert "/motor_position_controller/commands" in types  # β_ref given
    m = bag["/manipulability"][5][1]
    assert list(m.data) == pytest.approx(log.manipulability[5])
    marker = bag["/manipulability/markers"][5][1].markers[0]
    assert marker.header.frame_id == "head_tip"  # the same marker as manipulability_monitor's
    model = build_model(log.robot)
    result = ManipulabilityMonitor(model).evaluate(q_from_world(np.zeros(2), 0.0, log.alpha[5]))
    semi, angle = head_acceleration_ellipse(result)
    assert [marker.scale.x, marker.scale.y] == pytest.approx(2 * DEFAULT_MARKER_SCALE * semi, rel=1e-9)
    assert 2 * np.arctan2(marker.pose.orientation.z, marker.pose.orientation.w) == pytest.approx(angle)
    head = log.head_position[5]
    odom = bag["/head/odometry"][5][1]
    assert odom.pose.pose.position.x == pytest.approx(head[0])
    # the twist is in the head frame (REP 105): turned back by the heading it is the world velocity
    th = log.link_angle[5, -1]
    v_world = np.gradient(log.head_position[:, :2], log.t, axis=0)[5]
    vx, vy = odom.twist.twist.linear.x, odom.twist.twist.linear.y
    assert [np.cos(th) * vx - np.sin(th) * vy, np.sin(th) * vx + np.cos(th) * vy] == pytest.approx(v_world)
    (t_ref, ref), = bag["/head/reference"]  # one latched Path of timed poses
    assert t_ref == 0 and len(ref.poses) == T
    pose = ref.poses[5]
    assert pose.header.stamp.sec * 10**9 + pose.header.stamp.nanosec == round(log.t[5] * 1e9)
    assert pose.pose.position.x == pytest.approx(log.head_reference[5, 0])


def test_storage_is_mcap_a_rerun_replaces_the_recording_and_other_folders_are_kept(tmp_path):
    log = chain_log("xz")
    out = write_rosbag(log, tmp_path / "rosbag")
    assert len(list(out.glob("*.mcap"))) == 1
    assert "storage_identifier: mcap" in (out / "metadata.yaml").read_text()
    write_rosbag(log, out)  # the same run folder again
    assert len(read(out)["/joint_states"]) == T
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(FileExistsError, match="not a rosbag2 recording"):
        write_rosbag(log, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_demo_run_recording_reads_back_equal_to_the_simulator(tmp_path):
    """`make demo`'s scenario, short: what `snake-sim run` records is the RunLog, sample by sample."""
    overrides = ["sim.duration=0.4"]
    scenario = load_scenario(DEMO_SCENARIO, overrides)
    log = runtime_for(scenario.model).run_scenario(scenario, progress=False)
    args = argparse.Namespace(scenario=DEMO_SCENARIO, overrides=overrides, duration=None, out=tmp_path / "demo",
                              no_animation=True, quiet=True, check_step=False)
    run_command(args)
    bag = read(tmp_path / "demo" / "rosbag")
    types = bag.pop("__types__")
    assert {"/clock", "/joint_states", "/tf", "/tf_static", "/gait/reference"} <= set(types)
    assert all(types[t] == TOPIC_TYPES[t] for t in types)
    states = bag["/joint_states"]
    assert len(states) == len(log.t) > 10
    for k, (t_ns, msg) in enumerate(states):
        assert t_ns == round(log.t[k] * 1e9)
        idx = {name: i for i, name in enumerate(msg.name)}
        alpha = [msg.position[idx[f"joint_{j}"]] for j in range(1, log.robot.n_joints + 1)]
        tau = [msg.effort[idx[f"joint_{j}"]] for j in range(1, log.robot.n_joints + 1)]
        assert alpha == pytest.approx(log.alpha[k], abs=1e-12)  # deterministic simulator: the same run
        assert tau == pytest.approx(log.tau[k], abs=1e-12)


@pytest.mark.parametrize(("plane", "robot", "roll"), [("xz", "koopaee6", "0"), ("xy", "ariizumi10", "90")])
def test_recorded_joint_states_drive_the_urdf_to_the_recorded_tf(tmp_path, plane, robot, roll):
    """Cross-check with Pinocchio: forward kinematics of urdf/snake.urdf.xacro at the recorded
    motor_j = β, spring_j = α − β puts every link where the recorded /tf (the simulator's poses)
    has it, relative to link_1: live RViz (robot_state_publisher) and replay show the same robot."""
    import pinocchio as pin
    import xacro

    from snake_core import locator

    log = chain_log(plane, with_sea=robot == "koopaee6", robot_name=robot)
    bag = read(write_rosbag(log, tmp_path / "rosbag"))
    urdf = xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"),
                              mappings={"robot": robot, "joint_roll": roll}).toxml()
    model = pin.buildModelFromXML(urdf)
    data = model.createData()
    for k in (3, T // 2, T - 1):
        _, js = bag["/joint_states"][k]
        values = dict(zip(js.name, js.position, strict=True))
        q = pin.neutral(model)
        for jid in range(1, model.njoints):
            q[model.joints[jid].idx_q] = values[model.names[jid]]
        pin.framesForwardKinematics(model, data, q)
        R1, p1 = _compose(bag["/tf"][k][1].transforms, "link_1")
        base = data.oMf[model.getFrameId("link_1")]
        for i in range(2, log.robot.n_links + 1):
            R, p = _compose(bag["/tf"][k][1].transforms, f"link_{i}")
            urdf_pose = base.actInv(data.oMf[model.getFrameId(f"link_{i}")])
            assert urdf_pose.translation == pytest.approx(R1.T @ (p - p1), abs=1e-9)
            assert urdf_pose.rotation == pytest.approx(R1.T @ R, abs=1e-9)


@pytest.mark.parametrize("model", ["mujoco", "dart"])
def test_3d_run_records_every_links_and_rotors_pose_from_the_engine(model, tmp_path):
    """Issue 15 item 5: the /tf of a 3-D run is the engine's full pose of every link and rotor (a rolled body with
    yaw and pitch joints), not a planar reconstruction; /head/odometry carries the head link's orientation."""
    scenario = load_scenario("open-loop-flat-3d", [f"model={model}", "sim.time_step=0.001",
                                                   "robot.joint_roll=alternate", "sim.perturbation.roll_deg=20",
                                                   "sim.perturbation.joint_noise_deg=5"])
    runtime = runtime_for(scenario.model)
    log = runtime.simulate(runtime.build(scenario), duration=0.3)
    bag = read(write_rosbag(log, tmp_path / "rosbag"))
    assert len(bag["/tf"]) == len(log.t)
    for k in (0, len(log.t) - 1):
        transforms = bag["/tf"][k][1].transforms
        for i in range(1, log.robot.n_links + 1):
            R, p = _compose(transforms, f"link_{i}")
            assert p == pytest.approx(log.series["link_origin"][k, i - 1], abs=1e-9)
            assert R == pytest.approx(log.series["link_rotation"][k, i - 1], abs=1e-9)
        for j in range(1, log.robot.n_joints + 1):
            R, _ = _compose(transforms, f"rotor_{j}")
            assert R == pytest.approx(log.series["rotor_rotation"][k, j - 1], abs=1e-9)
        odometry = bag["/head/odometry"][k][1].pose.pose.orientation
        head = transforms3d.quaternions.quat2mat([odometry.w, odometry.x, odometry.y, odometry.z])
        assert head == pytest.approx(log.series["link_rotation"][k, -1], abs=1e-9)
    assert np.degrees(np.abs(log.series["module_roll"][0])).max() == pytest.approx(20.0, abs=3.0)
