"""The nodes that declare their own parameters from a spec (``PARAMS``): rclpy gets each one's type, range, unit and
default from it, read-only but for what stays tunable, and docs/ros.md's tables are made from it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GENERATED = re.compile(r"<!-- node parameters: generated from the nodes' PARAMS -->\n(.*?)\n"
                       r"<!-- end of the generated node parameters -->", re.S)


#: What a node needs beyond its defaults to start here: the CAN bridge a bus (python-can's virtual one).
GIVEN = {"CanBridgeNode": {"can_bus_type": "virtual", "can_interface": "snake_parameter_specs"}}


def nodes() -> dict:
    """Each node module that declares from a spec → its node class, in docs/ros.md's order."""
    from snake_control import (
        gait_generator,
        head_odometry,
        head_tracking_controller,
        manipulability_monitor,
        motor_command_mux,
        sea_joint_controller,
    )
    from snake_hardware import bridge_node
    from snake_sim_ros import simulator

    return {sea_joint_controller: sea_joint_controller.SEAJointControllerNode,
            motor_command_mux: motor_command_mux.MotorCommandMuxNode,
            manipulability_monitor: manipulability_monitor.ManipulabilityMonitorNode,
            gait_generator: gait_generator.GaitGeneratorNode,
            head_tracking_controller: head_tracking_controller.HeadTrackingControllerNode,
            head_odometry: head_odometry.HeadOdometryNode,
            bridge_node: bridge_node.CanBridgeNode,
            simulator: simulator.SimulatorNode}


def node_tables() -> str:
    """docs/ros.md's tables of the nodes' own parameters, from their specs."""
    from snake_core.registry import param_table

    return "\n\n".join(f"**{m.__name__.rpartition('.')[2]}**\n\n{param_table(m.PARAMS, '')}" for m in nodes())


def test_the_docs_tables_are_the_nodes_specs(ros):
    (printed,) = GENERATED.findall((ROOT / "docs/ros.md").read_text(encoding="utf-8"))
    assert printed == node_tables()


def test_the_nodes_declare_their_spec_with_type_range_unit_and_default(ros):
    from rcl_interfaces.msg import ParameterType

    types = {float: ParameterType.PARAMETER_DOUBLE, int: ParameterType.PARAMETER_INTEGER,
             bool: ParameterType.PARAMETER_BOOL, str: ParameterType.PARAMETER_STRING}
    for module, cls in nodes().items():
        given = GIVEN.get(cls.__name__, {})
        node = ros.make(cls, use_sim_time=False, **given)
        for p in module.PARAMS:
            d = node.describe_parameter(p.name)
            assert d.read_only == (p.name not in getattr(module, "TUNABLE", ())), p.name
            assert d.type == types[p.kind] and p.description in d.description, p.name
            assert (f"[{p.unit}]" in d.description) == bool(p.unit), p.name
            assert node.get_parameter(p.name).value == given.get(p.name, p.default), p.name
            assert p.source in d.description, p.name
            if p.kind is float:
                r = d.floating_point_range[0]
                assert (r.from_value, r.to_value, r.step) == (p.low, 1e308 if p.high is None else p.high, 0.0)
            if p.kind is int:
                assert (d.integer_range[0].from_value, d.integer_range[0].to_value) == (p.low, p.high)
