from snake_control.testing.fixtures import ros  # noqa: F401  (the fixture: real rclpy or the double)
