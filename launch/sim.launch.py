"""Simulation of the modular SEA snake with our nodes: Gazebo (gz sim Harmonic) with ros2_control, MuJoCo with
ros2_control (mujoco_ros2_control), or the embedded simulator as a ROS node.

    ros2 launch snake_bringup sim.launch.py world:=stairs robot:=koopaee6 gait:=pedal_wave controller:=tsc
    ros2 launch snake_bringup sim.launch.py simulator:=mujoco rviz:=false
    ros2 launch snake_bringup sim.launch.py simulator:=embedded rviz:=false

Arguments (docs/ros.md): simulator, scenario, lockstep, world, robot, gait,
controller, layout, joint_roll, head_tracking, manipulability, rviz, gazebo_gui, mujoco_model, mujoco_gui,
mujoco_speed, use_sim_time. Our nodes come
from snake_control.graph (the list the graph tests start too): gait_generator → the SEA controllers of
``layout`` (composed: one sea_joint_controller for every joint; per_joint: one per joint and
motor_command_mux) → /motor_position_controller/commands; optionally manipulability_monitor and
head_tracking_controller.
Rigid-joint robots (004, robot:=ariizumi10 joint_roll:=90 head_tracking:=true) get
joint_effort_controller fed by head_tracking_controller through motor_command_mux (effort mode).

simulator:=gazebo: gz sim (ros_gz_sim gz_sim.launch.py) + ros_gz_bridge (/clock) → robot_state_publisher
(xacro, hardware:=gazebo) → ros_gz_sim create (from /robot_description) → once it has exited, the
controller spawners (joint_state_broadcaster, motor_pd_controller, motor_position_controller; Gazebo's
controller manager exists only after the spawn). Ground truth: the model's PosePublisher
(urdf/snake.gazebo.xacro) publishes one gz.msgs.Pose per link (in the model frame) and one for the model
(in the world) on /model/snake/pose; ros_gz_bridge turns each into a geometry_msgs/TransformStamped
on /ground_truth/poses (frame ids kept, gz's ``::`` written ``/``; not /tf, whose link tree
robot_state_publisher owns) → head_odometry → /head/odometry for head_tracking_controller.

simulator:=mujoco: the MJCF of the robot on the world (snake_sim.engines.mujoco.ros2_control: the suite's MuJoCo model
of ``scenario`` with this robot and world, its time step one controller_manager period of the controllers file) is
written to the launch's log folder (or ``mujoco_model`` is taken as it is) → robot_state_publisher (xacro,
hardware:=mujoco) → mujoco_ros2_control's ros2_control_node (MuJoCo steps the model and publishes /clock) → one
spawner of the same controllers as Gazebo (config/controllers/<robot>_gz.yaml: motor PD in pid_controller, effort
on the motor joints, the −K_D β̇ as the motor hinge's damping in the MJCF). The free joint of link_1 is published as
nav_msgs/Odometry on /mujoco/base_odometry; there is no /head/odometry (head_tracking needs Gazebo or embedded).

simulator:=embedded: snake_control's ``simulator`` node steps the model of ``scenario`` (vertical for
pedal-wave; planar for head-tracking-pfl, with a 004 robot) with this robot and world, publishes
/clock, /joint_states and /head/odometry itself and takes /motor_position_controller/commands: no
Gazebo, bridges, spawn, ros2_control or head_odometry.

RViz's fixed frame ``world`` stays tied to the tail (link_1) by a static transform, so RViz shows the
body in the tail's frame, not in the simulator's world where /head/odometry is.
"""

import functools
from pathlib import Path

from launch import LaunchDescription
from launch import logging as launch_logging
from launch.actions import (
    DeclareLaunchArgument,
    GroupAction,
    IncludeLaunchDescription,
    OpaqueFunction,
    RegisterEventHandler,
    SetLaunchConfiguration,
)
from launch.conditions import IfCondition, UnlessCondition
from launch.event_handlers import OnProcessExit
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import (
    Command,
    EqualsSubstitution,
    FindExecutable,
    IfElseSubstitution,
    LaunchConfiguration,
    PathJoinSubstitution,
)
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from snake_bringup.graph_nodes import launch_nodes
from snake_bringup.ros2_control import controllers_file, spawned_controllers, update_rate
from snake_control import graph
from snake_core.controllers import CONTROLLER_MODES
from snake_core.interface import GROUND_TRUTH_POSES, GROUND_TRUTH_QOS
from snake_core.robot import load_robot

