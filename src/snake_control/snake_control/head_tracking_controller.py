"""head_tracking_controller: 004 §6 head-trajectory tracking, publishing joint torque references.

Inputs: /joint_states (α_j, α̇_j, tail → head), /head/odometry (the head tip's pose and twist in
the world: Gazebo ground truth or a localisation), /head/reference (nav_msgs/Path of timed head
poses, latched; one pose is a set point; snake_core.planar.path_reference). Output at ``rate``:
/sea/torque_reference, a JointState with ``joint_j`` efforts: the SEA torque references
τ_d = K(α − β_d) that realise the tracker's joint torques (snake_core.planar.convention), or the
joint torques themselves on rigid-joint robots.

``controller.mode``: a tracker of snake_core.planar.trackers, pfl (partial feedback linearisation,
004 (70)) or lyapunov (004 §6.2, the law documented in snake_core.planar.head_tracking); the node declares
every tracker's gains (``controller.<gain>``) from what the tracker publishes; unset gains take 004's values
((79), §6.2). The shape reference is the serpenoid (43) of ``gait.amplitude`` (α), ``gait.frequency`` (v),
``gait.periods`` (T_s), declared from the serpenoid's parameters (defaults 004 (81)); its time is ROS time since
the node's first torque (under sim time, not the simulation's start).

The torques are stamped with the joint states they answer; with ``lockstep`` the tick at t waits for the
joint states and the odometry stamped t (ros_interface.Lockstep), as a lock-stepped simulator needs.

On stale (older than ``stale_timeout``) or non-finite joint states or odometry, or before a
reference has arrived, nothing is published and /diagnostics reports ERROR: the SEA controllers
in torque mode then hold their motors (their torque reference goes stale). Likewise while the sim
clock is stopped or has jumped back (ros_interface.watch_clock).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from nav_msgs.msg import Odometry, Path
from rclpy.clock import Clock
from rclpy.node import Node
from sensor_msgs.msg import JointState

from snake_core.gaits import GAITS
from snake_core.interface import (
    HEAD_ODOMETRY,
    HEAD_REFERENCE,
    JOINT_STATES,
    TORQUE_REFERENCE,
    JointReading,
    JointStateLayout,
    joint_names,
)
from snake_core.planar.convention import (
    FREE_JOINTS,
    free_joints_from_suite,
    q_from_world,
    qd_from_world,
    reverse_joints,
    sea_torque_reference,
)
from snake_core.planar.model import build_model
from snake_core.planar.path_reference import sampled_reference
from snake_core.planar.trackers import TRACKERS
from snake_core.registry import Param
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

from .ros_interface import (
    COMMAND_QOS,
    ERROR,
    LATCHED_QOS,
    OK,
    SENSOR_QOS,
    Diagnostics,
    Elapsed,
    InputFreshness,
    Lockstep,
    all_finite,
    declare,
    declare_param,
    declare_params,
    fix_parameters,
    joint_state,
    ns_seconds,
    odometry_planar,
    read_joint_states,
    run,
    seconds,
    stamp_ns,
    started,
    watch_clock,
    yaw,
)

SOURCE = "head_tracking_controller parameters"
#: The gait of the shape reference φ^r (004 (78)).
SHAPE_GAIT = "serpenoid"
#: The node's own parameters, all read-only (``controller.mode``, one of the trackers registered when the node starts,
#: the serpenoid's ``gait.*``, the trackers' ``controller.*`` and ``free_joints``, a list, are declared beside them).
PARAMS = (
    Param("robot", "ariizumi10", "", "robot file config/robots/<robot>.yaml", kind=str),
    Param("rate", 100.0, "Hz", "control rate", 1.0, 1000.0),
    Param("stale_timeout", 0.1, "s", "inputs older than this stop the torque references", 0.001, 10.0),
    Param("lockstep", False, "", "answer each tick with the inputs stamped at its time (a lock-stepped simulator)",
          kind=bool),
)


class HeadTrackingControllerNode(Node):
    def __init__(self, wall_clock: Clock | None = None, **kwargs) -> None:
        """``wall_clock``: what the clock watchdog measures a stop of /clock on (the steady clock; a test's own)."""
        super().__init__("head_tracking_controller", **kwargs)
        fix_parameters(self)
        own = declare_params(self, PARAMS)
        robot, rate, timeout = load_robot(own["robot"]), own["rate"], own["stale_timeout"]
        lockstep = own["lockstep"]
        trackers = "; ".join(f"{name}: {spec.description}" for name, spec in TRACKERS.entries.items())
        mode = TRACKERS.get(declare(self, "controller.mode", "pfl", f"head tracker of 004 §6 ({trackers})",
                                    choices=tuple(TRACKERS.entries), read_only=True), SOURCE)
        shape_gait = GAITS.get(SHAPE_GAIT)
        shape = {p.name: declare_param(self, "gait", p, f"serpenoid {p.text}", read_only=True)
                 for p in shape_gait.params}
        values = {}
        for spec in TRACKERS.entries.values():
            for param in spec.params:
                if param.name not in values:
                    values[param.name] = declare_param(self, "controller", param, read_only=True, unset=True)
        gains = mode.own_gains({k: v for k, v in values.items() if v is not None}, SOURCE)
        free = declare_param(self, "", FREE_JOINTS, read_only=True)
        self.tracker = mode.build(build_model(robot), gains, shape_gait.build(robot.n_joints, shape, SOURCE),
                                  free_joints_from_suite(free, robot.n_links, FREE_JOINTS.name, SOURCE))
        self.names = joint_names(robot.n_joints)
        self._stiffness = robot.sea.stiffness if robot.sea is not None else None
        self._layout = JointStateLayout(robot.n_joints, sea=robot.sea is not None)
        self._joints: JointReading | None = None
        self._odometry: tuple[float, ...] | None = None
        self._state_stamp: int | None = None  # [ns] of the joint states in self._joints
        self._effort = None  # the latest torque references (an array of snake_core's)
        self.reference = None
        self._fresh = InputFreshness(self, timeout, {"joint_states": JOINT_STATES, "head_odometry": HEAD_ODOMETRY})
        self._elapsed = Elapsed(self)
        self.create_subscription(JointState, JOINT_STATES, self._on_joint_states, SENSOR_QOS)
        self.create_subscription(Odometry, HEAD_ODOMETRY, self._on_odometry, SENSOR_QOS)
        self.create_subscription(Path, HEAD_REFERENCE, self._on_reference, LATCHED_QOS)
        self._pub = self.create_publisher(JointState, TORQUE_REFERENCE, COMMAND_QOS)
        self._diag = Diagnostics(self, "head_tracking")
        # a stopped or restarted sim clock: no torque
        self.clock_watchdog = watch_clock(self, self._diag, lockstep, wall=wall_clock)
        self._ticks = Lockstep(self, {"joint_states": JOINT_STATES, "head_odometry": HEAD_ODOMETRY}, self._step,
                               self._publish, lockstep, wall_clock)
        self.create_timer(1.0 / rate, self._ticks.tick)
        started(self, f"{self.get_parameter('controller.mode').value} head tracking ({robot.name}) on "
                f"{TORQUE_REFERENCE}", rate, lockstep=lockstep, stale_timeout=timeout, free_joints=free)

    def _on_joint_states(self, msg: JointState) -> None:
        reading = read_joint_states(msg, self._layout, self._stiffness)
        if reading.found.all():
            self._joints = reading
            self._state_stamp = stamp_ns(msg.header.stamp)
            self._arrived("joint_states", msg.header.stamp)

    def _on_odometry(self, msg: Odometry) -> None:
        self._odometry = odometry_planar(msg)
        self._arrived("head_odometry", msg.header.stamp)

    def _arrived(self, name: str, stamp: object) -> None:
        self._fresh.mark(name, stamp)
        self._ticks.arrived(name, stamp)

    def _on_reference(self, msg: Path) -> None:
        try:
            self.reference = sampled_reference(
                [seconds(p.header.stamp) for p in msg.poses],
                [(p.pose.position.x, p.pose.position.y, yaw(p.pose.orientation)) for p in msg.poses],
                HEAD_REFERENCE)
        except ConfigError as exc:
            self._diag.report(ERROR, f"reference refused: {exc}")

    def _step(self, t_ns: int) -> bool:
        """The torques at ROS time ``t_ns``, published; False when there are none (reported)."""
        if self.clock_watchdog.check() is not None:
            return False
        stale = self._fresh.stale(["joint_states", "head_odometry"])
        if stale or self.reference is None:
            level, why = self._fresh.fault(stale) if stale else (ERROR, "no /head/reference received")
            self._diag.report(level, f"no torque: {why}")
            return False
        alpha, alpha_dot = self._joints.alpha, self._joints.alpha_dot
        x, y, heading, vx, vy, heading_rate = self._odometry
        if not (all_finite(alpha) and all_finite(alpha_dot) and all_finite(self._odometry)):
            self._diag.report(ERROR, "no torque: non-finite input (NaN or inf) in joint states or odometry")
            return False
        q = q_from_world(np.array([x, y]), heading, alpha)
        qd = qd_from_world(np.array([vx, vy]), heading_rate, alpha_dot)
        tau = self.tracker.step(self._elapsed(), q, qd, self.reference(ns_seconds(t_ns)))
        self._effort = sea_torque_reference(tau) if self._stiffness is not None else reverse_joints(tau)
        self._publish()
        self._diag.report(OK, "tracking")
        return True

    def _publish(self) -> None:
        """The latest torque references, stamped with the joint states they answer."""
        self._pub.publish(joint_state(self, self.names, effort=self._effort, stamp=self._state_stamp))


def main(args: Sequence[str] | None = None) -> int:
    return run(HeadTrackingControllerNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
