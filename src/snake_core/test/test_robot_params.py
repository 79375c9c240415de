"""Robot files load into validated parameters; bad values are refused with one clear message."""

import math
import re
from pathlib import Path

import pytest
import yaml

from snake_core import locator
from snake_core.actuator import motor_pd
from snake_core.robot import load_robot, robot_file_tables, robot_from_dict
from snake_core.validation import ConfigError, number

ROOT = Path(__file__).resolve().parents[3]


def _raw(name: str) -> dict:
    with open(locator.robot_file(name), encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def test_koopaee6_matches_002_tables():
    robot = load_robot("koopaee6")
    assert robot.n_links == 6 and robot.n_joints == 5
    # Table 3.2's 956 g: 5 rotors of m_r = 0.02 kg, the links the rest (002's simulation: m_l = 0.15 kg, 1.0 kg)
    assert robot.n_links * robot.link_mass + robot.n_joints * robot.actuator.rotor_mass == pytest.approx(0.956)
    assert robot.actuator.rotor_mass == 0.02
    assert robot.link_inertia == pytest.approx(1.52e-5)
    assert robot.sea.stiffness == (1.74,) * 5
    assert robot.actuator.gear_ratio == 256
    assert robot.actuator.kp == 60.0 and robot.actuator.kd == 25.0
    assert robot.joint_limit == pytest.approx(math.pi / 3)
    assert robot.total_length == pytest.approx(0.445, abs=2e-3)
    assert robot.actuator.rotor_term == pytest.approx(2.45e-7)  # 002 (4.36) read literally


def test_koopaee6_sim_is_002s_simulated_robot_of_table_5_1():
    """002's simulation (§5.3, Table 5.1): m_l = 0.15 kg, J_l = 1.52e-5, m_r = 0.02, J_r = 2.45e-7, n = 256, K = 1.74,
    K_p = 60, K_D = 25; no torque–speed line, no limit on α, no mesh tensor; the geometry of the robot as built."""
    sim, built = load_robot("koopaee6_sim"), load_robot("koopaee6")
    assert sim.name == "koopaee6_sim" and _raw("koopaee6_sim")["name"] == "koopaee6_sim"
    assert sim.link_mass == 0.15 and sim.link_inertia == 1.52e-5
    assert sim.total_mass + sim.n_joints * sim.actuator.rotor_mass == pytest.approx(1.0)  # 1.0 kg in all
    a = sim.actuator
    assert (a.rotor_mass, a.rotor_inertia, a.gear_ratio, a.kp, a.kd) == (0.02, 2.45e-7, 256, 60.0, 25.0)
    assert sim.sea.stiffness == (1.74,) * 5 and a.rotor_term == pytest.approx(2.45e-7)
    assert not a.torque_speed_line and built.actuator.torque_speed_line
    assert sim.alpha_limit == math.inf and built.alpha_limit == pytest.approx(math.pi / 3)
    assert sim.inertia_tensor == (1.52e-5,) * 3  # J_l about every axis
    assert (sim.n_links, sim.link_length, sim.module_width) == (built.n_links, built.link_length, built.module_width)
    assert not motor_pd(sim, saturate=True).saturate and motor_pd(built, saturate=True).saturate


def test_inertia_tensor_defaults_to_the_planar_moment_and_must_be_a_bodys():
    data = _raw("koopaee6")
    assert load_robot("koopaee6").inertia_tensor == tuple(data["links"]["inertia_tensor"])
    data["links"].pop("inertia_tensor")
    assert robot_from_dict(data).inertia_tensor == (1.52e-5,) * 3
    data["links"]["inertia_tensor"] = [1e-5, 1e-5, 3e-5]
    with pytest.raises(ConfigError, match=r"links\.inertia_tensor = \[1e-05, 1e-05, 3e-05\] is invalid: must satisfy "
                                          r"the triangle inequality"):
        robot_from_dict(data)
    data["links"]["inertia_tensor"] = [1e-5, 1e-5]
    with pytest.raises(ConfigError, match=r"links\.inertia_tensor = .* is invalid: must be a list of 3"):
        robot_from_dict(data)


def test_reflected_rotor_inertia_is_n_squared_jr():
    data = _raw("koopaee6")
    data["actuator"]["rotor_inertia_model"] = "reflected"
    assert robot_from_dict(data).actuator.rotor_term == pytest.approx(256**2 * 2.45e-7)


@pytest.mark.parametrize(
    ("section", "key", "value", "field"),
    [
        ("links", "mass", -0.15, "links.mass"),
        ("links", "count", 1, "links.count"),
        ("links", "length", 0.0, "links.length"),
        ("sea", "stiffness", [1.74, 1.74], "sea.stiffness"),
        ("actuator", "rotor_inertia_model", "half", "actuator.rotor_inertia_model"),
        ("links", "masss", 0.1, "links.masss"),
        ("can", "profile", "canopen", "can.profile"),
        ("can", "estop_release_from_bus", "yes", "can.estop_release_from_bus"),
        ("actuator", "torque_speed_line", "off", "actuator.torque_speed_line"),
        ("joints", "limit_alpha", 0, "joints.limit_alpha"),
    ],
)
def test_bad_field_is_named_with_value_and_allowed_range(section, key, value, field):
    data = _raw("koopaee6")
    data[section][key] = value
    with pytest.raises(ConfigError) as info:
        robot_from_dict(data, "koopaee6.yaml")
    assert info.value.field == field
    message = str(info.value)
    assert message.startswith("koopaee6.yaml: " + field) and repr(value) in message


def test_can_profile_defaults_to_classic_and_lists_the_known_ones_when_unknown():
    assert load_robot("koopaee6").can_profile == "classic"
    data = _raw("koopaee6")
    data["can"]["profile"] = "compact"
    assert robot_from_dict(data).can_profile == "compact"
    data["can"]["profile"] = "fd"
    assert robot_from_dict(data).can_profile == "fd"
    data["can"]["profile"] = "canfd"
    with pytest.raises(ConfigError, match=r"can\.profile = 'canfd' is invalid: must be one of classic, compact, fd"):
        robot_from_dict(data)


def test_an_estop_release_frame_from_the_bus_is_obeyed_only_when_the_robot_file_says_so():
    assert load_robot("koopaee6").can_bus_release is False
    data = _raw("koopaee6")
    data["can"]["estop_release_from_bus"] = True
    assert robot_from_dict(data).can_bus_release is True


def test_missing_field_is_named():
    data = _raw("koopaee6")
    del data["links"]["inertia"]
    with pytest.raises(ConfigError, match=r"links\.inertia = missing is invalid: is required"):
        robot_from_dict(data)


def test_unknown_robot_lists_the_known_ones():
    with pytest.raises(ConfigError, match=r"unknown robot; known: .*koopaee6"):
        load_robot("no_such_robot")


@pytest.mark.parametrize(
    ("kwargs", "allowed"),
    [
        ({"low": 0.0, "low_open": True}, "must be > 0"),
        ({"low": 0.0, "high": 1.0, "low_open": True}, "must be in (0, 1]"),
        ({"high": 1.0, "high_open": True}, "must be < 1"),
    ],
)
def test_range_message_reads_as_a_sentence(kwargs, allowed):
    with pytest.raises(ConfigError) as info:
        number(5.0 if "high" in kwargs else -1.0, "x", **kwargs)
    assert info.value.allowed == allowed


def test_config_errors_survive_pickling_from_a_worker_process():
    """A run in a process pool reports its ConfigError to the parent (which re-raises it unchanged)."""
    import pickle

    from snake_core.validation import ConfigError, get

    with pytest.raises(ConfigError) as missing:
        get({}, "profile", "can", "robot.yaml")
    for error in (missing.value, ConfigError("can.profile", "fd", "one of classic, compact", "koopaee6.yaml")):
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is ConfigError and str(copy) == str(error)
        assert (copy.field, copy.value, copy.allowed, copy.source) == (error.field, error.value, error.allowed,
                                                                       error.source)


GENERATED = re.compile(r"<!-- robot file fields: generated by snake_core.robot.robot_file_tables\(\) -->\n(.*?)\n"
                       r"<!-- end of the generated robot file fields -->", re.S)


def test_the_docs_tables_of_the_robot_file_are_the_specs():
    """A changed default, range, unit or source that is not in docs/robot.md fails here (paste the function's output
    between the markers)."""
    (printed,) = GENERATED.findall((ROOT / "docs/robot.md").read_text(encoding="utf-8"))
    assert printed == robot_file_tables()


@pytest.mark.parametrize("name", locator.robot_names())
def test_every_shipped_robot_file_passes_its_specs(name):
    """Each file of config/robots/ loads, named as its file, with one CAN id per joint where it has a bus."""
    robot = load_robot(name)
    assert robot.name == name and robot.n_joints == robot.n_links - 1
    assert robot.can_ids is None or len(robot.can_ids) == robot.n_joints
    assert (robot.sea is None) or (robot.actuator is not None and len(robot.sea.stiffness) == robot.n_joints)


@pytest.mark.parametrize(("section", "key", "value", "message"), [
    ("links", "mass", -0.15, "links.mass = -0.15 is invalid: must be > 0 (002 Table 5.1; 004 Table 1)"),
    ("joints", "limit_deg", 200, "joints.limit_deg = 200 is invalid: must be in (0, 180] (002 Table 3.2)"),
    ("sea", "deflection_limit_deg", 0, "sea.deflection_limit_deg = 0 is invalid: must be in (0, 90] (002 §3.3.2)"),
    ("sea", "stiffness", [1.74, 0, 1.74, 1.74, 1.74], "sea.stiffness[1] = 0 is invalid: must be > 0 "
                                                      "(002 §3.3.2, (4.36))"),
    ("actuator", "kd", -1, "actuator.kd = -1 is invalid: must be >= 0 (002 (4.39), Table 5.1)"),
    ("can", "module_ids", [1, 2, 3], "can.module_ids = [1, 2, 3] is invalid: must be a list of 5 integers in [1, 63]"),
    ("can", "module_ids", [1, 2, 3, 4, 64], "can.module_ids[4] = 64 is invalid: must be an integer in [1, 63]"),
    ("can", "module_ids", [1, 2, 3, 4, 4], "can.module_ids = [1, 2, 3, 4, 4] is invalid: module ids must be unique"),
    ("friction", "c_t", -0.5, "friction.c_t = -0.5 is invalid: must be >= 0 (004 (10), (16)–(20))"),
    ("links", "count", 1.5, "links.count = 1.5 is invalid: must be an integer >= 2 (002 Table 3.2; 004 Table 1)"),
    ("actuator", "rotor_inertia_model", "half", "actuator.rotor_inertia_model = 'half' is invalid: must be one of own, "
                                               "reflected (002 (4.36))"),
])
def test_a_robot_field_out_of_its_spec_is_one_line_naming_the_range_and_the_source(section, key, value, message):
    data = _raw("koopaee6")
    data[section] = {**(data.get(section) or {}), key: value}
    with pytest.raises(ConfigError) as info:
        robot_from_dict(data, "koopaee6.yaml")
    assert str(info.value) == f"koopaee6.yaml: {message}"


def test_a_section_that_is_not_a_mapping_is_refused_by_name():
    data = _raw("koopaee6")
    data["joints"] = [60.0]
    with pytest.raises(ConfigError, match=r"^joints = \[60\.0\] is invalid: must be a mapping$"):
        robot_from_dict(data)
