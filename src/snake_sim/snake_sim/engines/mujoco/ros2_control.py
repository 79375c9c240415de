"""The MJCF that mujoco_ros2_control simulates under the controller_manager (``sim.launch.py simulator:=mujoco``):
the suite's model of a 3-D scenario (:func:`snake_sim.engines.mujoco.runtime.build`) with the motor-side PD of 002
(4.39) moved out of MuJoCo into ros2_control, as on the Gazebo path (config/controllers/<robot>_gz.yaml):

- ``motor_<j>`` keeps its hinge and gets a MuJoCo ``motor`` actuator of the same name (no bias: upstream's
  ``getActuatorType`` reads ``biastype none`` as MOTOR, whose only command interface is ``effort``), on which
  pid_controller writes K_p (β_d − β) + K_D β̇_d;
- the −K_D β̇ of (4.39) is the motor hinge's ``damping`` K_D, integrated implicitly by the ``implicitfast``
  integrator (as Gazebo's joint damping, hardware:=gazebo); U is not bounded by the servo's torque–speed line
  here (the suite's model splits K_D between the hinge and the clamped actuator, which pid_controller's effort
  interface cannot), as on the Gazebo path;
- ``spring_<j>`` has no actuator: upstream registers it as a passive joint (states only), as the
  ros2_control block of urdf/snake.ros2_control.xacro declares it;
- a keyframe ``start`` holds the scenario's initial state (the pose :func:`snake_sim.analysis.rollover.start_pose` gives
  the suite's runtime, perturbation included), which the hardware's ``initial_keyframe`` applies;
- the free joint ``base`` of ``link_1``: its ``odom_free_joint_name``, published as nav_msgs/Odometry.

Joints and actuators are matched by name (ros2_control joint ``motor_<j>`` → the actuator driving the MuJoCo joint
``motor_<j>``); the mesh folder is absolute, so the file can be written anywhere.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ...analysis.rollover import start_pose
from ...core.scenario import Scenario
from . import model as mm
from .runtime import MujocoSetup, build

#: The keyframe the hardware's ``initial_keyframe`` names.
START_KEYFRAME = "start"
#: The free joint of link_1 (the hardware's ``odom_free_joint_name``).
BASE_JOINT = "base"


def _fmt(values: np.ndarray) -> str:
    return " ".join(repr(float(v)) for v in values)


def start_qpos(setup: MujocoSetup) -> np.ndarray:
    """The qpos the suite's runtime starts the scenario from (:func:`snake_sim.engines.mujoco.runtime.simulate`)."""
    data = setup.model.create_data()
    mm.place(setup.model, data, *start_pose(setup.robot, setup.model.world.ground_height, setup.start_x,
                                            setup.perturbation))
    return data.mj.qpos.copy()


def ros2_control_mjcf(setup: MujocoSetup) -> str:
    """The MJCF of ``setup``'s robot and world for mujoco_ros2_control (see the module docstring)."""
    root = ET.fromstring(setup.model.xml)
    kd = setup.robot.actuator.kd
    joints = {j.get("name"): j for j in root.iter("joint")}
    actuators = root.find("actuator")
    for general in list(actuators):
        name = general.get("joint")
        joints[name].set("damping", repr(kd))  # 002 (4.39): −K_D β̇, implicit
        actuators.remove(general)
        ET.SubElement(actuators, "motor", name=name, joint=name)
    keyframe = ET.SubElement(root, "keyframe")
    ET.SubElement(keyframe, "key", name=START_KEYFRAME, qpos=_fmt(start_qpos(setup)))
    return ET.tostring(root, encoding="unicode")


def scenario_mjcf(scenario: Scenario, for_ros2_control: bool = True) -> str:
    """The MJCF of a 3-D scenario's robot, world and numerics: for mujoco_ros2_control, or the suite's own."""
    setup = build(scenario)
    return ros2_control_mjcf(setup) if for_ros2_control else setup.model.xml