PACKAGE = "snake_bringup"
#: The package of the robot description (urdf/) and the worlds.
DESCRIPTION = "snake_description"
#: Gazebo model name of the robot (ros_gz_sim create -name): PosePublisher's topic /model/<name>/pose.
MODEL = "snake"


def snake_control_nodes(context, *args, **kwargs):
    """Our nodes (snake_control.graph) for these arguments, and either the embedded simulator (which
    owns /clock, so never on sim time itself) or, with Gazebo, head_odometry on the ground truth."""
    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    robot = arg("robot")
    share = FindPackageShare(PACKAGE).perform(context)
    use_sim_time = arg("use_sim_time") == "true"
    embedded = arg("simulator") == "embedded"
    gazebo = arg("simulator") == "gazebo"
    lockstep = embedded and arg("lockstep") == "true"  # Gazebo runs free
    specs = graph.control_nodes(robot, gait=arg("gait"), controller=arg("controller"), layout=arg("layout"),
                                head_tracking=arg("head_tracking") == "true",
                                manipulability=arg("manipulability") == "true", lockstep=lockstep)
    if embedded:
        return launch_nodes([graph.simulator_node(robot, arg("world"), arg("scenario"), lockstep=lockstep), *specs],
                            share, use_sim_time)
    return launch_nodes([*specs, *([graph.head_odometry_node(robot, MODEL)] if gazebo else [])], share, use_sim_time)


def gazebo_robot(context, *args, **kwargs):
    """What Gazebo needs from the robot file: the spawn (belly on the ground, z = module width / 2) and,
    once the spawn has exited, the ros2_control controllers of config/controllers/<robot>_gz.yaml
    (every controller the file defines: SEA robots, the motor PD and the forward position command chained in
    front of it; rigid joints, effort commands)."""
    robot = LaunchConfiguration("robot").perform(context)
    params = load_robot(robot)
    spawn = Node(package="ros_gz_sim", executable="create", output="screen",
                 parameters=[{"topic": "robot_description", "name": MODEL, "allow_renaming": False,
                              "z": params.module_width / 2}])
    controllers = spawned_controllers(f"{FindPackageShare(PACKAGE).perform(context)}/{controllers_file(robot, True)}")
    spawner = Node(package="controller_manager", executable="spawner",
                   arguments=[*controllers, "--controller-manager", "/controller_manager"])
    return [spawn, RegisterEventHandler(OnProcessExit(target_action=spawn, on_exit=[spawner]))]


@functools.cache
def mjcf_text(scenario: str, overrides: tuple[str, ...]) -> str:
    """The MJCF of ``scenario`` with ``overrides`` for mujoco_ros2_control (built once per launch; MuJoCo and the
    suite's simulator are imported only for simulator:=mujoco)."""
    from snake_sim.core.scenario import load_scenario
    from snake_sim.engines.mujoco.ros2_control import scenario_mjcf

    return scenario_mjcf(load_scenario(scenario, list(overrides)))


