"""head_odometry: /head/odometry (the head tip's pose and twist) from Gazebo's ground truth.

Input: /ground_truth/poses, geometry_msgs/TransformStamped, one message per pose: what gz-sim's
PosePublisher (urdf/snake.gazebo.xacro, ``use_pose_vector_msg`` false) publishes as gz.msgs.Pose on
/model/<model>/pose, bridged by ros_gz_bridge (launch/sim.launch.py). Each link's pose comes in the
model frame (frame_id ``<model>``, child_frame_id ``<model>/<link>``; the bridge turns gz's ``::``
into ``/``) and the model's pose in the world (frame_id the world's name, child_frame_id
``<model>``), all of one simulation step with one stamp. The head link's world pose is the product
of the two of one stamp; the poses of one step come in any order.

Output: /head/odometry, nav_msgs/Odometry in ``world_frame``, child frame ``child_frame``
(``head_tip``), stamped with the poses' stamp: the tip position, orientation ψ about z, twist in the
head frame (REP 105) by a backward difference of successive stamps (snake_core.planar.head_state).
The first stamp only primes the difference.

A stamp whose poses lack the model or head frame (seen when the next stamp begins), a non-finite
pose or a stamp not after the last one publishes nothing and reports ERROR on /diagnostics; so
does ground truth older than ``stale_timeout`` (head_tracking_controller then stops on stale
odometry).
"""

from __future__ import annotations

from collections.abc import Sequence

from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node

from snake_core.interface import GROUND_TRUTH_POSES, HEAD_ODOMETRY, HEAD_TIP_FRAME, WORLD_FRAME, compose, link_name
from snake_core.planar.head_state import HeadPose, head_tip_pose, head_twist
from snake_core.registry import Param
from snake_core.robot import load_robot

from .ros_interface import (
    ERROR,
    GROUND_TRUTH_QOS,
    OK,
    SENSOR_QOS,
    Diagnostics,
    InputFreshness,
    declare_params,
    fix_parameters,
    planar_odometry,
    pose3,
    run,
    seconds,
    started,
)

#: The node's own parameters, all read-only.
PARAMS = (
    Param("robot", "koopaee6", "", "robot file config/robots/<robot>.yaml (head link length)", kind=str),
    Param("model", "snake", "", "Gazebo model name (ros_gz_sim create -name): the frame of the link poses", kind=str),
    Param("head_link", "", "", "head link; empty: link_N of the robot file", kind=str),
    Param("world_frame", WORLD_FRAME, "", "header.frame_id of /head/odometry", kind=str),
    Param("child_frame", HEAD_TIP_FRAME, "", "child_frame_id of /head/odometry", kind=str),
    Param("stale_timeout", 0.1, "s", "ground truth older than this is reported stale", 0.001, 10.0),
)


class HeadOdometryNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("head_odometry", **kwargs)
        fix_parameters(self)
        own = declare_params(self, PARAMS)
        robot, self.model, timeout = load_robot(own["robot"]), own["model"], own["stale_timeout"]
        self.head_frame = f"{self.model}/{own['head_link'] or link_name(robot.n_links)}"
        self.world_frame, self.child_frame = own["world_frame"], own["child_frame"]
        self.head_length = robot.link_length
        self._previous: HeadPose | None = None
        self._stamp: float | None = None  # the stamp whose poses are being gathered
        self._frames: dict[str, TransformStamped] = {}
        self._done = False  # odometry of self._stamp published (or refused)
        self._fresh = InputFreshness(self, timeout, {"ground_truth": GROUND_TRUTH_POSES})
        self.create_subscription(TransformStamped, GROUND_TRUTH_POSES, self._on_pose, GROUND_TRUTH_QOS)
        self._pub = self.create_publisher(Odometry, HEAD_ODOMETRY, SENSOR_QOS)
        self._diag = Diagnostics(self, "head_odometry")
        self.create_timer(timeout, self._watch)
        started(self, f"{HEAD_ODOMETRY} from the ground truth of {self.head_frame}", None, stale_timeout=timeout)

    def _on_pose(self, msg: TransformStamped) -> None:
        stamp = seconds(msg.header.stamp)
        if stamp != self._stamp:
            if self._previous is not None and stamp <= self._previous.t:
                self._diag.report(ERROR, f"no odometry: {self.head_frame} stamp did not advance",
                                  {"previous_s": self._previous.t, "stamp_s": stamp})
                return
            if self._stamp is not None and not self._done:
                self._report_missing()
            self._stamp, self._frames, self._done = stamp, {}, False
        self._frames[msg.child_frame_id] = msg
        if not self._done and self.model in self._frames and self.head_frame in self._frames:
            self._publish(self._frames[self.model], self._frames[self.head_frame])

    def _report_missing(self) -> None:
        frames = self._frames
        missing = [f for f in (self.model, self.head_frame) if f not in frames]
        self._diag.report(ERROR, f"no odometry: {GROUND_TRUTH_POSES} lacks frame " + ", ".join(missing),
                          {"frames": ", ".join(sorted(frames))})

    def _publish(self, model: TransformStamped, head: TransformStamped) -> None:
        if head.header.frame_id != self.model:
            self._diag.report(ERROR, f"no odometry: {self.head_frame} is given in {head.header.frame_id!r}, "
                              f"not in the model frame {self.model!r}")
            return
        world = compose(pose3(model.transform), pose3(head.transform))
        pose = head_tip_pose(seconds(head.header.stamp), world, self.head_length) if world is not None else None
        if pose is None:
            self._diag.report(ERROR, f"no odometry: non-finite pose of {self.head_frame}")
            return
        self._done = True
        previous, self._previous = self._previous, pose
        if previous is None:
            return
        twist = head_twist(previous, pose)  # finite poses, advancing stamps (checked above)
        if twist is None:
            return
        self._pub.publish(planar_odometry(head.header.stamp, self.world_frame, self.child_frame, pose,
                                          twist.in_head_frame(pose.heading), twist.heading_rate))
        self._fresh.mark("ground_truth", head.header.stamp)
        self._diag.report(OK, "publishing")

    def _watch(self) -> None:
        """Nothing published for ``stale_timeout``: ERROR, keeping a more specific error already reported; WARN
        where nothing publishes the ground truth (the simulator ended or has not started)."""
        stale = self._fresh.stale(["ground_truth"])
        if stale:
            level, why = self._fresh.fault(stale)
            self._diag.report(level, self._diag.message if self._diag.level == ERROR == level else
                              f"no odometry: {why} ({self.head_frame})")


def main(args: Sequence[str] | None = None) -> int:
    return run(HeadOdometryNode, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
