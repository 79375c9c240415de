"""The nodes that declare their own parameters from a spec (``PARAMS``): rclpy gets each one's type, range, unit and
default from it, read-only but for what stays tunable, and docs/ros.md's tables are made from it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GENERATED = re.compile(r"<!-- node parameters: generated from the nodes' PARAMS -->\n(.*?)\n"
                       r"<!-- end of the generated node parameters -->", re.S)


def node_tables() -> str:
    """docs/ros.md's tables of the nodes' own parameters, from their specs."""
    from snake_control import manipulability_monitor, motor_command_mux, sea_joint_controller
    from snake_core.registry import param_table

    return "\n\n".join(f"**{m.__name__.rpartition('.')[2]}**\n\n{param_table(m.PARAMS, '')}"
                       for m in (sea_joint_controller, motor_command_mux, manipulability_monitor))


def test_the_docs_tables_are_the_nodes_specs(ros):
    (printed,) = GENERATED.findall((ROOT / "docs/ros.md").read_text(encoding="utf-8"))
    assert printed == node_tables()


def test_the_nodes_declare_their_spec_with_type_range_unit_and_default(ros):
    from rcl_interfaces.msg import ParameterType

    from snake_control import manipulability_monitor, motor_command_mux, sea_joint_controller

    types = {float: ParameterType.PARAMETER_DOUBLE, int: ParameterType.PARAMETER_INTEGER,
             bool: ParameterType.PARAMETER_BOOL, str: ParameterType.PARAMETER_STRING}
    for module, cls in ((sea_joint_controller, sea_joint_controller.SEAJointControllerNode),
                        (motor_command_mux, motor_command_mux.MotorCommandMuxNode),
                        (manipulability_monitor, manipulability_monitor.ManipulabilityMonitorNode)):
        node = ros.make(cls, use_sim_time=False)
        for p in module.PARAMS:
            d = node.describe_parameter(p.name)
            assert d.read_only == (p.name != "marker_scale"), p.name  # the monitor's marker scale stays tunable
            assert d.type == types[p.kind] and p.description in d.description, p.name
            assert (f"[{p.unit}]" in d.description) == bool(p.unit), p.name
            assert node.get_parameter(p.name).value == p.default and (p.source in d.description), p.name
            if p.kind is float:
                r = d.floating_point_range[0]
                assert (r.from_value, r.to_value, r.step) == (p.low, 1e308 if p.high is None else p.high, 0.0)
            if p.kind is int:
                assert (d.integer_range[0].from_value, d.integer_range[0].to_value) == (p.low, p.high)
