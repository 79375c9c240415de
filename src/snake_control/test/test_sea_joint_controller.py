"""sea_joint_controller and motor_command_mux: docs/design.md's topics, the wiring of one joint's
measurements into snake_core's controller, and the safe hold on stale or non-finite input."""

import math
import re

import numpy as np
import pytest

from snake_test_support.ros import publishers, subscriptions, type_name

N = 5  # koopaee6
ALPHA = [0.11, -0.22, 0.33, -0.14, 0.05]  # distinct per joint: a wrong index shows
ALPHA_DOT = [0.5, -0.4, 0.3, -0.2, 0.1]
BETA = [0.10, -0.20, 0.30, -0.10, 0.02]
ALPHA_D = (0.2, -0.1, 0.4, 0.0, -0.3)
ALPHA_D_DOT = (1.0, 2.0, 3.0, 4.0, 5.0)
K = 1.74
DT = 0.01  # the node's period at rate 100 Hz [s]


def tracked(j: int, lag: float = DT) -> float:
    """α_j^d at the node's tick ``lag`` s after the reference's stamp, held to first order: α_d + α̇_d·lag (the
    harness's node ticks one period after the inputs published before it)."""
    return ALPHA_D[j - 1] + ALPHA_D_DOT[j - 1] * lag


def joint_states(ros, alpha=ALPHA, beta=BETA):
    from sensor_msgs.msg import JointState

    tau = [K * (a - b) for a, b in zip(alpha, beta, strict=True)]  # 002 (4.36)
    msg = JointState(name=[f"joint_{j}" for j in range(1, N + 1)] + [f"motor_{j}" for j in range(1, N + 1)],
                     position=[float(v) for v in [*alpha, *beta]], velocity=[*ALPHA_DOT, *[0.0] * N],
                     effort=[*tau, *[0.0] * N])
    msg.header.stamp = ros.stamp()
    return msg


def reference(ros, alpha_d=ALPHA_D, alpha_d_dot=ALPHA_D_DOT, effort=(), stamp=None):
    from sensor_msgs.msg import JointState

    msg = JointState(name=[f"joint_{j}" for j in range(1, N + 1)], position=list(alpha_d),
                     velocity=list(alpha_d_dot), effort=list(effort))
    msg.header.stamp = ros.stamp() if stamp is None else stamp
    return msg


def make(ros, **params):
    from snake_control.sea_joint_controller import SEAJointControllerNode

    return ros.make(SEAJointControllerNode, **{"robot": "koopaee6", "rate": 100.0, "stale_timeout": 0.05, **params})


def feed(ros, seconds, **kw):
    """Publish joint states and the gait reference every 10 ms for ``seconds``."""
    for _ in range(round(seconds / 0.01)):
        ros.publish("/joint_states", joint_states(ros, **{k: v for k, v in kw.items() if k in ("alpha", "beta")}))
        ros.publish("/gait/reference", reference(ros))
        ros.advance(0.01)


def commands(ros):
    return ros.messages("/sea/motor_commands")


def test_topics_types_and_qos_follow_design(ros):
    from rclpy.qos import ReliabilityPolicy

    node = make(ros, joint_index=2)
    subs = subscriptions(node)
    assert {t: type_name(s.msg_type) for t, s in subs.items()} == {
        "/joint_states": "sensor_msgs/msg/JointState", "/gait/reference": "sensor_msgs/msg/JointState",
        "/sea/torque_reference": "sensor_msgs/msg/JointState", "/can_bridge/joint_states": "sensor_msgs/msg/JointState"}
    assert subs["/joint_states"].qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT  # matches any publisher
    assert subs["/can_bridge/joint_states"].qos_profile.reliability == ReliabilityPolicy.BEST_EFFORT
    assert subs["/gait/reference"].qos_profile.reliability == ReliabilityPolicy.RELIABLE
    pubs = {t: type_name(p.msg_type) for t, p in publishers(node).items()}
    assert pubs == {"/sea/motor_commands": "sensor_msgs/msg/JointState",
                    "/diagnostics": "diagnostic_msgs/msg/DiagnosticArray"}


