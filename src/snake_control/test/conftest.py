from snake_test_support.ros import ros, ros_graph  # noqa: F401  (the fixtures: nodes on real rclpy)
