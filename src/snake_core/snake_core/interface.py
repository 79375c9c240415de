"""The suite's ROS 2 interface as plain data (docs/design.md "ROS 2 interface"), shared by the nodes
(snake_control), the CAN bridge (snake_hardware) and the recordings (snake_sim.outputs.recording): names of
joints, motors and frames, the /joint_states layout, topic names, QoS profiles, and the pose and
quaternion helpers. No rclpy here: snake_control turns :class:`Qos` into rclpy's QoSProfile.

Index j is 1-based, tail (joint 1) → head (joint N−1). Quaternions are (x, y, z, w), the order of
geometry_msgs/Quaternion and scipy's Rotation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.spatial.transform import Rotation

# ------------------------------------------------------------------------------------------ names


def joint_name(j: int) -> str:
    """Link-side SEA joint j (or rigid joint j): α_j, α̇_j, τ_j in /joint_states."""
    return f"joint_{j}"


def motor_name(j: int) -> str:
    """Motor side of SEA joint j: β_j, β̇_j, U_j in /joint_states; the URDF's motor joint."""
    return f"motor_{j}"


def joint_names(n_joints: int) -> list[str]:
    return [joint_name(j) for j in range(1, n_joints + 1)]


def motor_names(n_joints: int) -> list[str]:
    return [motor_name(j) for j in range(1, n_joints + 1)]


# URDF (urdf/snake_module.xacro): link_i (origin at its tail end), and SEA joint j as motor_j (β_j)
# → rotor_j → spring_j (α_j − β_j) between link_j and link_{j+1}; rigid robots use joint_j.
def link_name(i: int) -> str:
    return f"link_{i}"


def rotor_name(j: int) -> str:
    return f"rotor_{j}"


def spring_name(j: int) -> str:
    return f"spring_{j}"


def spring_names(n_joints: int) -> list[str]:
    return [spring_name(j) for j in range(1, n_joints + 1)]


#: The fixed frame of odometry and recordings (and of the RViz config).
WORLD_FRAME = "world"
#: The head tip (URDF ``head_tip``: link_N's origin plus its length along x).
HEAD_TIP_FRAME = "head_tip"

#: The manipulability ellipse marker of manipulability_monitor and of recordings: a flat SPHERE in
#: HEAD_TIP_FRAME, its namespace, out-of-plane thickness [m] and colour (r, g, b, a).
ELLIPSE_MARKER_NS = "manipulability"
ELLIPSE_MARKER_THICKNESS = 0.002
ELLIPSE_MARKER_COLOR = (0.1, 0.6, 0.9, 0.5)

# ----------------------------------------------------------------------------------------- topics

JOINT_STATES = "/joint_states"  # sensor_msgs/JointState, layout: JointStateLayout
GAIT_REFERENCE = "/gait/reference"  # sensor_msgs/JointState joint_j: α_d, α̇_d
TORQUE_REFERENCE = "/sea/torque_reference"  # sensor_msgs/JointState joint_j: τ_d (effort)
MOTOR_COMMANDS = "/sea/motor_commands"  # each sea_joint_controller: JointState, name motor_j, β_d, β̇_d
MOTOR_POSITION_COMMANDS = "/motor_position_controller/commands"  # Float64MultiArray β_d tail → head
#: Float64MultiArray β̇_d tail → head: in Gazebo the velocity reference of the motor PD (pid_controller), 002 (4.39)
MOTOR_VELOCITY_COMMANDS = "/motor_velocity_controller/commands"
JOINT_EFFORT_COMMANDS = "/joint_effort_controller/commands"  # rigid-joint robots: Float64MultiArray τ
HEAD_ODOMETRY = "/head/odometry"  # nav_msgs/Odometry of the head tip, twist in the head frame
GROUND_TRUTH_POSES = "/ground_truth/poses"  # Gazebo's PosePublisher via ros_gz_bridge: TransformStamped per pose
HEAD_REFERENCE = "/head/reference"  # nav_msgs/Path of timed head poses, sent once (latched)
MANIPULABILITY = "/manipulability"  # std_msgs/Float64MultiArray D, R, singular values
MANIPULABILITY_MARKERS = "/manipulability/markers"  # visualization_msgs/MarkerArray
DIAGNOSTICS = "/diagnostics"
CLOCK = "/clock"
#: The CAN bridge ⇄ ros2_control's topic hardware (urdf/snake.ros2_control.xacro's joint_states_topic,
#: joint_commands_topic):
#: the joint states in the /joint_states layout, and β_d by motor_j.
CAN_BRIDGE_JOINT_STATES = "/can_bridge/joint_states"
CAN_BRIDGE_JOINT_COMMANDS = "/can_bridge/joint_commands"
#: The CAN bridge's emergency stop, std_msgs/Bool latched: true from the e-stop (the operator's, a module's) until
#: every module has confirmed its release; the gait generator disarms on true.
CAN_BRIDGE_ESTOP_ENGAGED = "/can_bridge/estop_engaged"
TF = "/tf"
TF_STATIC = "/tf_static"

