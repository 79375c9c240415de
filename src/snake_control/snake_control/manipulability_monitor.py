"""manipulability_monitor: the head's dynamic manipulability of 004 §3 for the current posture.

Input: /joint_states (α_j, tail → head). Outputs at ``rate``:

- /manipulability, std_msgs/Float64MultiArray: [D, R, σ_1 … σ_k, λ_1 … λ_k] (004 (30), (31); σ the
  semi-axes of the ellipsoid (29), λ the singular values of H12, descending; k = 3 + free joints),
  the layout of ``RunLog.manipulability`` that the embedded simulator records;
- /manipulability/markers, visualization_msgs/MarkerArray: the ellipse of the head's reachable
  linear accelerations (snake_core.planar.ellipse) as a flat ellipsoid in the ``head_tip`` frame,
  ``marker_scale`` metres per m/s²;
- /diagnostics: WARN when R < ``threshold`` (near-singular posture, e.g. a straight body; R = 0
  exactly at singular postures, Theorem 1), ERROR when /joint_states is stale or not finite, or the
  sim clock is stopped or has jumped back (the outputs are then held: nothing new is published).

D and R do not depend on where the head is, so no odometry is needed: the posture is evaluated with
the head at the origin and heading 0 (snake_core.planar.convention.q_from_world).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from geometry_msgs.msg import Point, Vector3
from rclpy.clock import Clock
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import ColorRGBA, Float64MultiArray, MultiArrayDimension
from visualization_msgs.msg import Marker, MarkerArray

from snake_core.interface import (
    ELLIPSE_MARKER_COLOR,
    ELLIPSE_MARKER_NS,
    ELLIPSE_MARKER_THICKNESS,
    HEAD_TIP_FRAME,
    JOINT_STATES,
    MANIPULABILITY,
    MANIPULABILITY_MARKERS,
    JointStateLayout,
)
from snake_core.planar.convention import FREE_JOINTS, free_joints_from_suite, q_from_world
from snake_core.planar.ellipse import DEFAULT_MARKER_SCALE, head_acceleration_ellipse
from snake_core.planar.manipulability import DEFAULT_R_THRESHOLD, ManipulabilityMonitor
from snake_core.planar.model import build_model
from snake_core.registry import Param
from snake_core.robot import load_robot

from .ros_interface import (
    COMMAND_QOS,
    ERROR,
    OK,
    SENSOR_QOS,
    WARN,
    Diagnostics,
    InputFreshness,
    all_finite,
    declare_param,
    declare_params,
    fix_parameters,
    floats,
    quaternion_about_z,
    read_joint_states,
    run,
    started,
    watch_clock,
)

#: Label of the /manipulability array (one dimension).
LAYOUT = "D, R, sigma_1..k (ellipsoid semi-axes), lambda_1..k (singular values of H12)"

#: The node's own parameters, read-only but ``marker_scale`` (``free_joints``, a list, is declared beside them).
PARAMS = (
    Param("robot", "ariizumi10", "", "robot file config/robots/<robot>.yaml", kind=str),
    Param("rate", 20.0, "Hz", "evaluation rate", 0.1, 1000.0),
    Param("lockstep", False, "", "the graph of a lock-stepped simulator: a /clock that keeps coming without "
          "advancing is the simulator waiting, not a stopped clock", kind=bool),
    Param("stale_timeout", 0.1, "s", "joint states older than this are an error", 0.001, 10.0),
    Param("threshold", DEFAULT_R_THRESHOLD, "kg·m", "R below which the posture is reported near-singular", 0.0,
          source="004 Theorem 1"),
    Param("marker_scale", DEFAULT_MARKER_SCALE, "m per m/s²", "ellipse marker length per head acceleration", 0.0),
)
#: What stays tunable while the node runs.
TUNABLE = ("marker_scale",)


class ManipulabilityMonitorNode(Node):
    def __init__(self, wall_clock: Clock | None = None, **kwargs) -> None:
        """``wall_clock``: what the clock watchdog measures a stop of /clock on (the steady clock; a test's own)."""
        super().__init__("manipulability_monitor", **kwargs)
        fix_parameters(self)
        own = declare_params(self, PARAMS, tunable=TUNABLE)
        robot, rate, lockstep, timeout = load_robot(own["robot"]), own["rate"], own["lockstep"], own["stale_timeout"]
        threshold = own["threshold"]
        free = declare_param(self, "", FREE_JOINTS, read_only=True)
        self.n_joints = robot.n_joints
        self._stiffness = robot.sea.stiffness if robot.sea is not None else None
        self._layout = JointStateLayout(robot.n_joints, sea=robot.sea is not None)
        # validated by snake_core (n ≥ 4, n ≥ 5 with a free joint, indices in range)
        self.monitor = ManipulabilityMonitor(build_model(robot), threshold, free_joints_from_suite(
            free, robot.n_links, FREE_JOINTS.name, f"{self.get_name()} parameters"))
        self._alpha: list[float] | None = None
        self._fresh = InputFreshness(self, timeout, {"joint_states": JOINT_STATES})
        self.create_subscription(JointState, JOINT_STATES, self._on_joint_states, SENSOR_QOS)
        self._pub = self.create_publisher(Float64MultiArray, MANIPULABILITY, COMMAND_QOS)
        self._markers = self.create_publisher(MarkerArray, MANIPULABILITY_MARKERS, COMMAND_QOS)
        self._diag = Diagnostics(self, "manipulability")
        # a stopped or restarted sim clock: nothing new
        self.clock_watchdog = watch_clock(self, self._diag, lockstep, wall=wall_clock)
        self.create_timer(1.0 / rate, self._tick)
        started(self, f"manipulability of {robot.name} on {MANIPULABILITY}", rate, lockstep=lockstep,
                threshold=threshold, free_joints=free)

    def _on_joint_states(self, msg: JointState) -> None:
        reading = read_joint_states(msg, self._layout, self._stiffness)
        if reading.found.all():
            self._alpha = list(reading.alpha)
            self._fresh.mark("joint_states", msg.header.stamp)

    def _marker(self, semi_axes: Sequence[float], angle: float) -> MarkerArray:
        marker = Marker(ns=ELLIPSE_MARKER_NS, id=0, type=Marker.SPHERE, action=Marker.ADD)
        marker.header.frame_id = HEAD_TIP_FRAME
        marker.header.stamp = self.get_clock().now().to_msg()
        marker.pose.position = Point(x=0.0, y=0.0, z=0.0)
        marker.pose.orientation = quaternion_about_z(angle)
        major, minor = floats(semi_axes)
        scale = self.get_parameter("marker_scale").value  # tunable at run time
        marker.scale = Vector3(x=2.0 * scale * major, y=2.0 * scale * minor, z=ELLIPSE_MARKER_THICKNESS)
        marker.color = ColorRGBA(**dict(zip("rgba", ELLIPSE_MARKER_COLOR, strict=True)))
        return MarkerArray(markers=[marker])

    def _tick(self) -> None:
        if self.clock_watchdog.check() is not None:
            return
        stale = self._fresh.stale(["joint_states"])
        if stale:
            level, why = self._fresh.fault(stale)
            self._diag.report(level, f"hold: {why}")
            return
        if not all_finite(self._alpha):
            self._diag.report(ERROR, "hold: non-finite input (NaN or inf) in joint states")
            return
        result = self.monitor.evaluate(q_from_world(np.zeros(2), 0.0, np.asarray(self._alpha)))
        msg = Float64MultiArray(data=floats([result.D, result.R, *result.sigma, *result.lam]))
        msg.layout.dim = [MultiArrayDimension(label=LAYOUT, size=len(msg.data), stride=len(msg.data))]
        self._pub.publish(msg)
        self._markers.publish(self._marker(*head_acceleration_ellipse(result)))
        values = {"D": f"{result.D:.6g}", "R": f"{result.R:.6g}", "threshold": f"{self.monitor.threshold:.3g}"}
        if result.near_singular:
            kind = "singular" if result.singular else "near-singular"
            self._diag.report(WARN, f"{kind} posture: R below the threshold", values)
        else:
            self._diag.report(OK, "posture regular", values)


def main(args: Sequence[str] | None = None) -> int:
    return run(ManipulabilityMonitorNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
