"""Look at the robot description: robot_state_publisher, joint_state_publisher_gui and RViz.

    ros2 launch snake_bringup view.launch.py robot:=koopaee6

Arguments (README "ROS 2"): robot, joint_roll, gui, rviz.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import Command, FindExecutable, LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

PACKAGE = "snake_bringup"
#: The package of the robot description (urdf/) and the worlds.
DESCRIPTION = "snake_description"


def generate_launch_description():
    share = FindPackageShare(PACKAGE)
    robot_description = {"robot_description": ParameterValue(Command([
        PathJoinSubstitution([FindExecutable(name="xacro")]), " ",
        PathJoinSubstitution([FindPackageShare(DESCRIPTION), "urdf", "snake.urdf.xacro"]),
        " robot:=", LaunchConfiguration("robot"), " hardware:=mock", " joint_roll:=", LaunchConfiguration("joint_roll"),
    ]), value_type=str)}

    return LaunchDescription([
        DeclareLaunchArgument("robot", default_value="koopaee6", description="robot file in config/robots/"),
        DeclareLaunchArgument("joint_roll", default_value="0",
                              description="joint axes: 0 vertical plane (002), 90 horizontal plane (004)"),
        DeclareLaunchArgument("gui", default_value="true", choices=["true", "false"],
                              description="joint_state_publisher_gui (sliders) instead of joint_state_publisher"),
        DeclareLaunchArgument("rviz", default_value="true", choices=["true", "false"], description="start RViz"),

        Node(package="robot_state_publisher", executable="robot_state_publisher", output="screen",
             parameters=[robot_description]),
        Node(package="joint_state_publisher_gui", executable="joint_state_publisher_gui",
             condition=IfCondition(LaunchConfiguration("gui"))),
        Node(package="joint_state_publisher", executable="joint_state_publisher",
             condition=UnlessCondition(LaunchConfiguration("gui"))),
        Node(package="tf2_ros", executable="static_transform_publisher",
             arguments=["--frame-id", "world", "--child-frame-id", "link_1"]),
        Node(package="rviz2", executable="rviz2", output="log",
             arguments=["-d", PathJoinSubstitution([share, "config", "rviz", "snake.rviz"])],
             condition=IfCondition(LaunchConfiguration("rviz"))),
    ])