# -------------------------------------------------------------------------------------------- QoS


@dataclass(frozen=True)
class Qos:
    """A QoS profile as plain data: keep the last ``depth`` samples, reliable or best effort, volatile
    or transient local (latched)."""

    depth: int
    reliable: bool = True
    transient_local: bool = False


#: Measurements from hardware/Gazebo/the simulator (ROS's sensor-data profile): best effort keeps only
#: fresh samples and matches any publisher.
SENSOR_QOS = Qos(5, reliable=False)
#: Gazebo's ground truth: a burst of one pose per link and the model every step (12 for koopaee6).
GROUND_TRUTH_QOS = Qos(100, reliable=False)
#: References and commands between our nodes, and every stream of a recording: reliable, the last 10.
COMMAND_QOS = Qos(10)
#: Sent once and kept for late subscribers: /head/reference, /tf_static.
LATCHED_QOS = Qos(1, transient_local=True)

# ------------------------------------------------------------------------------ /joint_states layout


def sea_from_urdf(beta: float, beta_dot: float, deflection: float, deflection_dot: float,
                  stiffness: float) -> tuple[float, float, float]:
    """(α_j, α̇_j, τ_j) of an SEA joint reported by its URDF joints motor_j (β) and spring_j (α − β),
    as Gazebo's and the CAN hardware's joint_state_broadcaster publish them; τ_j = K_j (α_j − β_j),
    002 (4.36) (the spring's own effort state is not used: Gazebo reports no spring torque there)."""
    return beta + deflection, beta_dot + deflection_dot, stiffness * deflection


@dataclass(frozen=True)
class JointReading:
    """What one /joint_states message says of each joint, tail → head (n,): α [rad], α̇ [rad/s],
    τ [N·m], β [rad]; NaN where the message lacks the value. ``found[j−1]``: α, α̇, τ of joint j
    could be read; ``motor[j−1]``: the message carries motor_j."""

    alpha: np.ndarray
    alpha_dot: np.ndarray
    tau: np.ndarray
    beta: np.ndarray
    found: np.ndarray
    motor: np.ndarray

    def has(self, j: int, motor: bool = False) -> bool:
        """Whether α, α̇, τ of joint j were read (and, with ``motor``, motor_j was in the message)."""
        return bool(self.found[j - 1] and (self.motor[j - 1] or not motor))

    def of(self, j: int) -> tuple[float, float, float, float]:
        """(α_j, α̇_j, τ_j, β_j) of joint j."""
        i = j - 1
        return float(self.alpha[i]), float(self.alpha_dot[i]), float(self.tau[i]), float(self.beta[i])


