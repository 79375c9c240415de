"""head_tracking_controller: 004 §6 head-trajectory tracking, publishing joint torque references.

Inputs: /joint_states (α_j, α̇_j, tail → head), /head/odometry (the head tip's pose and twist in
the world: Gazebo ground truth or a localisation), /head/reference (nav_msgs/Path of timed head
poses, latched; one pose is a set point; snake_core.planar.path_reference). Output at ``rate``:
/sea/torque_reference, a JointState with ``joint_j`` efforts: the SEA torque references
τ_d = K(α − β_d) that realise the tracker's joint torques (snake_core.planar.convention), or the
joint torques themselves on rigid-joint robots.

``controller.mode`` pfl (partial feedback linearisation, 004 (70)) or lyapunov (004 §6.2, the
law documented in snake_core.planar.head_tracking); unset gains take 004's values ((79), §6.2).
The shape reference is the serpenoid (43) of ``gait.amplitude`` (α), ``gait.frequency`` (v),
``gait.periods`` (T_s); its time is ROS time since the node's first torque (under sim time, not the
simulation's start).

The torques are stamped with the joint states they answer; with ``lockstep`` the tick at t waits for the
joint states and the odometry stamped t (ros_interface.Lockstep), as a lock-stepped simulator needs.

On stale (older than ``stale_timeout``) or non-finite joint states or odometry, or before a
reference has arrived, nothing is published and /diagnostics reports ERROR: the SEA controllers
in torque mode then hold their motors (their torque reference goes stale). Likewise while the sim
clock is stopped or has jumped back (ros_interface.watch_clock).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import numpy as np
from nav_msgs.msg import Odometry, Path
from rclpy.node import Node
from sensor_msgs.msg import JointState

from snake_core.gaits import make_gait
from snake_core.gaits.serpenoid import HEAD_TRACKING_GAIT, MAX_FREQUENCY, MAX_WINDING_ANGLE
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
    free_joints_from_suite,
    q_from_world,
    qd_from_world,
    reverse_joints,
    sea_torque_reference,
)
from snake_core.planar.head_tracking import LyapunovGains, LyapunovTracker, PartialFeedbackLinearisation, PFLGains
from snake_core.planar.model import build_model
from snake_core.planar.path_reference import sampled_reference
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
    declare_numbers,
    fix_parameters,
    joint_state,
    ns_seconds,
    odometry_planar,
    read_joint_states,
    run,
    seconds,
    stamp_ns,
    watch_clock,
    yaw,
)

#: controller.mode → (tracker class, gains class); the gains are the keyword arguments of ``diagonal``.
TRACKERS = {"pfl": (PartialFeedbackLinearisation, PFLGains), "lyapunov": (LyapunovTracker, LyapunovGains)}
GAIN_NAMES = {mode: tuple(p for p in inspect.signature(gains.diagonal).parameters if p != "n_joints")
              for mode, (_tracker, gains) in TRACKERS.items()}
SOURCE = "head_tracking_controller parameters"


class HeadTrackingControllerNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("head_tracking_controller", **kwargs)
        fix_parameters(self)
        robot = load_robot(declare(self, "robot", "ariizumi10", "robot file config/robots/<robot>.yaml",
                                   read_only=True))
        rate = declare(self, "rate", 100.0, "control rate [Hz]", low=1.0, high=1000.0, read_only=True)
        timeout = declare(self, "stale_timeout", 0.1, "inputs older than this [s] stop the torque references",
                          low=0.001, high=10.0, read_only=True)
        lockstep = declare(self, "lockstep", False, "answer each tick with the inputs stamped at its time "
                           "(a lock-stepped simulator)", read_only=True)
        mode = declare(self, "controller.mode", "pfl", "head tracker of 004 §6", choices=tuple(TRACKERS),
                       read_only=True)
        # 004 (81): serpenoid α = π/3, v = 0.18, T_s = 1
        shape = {"amplitude": declare(self, "gait.amplitude", HEAD_TRACKING_GAIT["amplitude"],
                                      "serpenoid winding angle α [rad]", low=0.0, high=MAX_WINDING_ANGLE,
                                      read_only=True),
                 "frequency": declare(self, "gait.frequency", HEAD_TRACKING_GAIT["frequency"], "serpenoid v [rad/s]",
                                      low=-MAX_FREQUENCY, high=MAX_FREQUENCY, read_only=True),
                 "periods": declare(self, "gait.periods", HEAD_TRACKING_GAIT["periods"], "serpenoid T_s", low=0.0,
                                    read_only=True)}
        gains = {}
        for name in sorted({g for names in GAIN_NAMES.values() for g in names}):
            value = declare_numbers(self, f"controller.{name}",
                                    f"gain {name} of 004 §6 (a number or a diagonal list; unset: 004's value)")
            if value is not None:
                if name not in GAIN_NAMES[mode]:
                    raise ConfigError(f"controller.{name}", value, f"is not a gain of controller.mode = {mode} "
                                      "(allowed: " + ", ".join(GAIN_NAMES[mode]) + ")", SOURCE)
                gains[name] = value
        free = declare_numbers(self, "free_joints", "joints without torque (1-based, tail → head), a list of "
                               "integers; 004 §3.2", integers=True) or []
        tracker_class, gains_class = TRACKERS[mode]
        model = build_model(robot)
        self.tracker = tracker_class(model, gains_class.diagonal(robot.n_joints, **gains),
                                     make_gait("serpenoid", robot.n_joints, shape, SOURCE),
                                     free_joints_from_suite(list(free), robot.n_links))
        self.names = joint_names(robot.n_joints)
        self._stiffness = robot.sea.stiffness if robot.sea is not None else None
        self._layout = JointStateLayout(robot.n_joints, sea=robot.sea is not None)
        self._joints: JointReading | None = None
        self._odometry: tuple[float, ...] | None = None
        self._state_stamp: int | None = None  # [ns] of the joint states in self._joints
        self._effort = None  # the latest torque references (an array of snake_core's)
        self.reference = None
        self._fresh = InputFreshness(self, timeout)
        self._elapsed = Elapsed(self)
        self.create_subscription(JointState, JOINT_STATES, self._on_joint_states, SENSOR_QOS)
        self.create_subscription(Odometry, HEAD_ODOMETRY, self._on_odometry, SENSOR_QOS)
        self.create_subscription(Path, HEAD_REFERENCE, self._on_reference, LATCHED_QOS)
        self._pub = self.create_publisher(JointState, TORQUE_REFERENCE, COMMAND_QOS)
        self._diag = Diagnostics(self, "head_tracking")
        self.clock_watchdog = watch_clock(self, self._diag, lockstep)  # a stopped or restarted sim clock: no torque
        self._ticks = Lockstep(self, {"joint_states": JOINT_STATES, "head_odometry": HEAD_ODOMETRY}, self._step,
                               self._publish, lockstep)
        self.create_timer(1.0 / rate, self._ticks.tick)

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
        self._fresh.mark(name)
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
            self._diag.report(ERROR, "no torque: " + ("stale input: " + ", ".join(stale) if stale
                                                       else "no /head/reference received"))
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
