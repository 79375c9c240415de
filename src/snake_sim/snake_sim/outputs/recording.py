"""Write an embedded-simulator run (:class:`~snake_sim.core.runlog.RunLog`) as a rosbag2 folder with MCAP
storage, using ``rosbags`` (no ROS needed), with the topics and message types of the live graph
(docs/design.md "ROS 2 interface"), so that ``ros2 bag play`` + RViz (``replay.launch.py``) or Foxglove
shows the run.

Topics (written when the run has the data):

================================  ==================================  ==========================================
topic                             type                                content, one message per RunLog sample
================================  ==================================  ==========================================
/clock                            rosgraph_msgs/msg/Clock             the sample time
/joint_states                     sensor_msgs/msg/JointState          snake_core.interface.JointStateLayout:
                                                                      ``joint_j``: α, α̇, τ; ``motor_j``: β, NaN, U;
                                                                      ``spring_j``: α − β, NaN, τ (URDF joints)
/tf                               tf2_msgs/msg/TFMessage              world → link_1, link_j → rotor_j → link_{j+1}
                                                                      (3-D runs: every pose from the engine)
/tf_static                        tf2_msgs/msg/TFMessage              link_N → head_tip (once, transient local)
/gait/reference                   sensor_msgs/msg/JointState          α_d, α̇_d
/motor_position_controller/       std_msgs/msg/Float64MultiArray      β_d tail → head
commands
/head/odometry                    nav_msgs/msg/Odometry               head tip pose; twist in the head frame
/head/reference                   nav_msgs/msg/Path                   the timed head reference (once, latched)
/manipulability                   std_msgs/msg/Float64MultiArray      D, R, singular values (004)
/manipulability/markers           visualization_msgs/msg/MarkerArray  head acceleration ellipse (head_tip frame)
/diagnostics                      diagnostic_msgs/msg/DiagnosticArray start, the run's events, end status
================================  ==================================  ==========================================

Times: a sample at simulated time t has the bag (receive) time and header stamp t (ns), the way
a graph on simulated time stamps it. Values the run does not have are NaN (e.g. motor velocity),
as the JointState convention allows for unknown entries of a filled array. Every stream is offered
reliable (snake_core.interface.COMMAND_QOS; /tf_static and /head/reference latched, LATCHED_QOS), so
that reliable subscribers such as robot_state_publisher receive a replay.

Frames follow urdf/snake.urdf.xacro: link_i's origin is its tail end, x along the link; SEA joint j
is motor_j (β_j) then spring_j (α_j − β_j) with rotor_j between them. The link frames of the
recording are computed from the simulated link poses (not from the joint angles), so the /tf tree
shows exactly where the simulator had the links: for a 3-D run (MuJoCo, DART: the log's ``link_origin``,
``link_rotation`` and ``rotor_rotation`` series) the full 3-D pose of every link and rotor from the engine, for
the plane models the planar poses; ``replay.launch.py`` runs robot_state_publisher only
for the model and /tf_static.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import numpy as np
from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_typestore
from scipy.spatial.transform import Rotation
from tqdm import tqdm

from snake_core import interface
from snake_core.interface import (
    CLOCK,
    DIAGNOSTICS,
    ELLIPSE_MARKER_COLOR,
    ELLIPSE_MARKER_NS,
    ELLIPSE_MARKER_THICKNESS,
    GAIT_REFERENCE,
    HEAD_ODOMETRY,
    HEAD_REFERENCE,
    HEAD_TIP_FRAME,
    JOINT_STATES,
    MANIPULABILITY,
    MANIPULABILITY_MARKERS,
    MOTOR_POSITION_COMMANDS,
    PLANE_NORMALS,
    TF,
    TF_STATIC,
    WORLD_FRAME,
    JointStateLayout,
    joint_names,
    link_name,
    plane_quaternion,
    rotor_name,
)
from snake_core.planar.convention import q_from_world
from snake_core.planar.ellipse import DEFAULT_MARKER_SCALE, head_acceleration_ellipse
from snake_core.planar.head_state import to_head_frame
from snake_core.planar.manipulability import ManipulabilityMonitor
from snake_core.planar.model import build_model

from ..core.runlog import Diagnostic, RunLog
from .output_folder import whole

STORE = Stores.ROS2_JAZZY
#: DiagnosticStatus.name of the start and end statuses of a recorded run.
RUN_STATUS_NAME = "snake_sim: run"
#: rosbag2 storage format version written (Jazzy writes 9).
BAG_VERSION = 9



def rosbags_qos(profile: interface.Qos) -> Qos:
    """The rosbag2 offered-QoS entry of a snake_core.interface profile (keep last, no deadlines)."""
    zero = QosTime(sec=0, nsec=0)
    return Qos(QosHistory.KEEP_LAST, profile.depth,
               QosReliability.RELIABLE if profile.reliable else QosReliability.BEST_EFFORT,
               QosDurability.TRANSIENT_LOCAL if profile.transient_local else QosDurability.VOLATILE, zero, zero,
               QosLiveliness.AUTOMATIC, zero, False)


RELIABLE = rosbags_qos(interface.COMMAND_QOS)
LATCHED = rosbags_qos(interface.LATCHED_QOS)

TOPIC_TYPES = {
    CLOCK: "rosgraph_msgs/msg/Clock",
    JOINT_STATES: "sensor_msgs/msg/JointState",
    TF: "tf2_msgs/msg/TFMessage",
    TF_STATIC: "tf2_msgs/msg/TFMessage",
    GAIT_REFERENCE: "sensor_msgs/msg/JointState",
    MOTOR_POSITION_COMMANDS: "std_msgs/msg/Float64MultiArray",
    HEAD_ODOMETRY: "nav_msgs/msg/Odometry",
    HEAD_REFERENCE: "nav_msgs/msg/Path",
    MANIPULABILITY: "std_msgs/msg/Float64MultiArray",
    MANIPULABILITY_MARKERS: "visualization_msgs/msg/MarkerArray",
    DIAGNOSTICS: "diagnostic_msgs/msg/DiagnosticArray",
}


def _in_plane(plane: str, v: np.ndarray) -> np.ndarray:
    """(…, 2) in-plane coordinates (along x, along the second plane axis) of (…, 3) vectors."""
    return v[..., [0, 2]] if plane == "xz" else v[..., [0, 1]]


def _to_3d(plane: str, p: np.ndarray, like: np.ndarray) -> np.ndarray:
    """(…, 3) vectors from in-plane (…, 2) ones, the out-of-plane coordinate taken from ``like``."""
    out = like.copy()
    out[..., 0] = p[..., 0]
    out[..., 2 if plane == "xz" else 1] = p[..., 1]
    return out


def frame_poses(log: RunLog) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """World poses (position (T, 3), in-plane angle (T,)) of every URDF frame of the run."""
    l_half = log.robot.half_length
    th = log.link_angle
    axis = np.stack([np.cos(th), np.sin(th)], axis=-1)  # (T, N, 2) link x axis in the plane
    tail = _to_3d(log.plane, _in_plane(log.plane, log.link_position) - l_half * axis, log.link_position)
    poses = {link_name(i + 1): (tail[:, i], th[:, i]) for i in range(log.robot.n_links)}
    if log.beta is not None:
        # rotor_j sits at the joint, turned by β_j from link_j the way α_j = θ_j − θ_{j+1} turns link_{j+1}
        # (002 §4.3.1; the URDF's motor_j/spring_j axis +y in the vertical plane: q = β, α − β)
        for j in range(1, log.robot.n_joints + 1):
            poses[rotor_name(j)] = (tail[:, j], th[:, j - 1] - log.beta[:, j - 1])
    return poses


def _relative(plane: str, parent: tuple[np.ndarray, np.ndarray], child: tuple[np.ndarray, np.ndarray]
              ) -> tuple[np.ndarray, np.ndarray]:
    """Child pose in the parent frame: translation (T, 3) and quaternion (T, 4)."""
    (p_pos, p_th), (c_pos, c_th) = parent, child
    d = _in_plane(plane, c_pos - p_pos)
    c, s = np.cos(p_th), np.sin(p_th)
    local = np.stack([c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]], axis=-1)
    trans = np.zeros((len(p_th), 3))
    trans[:, 0] = local[:, 0]
    # in the link frame the plane's second axis is +z for "xz" (θ about −y) and +y for "xy"
    trans[:, 2 if plane == "xz" else 1] = local[:, 1]
    return trans, plane_quaternion(plane, c_th - p_th)


def _engine_poses(log: RunLog) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """World poses (origin (T, 3), orientation (T, 3, 3)) of every link and rotor frame of a 3-D run, as the
    engine had them; rotor_j's origin is the joint, link_{j+1}'s origin."""
    origin, rotation = log.series["link_origin"], log.series["link_rotation"]
    poses = {link_name(i + 1): (origin[:, i], rotation[:, i]) for i in range(log.robot.n_links)}
    for j in range(1, log.robot.n_joints + 1):
        poses[rotor_name(j)] = (origin[:, j], log.series["rotor_rotation"][:, j - 1])
    return poses


def _engine_edges(log: RunLog) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """The moving TF edges of a 3-D run: child poses in their parent frames, p = R_aᵀ(p_b − p_a), R = R_aᵀ R_b."""
    poses = _engine_poses(log)
    first = link_name(1)
    edges = [(WORLD_FRAME, first, poses[first][0], Rotation.from_matrix(poses[first][1]).as_quat())]
    for j in range(1, log.robot.n_joints + 1):
        for parent, child in pairwise([link_name(j), rotor_name(j), link_name(j + 1)]):
            (p_pos, p_rot), (c_pos, c_rot) = poses[parent], poses[child]
            trans = np.einsum("tji,tj->ti", p_rot, c_pos - p_pos)
            edges.append((parent, child, trans,
                          Rotation.from_matrix(np.einsum("tji,tjk->tik", p_rot, c_rot)).as_quat()))
    return edges


def is_3d(log: RunLog) -> bool:
    """Whether the log carries the engine's 3-D link poses (MuJoCo, DART)."""
    return "link_rotation" in log.series