@dataclass(frozen=True)
class JointStateLayout:
    """/joint_states of a robot with ``n_joints`` joints, one layout for the simulator node, the CAN
    bridge and the recordings (docs/design.md "ROS 2 interface"), in this order:

    ============  =============  ====================  ==================================
    name          position       velocity              effort
    ============  =============  ====================  ==================================
    ``joint_j``   α_j            α̇_j                   τ_j = K_j (α_j − β_j), 002 (4.36);
                                                       rigid joints: the applied torque
    ``motor_j``   β_j            β̇_j (NaN: unknown)    U_j motor torque, 002 (4.39) (NaN: unknown)
    ``spring_j``  α_j − β_j      α̇_j − β̇_j (NaN: unk.) τ_j
    ============  =============  ====================  ==================================

    ``motor_j`` and ``spring_j`` (the URDF's SEA joints, for robot_state_publisher) only when the
    joints are SEAs. :meth:`read` also takes joint_state_broadcaster's URDF-only messages
    (``motor_j``, ``spring_j``) and rigid-joint ones (``joint_j``).
    """

    n_joints: int
    sea: bool

    @property
    def names(self) -> list[str]:
        n = self.n_joints
        return joint_names(n) + (motor_names(n) + spring_names(n) if self.sea else [])

    def write(self, alpha: np.ndarray, alpha_dot: np.ndarray, tau: np.ndarray, beta: np.ndarray | None = None,
              beta_dot: np.ndarray | None = None, motor_torque: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(position, velocity, effort) in the order of :attr:`names`, from (…, n) arrays (one
        message, or a time series along the leading axes); β is required for SEA layouts, β̇ and U
        are NaN where not given."""
        alpha, alpha_dot, tau = (np.asarray(x, dtype=float) for x in (alpha, alpha_dot, tau))
        position, velocity, effort = [alpha], [alpha_dot], [tau]
        if self.sea:
            if beta is None:
                raise ValueError("an SEA joint-state layout needs the motor angles β")
            beta = np.asarray(beta, dtype=float)
            unknown = np.full_like(beta, np.nan)
            beta_dot = unknown if beta_dot is None else np.asarray(beta_dot, dtype=float)
            motor_torque = unknown if motor_torque is None else np.asarray(motor_torque, dtype=float)
            position += [beta, alpha - beta]
            velocity += [beta_dot, alpha_dot - beta_dot]
            effort += [motor_torque, tau]
        # new C-ordered arrays, whatever the inputs' strides (a message field is serialised from contiguous memory)
        return tuple(np.ascontiguousarray(np.concatenate(x, axis=-1)) for x in (position, velocity, effort))

    def read(self, names: Sequence[str], position: Sequence[float], velocity: Sequence[float],
             effort: Sequence[float], stiffness: Sequence[float] | None = None) -> JointReading:
        """Each joint of one message (fields shorter than ``names`` leave NaN): ``joint_j`` gives α, α̇, τ
        and ``motor_j`` β; without ``joint_j``, ``motor_j`` and ``spring_j`` give them through
        :func:`sea_from_urdf` when the ``stiffness`` K [N·m/rad] per joint is known."""
        fields = {name: tuple(float(seq[i]) if i < len(seq) else math.nan for seq in (position, velocity, effort))
                  for i, name in enumerate(names)}
        n = self.n_joints
        out = np.full((4, n), np.nan)
        found, motor = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for i in range(n):
            joint, beta, spring = (fields.get(f(i + 1)) for f in (joint_name, motor_name, spring_name))
            motor[i] = beta is not None
            if beta is not None:
                out[3, i] = beta[0]
            if joint is not None:
                out[:3, i] = joint
            elif beta is not None and spring is not None and stiffness is not None:
                out[:3, i] = sea_from_urdf(beta[0], beta[1], spring[0], spring[1], stiffness[i])
            else:
                continue
            found[i] = True
        return JointReading(*out, found, motor)


# ---------------------------------------------------------------------------------- poses, rotations


@dataclass(frozen=True)
class Pose3:
    """A frame's pose in its parent frame: translation [m] and quaternion (x, y, z, w)."""

    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]


#: Unit normal of each RunLog plane that in-plane angles turn about: "xz" (vertical, 002) θ about −y,
#: "xy" (horizontal, 004) θ about +z.
PLANE_NORMALS = {"xz": (0.0, -1.0, 0.0), "xy": (0.0, 0.0, 1.0)}


def plane_quaternion(plane: str, theta: float | np.ndarray) -> np.ndarray:
    """(…, 4) quaternions of rotations by θ [rad] about the normal of ``plane`` (PLANE_NORMALS)."""
    theta = np.asarray(theta, dtype=float)
    rotvec = theta[..., None] * np.asarray(PLANE_NORMALS[plane])
    return Rotation.from_rotvec(rotvec.reshape(-1, 3)).as_quat().reshape(*theta.shape, 4)


def rotation(q: Sequence[float]) -> Rotation | None:
    """Rotation of a quaternion, normalised; None for a zero or non-finite one."""
    q = np.asarray(q, dtype=float)
    norm = float(np.linalg.norm(q))
    return Rotation.from_quat(q) if math.isfinite(norm) and norm > 1e-9 else None


def heading(r: Rotation) -> float:
    """Heading ψ [rad] in (−π, π] of a frame turned by ``r``: the angle of its x axis about +z,
    ψ = atan2(R_yx, R_xx) (a roll about that axis does not change it)."""
    axis = r.apply((1.0, 0.0, 0.0))
    return math.atan2(axis[1], axis[0])


def compose(parent: Pose3, child: Pose3) -> Pose3 | None:
    """Pose of ``child`` (given in ``parent``'s frame) in the frame ``parent`` is given in:
    p = p_a + R_a p_b, q = q_a ⊗ q_b. None for a non-finite pose or a zero quaternion."""
    ra, rb = rotation(parent.orientation), rotation(child.orientation)
    pa, pb = np.asarray(parent.position, dtype=float), np.asarray(child.position, dtype=float)
    if ra is None or rb is None or not (np.all(np.isfinite(pa)) and np.all(np.isfinite(pb))):
        return None
    return Pose3(tuple(float(v) for v in pa + ra.apply(pb)), tuple(float(v) for v in (ra * rb).as_quat()))
