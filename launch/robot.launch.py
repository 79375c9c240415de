"""The real robot: joint modules on a CAN bus through snake_hardware's can_bridge and ros2_control
(topic_based_ros2_control), with our nodes; RViz optional (or on another machine, same ROS_DOMAIN_ID).

    ros2 launch snake_bringup robot.launch.py can_interface:=can0 robot:=koopaee6 controller:=stiffness

Arguments (README "ROS 2"): can_interface, robot, controller, gait, joint_roll, use_mock_hardware,
rviz. Graph: can_bridge (CAN ⇄ /can_bridge/joint_states, /can_bridge/joint_commands) ⇄ ros2_control
(hardware:=real; joint_state_broadcaster → /joint_states, motor_position_controller ←
/motor_position_controller/commands) ⇄ gait_generator → sea_joint_controller × (N−1) →
motor_command_mux. With use_mock_hardware:=true the modules are replaced by mock_components
(commands mirrored into states) and no CAN bridge is started.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition, UnlessCondition
from launch.substitutions import (
    Command,
    FindExecutable,
    LaunchConfiguration,
    PathJoinSubstitution,
    PythonExpression,
)
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from snake_core.robot import load_robot

PACKAGE = "snake_bringup"


def sea_joint_controllers(context, *args, **kwargs):
    """One sea_joint_controller per joint of the robot file (joint_index 1 = tail), namespaced joint_<j>."""
    robot = LaunchConfiguration("robot").perform(context)
    share = FindPackageShare(PACKAGE).perform(context)
    return [
        Node(
            package="snake_control",
            executable="sea_joint_controller",
            name="sea_joint_controller",
            namespace=f"joint_{j}",
            output="screen",
            parameters=[
                f"{share}/config/snake_control.yaml",
                f"{share}/config/sea_modes/{LaunchConfiguration('controller').perform(context)}.yaml",
                {"robot": robot, "joint_index": j},
            ],
        )
        for j in range(1, load_robot(robot).n_joints + 1)
    ]


def generate_launch_description():
    robot = LaunchConfiguration("robot")
    mock = LaunchConfiguration("use_mock_hardware")
    share = FindPackageShare(PACKAGE)
    node_params = PathJoinSubstitution([share, "config", "snake_control.yaml"])
    robot_description = {"robot_description": ParameterValue(Command([
        PathJoinSubstitution([FindExecutable(name="xacro")]), " ",
        PathJoinSubstitution([share, "urdf", "snake.urdf.xacro"]),
        " robot:=", robot, " joint_roll:=", LaunchConfiguration("joint_roll"),
        " hardware:=", PythonExpression(["'mock' if '", mock, "' == 'true' else 'real'"]),
    ]), value_type=str)}
    controllers = PathJoinSubstitution([share, "config", "controllers", [robot, ".yaml"]])

    return LaunchDescription([
        DeclareLaunchArgument("can_interface", default_value="can0",
                              description="SocketCAN interface of the module bus (1 Mbit/s)"),
        DeclareLaunchArgument("robot", default_value="koopaee6", description="robot file in config/robots/"),
        DeclareLaunchArgument("controller", default_value="position",
                              choices=["position", "stiffness", "tsc", "torque"],
                              description="SEA joint controller mode (gains in config/sea_modes/<mode>.yaml)"),
        DeclareLaunchArgument("gait", default_value="pedal_wave", description="gait.type of gait_generator"),
        DeclareLaunchArgument("joint_roll", default_value="0",
                              description="joint axes: 0 vertical plane (002), 90 horizontal plane (004)"),
        DeclareLaunchArgument("use_mock_hardware", default_value="false", choices=["true", "false"],
                              description="mock_components instead of the CAN modules (no bus needed)"),
        DeclareLaunchArgument("rviz", default_value="false", choices=["true", "false"], description="start RViz"),

        Node(package="snake_hardware", executable="can_bridge", output="screen",
             parameters=[{"can_interface": LaunchConfiguration("can_interface"), "robot": robot}],
             condition=UnlessCondition(mock)),
        Node(package="robot_state_publisher", executable="robot_state_publisher", output="screen",
             parameters=[robot_description]),
        Node(package="controller_manager", executable="ros2_control_node", output="screen",
             parameters=[controllers], remappings=[("~/robot_description", "/robot_description")]),
        Node(package="controller_manager", executable="spawner",
             arguments=["joint_state_broadcaster", "motor_position_controller",
                        "--controller-manager", "/controller_manager"]),
        Node(package="tf2_ros", executable="static_transform_publisher", output="screen",
             arguments=["--frame-id", "world", "--child-frame-id", "link_1"]),

        Node(package="snake_control", executable="gait_generator", output="screen",
             parameters=[node_params, {"robot": robot, "gait.type": LaunchConfiguration("gait")}]),
        OpaqueFunction(function=sea_joint_controllers),
        Node(package="snake_control", executable="motor_command_mux", output="screen",
             parameters=[node_params, {"robot": robot}]),

        Node(package="rviz2", executable="rviz2", output="log",
             arguments=["-d", PathJoinSubstitution([share, "config", "rviz", "snake.rviz"])],
             condition=IfCondition(LaunchConfiguration("rviz"))),
    ])