def test_position_mode_commands_the_gait_reference_of_its_own_joint(ros):
    make(ros, joint_index=3)
    feed(ros, 0.05)
    last = commands(ros)[-1]
    assert last.name == ["motor_3"]
    assert last.position[0] == pytest.approx(tracked(3))  # α_3^d, not another joint's
    assert last.velocity[0] == pytest.approx(3.0)


@pytest.mark.parametrize(("delay", "lag"), [
    (0.0, DT),  # stamped at publication, one period before the tick
    (0.02, 0.03),  # sampled two periods before it was published: reached the node late, tracked at the tick
    (None, 0.0),  # unstamped: nothing says when it was sampled, taken as is
    (0.5, 0.0),  # stamped beyond the stale timeout (0.05 s) before the tick: another clock, taken as is
])
def test_a_late_gait_reference_is_tracked_at_the_ticks_time(ros, delay, lag):
    """A reference that reaches the node a period late (a busy machine) moves the command as if on time."""
    from snake_control.ros_interface import time_msg

    make(ros, joint_index=3)
    for _ in range(5):
        ros.publish("/joint_states", joint_states(ros))
        t_ns = 0 if delay is None else round((ros.now() - delay) * 1e9)  # 0: unstamped
        ros.publish("/gait/reference", reference(ros, stamp=time_msg(t_ns)))
        ros.advance(DT)
    assert commands(ros)[-1].position[0] == pytest.approx(tracked(3, lag), abs=1e-12)


def beta_d_by_hand(mode: str, params: dict, j: int, count: int) -> list[float]:
    """β_d of joint j's first ``count`` commands under held inputs, from 002's equations (not snake_core)."""
    alpha, tau = ALPHA[j - 1], K * (ALPHA[j - 1] - BETA[j - 1])  # τ = K(α − β), 002 (4.36)
    if mode == "stiffness":  # Fig. 6.2: β_d = α_d − α_s, α_s = (K − K_d)/K_d · τ_J/K, τ_J = K(β − α) = −τ
        k_d = params["controller__stiffness"]
        return [tracked(j) + (K - k_d) / k_d * tau / K] * count
    # TSC (7.2): M α̈ + D α̇ + K_d α = K_d α_{j−1} − K_τ τ_J (or K_d β_{j−1}: neighbour_angle beta), from rest at the
    # measured α_j; with the inputs held the solution is the damped oscillation about α_eq, command k its value at k Δt
    m, d, k_d, k_tau = (params[f"controller__{g}"] for g in ("inertia", "damping", "stiffness", "torque_gain"))
    prev = (BETA if params.get("controller__neighbour_angle") == "beta" else ALPHA)[j - 2]
    eq = (k_d * prev + k_tau * tau) / k_d
    sigma = d / (2.0 * m)
    omega = math.sqrt(k_d / m - sigma**2)  # under-damped for these gains
    c1 = alpha - eq
    c2 = sigma * c1 / omega  # α̇(0) = 0
    return [eq + math.exp(-sigma * t) * (c1 * math.cos(omega * t) + c2 * math.sin(omega * t))
            for t in DT * np.arange(1, count + 1)]


@pytest.mark.parametrize(("mode", "params", "j"), [
    ("stiffness", {"controller__stiffness": 0.29}, 4),  # K_d = K/6, 002 §6.4
    ("tsc", {"controller__stiffness": 12.0, "controller__damping": 4.0, "controller__inertia": 1.0,
             "controller__torque_gain": 6.0}, 3),  # Table 7.1, K_τ = 6
    ("tsc", {"controller__stiffness": 12.0, "controller__damping": 4.0, "controller__inertia": 1.0,
             "controller__torque_gain": 6.0, "controller__neighbour_angle": "beta"}, 4),  # the servo's β_{j−1}
])
def test_torque_using_modes_command_002s_beta_d_from_this_joints_measurement_and_tail_neighbour(ros, mode, params, j):
    make(ros, joint_index=j, controller__mode=mode, **params)
    feed(ros, 0.1)
    got = [m.position[0] for m in commands(ros)]
    assert len(got) >= 8
    assert got == pytest.approx(beta_d_by_hand(mode, params, j, len(got)), abs=1e-9)
    assert got[-1] != pytest.approx(ALPHA_D[j - 1], abs=1e-3)  # the torque/neighbour terms did act


