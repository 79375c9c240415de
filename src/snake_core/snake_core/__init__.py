"""ROS-free core of the modular SEA snake suite (no rclpy, no ROS messages)."""
