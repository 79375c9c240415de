"""Faults in the running graph, on the real middleware with every node in its own process (specs of
snake_control.graph), in lockstep: the SEA controllers hold the motors and say why on /diagnostics when their
gait reference stops or turns non-finite, and take it up again when the gait generator restarts. Every
assertion is on the simulation's time (the stamps of the commands and of the reports), which the lockstep
makes independent of how fast each process runs."""

import numpy as np
import pytest
import yaml

from snake_control.graph import control_nodes, simulator_node
from snake_core.locator import data_dir

#: The graph tests run one after another on one pytest-xdist worker (each starts up to 8 processes).
pytestmark = pytest.mark.xdist_group("ros_graph")

ROBOT = "koopaee6"
CONTROLLER = "/sea_joint_controller"  # the composed layout: one node for every joint
PERIOD = 10_000_000  # [ns] of the simulator and the controllers (100 Hz)
STALE = 100_000_000  # [ns] stale_timeout of the SEA controllers (config/snake_control.yaml)
#: gait_generator's gait (config/snake_control.yaml)
GAIT = yaml.safe_load((data_dir() / "config/snake_control.yaml").read_text())["gait_generator"]["ros__parameters"][
    "gait"]


def stamp(msg) -> int:
    return msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec


def test_lost_or_non_finite_gait_reference_holds_the_motors_and_a_restarted_gait_generator_recovers(ros_graph):
    from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState
    from std_msgs.msg import Float64MultiArray

    from snake_control.gait_generator import SOURCE, build_gait
    from snake_control.ros_interface import LATCHED_QOS, answered, ns_seconds

    commands = ros_graph.record("/motor_position_controller/commands", Float64MultiArray)
    diagnostics = ros_graph.record("/diagnostics", DiagnosticArray)
    references = ros_graph.record("/gait/reference", JointState)
    ros_graph.start_simulator(simulator_node(ROBOT, "flat", lockstep=True),
                              ros_graph.record("/joint_states", JointState))
    gait, controller = control_nodes(ROBOT, layout="composed", lockstep=True)
    ros_graph.start(gait)
    ros_graph.start(controller)

    def commanded(since: int = 0) -> dict[int, tuple[float, ...]]:
        """answered tick [ns] → β_d, of the ticks after ``since``."""
        return {answered(c): tuple(c.data) for c in commands if answered(c) > since}

    def reports(since: int) -> list[tuple[int, int, str]]:
        """(sim time [ns], level, message) of the controller's reports after ``since``."""
        return [(stamp(m), s.level[0], s.message) for m in diagnostics for s in m.status
                if s.name == CONTROLLER and stamp(m) > since]

    def until(t_ns: int, what: str) -> None:
        ros_graph.spin_until(lambda: commands and answered(commands[-1]) >= t_ns, what, timeout=300.0)

    until(500_000_000, "0.5 s of gait")
    ros_graph.stop(gait.fully_qualified_name)  # the controllers' input publisher dies
    until(answered(commands[-1]) + 3 * STALE, "commands after the gait generator stopped")

    # Its last reference (stamped t_s: the gait's t = 0 is the first tick) is tracked to first order until it is
    # older than the stale timeout by its stamp, then the motors hold. t_s is the last tick whose command is that
    # tick's reference, or the tick after it: the controller may answer that tick before the gait generator's last
    # reference arrives (its publisher gone, it is not waited for), and then extrapolates from the reference that
    # came late. (The probe is not in the lockstep loop: on a busy machine it may match the gait generator only
    # after it has gone.)
    params = dict(GAIT)
    wave = build_gait(params.pop("type"), 5, params, SOURCE)
    def reference(t: int):  # as gait_generator computes it: its time since its first tick, in float seconds
        return wave.reference(ns_seconds(t) - ns_seconds(PERIOD))

    def extrapolated(t_r: int, t: int) -> list[float]:  # position mode: β_d = α_d(t_r) + α̇_d(t_r)(t − t_r)
        alpha_d, alpha_d_dot = reference(t_r)
        return [a + v * ns_seconds(t - t_r) for a, v in zip(alpha_d, alpha_d_dot, strict=True)]

    every = commanded()
    exact = max(t for t, beta_d in every.items() if beta_d == tuple(reference(t)[0]))
    t_s = next((t_r for t_r in (exact + PERIOD, exact) if t_r + PERIOD in every and
                every[t_r + PERIOD] == pytest.approx(extrapolated(t_r, t_r + PERIOD), abs=1e-12)), exact)
    after = commanded(t_s)
    tracked = {t: b for t, b in after.items() if t <= t_s + STALE}
    held = {t: b for t, b in after.items() if t > t_s + STALE}
    assert len(tracked) >= STALE // PERIOD - 2 and len(held) > STALE // PERIOD
    for t, beta_d in tracked.items():
        assert beta_d == pytest.approx(extrapolated(t_s, t), abs=1e-12)
    (hold,) = set(held.values())  # the command of the last fresh tick, kept
    assert hold == pytest.approx(extrapolated(t_s, t_s + STALE), abs=1e-12)
    # a reference that stopped because its node ended (stopped, as at a Ctrl-C of the graph) is a state, not a fault:
    # WARN (the lock-stepped controller answers without it only once it has seen its publisher gone)
    stale = [(t, level, message) for t, level, message in reports(t_s) if message.startswith("hold: ")]
    assert stale and stale[0][1:] == (DiagnosticStatus.WARN[0], "hold: no publisher of /gait/reference")
    assert stale[0][0] == t_s + STALE + PERIOD  # the first tick more than STALE after its stamp, however it came

    # A non-finite reference, answering each tick as a gait generator would: the motors keep holding
    nan = JointState(name=[f"joint_{j}" for j in range(1, 6)], position=[float("nan")] * 5, velocity=[0.0] * 5)
    publisher = ros_graph.probe.create_publisher(JointState, "/gait/reference", LATCHED_QOS)  # as gait_generator

    def answer(clock: Clock) -> None:
        nan.header.stamp = clock.clock
        publisher.publish(nan)

    clock = ros_graph.probe.create_subscription(Clock, "/clock", answer, 10)
    ros_graph.spin_until(lambda: any("non-finite" in m for _t, _l, m in reports(t_s)), "the non-finite hold", 120.0)
    t_nan = min(t for t, _l, m in reports(t_s) if "non-finite" in m)
    until(t_nan + 2 * STALE, "commands during the non-finite reference")
    assert set(commanded(t_nan - PERIOD).values()) == {hold}  # NaN never reaches the motors
    ros_graph.probe.destroy_subscription(clock)
    ros_graph.probe.destroy_publisher(publisher)

    # Restarted: the controllers take the gait up again, commanding its reference of each tick
    t_restart = answered(commands[-1])
    ros_graph.start(gait)
    ros_graph.spin_until(lambda: any(level == DiagnosticStatus.OK[0] for _t, level, _m in reports(t_restart)),
                         "recovery", 120.0)
    t_ok = min(t for t, level, _m in reports(t_restart) if level == DiagnosticStatus.OK[0])
    # (the probe matches the new gait generator when discovery lets it: it counts the references it has)
    ros_graph.spin_until(lambda: sum(stamp(r) >= t_ok for r in references) > 4 * STALE // PERIOD,
                         "references after the restart", 120.0)
    until(max(map(stamp, references)), "commands after the restart")
    fresh = {stamp(r): tuple(r.position) for r in references if stamp(r) >= t_ok}
    moving = {t: b for t, b in commanded(t_ok - PERIOD).items() if t in fresh}
    assert len(moving) > 3 * STALE // PERIOD
    assert all(moving[t] == fresh[t] for t in moving)  # β_d = α_d of the tick, exactly
    assert len(set(moving.values())) == len(moving)  # every tick a new command: the motors move
    assert np.isfinite(list(moving.values())).all()