def test_stale_input_holds_the_last_command_and_reports_an_error(ros):
    make(ros, joint_index=1)
    feed(ros, 0.05)
    ros.advance(0.1)  # joint states stop (timeout 0.05 s): the reference is tracked on till then, then held …
    held = commands(ros)[-1].position[0]
    assert tracked(1, 2 * DT) <= held <= tracked(1, 0.05 + DT) + 1e-12
    n_before = len(commands(ros))
    for _ in range(10):  # … while references keep coming
        ros.publish("/gait/reference", reference(ros, alpha_d=(-0.5, 0.0, 0.0, 0.0, 0.0)))
        ros.advance(0.01)
    after = commands(ros)[n_before:]
    assert len(after) >= 9
    assert all(m.position[0] == held for m in after)  # never the new −0.5 without fresh joint states
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "stale" in status.message and "joint_states" in status.message
    feed(ros, 0.05)
    assert commands(ros)[-1].position[0] == pytest.approx(tracked(1))
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x00"


@pytest.mark.parametrize("before_the_clock", [True, False])
def test_an_input_is_as_old_as_its_stamp_whichever_of_it_and_the_clock_comes_first(ros, before_the_clock):
    """/clock and the gait reference come on different topics: the last reference, stamped s, goes stale at the
    same tick whether it arrives just before the node's clock reaches s or just after: the first tick more than
    stale_timeout (0.05 s) after s, in exact nanoseconds."""
    from snake_control.ros_interface import time_msg

    make(ros, joint_index=2)
    feed(ros, 0.05)
    now = round(ros.now() * 1e9)
    s = now + 10_000_000  # the next tick
    ros.publish("/joint_states", joint_states(ros))
    ros.advance(0.009 if before_the_clock else 0.01)
    ros.publish("/gait/reference", reference(ros, stamp=time_msg(s)))
    ros.advance(0.001 if before_the_clock else 0.0)
    first_hold = None
    while first_hold is None and ros.now() < (s + 200_000_000) * 1e-9:
        ros.publish("/joint_states", joint_states(ros))  # the joint states stay fresh
        ros.advance(0.01)
        if commands(ros)[-1].velocity[0] == 0.0:  # held: β̇_d = 0 (the reference's α̇_d is 2 rad/s)
            first_hold = round(ros.now() * 1e9)
    assert first_hold == s + 60_000_000
    assert "stale input: gait_reference" in ros.messages("/diagnostics")[-1].status[0].message


def test_a_lock_stepped_controller_reports_a_clock_stop_and_answers_the_tick_as_without_it(ros):
    """Lock-stepped, a stop of /clock is judged on the wall, so it is reported and decides nothing: between two
    ticks (the simulator has sent the next tick's joint states, its /clock does not come: a simulator that died,
    or one the machine starved) nothing is sent; and a tick whose last input comes after longer than the watchdog's
    timeout of wall time without a /clock (a starved gait generator) is answered with what its inputs give, as on an
    idle machine, never with a hold the simulator would step on."""
    from diagnostic_msgs.msg import DiagnosticStatus

    from snake_control.ros_interface import LATCHED_QOS, stamp_ns, time_msg

    node = make(ros, joint_index=2, lockstep=True)
    watchdog = node.clock_watchdog
    for _ in range(5):  # each tick waits for its inputs, and is answered once they have come
        ros.advance(0.01)
        ros.publish("/joint_states", joint_states(ros))
        ros.publish("/gait/reference", reference(ros), LATCHED_QOS)  # as gait_generator publishes it
    answered = round(ros.now() * 1e9)
    last = commands(ros)[-1]
    assert stamp_ns(last.header.stamp) == answered and last.velocity[0] == ALPHA_D_DOT[1]  # not a hold
    sent = len(commands(ros))
    states = joint_states(ros)
    states.header.stamp = time_msg(answered + 10_000_000)
    ros.publish("/joint_states", states)  # the next tick's states; its /clock does not come
    ros.stall(2 * (watchdog.timeout + watchdog.period))
    assert watchdog.reason == "clock stopped"
    status = ros.messages("/diagnostics")[-1].status[0]
    assert (status.level, status.message) == (DiagnosticStatus.ERROR, "ROS clock stopped")
    assert len(commands(ros)) == sent  # nothing between ticks
    ros.advance(0.01)  # the tick comes; the reference of it waits longer than the watchdog's timeout
    ros.stall(2 * (watchdog.timeout + watchdog.period))
    assert len(commands(ros)) == sent
    ros.publish("/gait/reference", reference(ros), LATCHED_QOS)
    answer = [(stamp_ns(m.header.stamp), list(m.position), list(m.velocity)) for m in commands(ros)[sent:]]
    assert answer == [(answered + 10_000_000, list(last.position), list(last.velocity))]  # the same inputs


