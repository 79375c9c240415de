"""Gazebo's physics engine (DART, gz-physics' dartsim plugin) on the shipped description,
without Gazebo."""
