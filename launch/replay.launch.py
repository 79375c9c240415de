"""Play a recording (an embedded-simulator run's DIR/rosbag/, or a `ros2 bag record` of the robot)
into RViz.

    ros2 launch snake_bringup replay.launch.py bag:=out/demo/rosbag robot:=koopaee6

Arguments (README "ROS 2"): bag, robot, joint_roll, rate, loop, rviz. The recording carries /clock
and the full /tf tree (world → link_1 → rotor_1 → link_2 …, from the simulated link poses), so
robot_state_publisher runs only for the model (/robot_description) and /tf_static: its joint-state
input is remapped away so that it does not publish a second, joint-angle-based /tf.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, ExecuteProcess
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
        DeclareLaunchArgument("bag", description="rosbag2 folder to play (e.g. out/demo/rosbag)"),
        DeclareLaunchArgument("robot", default_value="koopaee6", description="robot file in config/robots/"),
        DeclareLaunchArgument("joint_roll", default_value="0",
                              description="joint axes: 0 vertical plane (002), 90 horizontal plane (004)"),
        DeclareLaunchArgument("rate", default_value="1.0", description="playback rate"),
        DeclareLaunchArgument("loop", default_value="false", choices=["true", "false"], description="play in a loop"),
        DeclareLaunchArgument("rviz", default_value="true", choices=["true", "false"], description="start RViz"),

        ExecuteProcess(cmd=["ros2", "bag", "play", LaunchConfiguration("bag"), "--rate", LaunchConfiguration("rate")],
                       output="screen", condition=UnlessCondition(LaunchConfiguration("loop"))),
        ExecuteProcess(cmd=["ros2", "bag", "play", LaunchConfiguration("bag"), "--rate", LaunchConfiguration("rate"),
                            "--loop"],
                       output="screen", condition=IfCondition(LaunchConfiguration("loop"))),
        Node(package="robot_state_publisher", executable="robot_state_publisher", output="screen",
             parameters=[robot_description, {"use_sim_time": True}],
             remappings=[("joint_states", "/replay/unused_joint_states")]),
        Node(package="rviz2", executable="rviz2", output="log",
             arguments=["-d", PathJoinSubstitution([share, "config", "rviz", "snake.rviz"])],
             parameters=[{"use_sim_time": True}], condition=IfCondition(LaunchConfiguration("rviz"))),
    ])