def test_non_finite_measurement_holds_and_reports(ros):
    make(ros, joint_index=2)
    feed(ros, 0.03)
    held = commands(ros)[-1].position[0]
    bad = list(ALPHA)
    bad[1] = math.nan
    feed(ros, 0.03, alpha=bad)
    assert commands(ros)[-1].position[0] == held
    assert "non-finite" in ros.messages("/diagnostics")[-1].status[0].message


def test_torque_mode_holds_without_a_torque_reference(ros):
    make(ros, joint_index=2, controller__mode="torque")
    feed(ros, 0.05)
    assert commands(ros) == []  # nothing valid yet: nothing is sent
    assert "torque_reference" in ros.messages("/diagnostics")[-1].status[0].message


@pytest.mark.parametrize(("params", "field"), [
    ({"joint_index": 6}, "joint_index"),  # koopaee6 has 5 joints
    ({"controller__mode": "stiffness", "controller__stiffness": 2.0}, "controller.stiffness"),  # K_d ≥ K, §6.3
    ({"controller__mode": "stiffness"}, "controller.stiffness"),  # K_d required
])
def test_bad_parameters_fail_at_start_with_one_clear_message(ros, params, field):
    from snake_core.validation import ConfigError

    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        make(ros, **params)


def test_the_modes_parameters_are_declared_from_their_spec_with_type_range_unit_and_source(ros):
    """Each ``controller.*`` of the running mode is declared by rclpy from snake_core's spec: its type, default,
    continuous range (step 0), a description with unit and source, read-only; ``controller.mode`` lists its choices."""
    from rcl_interfaces.msg import ParameterType

    from snake_core.controllers import CONTROLLER_MODES

    node = make(ros, joint_index=2, controller__mode="tsc", controller__torque_gain=6.0)
    for p in CONTROLLER_MODES["tsc"].params:
        d = node.describe_parameter(f"controller.{p.name}")
        assert d.read_only and p.source in d.description and p.unit in d.description
        if p.choices:
            assert d.type == ParameterType.PARAMETER_STRING and d.additional_constraints == "one of: alpha, beta"
            continue
        assert d.type == ParameterType.PARAMETER_DOUBLE and not d.dynamic_typing
        r = d.floating_point_range[0]
        assert (r.from_value, r.to_value, r.step) == (p.low, p.high if p.high is not None else 1e308, 0.0)
    gains = node.controllers[0].gains
    assert (gains.inertia, gains.damping, gains.stiffness, gains.torque_gain) == (1.0, 4.0, 12.0, 6.0)  # Table 7.1
    mode = node.describe_parameter("controller.mode")
    assert mode.read_only and mode.additional_constraints == "one of: position, stiffness, tsc, torque"


def test_a_value_outside_the_specs_range_or_of_another_mode_is_refused_at_start(ros):
    """rclpy refuses a double outside the descriptor's range (Jazzy node.py ``_apply_floating_point_range``); the
    spec refuses what rclpy lets through (an open bound, another mode's parameter) with the scenario's message."""
    from rclpy.exceptions import InvalidParameterValueException

    from snake_core.validation import ConfigError

    with pytest.raises(InvalidParameterValueException, match=r"controller\.time_unit"):
        make(ros, joint_index=2, controller__mode="tsc", controller__time_unit=11.0)
    with pytest.raises(ConfigError, match=re.escape("controller.inertia = 0.0 is invalid: must be > 0 (002 (7.2), "
                                                    "Table 7.1)")):
        make(ros, joint_index=2, controller__mode="tsc", controller__inertia=0.0)
    with pytest.raises(ConfigError, match=r"controller\.torque_gain = 6\.0 is invalid: unknown field; allowed: mode$"):
        make(ros, joint_index=2, controller__mode="position", controller__torque_gain=6.0)


