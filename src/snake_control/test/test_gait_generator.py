"""gait_generator against docs/design.md's table, and the pedal wave 002 (4.38) it publishes."""

import math

import pytest

from snake_test_support.ros import publishers, refuses_outside_the_specs_range, type_name

A, OMEGA, PHI = 0.4, 2.0, -0.9


def make(ros, **params):
    from snake_control.gait_generator import GaitGeneratorNode

    defaults = {"robot": "koopaee6", "rate": 50.0, "gait__amplitude": A, "gait__frequency": OMEGA,
                "gait__phase_shift": PHI}
    return ros.make(GaitGeneratorNode, **{**defaults, **params})


def test_publishes_joint_state_reference_on_design_topic_with_reliable_qos(ros):
    from rclpy.qos import ReliabilityPolicy

    node = make(ros)
    pubs = publishers(node)
    assert type_name(pubs["/gait/reference"].msg_type) == "sensor_msgs/msg/JointState"
    assert pubs["/gait/reference"].qos_profile.reliability == ReliabilityPolicy.RELIABLE
    assert type_name(pubs["/diagnostics"].msg_type) == "diagnostic_msgs/msg/DiagnosticArray"


def stamp(msg):
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


def test_reference_at_t_is_the_pedal_wave_of_002_eq_4_38_from_the_nodes_first_tick(ros):
    ros.advance(3.0)  # the simulation has been running for a while when the node starts
    make(ros)
    ros.advance(1.0)
    first, msg = ros.messages("/gait/reference")[0], ros.messages("/gait/reference")[-1]
    t0 = stamp(first)
    assert ros.now() - 1.0 <= t0 <= ros.now() - 1.0 + 0.02 + 1e-9  # its first tick, not the simulation's t = 0
    assert msg.name == [f"joint_{j}" for j in range(1, 6)]
    for j in range(1, 6):  # tail (1) → head (5)
        assert first.position[j - 1] == pytest.approx(A * math.sin(PHI * (j - 1)), abs=1e-9)  # the wave at t = 0
        arg = OMEGA * (stamp(msg) - t0) + PHI * (j - 1)
        assert msg.position[j - 1] == pytest.approx(A * math.sin(arg), abs=1e-9)
        assert msg.velocity[j - 1] == pytest.approx(A * OMEGA * math.cos(arg), abs=1e-9)
    assert len(ros.messages("/gait/reference")) == pytest.approx(50, abs=1)  # 50 Hz for 1 s


def test_amplitude_change_at_run_time_takes_effect_at_the_next_tick(ros):
    node = make(ros)
    ros.advance(0.2)
    (result,) = ros.set_parameters(node, gait__amplitude=0.2)
    assert result.successful
    ros.advance(0.1)
    msg = ros.messages("/gait/reference")[-1]
    ratio = max(abs(v) for v in msg.velocity) / (0.2 * OMEGA)
    assert 0.5 < ratio <= 1.0 + 1e-9  # bounded by the new A ω, not the old 0.4 ω
    assert node.get_parameter("gait.amplitude").value == 0.2


@pytest.mark.parametrize(("name", "value", "expect"), [
    ("gait__amplitude", 1.2, "gait.amplitude = 1.2"),  # beyond ±60° (DESIGN "Bad input"): snake_core says so
    ("gait__amplitude", 1.7, "out of range"),  # beyond the declared range of any gait
    ("gait__frequency", 0.0, "gait.frequency = 0.0"),  # snake_core refuses ω = 0 with one clear message
    ("gait__type", "moonwalk", "gait.type = 'moonwalk'"),
    ("gait__amplitude", 1, "Wrong parameter type"),  # an int for a double parameter, as rclpy refuses it
])
def test_invalid_gait_update_is_refused_and_the_gait_keeps_running(ros, name, value, expect):
    node = make(ros)
    before = node.gait
    (result,) = ros.set_parameters(node, **{name: value})
    assert not result.successful
    assert expect in result.reason
    assert node.gait is before
    ros.advance(0.1)
    assert max(abs(v) for v in ros.messages("/gait/reference")[-1].position) <= A + 1e-12


def test_parameters_are_declared_with_ranges_and_descriptions(ros):
    node = make(ros)
    amp = node.describe_parameter("gait.amplitude")
    assert amp.floating_point_range[0].to_value == pytest.approx(math.pi / 2)  # the serpenoid's winding angle
    assert amp.description
    assert node.describe_parameter("robot").read_only


def test_the_hold_wait_descriptor_carries_the_specs_range_and_a_value_outside_it_is_refused_at_start(ros):
    from snake_control.gait_generator import PARAMS

    assert refuses_outside_the_specs_range(lambda **p: make(ros, **p), PARAMS, "hold_wait", -0.1) == (0.0, 5.0)


def test_bad_start_up_parameter_fails_with_one_clear_message(ros):
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match="robot"):
        make(ros, robot="no_such_robot")


