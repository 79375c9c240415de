from snake_test_support.ros import ros  # noqa: F401  (ros: the fixture on real rclpy)