def test_mux_gathers_per_joint_commands_tail_to_head_and_holds_on_a_stale_joint(ros):
    from sensor_msgs.msg import JointState

    from snake_control.motor_command_mux import MotorCommandMuxNode

    ros.make(MotorCommandMuxNode, robot="koopaee6", rate=100.0, stale_timeout=0.05)

    def send(values):
        for j, v in values.items():
            ros.publish("/sea/motor_commands", JointState(name=[f"motor_{j}"], position=[v], velocity=[0.0]))

    send({5: 0.5, 3: 0.3, 1: 0.1, 2: 0.2})
    ros.advance(0.02)
    assert ros.messages("/motor_position_controller/commands") == []  # joint 4 missing: no partial array
    for _ in range(3):
        send({5: 0.5, 3: 0.3, 1: 0.1, 2: 0.2, 4: 0.4})
        ros.advance(0.01)
    out = ros.messages("/motor_position_controller/commands")
    assert type_name(type(out[-1])) == "std_msgs/msg/Float64MultiArray"
    assert list(out[-1].data) == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    ros.advance(0.1)  # every joint silent beyond the 0.05 s timeout
    held = list(ros.messages("/motor_position_controller/commands")[-1].data)
    for _ in range(10):
        send({5: -0.5, 3: -0.3, 1: -0.1, 2: -0.2})  # all but joint 4 come back
        ros.advance(0.01)
    assert held == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    assert list(ros.messages("/motor_position_controller/commands")[-1].data) == held  # no partial update
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "motor_4 stale" in status.message


def test_urdf_joint_names_from_joint_state_broadcaster_give_the_same_command(ros):
    """Gazebo and the robot publish motor_j (β) and spring_j (α − β) only: α = β + (α − β), τ = K(α − β)."""
    from sensor_msgs.msg import JointState

    make(ros, joint_index=4, controller__mode="stiffness", controller__stiffness=0.29)
    feed(ros, 0.03)
    design = commands(ros)[-1].position[0]
    for _ in range(3):
        ros.publish("/joint_states", JointState(
            name=[f"motor_{j}" for j in range(1, N + 1)] + [f"spring_{j}" for j in range(1, N + 1)],
            position=[*BETA, *[a - b for a, b in zip(ALPHA, BETA, strict=True)]],
            velocity=[*[0.0] * N, *ALPHA_DOT], effort=[0.0] * (2 * N)))
        ros.publish("/gait/reference", reference(ros))
        ros.advance(0.01)
    assert commands(ros)[-1].position[0] == pytest.approx(design, abs=1e-12)
    assert design != pytest.approx(reference(ros).position[3], abs=1e-3)  # the torque did enter


def test_mux_in_effort_mode_gathers_joint_torques_and_goes_limp_on_stale_input(ros):
    from sensor_msgs.msg import JointState

    from snake_control.motor_command_mux import MotorCommandMuxNode

    ros.make(MotorCommandMuxNode, robot="ariizumi10", mode="effort", rate=100.0, stale_timeout=0.05)
    n = 9
    torques = [0.01 * j for j in range(1, n + 1)]
    for _ in range(3):
        ros.publish("/sea/torque_reference", JointState(name=[f"joint_{j}" for j in range(1, n + 1)],
                                                        effort=torques))
        ros.advance(0.01)
    out = ros.messages("/joint_effort_controller/commands")
    assert list(out[-1].data) == pytest.approx(torques)
    ros.advance(0.2)
    assert list(ros.messages("/joint_effort_controller/commands")[-1].data) == [0.0] * n
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x02"


