"""SROS2 for the real robot: a keystore with one enclave per node of robot.launch.py, whose permissions allow the
topics that node publishes and subscribes (and the services it serves and calls), nothing more.

    python -m snake_bringup.security KEYSTORE [--robot koopaee6] [--controller position] [--layout composed]
                                              [--gait pedal_wave]
    ros2 launch snake_bringup robot.launch.py secure:=true keystore:=KEYSTORE ...

The graph is the one robot.launch.py starts (:func:`robot_graph`): our nodes are snake_control.graph's specs and
the can_bridge, and what each publishes, subscribes, serves and calls is read from the node itself (each started as
``ros2 run`` starts it, on a private ROS domain, and asked through the ROS graph, as ``ros2 node info`` does); the
upstream nodes (robot_state_publisher, ros2_control_node with its controllers and topic hardware, the spawner,
static_transform_publisher, rviz2) are :data:`UPSTREAM`, from their sources. The keystore, enclaves, certificates and
signed permissions are written by sros2's own keystore functions (``sros2.keystore``) from a policy file
(``KEYSTORE/policy.xml``, sros2's policy format); the permissions are bound to the ROS_DOMAIN_ID in the
environment when the command runs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from snake_bringup import ros2_control
from snake_control import graph
from snake_core import locator
from snake_core.interface import CAN_BRIDGE_ESTOP_ENGAGED, MOTOR_POSITION_COMMANDS
from snake_core.robot import load_robot

#: Enclaves live under this prefix: /snake/<node namespace>/<node name>.
ENCLAVE_ROOT = "/snake"
#: Every node of robot.launch.py that is not ours, by launch name: (publishes, subscribes, serves, calls).
#: Each is a process (one DDS participant, one enclave). Sources:
#: - robot_state_publisher: ros/robot_state_publisher README "Published Topics" / "Subscribed Topics" (jazzy);
#: - ros2_control_node: ros2_control controller_manager/src/controller_manager.cpp:658 (~/activity) and :755
#:   (robot_description); ros2_controllers joint_state_broadcaster/src/joint_state_broadcaster.cpp:141,151
#:   (joint_states, dynamic_joint_states); forward_command_controller/src/forward_controllers_base.cpp:73 (~/commands
#:   of each forward command controller of the robot's controllers file, added by :func:`upstream_grants`);
#:   topic_based_hardware_interfaces joint_state_topic_hardware_interface/src/
#:   joint_state_topic_hardware_interface.cpp:73,75 (joint_commands_topic, joint_states_topic of
#:   urdf/snake.ros2_control.xacro); the controller manager's services are /controller_manager/*, and each
#:   controller is a node of its process with its own parameter and logger services, /<controller>/* (rclcpp's
#:   parameter services; controller_interface/controller_interface_base.hpp define_custom_node_options,
#:   enable_logger_service), and so is the hardware component (hardware_interface/src/
#:   hardware_component_interface.cpp:120-127, 185: node ``<ros2_control name, lower case>``, the robot file's name
#:   in urdf/snake.ros2_control.xacro), added by :func:`upstream_grants`;
#: - spawner: ros2_control controller_manager/controller_manager/spawner.py (the /controller_manager/* services; its
#:   node is ``spawner_<first controller>``, spawner.py:401, its parameter services named by :func:`upstream_grants`);
#: - static_transform_publisher: tf2_ros (/tf_static);
#: - aggregator_node: diagnostics diagnostic_aggregator/src/aggregator.cpp (jazzy): its node is ``analyzers`` whatever
#:   the executable (the Aggregator constructor), /diagnostics in, /diagnostics_agg and /diagnostics_toplevel_state out
#:   (Aggregator::Aggregator, the create_subscription and create_publisher calls);
#: - rviz2: reads the displays of config/rviz/snake.rviz: it subscribes and publishes nothing (all graph topics).
UPSTREAM: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "robot_state_publisher": (("/robot_description", "/tf", "/tf_static"), ("/joint_states",), (), ()),
    "controller_manager": (
        ("/controller_manager/activity", "/joint_states", "/dynamic_joint_states", "/can_bridge/joint_commands"),
        ("/robot_description", "/can_bridge/joint_states"),
        ("/controller_manager/*",), ()),
    "spawner": ((), (), (), ("/controller_manager/*",)),
    "static_transform_publisher": (("/tf_static",), (), (), ()),
    "analyzers": (("/diagnostics_agg", "/diagnostics_toplevel_state"), ("/diagnostics",), (), ()),
}
#: The operator's enclave: the only one that may call the bridge's e-stop service (engage and release) and arm the
#: gait (the controllers' enclaves may not), reading /diagnostics to see the result:
#: ``ROS_SECURITY_ENCLAVE_OVERRIDE=/snake/operator ros2 service call …`` (docs/robot.md "Emergency stop", "Arming").
OPERATOR = "/operator"
OPERATOR_SERVICES = ("/can_bridge/estop", "/gait_generator/arm")
#: what the gait generator calls when the operator arms or disarms it (robot.launch.py's command controllers)
ARMING_SERVICE = "/controller_manager/switch_controller"
#: What every ROS 2 node has (rcl): /rosout and /parameter_events, and its own parameter and type-description
#: services (the upstream nodes' part; ours are read from the nodes).
NODE_TOPICS = ("/rosout", "/parameter_events")
NODE_SERVICES = ("describe_parameters", "get_parameter_types", "get_parameters", "get_type_description",
                 "list_parameters", "set_parameters", "set_parameters_atomically")
DISCOVERY_TIMEOUT = 60.0  # s for a started node to appear with its topics in the ROS graph


@dataclass(frozen=True)
class NodeGrant:
    """One node of the launch: its enclave and the names it may use (fully qualified)."""

    name: str  # fully qualified node name
    enclave: str
    publish: tuple[str, ...]
    subscribe: tuple[str, ...]
    reply: tuple[str, ...] = ()
    request: tuple[str, ...] = ()

    @property
    def topics(self) -> set[str]:
        return {*self.publish, *self.subscribe}


def enclave_of(fully_qualified_name: str) -> str:
    """The enclave of a node: /snake/<namespace>/<name>."""
    return ENCLAVE_ROOT + fully_qualified_name


def launch_kwargs(enclave_name: str, env: Mapping[str, Any]) -> dict[str, Any]:
    """launch_ros Node keyword arguments that start a node in its enclave (``--enclave``, ignored by rcl unless
    ``env`` enables security) with the security environment ``env`` (robot.launch.py's, from ``secure:=``)."""
    return {"ros_arguments": ["--enclave", enclave_of(enclave_name)], "additional_env": dict(env)}


def bridge_spec(robot: str) -> graph.NodeSpec:
    """The can_bridge of robot.launch.py (a virtual bus when its topics are read: no CAN hardware needed)."""
    return graph.NodeSpec("can_bridge", "can_bridge", package="snake_hardware", param_files=(),
                          parameters={"robot": robot, "can_bus_type": "virtual", "can_interface": "sros2_probe",
                                      "deadman_topic": MOTOR_POSITION_COMMANDS})


def our_specs(robot: str, controller: str, layout: str, gait: str) -> list[graph.NodeSpec]:
    """Our nodes of robot.launch.py: the can_bridge and snake_control.graph's nodes for these arguments."""
    return [bridge_spec(robot), *graph.control_nodes(robot, gait=gait, controller=controller, layout=layout,
                                                     estop_topic=CAN_BRIDGE_ESTOP_ENGAGED)]


def upstream_grants(ours: Sequence[NodeGrant], commands: Sequence[str] = (), controllers: Sequence[str] = (),
                    hardware: str | None = None) -> list[NodeGrant]:
    """The upstream nodes' grants (:data:`UPSTREAM`; the controller manager also subscribes to ``commands``, its
    forward command controllers' topics, and serves the services of its ``controllers``' nodes and of the node of
    its ``hardware`` component, named by the URDF's ros2_control block), the operator (:data:`OPERATOR`), rviz2
    reading every topic of the graph."""
    grants = []
    for name, (publish, subscribe, reply, request) in UPSTREAM.items():
        node = name
        if name == "controller_manager":
            nodes = [*controllers, *([hardware.lower().replace("/", "_")] if hardware else [])]
            subscribe, reply = (*subscribe, *commands), (*reply, *(f"/{n}/*" for n in nodes))
        elif name == "spawner" and controllers:
            node = f"spawner_{controllers[0]}"
        services = tuple(f"/{node}/{s}" for s in NODE_SERVICES)
        grants.append(NodeGrant(f"/{node}", enclave_of(f"/{name}"), (*publish, *NODE_TOPICS), (*subscribe,
                                "/parameter_events"), (*reply, *services), request))
    grants.append(NodeGrant(OPERATOR, enclave_of(OPERATOR), NODE_TOPICS, ("/diagnostics", "/parameter_events"),
                            request=OPERATOR_SERVICES))
    seen = sorted({t for g in [*ours, *grants] for t in g.topics} - set(NODE_TOPICS))
    grants.append(NodeGrant("/rviz2", enclave_of("/rviz2"), NODE_TOPICS, (*seen, "/parameter_events"),
                            tuple(f"/rviz2/{s}" for s in NODE_SERVICES)))
    return grants


def read_nodes(specs: Sequence[graph.NodeSpec], share: Path, timeout: float = DISCOVERY_TIMEOUT) -> list[NodeGrant]:
    """Start every spec as ``ros2 run`` does on a private ROS domain (localhost discovery) and read, from the ROS
    graph, the topics each publishes and subscribes and the services it serves and calls."""
    import rclpy

    domain = 100 + os.getpid() % 100
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    with tempfile.TemporaryDirectory() as workdir:
        processes = [_start(s, share, Path(workdir), env) for s in specs]  # quiet: their output is of no use here
        try:
            probe = rclpy.create_node("sros2_probe", context=context)
            return [_read_node(probe, s, processes[i], timeout) for i, s in enumerate(specs)]
        finally:
            graph.stop(processes)
            rclpy.try_shutdown(context=context)


def _start(spec: graph.NodeSpec, share: Path, workdir: Path, env: dict[str, str]) -> subprocess.Popen:
    """``graph.start``; the can_bridge by its module (python-can installs a ``can_bridge`` of its own on PATH)."""
    if spec.package != "snake_hardware":
        return graph.start(spec, share, workdir, use_sim_time=False, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    values = [f"{k}:={v}" for k, v in spec.node_parameters(False).items()]
    return subprocess.Popen([sys.executable, "-m", "snake_hardware.bridge_node", "--ros-args",
                             *(a for v in values for a in ("-p", v))], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _read_node(probe, spec: graph.NodeSpec, process, timeout: float) -> NodeGrant:
    from rclpy.node import NodeNameNonExistentError

    namespace = f"/{spec.namespace}" if spec.namespace else "/"
    end = time.monotonic() + timeout
    last, stable_since = None, time.monotonic()
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"{spec.fully_qualified_name} ended (exit {process.returncode}) before its topics "
                               "could be read")
        try:
            found = (probe.get_publisher_names_and_types_by_node(spec.name, namespace),
                     probe.get_subscriber_names_and_types_by_node(spec.name, namespace),
                     probe.get_service_names_and_types_by_node(spec.name, namespace),
                     probe.get_client_names_and_types_by_node(spec.name, namespace))
        except NodeNameNonExistentError:  # not discovered yet
            found = None
        names = None if found is None else tuple(tuple(sorted(n for n, _types in kind)) for kind in found)
        if names != last:
            last, stable_since = names, time.monotonic()
        elif names is not None and names[0] and time.monotonic() - stable_since >= 1.0:
            return NodeGrant(spec.fully_qualified_name, enclave_of(spec.fully_qualified_name), *names)
        time.sleep(0.1)
    raise RuntimeError(f"{spec.fully_qualified_name} did not appear in the ROS graph within {timeout:g} s")


def robot_graph(robot: str = "koopaee6", controller: str = "position", layout: str = "composed",
                gait: str = "pedal_wave", share: Path | None = None) -> list[NodeGrant]:
    """Every node robot.launch.py starts for these arguments (and rviz2), with what it may use."""
    share = share or locator.data_dir()
    # the gait generator is read without its command controllers (their service types are the robot's ROS install's):
    # arming calls the controller_manager's switch_controller
    ours = [replace(g, request=(*g.request, ARMING_SERVICE)) if g.name == "/gait_generator" else g
            for g in read_nodes(our_specs(robot, controller, layout, gait), share)]
    controllers = share / ros2_control.controllers_file(robot)
    return [*ours, *upstream_grants(ours, ros2_control.command_topics(controllers),
                                    ros2_control.spawned_controllers(controllers), load_robot(robot).name)]


def policy(grants: Sequence[NodeGrant]) -> ElementTree.ElementTree:
    """sros2's policy document (policy.xsd 0.2.0): one enclave per node, one profile each."""
    root = ElementTree.Element("policy", version="0.2.0")
    enclaves = ElementTree.SubElement(root, "enclaves")
    for g in grants:
        namespace, _, node = g.name.rpartition("/")
        profile = ElementTree.SubElement(ElementTree.SubElement(ElementTree.SubElement(
            enclaves, "enclave", path=g.enclave), "profiles"), "profile", ns=namespace or "/", node=node)
        for tag, item, rule, names in (("topics", "topic", "publish", g.publish),
                                       ("topics", "topic", "subscribe", g.subscribe),
                                       ("services", "service", "reply", g.reply),
                                       ("services", "service", "request", g.request)):
            if names:
                group = ElementTree.SubElement(profile, tag, {rule: "ALLOW"})
                for name in sorted(names):
                    ElementTree.SubElement(group, item).text = name
    ElementTree.indent(root)
    return ElementTree.ElementTree(root)


def create_keystore(keystore: Path, grants: Sequence[NodeGrant]) -> Path:
    """The keystore (created if absent), one enclave per grant, and its permissions signed by the keystore's
    permissions CA (sros2.keystore); returns the policy file written in the keystore."""
    os.environ.setdefault("AMENT_PREFIX_PATH", sys.prefix)  # sros2 finds its share (xml_cache) through ament_index
    from sros2 import keystore as sros2_keystore

    if not sros2_keystore.is_valid_keystore(keystore):
        sros2_keystore.create_keystore(keystore)
    policy_file = keystore / "policy.xml"
    policy(grants).write(policy_file, encoding="UTF-8", xml_declaration=True)
    for g in grants:
        sros2_keystore.create_enclave(keystore, g.enclave)
        sros2_keystore.create_permission(keystore, g.enclave, policy_file)
    return policy_file


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m snake_bringup.security", description=__doc__.split("\n\n")[0])
    parser.add_argument("keystore", type=Path, help="keystore folder (created if absent; enclaves are added)")
    parser.add_argument("--robot", default="koopaee6", help="robot file in config/robots/")
    parser.add_argument("--controller", default="position", help="SEA controller mode (robot.launch.py controller)")
    parser.add_argument("--layout", default="composed", choices=graph.LAYOUTS, help="robot.launch.py layout")
    parser.add_argument("--gait", default="pedal_wave", help="robot.launch.py gait")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        grants = robot_graph(args.robot, args.controller, args.layout, args.gait)
        policy_file = create_keystore(args.keystore, grants)
    except (ValueError, RuntimeError, OSError) as exc:  # a ConfigError, or a controllers file that is none
        print(f"snake_bringup.security: error: {exc}", file=sys.stderr)
        return 2
    for g in grants:
        print(f"{g.enclave}: publishes {len(g.publish)}, subscribes {len(g.subscribe)} topics")
    print(f"wrote {len(grants)} enclaves in {args.keystore} (policy: {policy_file}); launch with "
          f"secure:=true keystore:={args.keystore} (ROS_DOMAIN_ID {os.environ.get('ROS_DOMAIN_ID', '0')})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

