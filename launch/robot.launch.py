"""The real robot: joint modules on a CAN bus through snake_hardware's can_bridge and ros2_control
(Jazzy's topic hardware, joint_state_topic_hardware_interface), with our nodes; RViz optional (or on
another machine, same ROS_DOMAIN_ID).

    ros2 launch snake_bringup robot.launch.py can_interface:=can0 robot:=koopaee6 controller:=stiffness

Arguments (docs/robot.md): can_interface, can_bus_type, can_bridge_params, realtime_priority, robot, controller,
gait, layout, joint_roll, use_mock_hardware, arm_controllers, rviz. Graph: can_bridge (CAN ⇄ /can_bridge/joint_states,
/can_bridge/joint_commands) ⇄ ros2_control_node (hardware:=real) with every controller of
config/controllers/<robot>.yaml, started by one spawner (joint_state_broadcaster → /joint_states first; SEA
robots: motor_position_controller ← /motor_position_controller/commands; rigid robots: joint_effort_controller ←
/joint_effort_controller/commands) ⇄ our nodes from snake_control.graph (gait_generator → the SEA controllers of
``layout``); diagnostic_aggregator groups /diagnostics on /diagnostics_agg (config/diagnostic_analyzers.yaml).
With use_mock_hardware:=true the modules are replaced by mock_components (commands mirrored into states) and no
CAN bridge is started; that is the only hardware of a robot file without CAN modules (can.module_ids).
"""

from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, SetEnvironmentVariable
from launch.conditions import IfCondition
from launch.substitutions import (
    Command,
    FindExecutable,
    IfElseSubstitution,
    LaunchConfiguration,
    PathJoinSubstitution,
)
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from snake_bringup import security
from snake_bringup.graph_nodes import launch_nodes
from snake_bringup.ros2_control import command_controllers, controllers_file, spawner_arguments
from snake_control import graph
from snake_core.controllers import CONTROLLER_MODES
from snake_core.interface import CAN_BRIDGE_ESTOP_ENGAGED, MOTOR_POSITION_COMMANDS
from snake_core.robot import load_robot

PACKAGE = "snake_bringup"
#: The package of the robot description (urdf/) and the worlds.
DESCRIPTION = "snake_description"


def snake_control_nodes(context, *args, **kwargs):
    """Our nodes (snake_control.graph) for these arguments, on the robot's clock."""
    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    # disarmed: the robot walks only once an operator arms the gait (docs/robot.md "Arming"); so after a restart too;
    # on the modules, arming first activates the command controllers (spawned inactive)
    share = FindPackageShare(PACKAGE).perform(context)
    commands = command_controllers(f"{share}/{controllers_file(arg('robot'))}") if _armed_controllers(context) else ()
    specs = graph.control_nodes(arg("robot"), gait=arg("gait"), controller=arg("controller"), layout=arg("layout"),
                                armed=False, command_controllers=commands, estop_topic=CAN_BRIDGE_ESTOP_ENGAGED)
    return launch_nodes(specs, share, use_sim_time=False,
                        extra=lambda spec: kwargs["secured"](spec.fully_qualified_name))


def _armed_controllers(context) -> bool:
    """Whether the command controllers start inactive for the operator's arming (arm_controllers; auto: on the
    modules, not on mock hardware)."""
    value = LaunchConfiguration("arm_controllers").perform(context)
    return LaunchConfiguration("use_mock_hardware").perform(context) != "true" if value == "auto" else value == "true"


def ros2_control_nodes(context, *args, **kwargs):
    """ros2_control_node with the robot's controllers file, one spawner of every controller it defines, and on
    the CAN hardware the bridge; a robot file without CAN modules has no real hardware: a clear error."""
    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    robot, share = arg("robot"), FindPackageShare(PACKAGE).perform(context)
    mock = arg("use_mock_hardware") == "true"
    if not mock and load_robot(robot).can_ids is None:
        raise RuntimeError(f"robot {robot}: its robot file names no CAN modules (can.module_ids), so it has no real "
                           "hardware here; start it with use_mock_hardware:=true")
    if arg("secure") == "true" and not Path(arg("keystore"), "enclaves").is_dir():
        raise RuntimeError(f"secure:=true needs keystore:= an SROS2 keystore (python -m snake_bringup.security "
                           f"KEYSTORE), not {arg('keystore')!r}")
    controllers = f"{share}/{controllers_file(robot)}"
    secured = kwargs["secured"]
    nodes = [
        Node(package="controller_manager", executable="ros2_control_node", output="screen", parameters=[controllers],
             **secured("/controller_manager")),
        Node(package="controller_manager", executable="spawner", output="screen",
             arguments=[*spawner_arguments(controllers, _armed_controllers(context)),
                        "--controller-manager", "/controller_manager"],
             **secured("/spawner")),
    ]
    if not mock:
        extra = [arg("can_bridge_params")] if arg("can_bridge_params") else []
        # the deadman: what the SEA controllers send into ros2_control (docs/robot.md "When something upstream stops")
        nodes.insert(0, Node(package="snake_hardware", executable="can_bridge", output="screen", parameters=[{
            "can_interface": arg("can_interface"), "can_bus_type": arg("can_bus_type"), "robot": robot,
            "deadman_topic": MOTOR_POSITION_COMMANDS, "realtime_priority": int(arg("realtime_priority"))}, *extra],
            **secured("/can_bridge")))
    return nodes