def test_composed_node_commands_every_joint_as_the_per_joint_nodes_do(ros):
    """joint_index 0: one node, the forward command controller's array tail → head, each entry what the
    node of that joint alone sends (TSC: each joint's own tail neighbour)."""
    params = {"controller__mode": "tsc", "controller__stiffness": 12.0, "controller__damping": 4.0,
              "controller__inertia": 1.0, "controller__torque_gain": 6.0}
    make(ros, joint_index=0, **params)
    for j in (1, 3, 5):
        make(ros, joint_index=j, namespace=f"joint_{j}", **params)
    feed(ros, 0.05)
    arrays = ros.messages("/motor_position_controller/commands")
    assert type_name(type(arrays[-1])) == "std_msgs/msg/Float64MultiArray" and len(arrays[-1].data) == N
    singles = {m.name[0]: m.position[0] for m in commands(ros)}
    assert set(singles) == {"motor_1", "motor_3", "motor_5"}
    for j in (1, 3, 5):
        assert arrays[-1].data[j - 1] == pytest.approx(singles[f"motor_{j}"], abs=1e-12)
    assert len(set(arrays[-1].data)) == N  # distinct per joint: no joint got another's inputs


def test_composed_node_holds_every_joint_when_one_is_not_finite(ros):
    make(ros, joint_index=0)
    feed(ros, 0.03)
    held = list(ros.messages("/motor_position_controller/commands")[-1].data)
    bad = list(ALPHA)
    bad[3] = math.inf
    feed(ros, 0.03, alpha=bad)
    assert list(ros.messages("/motor_position_controller/commands")[-1].data) == held
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and "joint_4" in status.message


def test_composed_node_holds_on_a_module_the_can_bridge_reports_lost(ros):
    """On the robot ros2_control's topic hardware freezes a lost module's joint in /joint_states; the CAN bridge's
    own states carry NaN for it: the node holds (β_d kept, β̇_d zero) and says which joint, and resumes."""
    make(ros, joint_index=0)
    bridge = joint_states(ros)
    ros.publish("/can_bridge/joint_states", bridge)
    feed(ros, 0.03)
    held = list(ros.messages("/motor_position_controller/commands")[-1].data)
    assert list(ros.messages("/motor_velocity_controller/commands")[-1].data) == pytest.approx(ALPHA_D_DOT)
    lost = list(ALPHA)
    lost[2] = math.nan
    for _ in range(3):
        ros.publish("/can_bridge/joint_states", joint_states(ros, alpha=lost))
        feed(ros, 0.01)  # /joint_states still finite: the frozen value
    assert list(ros.messages("/motor_position_controller/commands")[-1].data) == held
    assert list(ros.messages("/motor_velocity_controller/commands")[-1].data) == [0.0] * N
    status = ros.messages("/diagnostics")[-1].status[0]
    assert status.level == b"\x02" and status.message == "hold: module lost or faulted (CAN bridge): joint_3"
    for _ in range(3):  # the module is back
        ros.publish("/can_bridge/joint_states", joint_states(ros))
        feed(ros, 0.01)
    assert ros.messages("/diagnostics")[-1].status[0].level == b"\x00"
    feed(ros, 0.1)  # once heard, the bridge's states are required: its silence holds
    assert ros.messages("/diagnostics")[-1].status[0].message == "hold: stale input: hardware_states"


@pytest.mark.parametrize(("robot", "mode", "topic"), [("koopaee6", "position", "/motor_position_controller/commands"),
                                                      ("ariizumi10", "effort", "/joint_effort_controller/commands")])
def test_mux_sends_nothing_before_the_first_complete_array(ros, robot, mode, topic):
    """A lock-stepped simulator would take any array for a step: before the controllers answer, none."""
    from snake_control.motor_command_mux import MotorCommandMuxNode

    ros.make(MotorCommandMuxNode, robot=robot, mode=mode, rate=100.0, stale_timeout=0.05)
    ros.advance(0.3)
    assert ros.messages(topic) == []
    status = ros.messages("/diagnostics")[-1].status[0]  # no controller yet: reported all the same (WARN: no fault)
    source = "/sea/motor_commands" if mode == "position" else "/sea/torque_reference"
    assert (status.level, status.message) == (b"\x01", f"hold: no publisher of {source}")
