"""Test harness of the snake SEA suite: :mod:`.ros` (the pytest fixture ``ros``: nodes on real rclpy in simulated
time) and :mod:`.jazzy_stack` (ROS 2 Jazzy's control stack for the tests on the real controller_manager). The
product packages list this package only as a ``<test_depend>``; no product module imports it."""