def mujoco_robot(context, *args, **kwargs):
    """MuJoCo in ros2_control: the MJCF (``mujoco_model``, or written from ``scenario`` with this robot, world and
    joint roll, at one controller_manager period per MuJoCo step), mujoco_ros2_control's ros2_control_node (its
    own build of the node, as upstream's demos start it) with the Gazebo controllers file, one spawner of every
    controller in it. robot_state_publisher gives the node the URDF (hardware:=mujoco) on /robot_description."""
    def arg(name: str) -> str:
        return LaunchConfiguration(name).perform(context)

    robot, world = arg("robot"), arg("world")
    controllers = f"{FindPackageShare(PACKAGE).perform(context)}/{controllers_file(robot, True)}"
    actions = []
    if not arg("mujoco_model"):
        roll = arg("joint_roll").replace(",", " ").split()
        overrides = [f"robot.name={robot}", f"world.file={world}", "model=mujoco",
                     f"robot.joint_roll={roll[0] if len(roll) == 1 else '[' + ', '.join(roll) + ']'}",
                     f"sim.time_step={1.0 / update_rate(controllers)!r}"]
        path = Path(launch_logging.launch_config.log_dir) / f"{robot}_{world}.mjcf.xml"
        path.write_text(mjcf_text(arg("scenario"), tuple(overrides)), encoding="utf-8")
        actions.append(SetLaunchConfiguration("mujoco_model", str(path)))
    return [*actions,
            Node(package="mujoco_ros2_control", executable="ros2_control_node", output="screen",
                 parameters=[controllers, {"use_sim_time": True}]),
            Node(package="controller_manager", executable="spawner", output="screen",
                 arguments=[*spawned_controllers(controllers), "--controller-manager", "/controller_manager"])]