def test_switching_to_the_serpenoid_at_run_time_publishes_004_eq_43(ros):
    node = make(ros)
    ros.advance(0.02)
    t0 = stamp(ros.messages("/gait/reference")[0])  # gait time is ROS time since the node's first tick
    assert ros.set_parameters(node, gait__periods=1.0)[0].successful  # ignored by the pedal wave
    result = ros.set_parameters(node, gait__type="serpenoid", gait__amplitude=0.6)
    assert all(r.successful for r in result)
    ros.advance(0.5)
    msg = ros.messages("/gait/reference")[-1]
    t = stamp(msg) - t0
    n = 6  # links
    for j in range(1, n):  # suite joint j is 004's joint i = n − j: φ_i = (2π T_s/n) α sin(v t − (2π T_s/n) i)
        i = n - j
        k = 2 * math.pi * 1.0 / n
        assert msg.position[j - 1] == pytest.approx(k * 0.6 * math.sin(OMEGA * t - k * i), abs=1e-9)


def test_a_gait_missing_a_required_parameter_is_refused(ros):
    node = make(ros)
    (result,) = ros.set_parameters(node, gait__type="serpenoid")
    assert not result.successful and "gait.periods" in result.reason


def test_a_disarmed_gait_publishes_nothing_until_armed_then_starts_at_t_0_and_stops_when_disarmed(ros):
    from std_srvs.srv import SetBool

    def arm(data):
        return ros.call(SetBool, "/gait_generator/arm", SetBool.Request(data=data))

    make(ros, armed=False)
    ros.advance(1.0)
    assert ros.messages("/gait/reference") == []  # the robot is not moved: nothing to track
    warnings = [s.message for m in ros.messages("/diagnostics") for s in m.status if s.level == b"\x01"]
    assert "disarmed: no reference until ~/arm (data: true)" in warnings
    assert arm(True).message == "armed: the gait runs"
    armed_at = ros.now()
    ros.advance(0.5)
    first = ros.messages("/gait/reference")[0]
    assert armed_at <= stamp(first) <= armed_at + 0.02 + 1e-9
    for j in range(1, 6):  # the wave from its t = 0, not from the node's start
        assert first.position[j - 1] == pytest.approx(A * math.sin(PHI * (j - 1)), abs=1e-9)
    assert arm(False).message == "disarmed: no reference, the controllers hold"
    count = len(ros.messages("/gait/reference"))
    ros.advance(0.5)
    assert len(ros.messages("/gait/reference")) == count


def test_an_engaged_estop_disarms_the_gait_refuses_arming_and_its_release_leaves_it_disarmed(ros):
    from std_msgs.msg import Bool
    from std_srvs.srv import SetBool

    from snake_control.ros_interface import LATCHED_QOS
    from snake_core.interface import CAN_BRIDGE_ESTOP_ENGAGED

    def arm(data):
        return ros.call(SetBool, "/gait_generator/arm", SetBool.Request(data=data))

    def estop(engaged):
        ros.publish(CAN_BRIDGE_ESTOP_ENGAGED, Bool(data=engaged), LATCHED_QOS)

    make(ros, armed=False, estop_topic=CAN_BRIDGE_ESTOP_ENGAGED)
    estop(False)  # the bridge's first word: no e-stop
    assert arm(True).success
    ros.advance(0.2)
    assert ros.messages("/gait/reference")
    estop(True)
    count = len(ros.messages("/gait/reference"))
    ros.advance(0.5)
    assert len(ros.messages("/gait/reference")) == count  # stopped at once
    refused = arm(True)
    assert not refused.success and refused.message == "emergency stop engaged: release it first, then arm"
    warnings = [s.message for m in ros.messages("/diagnostics") for s in m.status if s.level == b"\x01"]
    assert "disarmed by the emergency stop: no reference until its release and ~/arm (data: true)" in warnings
    estop(False)
    ros.advance(0.5)
    assert len(ros.messages("/gait/reference")) == count  # released: still disarmed, the operator arms
    assert arm(True).success
    ros.advance(0.2)
    assert len(ros.messages("/gait/reference")) > count


def test_arming_is_refused_with_the_reason_when_its_controllers_cannot_be_switched(ros):
    """With command_controllers and no ros2_control messages in the ROS installation (this test environment's
    wheels), an arm call is refused with one clear reason and the gait stays silent: never a gait running into
    controllers that nobody activated. (On the real controller_manager: test_jazzy_control_stack.py, arming.)"""
    import importlib.util

    from std_srvs.srv import SetBool

    if importlib.util.find_spec("controller_manager_msgs") is not None:
        pytest.skip("ros2_control's messages are installed here: the real switch is tested on the real stack")
    make(ros, armed=False, command_controllers="motor_position_controller, motor_velocity_controller")
    answer = ros.call(SetBool, "/gait_generator/arm", SetBool.Request(data=True))
    assert not answer.success
    assert answer.message == ("cannot activate motor_position_controller, motor_velocity_controller: no "
                              "controller_manager_msgs (ros2_control) in this ROS installation")
    ros.advance(0.5)
    assert ros.messages("/gait/reference") == []


def test_the_configured_hold_wait_outlasts_the_sea_controllers_way_to_their_hold():
    """A disarm deactivates the command controllers hold_wait after the reference stops: by then the SEA controllers
    (stale_timeout and one period later) must have sent their hold, the command the hardware then keeps."""
    import yaml

    from snake_core import locator

    config = yaml.safe_load((locator.data_dir() / "config" / "snake_control.yaml").read_text())
    sea = config["/**/sea_joint_controller"]["ros__parameters"]
    hold_wait = config["gait_generator"]["ros__parameters"]["hold_wait"]
    assert hold_wait >= sea["stale_timeout"] + 1.0 / sea["rate"]