def generate_launch_description():
    robot = LaunchConfiguration("robot")
    mock = LaunchConfiguration("use_mock_hardware")
    share = FindPackageShare(PACKAGE)
    robot_description = {"robot_description": ParameterValue(Command([
        PathJoinSubstitution([FindExecutable(name="xacro")]), " ",
        PathJoinSubstitution([FindPackageShare(DESCRIPTION), "urdf", "snake.urdf.xacro"]),
        " robot:=", robot, " joint_roll:=", LaunchConfiguration("joint_roll"),
        " hardware:=", IfElseSubstitution(mock, "mock", "real"),
    ]), value_type=str)}
    # SROS2 (docs/robot.md "Security"): every node in its enclave of the keystore, enforced with secure:=true
    security_env = {"ROS_SECURITY_ENABLE": IfElseSubstitution(LaunchConfiguration("secure"), "true", "false"),
                    "ROS_SECURITY_STRATEGY": "Enforce", "ROS_SECURITY_KEYSTORE": LaunchConfiguration("keystore")}

    def secured(name: str) -> dict:
        return security.launch_kwargs(name, security_env)

    return LaunchDescription([
        DeclareLaunchArgument("can_interface", default_value="can0",
                              description="CAN channel of the module bus (SocketCAN interface at 1 Mbit/s)"),
        DeclareLaunchArgument("can_bus_type", default_value="socketcan",
                              description="python-can interface of the bus (socketcan, pcan, remote, …)"),
        DeclareLaunchArgument("can_bridge_params", default_value="",
                              description="extra ROS parameters file for can_bridge (rate, timeouts); empty: none"),
        DeclareLaunchArgument("realtime_priority", default_value="0",
                              description="SCHED_FIFO priority of can_bridge's CAN loop (1-98; 0: normal scheduling)"),
        DeclareLaunchArgument("robot", default_value="koopaee6", description="robot file in config/robots/"),
        DeclareLaunchArgument("controller", default_value="position", choices=list(CONTROLLER_MODES),
                              description="SEA joint controller mode (gains in config/sea_modes/<mode>.yaml)"),
        DeclareLaunchArgument("gait", default_value="pedal_wave", description="gait.type of gait_generator"),
        DeclareLaunchArgument("layout", default_value="composed", choices=list(graph.LAYOUTS),
                              description="SEA controllers: composed (one node, all joints) or per_joint"),
        DeclareLaunchArgument("joint_roll", default_value="0",
                              description="joint axes: 0 vertical plane (002), 90 horizontal plane (004)"),
        DeclareLaunchArgument("use_mock_hardware", default_value="false", choices=["true", "false"],
                              description="mock_components instead of the CAN modules (no bus needed)"),
        DeclareLaunchArgument("arm_controllers", default_value="auto", choices=["auto", "true", "false"],
                              description="command controllers spawned inactive, activated by arming the gait "
                                          "(~/arm) and deactivated by disarming; auto: on the modules, not on mock "
                                          "hardware"),
        DeclareLaunchArgument("rviz", default_value="false", choices=["true", "false"], description="start RViz"),
        DeclareLaunchArgument("secure", default_value="false",
                              description="true: SROS2, every node in its enclave of keystore (Enforce)"),
        DeclareLaunchArgument("keystore", default_value="",
                              description="SROS2 keystore for secure:=true (python -m snake_bringup.security)"),

        # one OpenBLAS thread per process: its idle threads busy-wait, which at real-time priority (can_bridge's
        # realtime_priority) can starve the very thread they wait for; the control path's matrices are small
        SetEnvironmentVariable("OPENBLAS_NUM_THREADS", "1"),
        Node(package="robot_state_publisher", executable="robot_state_publisher", output="screen",
             parameters=[robot_description], **secured("/robot_state_publisher")),
        OpaqueFunction(function=ros2_control_nodes, kwargs={"secured": secured}),
        # /diagnostics grouped on /diagnostics_agg: the CAN bus and modules, our control nodes, ros2_control
        Node(package="diagnostic_aggregator", executable="aggregator_node", output="screen",
             parameters=[PathJoinSubstitution([share, "config", "diagnostic_analyzers.yaml"])],
             **secured("/analyzers")),
        Node(package="tf2_ros", executable="static_transform_publisher", output="screen",
             arguments=["--frame-id", "world", "--child-frame-id", "link_1"], **secured("/static_transform_publisher")),
        OpaqueFunction(function=snake_control_nodes, kwargs={"secured": secured}),
        Node(package="rviz2", executable="rviz2", output="log",
             arguments=["-d", PathJoinSubstitution([share, "config", "rviz", "snake.rviz"])],
             condition=IfCondition(LaunchConfiguration("rviz")), **secured("/rviz2")),
    ])