def generate_launch_description():
    robot = LaunchConfiguration("robot")
    use_sim_time = LaunchConfiguration("use_sim_time")
    gazebo = EqualsSubstitution(LaunchConfiguration("simulator"), "gazebo")
    mujoco = EqualsSubstitution(LaunchConfiguration("simulator"), "mujoco")
    share = FindPackageShare(PACKAGE)
    description = FindPackageShare(DESCRIPTION)
    world_sdf = [PathJoinSubstitution([description, "worlds", LaunchConfiguration("world")]), ".sdf"]
    robot_description = {"robot_description": ParameterValue(Command([
        PathJoinSubstitution([FindExecutable(name="xacro")]), " ",
        PathJoinSubstitution([description, "urdf", "snake.urdf.xacro"]),
        " robot:=", robot,
        " hardware:=", IfElseSubstitution(gazebo, "gazebo", IfElseSubstitution(mujoco, "mujoco", "mock")),
        " joint_roll:=", LaunchConfiguration("joint_roll"),
        " mujoco_model:='", LaunchConfiguration("mujoco_model"), "'",
        " mujoco_headless:=", IfElseSubstitution(LaunchConfiguration("mujoco_gui"), "false", "true"),
        " mujoco_speed:=", LaunchConfiguration("mujoco_speed"),
        " controllers_file:=", PathJoinSubstitution([share, "config", "controllers", robot]), "_gz.yaml",
    ]), value_type=str)}
    gz_sim = PathJoinSubstitution([FindPackageShare("ros_gz_sim"), "launch", "gz_sim.launch.py"])

    return LaunchDescription([
        DeclareLaunchArgument("simulator", default_value="gazebo", choices=list(graph.SIMULATORS),
                              description="gazebo (gz sim + ros2_control), mujoco (MuJoCo + ros2_control) or embedded "
                                          "(the simulator node of snake_sim_ros)"),
        DeclareLaunchArgument("scenario", default_value="pedal-wave",
                              description="simulator:=embedded: scenario in config/scenarios/ (its model and "
                                          "settings; robot and world from this launch); simulator:=mujoco: its "
                                          "contact and start (a 3-D scenario's perturbation)"),
        DeclareLaunchArgument("lockstep", default_value="false", choices=["true", "false"],
                              description="simulator:=embedded: each tick waits for the controllers' answer (the "
                                          "same result at any load; docs/ros.md); false: runs free, as Gazebo"),
        DeclareLaunchArgument("world", default_value="flat",
                              description="world in worlds/ (flat, stairs, two_obstacles, pushing)"),
        DeclareLaunchArgument("robot", default_value="koopaee6", description="robot file in config/robots/"),
        DeclareLaunchArgument("gait", default_value="pedal_wave", description="gait.type of gait_generator"),
        DeclareLaunchArgument("controller", default_value="position", choices=list(CONTROLLER_MODES),
                              description="SEA joint controller mode (gains in config/sea_modes/<mode>.yaml)"),
        DeclareLaunchArgument("layout", default_value="composed", choices=list(graph.LAYOUTS),
                              description="SEA controllers: composed (one node, all joints) or per_joint"),
        DeclareLaunchArgument("joint_roll", default_value="0",
                              description="joint axes: 0 vertical plane (002), 90 horizontal plane (004)"),
        DeclareLaunchArgument("head_tracking", default_value="false", choices=["true", "false"],
                              description="start head_tracking_controller (004; use controller:=torque)"),
        DeclareLaunchArgument("manipulability", default_value="false", choices=["true", "false"],
                              description="start manipulability_monitor (004 robots, horizontal plane)"),
        DeclareLaunchArgument("rviz", default_value="true", choices=["true", "false"], description="start RViz"),
        DeclareLaunchArgument("gazebo_gui", default_value="true", choices=["true", "false"],
                              description="start the Gazebo GUI (false: server only)"),
        DeclareLaunchArgument("mujoco_model", default_value="",
                              description="simulator:=mujoco: an MJCF file for mujoco_ros2_control (default: written "
                                          "from scenario, robot, world; snake-sim mjcf)"),
        DeclareLaunchArgument("mujoco_gui", default_value="false",
                              description="simulator:=mujoco: MuJoCo's Simulate window, true or false (headless)"),
        DeclareLaunchArgument("mujoco_speed", default_value="1.0",
                              description="simulator:=mujoco: simulated seconds per wall second (below 1 on a "
                                          "loaded machine keeps the controllers in step)"),
        DeclareLaunchArgument("use_sim_time", default_value="true", choices=["true", "false"],
                              description="follow the simulator's /clock"),

        GroupAction(condition=IfCondition(gazebo), actions=[
            IncludeLaunchDescription(PythonLaunchDescriptionSource([gz_sim]),
                                     launch_arguments=[("gz_args", [*world_sdf, " -r -v 1"])],
                                     condition=IfCondition(LaunchConfiguration("gazebo_gui"))),
            IncludeLaunchDescription(PythonLaunchDescriptionSource([gz_sim]),
                                     launch_arguments=[("gz_args", [*world_sdf, " -r -s -v 1"])],
                                     condition=UnlessCondition(LaunchConfiguration("gazebo_gui"))),
            Node(package="ros_gz_bridge", executable="parameter_bridge", name="clock_bridge", output="screen",
                 arguments=["/clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock"]),
            Node(package="ros_gz_bridge", executable="parameter_bridge", name="ground_truth_bridge", output="screen",
                 arguments=[f"/model/{MODEL}/pose@geometry_msgs/msg/TransformStamped[gz.msgs.Pose"],
                 remappings=[(f"/model/{MODEL}/pose", GROUND_TRUTH_POSES)],
                 # ROS-side history as head_odometry's: PosePublisher sends every pose of an update at once (2 N − 1
                 # links and the model: 12 for koopaee6); the bridge's default depth of 10 would drop some
                 parameters=[{"qos_overrides": {GROUND_TRUTH_POSES: {"publisher": {
                     "depth": GROUND_TRUTH_QOS.depth}}}}]),
            OpaqueFunction(function=gazebo_robot),
        ]),
        OpaqueFunction(function=mujoco_robot, condition=IfCondition(mujoco)),
        Node(package="robot_state_publisher", executable="robot_state_publisher", output="screen",
             parameters=[robot_description, {"use_sim_time": use_sim_time}]),
        Node(package="tf2_ros", executable="static_transform_publisher", output="screen",
             arguments=["--frame-id", "world", "--child-frame-id", "link_1"],
             parameters=[{"use_sim_time": use_sim_time}]),
        OpaqueFunction(function=snake_control_nodes),
        Node(package="rviz2", executable="rviz2", output="log",
             arguments=["-d", PathJoinSubstitution([share, "config", "rviz", "snake.rviz"])],
             parameters=[{"use_sim_time": use_sim_time}], condition=IfCondition(LaunchConfiguration("rviz"))),
    ])
