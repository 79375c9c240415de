"""Gazebo (gz sim Harmonic) simulation of the modular SEA snake with ros2_control and our nodes.

    ros2 launch snake_bringup sim.launch.py world:=stairs robot:=koopaee6 gait:=pedal_wave controller:=tsc

Arguments (README "ROS 2"): world, robot, gait, controller, joint_roll, head_tracking,
manipulability, rviz, gazebo_gui, use_sim_time. Graph: gz sim + ros_gz_bridge (/clock) → robot_state_publisher (xacro,
hardware:=gazebo) → spawn → controller spawners (joint_state_broadcaster, motor_pd_controller,
motor_position_controller) → gait_generator → sea_joint_controller × (N−1) → motor_command_mux →
/motor_position_controller/commands; optionally manipulability_monitor and head_tracking_controller.
Rigid-joint robots (004, robot:=ariizumi10 joint_roll:=90 head_tracking:=true) get
joint_effort_controller fed by head_tracking_controller through motor_command_mux (effort mode).
Ground truth: the PosePublisher's gz.msgs.Pose_V on /model/snake/pose (urdf/snake.gazebo.xacro: the
links in the model frame, the model in the world) → ros_gz_bridge → /ground_truth/poses
(tf2_msgs/TFMessage; not /tf, whose link tree robot_state_publisher owns) → head_odometry →
/head/odometry for head_tracking_controller. head_odometry always runs (cheap; the head's path is
there to record or plot without head tracking too). RViz's fixed frame ``world`` stays tied to the
tail (link_1) by a static transform, so RViz shows the body in the tail's frame, not in Gazebo's world
where /head/odometry is.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, IncludeLaunchDescription, OpaqueFunction
from launch.conditions import IfCondition, UnlessCondition
from launch.launch_description_sources import PythonLaunchDescriptionSource
from launch.substitutions import Command, FindExecutable, LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from snake_core.robot import load_robot

PACKAGE = "snake_bringup"
#: Gazebo model name of the robot (ros_gz_sim create -name): PosePublisher's topic /model/<name>/pose.
MODEL = "snake"


def robot_nodes(context, *args, **kwargs):
    """What depends on the robot file: the spawn (belly on the ground, z = module width / 2), the
    ros2_control controllers of config/controllers/<robot>_gz.yaml, and the command path:
    SEA robots get one sea_joint_controller per joint (joint_index 1 = tail, namespace joint_<j>) and
    motor_command_mux in position mode; rigid-joint robots (004) take head_tracking_controller's
    torques through motor_command_mux in effort mode."""
    robot = LaunchConfiguration("robot").perform(context)
    params = load_robot(robot)
    share = FindPackageShare(PACKAGE).perform(context)
    use_sim_time = LaunchConfiguration("use_sim_time").perform(context) == "true"
    node_params = f"{share}/config/snake_control.yaml"
    sea = params.sea is not None
    spawn = Node(package="ros_gz_sim", executable="create", output="screen",
                 arguments=["-topic", "robot_description", "-name", MODEL, "-allow_renaming", "true",
                            "-z", str(params.module_width / 2)])
    controllers = ["motor_pd_controller", "motor_position_controller"] if sea else ["joint_effort_controller"]
    spawner = Node(package="controller_manager", executable="spawner",
                   arguments=["joint_state_broadcaster", *controllers, "--controller-manager", "/controller_manager"])
    mux = Node(package="snake_control", executable="motor_command_mux", output="screen",
               parameters=[node_params, {"robot": robot, "mode": "position" if sea else "effort",
                                         "use_sim_time": use_sim_time}])
    sea_controllers = [
        Node(
            package="snake_control",
            executable="sea_joint_controller",
            name="sea_joint_controller",
            namespace=f"joint_{j}",
            output="screen",
            parameters=[
                node_params,
                f"{share}/config/sea_modes/{LaunchConfiguration('controller').perform(context)}.yaml",
                {"robot": robot, "joint_index": j, "use_sim_time": use_sim_time},
            ],
        )
        for j in range(1, params.n_joints + 1)
    ] if sea else []
    return [spawn, spawner, mux, *sea_controllers]


def generate_launch_description():
    robot = LaunchConfiguration("robot")
    use_sim_time = LaunchConfiguration("use_sim_time")
    share = FindPackageShare(PACKAGE)
    node_params = PathJoinSubstitution([share, "config", "snake_control.yaml"])
    world_file = PathJoinSubstitution([share, "worlds", [LaunchConfiguration("world"), ".sdf"]])
    robot_description = {"robot_description": ParameterValue(Command([
        PathJoinSubstitution([FindExecutable(name="xacro")]), " ",
        PathJoinSubstitution([share, "urdf", "snake.urdf.xacro"]),
        " robot:=", robot, " hardware:=gazebo", " joint_roll:=", LaunchConfiguration("joint_roll"),
    ]), value_type=str)}
    gz_sim = PathJoinSubstitution([FindPackageShare("ros_gz_sim"), "launch", "gz_sim.launch.py"])

    return LaunchDescription([
        DeclareLaunchArgument("world", default_value="flat",
                              description="world in worlds/ (flat, stairs, two_obstacles, pushing)"),
        DeclareLaunchArgument("robot", default_value="koopaee6", description="robot file in config/robots/"),
        DeclareLaunchArgument("gait", default_value="pedal_wave", description="gait.type of gait_generator"),
        DeclareLaunchArgument("controller", default_value="position",
                              choices=["position", "stiffness", "tsc", "torque"],
                              description="SEA joint controller mode (gains in config/sea_modes/<mode>.yaml)"),
        DeclareLaunchArgument("joint_roll", default_value="0",
                              description="joint axes: 0 vertical plane (002), 90 horizontal plane (004)"),
        DeclareLaunchArgument("head_tracking", default_value="false", choices=["true", "false"],
                              description="start head_tracking_controller (004; use controller:=torque)"),
        DeclareLaunchArgument("manipulability", default_value="false", choices=["true", "false"],
                              description="start manipulability_monitor (004 robots, horizontal plane)"),
        DeclareLaunchArgument("rviz", default_value="true", choices=["true", "false"], description="start RViz"),
        DeclareLaunchArgument("gazebo_gui", default_value="true", choices=["true", "false"],
                              description="start the Gazebo GUI (false: server only)"),
        DeclareLaunchArgument("use_sim_time", default_value="true", choices=["true", "false"],
                              description="use the Gazebo /clock"),

        IncludeLaunchDescription(PythonLaunchDescriptionSource([gz_sim]),
                                 launch_arguments=[("gz_args", [world_file, " -r -v 1"])],
                                 condition=IfCondition(LaunchConfiguration("gazebo_gui"))),
        IncludeLaunchDescription(PythonLaunchDescriptionSource([gz_sim]),
                                 launch_arguments=[("gz_args", [world_file, " -r -s -v 1"])],
                                 condition=UnlessCondition(LaunchConfiguration("gazebo_gui"))),
        Node(package="ros_gz_bridge", executable="parameter_bridge", output="screen",
             arguments=["/clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock"]),
        Node(package="ros_gz_bridge", executable="parameter_bridge", name="ground_truth_bridge", output="screen",
             arguments=[f"/model/{MODEL}/pose@tf2_msgs/msg/TFMessage[gz.msgs.Pose_V"],
             remappings=[(f"/model/{MODEL}/pose", "/ground_truth/poses")]),
        Node(package="robot_state_publisher", executable="robot_state_publisher", output="screen",
             parameters=[robot_description, {"use_sim_time": use_sim_time}]),
        Node(package="tf2_ros", executable="static_transform_publisher", output="screen",
             arguments=["--frame-id", "world", "--child-frame-id", "link_1"],
             parameters=[{"use_sim_time": use_sim_time}]),

        Node(package="snake_control", executable="gait_generator", output="screen",
             parameters=[node_params, {"robot": robot, "gait.type": LaunchConfiguration("gait"),
                                       "use_sim_time": use_sim_time}]),
        OpaqueFunction(function=robot_nodes),
        Node(package="snake_control", executable="manipulability_monitor", output="screen",
             parameters=[node_params, {"robot": robot, "use_sim_time": use_sim_time}],
             condition=IfCondition(LaunchConfiguration("manipulability"))),
        Node(package="snake_control", executable="head_odometry", output="screen",
             parameters=[node_params, {"robot": robot, "model": MODEL, "use_sim_time": use_sim_time}]),
        Node(package="snake_control", executable="head_tracking_controller", output="screen",
             parameters=[node_params, {"robot": robot, "use_sim_time": use_sim_time}],
             condition=IfCondition(LaunchConfiguration("head_tracking"))),

        Node(package="rviz2", executable="rviz2", output="log",
             arguments=["-d", PathJoinSubstitution([share, "config", "rviz", "snake.rviz"])],
             parameters=[{"use_sim_time": use_sim_time}], condition=IfCondition(LaunchConfiguration("rviz"))),
    ])
