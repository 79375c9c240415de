from snake_control.testing import ros, ros_graph  # noqa: F401  (the fixtures: nodes on real rclpy)