def test_a_graph_stopped_as_by_ctrl_c_logs_no_error_even_where_a_node_it_listens_to_ends_first(ros_graph):
    """Launch ends every node with SIGINT (Ctrl-C), and on a busy machine each one ends when it gets to it: the
    nodes a controller listens to may end a second before it. The worst order, the simulator (its /clock) first,
    then the gait generator, the controllers and the mux last: each node said at start what it runs (one INFO line),
    and from the first stop on no node logs an ERROR; the end of /clock is reported as such (WARN)."""
    from diagnostic_msgs.msg import DiagnosticArray
    from sensor_msgs.msg import JointState

    diagnostics = ros_graph.record("/diagnostics", DiagnosticArray)
    joint_states = ros_graph.record("/joint_states", JointState)
    ros_graph.start_simulator(simulator_node(ROBOT, "flat", lockstep=True), joint_states)
    specs = control_nodes(ROBOT, layout="per_joint", lockstep=True)  # gait, five controllers, the mux
    for spec in specs:
        ros_graph.start(spec)
    ros_graph.spin_until(lambda: stamp(joint_states[-1]) >= 20 * PERIOD, "0.2 s of gait", timeout=300.0)
    logs = {name: ros_graph.workdir / f"{name.strip('/').replace('/', '__')}.log" for name in ros_graph.processes}
    before = {name: len(log.read_text().splitlines()) for name, log in logs.items()}
    watched = [spec.fully_qualified_name for spec in specs if spec.executable != "motor_command_mux"]

    def clock_end_reported() -> bool:
        said = {s.name: s for m in diagnostics for s in m.status}
        return all(n in said and said[n].message.startswith("ROS clock stopped: no publisher") for n in watched)

    assert ros_graph.stop("/simulator") == 0
    ros_graph.spin_until(clock_end_reported, "each node watching /clock to report its end", timeout=120.0)
    assert ros_graph.stop("/gait_generator") == 0
    codes = ros_graph.stop_all()  # Ctrl-C: every node left
    assert codes == [0] * len(codes)
    for name, log in logs.items():
        lines = log.read_text().splitlines()
        assert lines and lines[0].startswith("[INFO]") and " Hz" in lines[0], (name, lines[:1])
        assert [line for line in lines if line.startswith("[INFO]")] == lines[:1], name  # one start-up line
        assert [line for line in lines[before[name]:] if line.startswith("[ERROR]")] == [], name