def tf_edges(log: RunLog) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """(parent, child, translation (T, 3), quaternion (T, 4)) of every moving edge of the TF tree."""
    if is_3d(log):
        return _engine_edges(log)
    poses = frame_poses(log)
    first = link_name(1)
    edges = [(WORLD_FRAME, first, poses[first][0], plane_quaternion(log.plane, poses[first][1]))]
    for j in range(1, log.robot.n_joints + 1):
        chain = [link_name(j), rotor_name(j), link_name(j + 1)] if log.beta is not None else \
            [link_name(j), link_name(j + 1)]
        for parent, child in pairwise(chain):
            edges.append((parent, child, *_relative(log.plane, poses[parent], poses[child])))
    return edges


class _Bag:
    """A rosbags MCAP writer with one connection per topic and the Jazzy type store."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.ts = get_typestore(STORE)
        self.types = self.ts.types
        self.connections: dict[str, object] = {}

    def write(self, topic: str, t_ns: int, msg: object, qos: Qos = RELIABLE, msgtype: str | None = None) -> None:
        """``msg`` on ``topic``, of ``msgtype`` (default: the topic's in TOPIC_TYPES)."""
        msgtype = msgtype or TOPIC_TYPES[topic]
        if topic not in self.connections:
            self.connections[topic] = self.writer.add_connection(topic, msgtype, typestore=self.ts,
                                                                 offered_qos_profiles=[qos])
        self.writer.write(self.connections[topic], t_ns, bytes(self.ts.serialize_cdr(msg, msgtype)))

    def stamp(self, t_ns: int) -> object:
        return self.types["builtin_interfaces/msg/Time"](sec=t_ns // 1_000_000_000, nanosec=t_ns % 1_000_000_000)

    def header(self, t_ns: int, frame: str = "") -> object:
        return self.types["std_msgs/msg/Header"](stamp=self.stamp(t_ns), frame_id=frame)

    def joint_state(self, t_ns: int, names: list[str], position, velocity=(), effort=()) -> object:
        return self.types["sensor_msgs/msg/JointState"](
            header=self.header(t_ns), name=names, position=np.asarray(position, dtype=np.float64),
            velocity=np.asarray(velocity, dtype=np.float64), effort=np.asarray(effort, dtype=np.float64))

    def float_array(self, label: str, data) -> object:
        t = self.types
        data = np.asarray(data, dtype=np.float64)
        layout = t["std_msgs/msg/MultiArrayLayout"](
            dim=[t["std_msgs/msg/MultiArrayDimension"](label=label, size=len(data), stride=len(data))], data_offset=0)
        return t["std_msgs/msg/Float64MultiArray"](layout=layout, data=data)

    def pose(self, position, quaternion) -> object:
        t = self.types
        return t["geometry_msgs/msg/Pose"](position=t["geometry_msgs/msg/Point"](*map(float, position)),
                                           orientation=t["geometry_msgs/msg/Quaternion"](*map(float, quaternion)))

    def transform(self, t_ns: int, parent: str, child: str, trans, quat) -> object:
        t = self.types
        return t["geometry_msgs/msg/TransformStamped"](
            header=self.header(t_ns, parent), child_frame_id=child,
            transform=t["geometry_msgs/msg/Transform"](translation=t["geometry_msgs/msg/Vector3"](*map(float, trans)),
                                                       rotation=t["geometry_msgs/msg/Quaternion"](*map(float, quat))))


def _in_world(plane: str, xy: np.ndarray) -> np.ndarray:
    """(T, 3) world points from in-plane (T, 2) coordinates."""
    out = np.zeros((len(xy), 3))
    out[:, 0] = xy[:, 0]
    out[:, 2 if plane == "xz" else 1] = xy[:, 1]
    return out


def _head_twist(log: RunLog, head: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Head tip linear velocity and angular velocity (T, 3), expressed in the head frame as
    nav_msgs/Odometry wants the twist (REP 105); rates by central differences of the samples."""
    if len(log.t) < 2:
        return np.zeros_like(head), np.zeros_like(head)
    v = _in_plane(log.plane, np.gradient(head, log.t, axis=0))
    rate = np.gradient(np.unwrap(theta), log.t)
    body = np.stack(to_head_frame(v[:, 0], v[:, 1], theta), axis=-1)
    normal = np.asarray(PLANE_NORMALS[log.plane])
    return _to_3d(log.plane, body, np.zeros_like(head)), rate[:, None] * normal


def _joint_state_arrays(log: RunLog) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Names and (T, k) position, velocity, effort of /joint_states (snake_core.interface.JointStateLayout;
    the run has no motor velocity: NaN)."""
    layout = JointStateLayout(log.robot.n_joints, sea=log.beta is not None)
    return layout.names, *layout.write(log.alpha, log.alpha_dot, log.tau, log.beta, None, log.motor_torque)


def _ellipse_marker(bag: _Bag, t_ns: int, semi_axes: np.ndarray, angle: float) -> object:
    """The manipulability_monitor node's marker: the head's acceleration ellipse in the head_tip frame
    (snake_core.planar.ellipse), a flat SPHERE ``DEFAULT_MARKER_SCALE`` metres per m/s²."""
    t = bag.types
    scale = (2.0 * DEFAULT_MARKER_SCALE * semi_axes[0], 2.0 * DEFAULT_MARKER_SCALE * semi_axes[1],
             ELLIPSE_MARKER_THICKNESS)
    return t["visualization_msgs/msg/Marker"](
        header=bag.header(t_ns, HEAD_TIP_FRAME), ns=ELLIPSE_MARKER_NS, id=0,
        type=t["visualization_msgs/msg/Marker"].SPHERE, action=t["visualization_msgs/msg/Marker"].ADD,
        pose=bag.pose((0.0, 0.0, 0.0), plane_quaternion("xy", np.asarray(angle))),
        scale=t["geometry_msgs/msg/Vector3"](*map(float, scale)),
        color=t["std_msgs/msg/ColorRGBA"](*ELLIPSE_MARKER_COLOR),
        lifetime=t["builtin_interfaces/msg/Duration"](sec=0, nanosec=0), frame_locked=False, points=[], colors=[],
        texture_resource="", texture=t["sensor_msgs/msg/CompressedImage"](header=bag.header(0), format="",
                                                                           data=np.zeros(0, np.uint8)),
        uv_coordinates=[], text="", mesh_resource="",
        mesh_file=t["visualization_msgs/msg/MeshFile"](filename="", data=np.zeros(0, np.uint8)),
        mesh_use_embedded_materials=False)


def head_ellipses(log: RunLog) -> list[tuple[np.ndarray, float]]:
    """The acceleration ellipse of every sample's posture (horizontal-plane runs with manipulability)."""
    monitor = ManipulabilityMonitor(build_model(log.robot))
    origin = np.zeros(2)
    return [head_acceleration_ellipse(monitor.evaluate(q_from_world(origin, 0.0, a))) for a in log.alpha]


@dataclass(frozen=True)
class _Streams:
    """What every sample's messages carry, computed for the whole run at once (T samples)."""

    t_ns: np.ndarray  # (T,) sample times [ns]
    joint_states: tuple[list[str], np.ndarray, np.ndarray, np.ndarray]  # names, (T, k) position, velocity, effort
    edges: list[tuple[str, str, np.ndarray, np.ndarray]]  # moving TF edges (tf_edges)
    head_quaternion: np.ndarray  # (T, 4) head link orientation
    head_linear: np.ndarray  # (T, 3) head tip velocity in the head frame [m/s]
    head_angular: np.ndarray  # (T, 3) head angular velocity [rad/s]
    ellipses: list[tuple[np.ndarray, float]]  # head acceleration ellipse per sample (horizontal runs), or none
    events: list[Diagnostic]  # run start, the run's events by time, run end


def _sample_times_ns(t: np.ndarray) -> np.ndarray:
    """Sample times ``t`` [s] in integer nanoseconds; ValueError unless strictly increasing."""
    t_ns = np.round(np.asarray(t) * 1e9).astype(np.int64)
    if np.any(np.diff(t_ns) <= 0):
        raise ValueError("sample times must be strictly increasing to be recorded")
    return t_ns


def _run_events(log: RunLog) -> list[Diagnostic]:
    """The run's events between a start and an end status (level ERROR if the run stopped early)."""
    return [Diagnostic(float(log.t[0]), 0, RUN_STATUS_NAME, "run started"), *sorted(log.diagnostics, key=lambda d: d.t),
            Diagnostic(float(log.t[-1]), 0 if log.status == "ok" else 2, RUN_STATUS_NAME, f"run ended: {log.status}")]


def _streams(log: RunLog) -> _Streams:
    head_theta = log.link_angle[:, -1]
    linear, angular = _head_twist(log, log.head_position, head_theta)
    ellipses = head_ellipses(log) if log.manipulability is not None and log.plane == "xy" else []
    head_quaternion = (Rotation.from_matrix(log.series["link_rotation"][:, -1]).as_quat() if is_3d(log)
                       else plane_quaternion(log.plane, head_theta))
    return _Streams(_sample_times_ns(log.t), _joint_state_arrays(log), tf_edges(log), head_quaternion, linear, angular,
                    ellipses, _run_events(log))


def _check_folder(path: Path) -> None:
    """Refuse an existing ``path`` that is not a previous recording (a folder with a rosbag2 metadata.yaml)."""
    if path.exists() and not (path / "metadata.yaml").is_file():
        raise FileExistsError(f"{path} exists and is not a rosbag2 recording: refusing to replace it")


def _write_latched(bag: _Bag, log: RunLog, t0: int, t_ns: np.ndarray) -> None:
    """/tf_static (link_N → head_tip) and, for head tracking, /head/reference: the timed poses
    head_tracking_controller takes, sent once."""
    t = bag.types
    bag.write(TF_STATIC, t0, t["tf2_msgs/msg/TFMessage"](transforms=[bag.transform(
        t0, link_name(log.robot.n_links), HEAD_TIP_FRAME, (log.robot.link_length, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))]),
        LATCHED)
    if log.head_reference is None:
        return
    poses = [t["geometry_msgs/msg/PoseStamped"](header=bag.header(int(tk), WORLD_FRAME), pose=bag.pose(p, q))
             for tk, p, q in zip(t_ns, _in_world(log.plane, log.head_reference[:, :2]),
                                 plane_quaternion(log.plane, log.head_reference[:, 2]), strict=True)]
    bag.write(HEAD_REFERENCE, t0, t["nav_msgs/msg/Path"](header=bag.header(t0, WORLD_FRAME), poses=poses), LATCHED)


def _head_odometry(bag: _Bag, tk: int, position: np.ndarray, quaternion: np.ndarray, linear: np.ndarray,
                   angular: np.ndarray) -> object:
    """nav_msgs/Odometry of the head tip, twist in the head frame (REP 105)."""
    t = bag.types
    vector = t["geometry_msgs/msg/Vector3"]
    twist = t["geometry_msgs/msg/Twist"](linear=vector(*map(float, linear)), angular=vector(*map(float, angular)))
    return t["nav_msgs/msg/Odometry"](
        header=bag.header(tk, WORLD_FRAME), child_frame_id=HEAD_TIP_FRAME,
        pose=t["geometry_msgs/msg/PoseWithCovariance"](pose=bag.pose(position, quaternion), covariance=np.zeros(36)),
        twist=t["geometry_msgs/msg/TwistWithCovariance"](twist=twist, covariance=np.zeros(36)))


def _write_sample(bag: _Bag, log: RunLog, streams: _Streams, k: int) -> None:
    """Every per-sample topic at sample ``k``."""
    t, tk, n = bag.types, int(streams.t_ns[k]), log.robot.n_joints
    names, position, velocity, effort = streams.joint_states
    bag.write(CLOCK, tk, t["rosgraph_msgs/msg/Clock"](clock=bag.stamp(tk)))
    bag.write(JOINT_STATES, tk, bag.joint_state(tk, names, position[k], velocity[k], effort[k]))
    bag.write(TF, tk, t["tf2_msgs/msg/TFMessage"](
        transforms=[bag.transform(tk, p, c, tr[k], q[k]) for p, c, tr, q in streams.edges]))
    if log.alpha_ref is not None:
        ref_dot = log.alpha_ref_dot[k] if log.alpha_ref_dot is not None else np.full(n, np.nan)
        bag.write(GAIT_REFERENCE, tk, bag.joint_state(tk, joint_names(n), log.alpha_ref[k], ref_dot))
    if log.beta_ref is not None:
        bag.write(MOTOR_POSITION_COMMANDS, tk, bag.float_array("motor", log.beta_ref[k]))
    bag.write(HEAD_ODOMETRY, tk, _head_odometry(bag, tk, log.head_position[k], streams.head_quaternion[k],
                                                streams.head_linear[k], streams.head_angular[k]))
    if log.manipulability is not None:
        bag.write(MANIPULABILITY, tk, bag.float_array("D, R, singular values", log.manipulability[k]))
        if streams.ellipses:
            bag.write(MANIPULABILITY_MARKERS, tk, t["visualization_msgs/msg/MarkerArray"](
                markers=[_ellipse_marker(bag, tk, *streams.ellipses[k])]))


def _write_events(bag: _Bag, tk: int, due: list[Diagnostic]) -> None:
    """One DiagnosticArray of the events ``due`` at ``tk``."""
    t = bag.types
    bag.write(DIAGNOSTICS, tk, t["diagnostic_msgs/msg/DiagnosticArray"](
        header=bag.header(tk), status=[t["diagnostic_msgs/msg/DiagnosticStatus"](
            level=int(d.level), name=d.name, message=d.message, hardware_id="snake_sim", values=[]) for d in due]))


def write_rosbag(log: RunLog, path: str | Path, progress: bool = False) -> Path:
    """Write ``log`` as a rosbag2/MCAP folder at ``path``; returns the folder. A previous recording
    there (a folder with a rosbag2 metadata.yaml) is replaced, like the run's other outputs, once the new one is
    whole (:func:`~snake_sim.outputs.output_folder.whole`: a full disk or a signal leaves the previous one or none);
    any other existing folder is refused."""
    path = Path(path)
    _check_folder(path)
    streams = _streams(log)
    events, last = streams.events, len(streams.t_ns) - 1
    with whole(path) as target, Writer(target, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP) as writer:
        bag = _Bag(writer)
        _write_latched(bag, log, int(streams.t_ns[0]), streams.t_ns)
        k_event = 0
        for k in tqdm(range(last + 1), desc="rosbag", unit="sample", disable=not progress):
            _write_sample(bag, log, streams, k)
            # every event up to this sample in one DiagnosticArray (the rest at the last sample)
            first = k_event
            while k_event < len(events) and (k == last or events[k_event].t <= log.t[k]):
                k_event += 1
            if k_event > first:
                _write_events(bag, int(streams.t_ns[k]), events[first:k_event])
    return path


def write_joint_states(path: str | Path, t: np.ndarray, names: list[str], position: np.ndarray, velocity: np.ndarray,
                       effort: np.ndarray, topic: str = JOINT_STATES) -> Path:
    """Write JointState messages alone on ``topic`` (/joint_states, or the CAN bridge's) as a rosbag2/MCAP folder at
    ``path``, one per row of ``position``, ``velocity``, ``effort`` (T, len(names)) at the times ``t`` (T,) [s] (bag
    time and header stamp), e.g. what a robot's CAN bridge published; replaces a previous recording there as
    :func:`write_rosbag`."""
    path = Path(path)
    _check_folder(path)
    t_ns = _sample_times_ns(t)
    with whole(path) as target, Writer(target, version=BAG_VERSION, storage_plugin=StoragePlugin.MCAP) as writer:
        bag = _Bag(writer)
        for k, tk in enumerate(t_ns.tolist()):
            bag.write(topic, tk, bag.joint_state(tk, names, position[k], velocity[k], effort[k]),
                      msgtype=TOPIC_TYPES[JOINT_STATES])
    return path
