"""head_odometry: /head/odometry (the head tip's pose and twist) from Gazebo's ground truth.

Input: /ground_truth/poses, tf2_msgs/TFMessage: what gz-sim's PosePublisher (urdf/snake.gazebo.xacro)
publishes as gz.msgs.Pose_V on /model/<model>/pose, bridged by ros_gz_bridge (launch/sim.launch.py).
PosePublisher gives each link's pose in the model frame (frame_id ``<model>``, child_frame_id
``<model>/<link>``; the bridge turns gz's ``::`` into ``/``) and the model's pose in the world
(frame_id the world's name, child_frame_id ``<model>``). The head link's world pose is their product.

Output: /head/odometry, nav_msgs/Odometry in ``world_frame``, child frame ``child_frame``
(``head_tip``), stamped with the transform's stamp: the tip position, orientation ψ about z, twist
in the head frame (REP 105) by a backward difference of successive messages
(snake_core.planar.head_state). The first message only primes the difference.

A message without the model or head frame, a non-finite pose or a stamp that does not advance
publishes nothing and reports ERROR on /diagnostics; so does ground truth older than
``stale_timeout`` (head_tracking_controller then stops on stale odometry).
"""

from __future__ import annotations

from collections.abc import Sequence

from nav_msgs.msg import Odometry
from rclpy.node import Node
from tf2_msgs.msg import TFMessage

from snake_core.naming import link_name
from snake_core.planar.head_state import HeadPose, compose, head_tip_pose, head_twist
from snake_core.robot import load_robot

from .ros_interface import (
    ERROR,
    GROUND_TRUTH_POSES,
    HEAD_ODOMETRY,
    OK,
    SENSOR_QOS,
    Diagnostics,
    InputFreshness,
    declare,
    planar_odometry,
    pose3,
    run,
    seconds,
)


class HeadOdometry(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("head_odometry", **kwargs)
        robot = load_robot(declare(self, "robot", "koopaee6", "robot file config/robots/<robot>.yaml (head link "
                                   "length)", read_only=True))
        self.model = declare(self, "model", "snake", "Gazebo model name (ros_gz_sim create -name): the frame "
                             "of the link poses", read_only=True)
        head = declare(self, "head_link", link_name(robot.n_links), "head link (default link_N of the robot file)",
                       read_only=True)
        self.head_frame = f"{self.model}/{head}"
        self.world_frame = declare(self, "world_frame", "world", "header.frame_id of /head/odometry",
                                   read_only=True)
        self.child_frame = declare(self, "child_frame", "head_tip", "child_frame_id of /head/odometry",
                                   read_only=True)
        timeout = declare(self, "stale_timeout", 0.1, "ground truth older than this [s] is reported stale",
                          low=0.001, high=10.0, read_only=True)
        self.head_length = robot.link_length
        self._previous: HeadPose | None = None
        self._fresh = InputFreshness(self, timeout)
        self.create_subscription(TFMessage, GROUND_TRUTH_POSES, self._on_poses, SENSOR_QOS)
        self._pub = self.create_publisher(Odometry, HEAD_ODOMETRY, SENSOR_QOS)
        self._diag = Diagnostics(self, "head_odometry")
        self.create_timer(timeout, self._watch)

    def _on_poses(self, msg: TFMessage) -> None:
        frames = {t.child_frame_id: t for t in msg.transforms}
        missing = [f for f in (self.model, self.head_frame) if f not in frames]
        if missing or frames[self.head_frame].header.frame_id != self.model:
            self._diag.report(ERROR, f"no odometry: {GROUND_TRUTH_POSES} lacks frame "
                              + ", ".join(missing or [f"{self.head_frame} in {self.model}"]),
                              {"frames": ", ".join(sorted(frames))})
            return
        head = frames[self.head_frame]
        world = compose(pose3(frames[self.model].transform), pose3(head.transform))
        pose = head_tip_pose(seconds(head.header.stamp), world, self.head_length) if world is not None else None
        if pose is None:
            self._diag.report(ERROR, f"no odometry: non-finite pose of {self.head_frame}")
            return
        previous, self._previous = self._previous, pose
        if previous is None:
            return
        twist = head_twist(previous, pose)
        if twist is None:
            self._diag.report(ERROR, f"no odometry: {self.head_frame} stamp did not advance",
                              {"previous_s": previous.t, "stamp_s": pose.t})
            return
        self._pub.publish(planar_odometry(head.header.stamp, self.world_frame, self.child_frame, pose,
                                          twist.in_head_frame(pose.heading), twist.heading_rate))
        self._fresh.mark("ground_truth")
        self._diag.report(OK, "publishing")

    def _watch(self) -> None:
        """Nothing published for ``stale_timeout``: ERROR, keeping a more specific error already reported."""
        if self._fresh.stale(["ground_truth"]):
            self._diag.report(ERROR, self._diag.message if self._diag.level == ERROR else
                              f"no odometry: stale input: {GROUND_TRUTH_POSES} ({self.head_frame})")


def main(args: Sequence[str] | None = None) -> int:
    return run(HeadOdometry, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
