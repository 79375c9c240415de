"""ROS-free embedded simulator of the modular SEA snake."""
