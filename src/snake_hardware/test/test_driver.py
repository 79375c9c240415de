"""Driver + one emulated module per joint on python-can's virtual bus, in lock step (issue 7
acceptance): a 10 s pedal wave end to end, the reference limits, the command watchdog, and fault
injection (lost frames, a silent module, garbage frames, bus-off) from which the driver recovers."""

from __future__ import annotations

import math

import can
import numpy as np
import pytest
import yaml

from snake_core import locator
from snake_core.robot import robot_from_dict
from snake_hardware import protocol as p
from snake_hardware.diagnostics import ERROR, OK, STALE, WARN
from snake_hardware.driver import HOLDING, DriverConfig


def assert_commands_within_limits(rig) -> None:
    """Every β_ref on the bus within ±60° and within δ_max of the link angle the module had."""
    beta = np.array([c[2] for c in rig.commands])
    alpha = np.array(rig.alpha_at_command)
    limit = rig.robot.joint_limit + rig.reference_lsb / 2
    assert np.all(np.abs(beta) <= limit)
    # the driver clips around the last α it measured: one cycle of motion plus one encoder count older
    slack = rig.robot.joint_velocity_limit * rig.dt + p.ENCODER_COUNT + rig.reference_lsb / 2
    assert np.all(np.abs(beta - alpha) <= rig.robot.sea.deflection_limit + slack)


def assert_held_still(rig, exclude, window=0.3) -> None:
    """Over the last ``window`` seconds every module got one constant reference."""
    recent = [c for c in rig.commands if c[0] > rig.t - window and c[1] not in exclude]
    assert {c[1] for c in recent} == set(rig.robot.can_ids) - set(exclude)
    for node in {c[1] for c in recent}:
        assert np.ptp([c[2] for c in recent if c[1] == node]) < 1e-9


def events(rig, key):
    return [e for e in rig.driver.events if e.key == key]


def test_pedal_wave_for_10_s_joint_states_match_the_emulator_within_encoder_resolution(rig):
    r = rig()
    r.start()
    assert r.driver.heard.all() and all(m.enabled for m in r.emu.modules)
    k = r.robot.sea.stiffness[0]
    worst = {"alpha": 0.0, "beta": 0.0, "tau": 0.0, "track": 0.0}

    def check(rig):
        states = rig.driver.joint_states()
        assert states.valid.all()
        true = rig.true_at_step
        worst["alpha"] = max(worst["alpha"], np.max(np.abs(states.alpha - true[:, 0])))
        worst["beta"] = max(worst["beta"], np.max(np.abs(states.beta - true[:, 1])))
        worst["tau"] = max(worst["tau"], np.max(np.abs(states.tau - k * (true[:, 0] - true[:, 1]))))
        if rig.t > 2.0:
            worst["track"] = max(worst["track"], np.max(np.abs(rig.true_alpha() - rig.gait().reference(rig.t)[0])))

    r.run_gait(10.0, on_cycle=check)
    assert worst["alpha"] <= p.ENCODER_COUNT / 2 + 1e-12
    assert worst["beta"] <= p.ENCODER_COUNT / 2 + 1e-12
    assert worst["tau"] <= k * p.ENCODER_COUNT + 0.005 + 1e-12  # two encoder counts of deflection, 0.01 N·m LSB
    assert worst["track"] < 0.1  # the modules follow 002's reference gait (A = π/6 = 0.52 rad)
    assert not any(k in r.driver.faults for k in HOLDING)
    assert all(d.level == OK for d in r.driver.diagnostics())
    assert_commands_within_limits(r)


def test_references_are_clipped_to_60_degrees_the_deflection_limit_and_the_servo_speed(rig):
    r = rig()
    r.start()
    n = r.robot.n_joints
    for _ in range(round(1.5 / r.dt)):
        r.cycle(np.full(n, 2.0))  # far beyond ±60°
    assert_commands_within_limits(r)
    last = np.array([c[2] for c in r.commands[-n:]])
    # the motors lead the links by at most δ_max; the firmware never gets more than 60°
    assert np.all(last <= math.radians(60) + r.reference_lsb / 2)
    assert np.all(last - r.driver.alpha <= r.robot.sea.deflection_limit + r.reference_lsb / 2)
    # rate limit: consecutive references of one module differ by at most the servo speed × dt
    per_node = {}
    for _, node, beta in r.commands:
        per_node.setdefault(node, []).append(beta)
    steps = np.concatenate([np.abs(np.diff(v)) for v in per_node.values()])
    assert steps.max() <= r.robot.actuator.max_speed * r.dt + r.reference_lsb


@pytest.mark.parametrize(("beta_d", "beta_rate_d"), [(1.04, 20.0), (-1.04, -20.0), (0.0, 1e6), (0.0, -1e6)])
def test_a_speed_reference_beyond_the_servo_never_turns_a_motor_past_the_joint_limit(rig, beta_d, beta_rate_d):
    """A legal β_d with the frame's largest β̇_d (or any larger): the motor PD 002 (4.39) would rest at
    β_d + (K_D/K_p) β̇_d, 8.3 rad away, if the speed reference went through as given."""
    r = rig()
    r.start()
    n, limit = r.robot.n_joints, math.radians(60)
    worst = []
    for _ in range(round(2.0 / r.dt)):
        r.cycle(np.full(n, beta_d), np.full(n, beta_rate_d))
        worst.append(np.abs([m.x[2] for m in r.emu.modules]).max())
    assert max(worst) <= limit + 0.01  # the true motor angle: at most 0.6° past the limit in a transient
    assert not r.driver.holding and "command_clamped" in r.driver.faults
    assert r.driver.commands_clamped >= round(2.0 / r.dt) * n  # every β̇_d of every command counted
    assert_commands_within_limits(r)


def test_non_finite_or_wrongly_sized_commands_hold_the_robot(rig):
    r = rig()
    r.start()
    r.run_gait(0.5)
    r.cycle(np.full(r.robot.n_joints, np.nan))
    r.cycle(np.zeros(3))
    assert "command_invalid" in r.driver.faults and r.driver.holding
    assert "NaN" in events(r, "command_invalid")[0].message
    assert_commands_within_limits(r)


def test_command_watchdog_holds_then_resumes_smoothly(rig):
    r = rig()
    r.start()
    r.run_gait(1.0)
    stopped = r.t
    for _ in range(round(0.5 / r.dt)):
        r.cycle()  # no fresh command
    assert r.driver.holding and "command_watchdog" in r.driver.faults
    onset = events(r, "command_watchdog")[-1].time
    assert onset - stopped <= r.driver.config.command_timeout + 2 * r.dt
    assert_held_still(r, exclude=())
    np.testing.assert_allclose([m.x[2] for m in r.emu.modules], r.driver.sent, atol=0.01)  # motors stay there
    r.run_gait(1.0)
    assert not r.driver.holding
    assert_commands_within_limits(r)


def test_ten_percent_frame_loss_holds_the_robot_reports_and_recovers(rig):
    r = rig()
    r.start()
    r.switches.drop_rate = 0.10
    r.run_gait(3.0)
    assert "frame_loss" in r.driver.faults and "heavy_frame_loss" in r.driver.faults
    assert 0.04 < r.driver.loss.mean() < 0.2  # ≈ 10 % of the STATE frames (counter gaps)
    bus = r.driver.diagnostics()[0]
    assert bus.level == ERROR and "lost" in bus.message
    assert r.driver.holding  # sustained loss beyond loss_hold (5 %) holds the robot
    r.switches.drop_rate = 0.0
    r.run_gait(2.5)
    assert not ({"frame_loss", "heavy_frame_loss"} & set(r.driver.faults))
    assert not r.driver.holding and r.driver.diagnostics()[0].level == OK
    assert_commands_within_limits(r)


def test_a_module_that_stops_answering_holds_the_robot_until_it_returns(rig):
    r = rig()
    r.start()
    r.run_gait(1.0)
    r.emu.modules[2].silent, silenced = True, r.t
    r.run_gait(1.0)
    assert "module_lost" in r.driver.faults and r.driver.holding
    assert events(r, "module_lost")[-1].time - silenced <= r.driver.config.state_timeout + 2 * r.dt
    diag = {d.name: d for d in r.driver.diagnostics()}
    assert diag["can_bridge: joint_3 (module 3)"].level == STALE
    assert diag["can_bridge: safety"].level == ERROR and "module(s) 3" in diag["can_bridge: safety"].message
    assert not r.driver.joint_states().valid[2]
    assert_held_still(r, exclude=(3,))  # the others are held while the module is lost
    r.emu.modules[2].silent = False
    r.run_gait(1.5)
    assert "module_lost" not in r.driver.faults and not r.driver.holding
    assert r.driver.joint_states().valid.all()
    assert_commands_within_limits(r)


def test_a_module_whose_state_frames_stop_is_lost_though_its_heartbeat_still_comes(rig):
    r = rig()
    r.start()
    r.run_gait(1.0)
    profile = p.PROFILES[r.robot.can_profile]
    r.switches.drop_ids = frozenset({profile.state.frame_id(3)})  # module 3's STATE lost; its HEARTBEAT gets through
    stopped = r.t
    r.run_gait(1.0)
    assert "module_lost" in r.driver.faults and r.driver.holding and not r.driver.joint_states().valid[2]
    assert events(r, "module_lost")[-1].time - stopped <= r.driver.config.state_timeout + 2 * r.dt
    beating = " (its HEARTBEAT comes)" if profile.module_heartbeat else ""
    assert f"no state frame from module(s) 3{beating} for 350 ms" in r.driver.faults["module_lost"]
    r.switches.drop_ids = frozenset()
    back = r.t
    r.run_gait(1.5)
    assert "module_lost" not in r.driver.faults and not r.driver.holding and r.driver.joint_states().valid.all()
    # it counts as back once its frames have come in sequence for recover_time, not at the first one
    cleared = [e.time for e in events(r, "module_lost") if not e.active][-1]
    assert r.driver.config.recover_time <= cleared - back <= r.driver.config.recover_time + 0.15
    assert_commands_within_limits(r)


def test_a_stopped_clock_is_reported_first_and_the_frames_that_queued_meanwhile_are_no_jump_and_no_loss(rig):
    """The bridge's ROS time stands (a simulator paused or died) while the modules run on: the frames that queue
    until the clock watchdog notices are judged on no clock, the driver's steps on the wall clock meanwhile."""
    r = rig()
    r.start()
    r.run_gait(1.0)
    stood = r.t - r.dt  # the driver's last step: ROS time stands there
    noticed = r.t + 0.5  # the watchdog's 0.5 s of wall time, the modules on their own
    r.emu.advance(noticed)
    r.driver.clock_fault("clock stopped", stood)
    for k in range(10):  # the watchdog steps the driver every 0.1 s of wall time, ROS time following the wall
        r.driver.step(stood + 0.1 * k)
        r.emu.advance(noticed + 0.1 * (k + 1))
    safety = r.driver.diagnostics()[1]
    assert safety.level == ERROR and safety.message.startswith("robot held: ROS clock stopped")
    assert not {"implausible_state", "frame_loss", "heavy_frame_loss", "module_lost"} & set(r.driver.faults)
    assert not any(e.key in ("implausible_state", "frame_loss", "heavy_frame_loss") for e in r.driver.events)
    r.driver.clock_fault(None, stood + 1.0)  # the clock runs again
    r.t = r.emu.time
    r.run_gait(2.0)
    assert not any(k in r.driver.faults for k in HOLDING) and "frame_loss" not in r.driver.faults
    assert not any(e.key in ("implausible_state", "frame_loss", "heavy_frame_loss") for e in r.driver.events)


def test_garbage_frames_are_counted_reported_and_ignored(rig):
    r = rig()
    r.start()
    junk = r.bus()
    rng = np.random.default_rng(7)
    state = p.PROFILES[r.robot.can_profile].state
    wrong_lengths = [n for n in range(9) if n != state.dlc]

    def inject(rig):
        kind = rng.integers(3)
        if kind == 0:  # ids outside the protocol
            msg = can.Message(arbitration_id=int(rng.integers(0x200, 0x800)), data=rng.bytes(8), is_extended_id=False)
        elif kind == 1:  # extended ids
            msg = can.Message(arbitration_id=int(rng.integers(0, 1 << 29)), data=rng.bytes(4), is_extended_id=True)
        else:  # the profile's state id with a wrong length
            msg = can.Message(arbitration_id=state.frame_id(int(rng.integers(1, 6))), is_fd=state.fd,
                              data=rng.bytes(int(rng.choice(wrong_lengths))), is_extended_id=False)
        junk.send(msg)

    try:
        r.run_gait(1.5, on_cycle=inject)
        assert "malformed_frames" in r.driver.faults and r.driver.malformed_rate > 100
        assert r.driver.diagnostics()[0].level == WARN
        assert not r.driver.holding
        r.run_gait(2.0)
        assert "malformed_frames" not in r.driver.faults
        assert_commands_within_limits(r)
    finally:
        junk.shutdown()


def test_bus_off_holds_reopens_the_bus_and_recovers(rig):
    r = rig(config=DriverConfig(bus_retry_period=0.3))
    r.start()
    r.run_gait(1.0)
    r.switches.bus_off = True
    r.run_gait(1.0)
    assert "bus_fault" in r.driver.faults and r.driver.holding
    assert r.driver.send_errors > 0
    assert r.driver.diagnostics()[0].level == ERROR
    assert all(m.hold for m in r.emu.modules)  # the modules' own watchdog held them
    r.switches.bus_off = False
    r.run_gait(2.0)
    assert "bus_fault" not in r.driver.faults and not r.driver.holding
    assert not any(m.hold for m in r.emu.modules)
    assert_commands_within_limits(r)


def test_driver_refuses_robots_without_can_ids():
    from snake_core.robot import load_robot
    from snake_core.validation import ConfigError
    from snake_hardware.driver import CanDriver

    robot = load_robot("koopaee6")
    with pytest.raises(ConfigError, match="can"):
        CanDriver(robot.__class__(**{**robot.__dict__, "can_ids": None}), lambda: None)


def test_a_socketcan_bus_off_error_frame_alone_raises_a_bus_fault_that_clears(rig):
    from snake_hardware.faults import CAN_ERR_BUSOFF

    r = rig()
    r.start()
    other = r.bus()
    try:
        other.send(can.Message(arbitration_id=CAN_ERR_BUSOFF, is_error_frame=True, dlc=8, data=bytes(8)))
        r.run_gait(0.05)
        assert "bus_fault" in r.driver.faults and "bus-off" in r.driver.faults["bus_fault"] and r.driver.holding
        r.run_gait(1.0)  # the controller restarted (restart-ms): sends succeed again
        assert "bus_fault" not in r.driver.faults and not r.driver.holding
    finally:
        other.shutdown()


def test_emergency_stop_holds_every_module_and_release_resumes_the_gait(rig):
    r = rig()
    r.start()
    r.run_gait(1.0)
    r.driver.estop(r.t)
    r.run_gait(0.5)
    assert r.driver.holding and all(m.estop and m.hold for m in r.emu.modules)
    r.run_gait(1.0)  # the gait's commands are ignored: each motor settles where the stop caught it
    np.testing.assert_allclose([m.x[2] for m in r.emu.modules], [m.hold_beta for m in r.emu.modules], atol=0.005)
    r.driver.estop(r.t, engage=False)
    released, worst = r.t, []
    r.run_gait(3.0, on_cycle=lambda rig: worst.append(
        np.max(np.abs(rig.true_alpha() - rig.gait().reference(rig.t)[0]))) if rig.t > released + 2.0 else None)
    assert not r.driver.holding and not any(m.hold or m.estop for m in r.emu.modules)
    assert max(worst) < 0.1  # back on the gait
    assert_commands_within_limits(r)


def test_hardware_in_the_loop_on_the_simulated_body_moves_like_the_simulator_alone(rig):
    """Modules backed by the embedded simulator's whole-body model (002 (4.35), flat ground): the
    pedal wave through driver, bus and firmware moves the snake head first (+x) as far as the same
    gait fed straight into the simulator (the loop adds a 4 ms command period and a start-up hold)."""
    from snake_core.vertical.kinematics import link_positions
    from snake_hardware.emulator import TICK
    from snake_sim_ros.body_plant import BodyPlant

    duration = 6.0
    r = rig(body=BodyPlant("koopaee6"))
    r.start()
    body = r.emu.body
    x0 = link_positions(body.model, body.q)[0].mean()
    worst = []
    r.run_gait(duration, on_cycle=lambda rig: worst.append(np.max(np.abs(rig.driver.alpha - rig.true_at_step[:, 0]))))
    hil = link_positions(body.model, body.q)[0].mean() - x0
    assert max(worst) <= p.ENCODER_COUNT / 2 + 1e-12
    assert not r.driver.faults

    direct = BodyPlant("koopaee6")
    gait = r.gait()
    x0 = link_positions(direct.model, direct.q)[0].mean()
    for k in range(round(duration / TICK)):
        direct.step(*gait.reference((k + 1) * TICK))
    alone = link_positions(direct.model, direct.q)[0].mean() - x0
    assert alone > 0.005 and hil > 0.005  # both move head first
    assert hil == pytest.approx(alone, rel=0.3)


@pytest.mark.parametrize("profile", ["compact", "fd"])
def test_host_torque_profiles_recompute_tau_with_the_zero_offset_each_module_reports(rig):
    offsets = (0.02, -0.03, 0.0, 0.01, 0.04)
    r = rig()
    for module, offset in zip(r.emu.modules, offsets, strict=True):
        module.offset, module.calibrated = offset, True
    r.start()
    np.testing.assert_allclose(r.driver.zero_offset, offsets, atol=1e-4)  # asked with CALIBRATE read
    k = np.array(r.robot.sea.stiffness)
    worst = []
    r.run_gait(1.0, on_cycle=lambda rig: worst.append(np.max(np.abs(
        rig.driver.tau - k * (rig.true_at_step[:, 0] - rig.true_at_step[:, 1] - offsets)))))
    assert max(worst) <= k.max() * p.ENCODER_COUNT + 1e-9  # half a count on each encoder
    assert not r.driver.faults


@pytest.mark.parametrize("profile", ["compact", "fd"])
def test_modules_on_another_profile_are_reported_and_never_commanded(rig):
    from dataclasses import replace

    from snake_hardware.emulator import EmulatedRobot

    r = rig()
    r.emu.shutdown()
    r.emu = EmulatedRobot(replace(r.robot, can_profile="classic"), r.bus)
    r.start(settle=1.2)
    assert "another bus profile" in r.driver.faults["malformed_frames"]
    assert "module_lost" in r.driver.faults and r.driver.holding
    assert r.commands == []


@pytest.mark.parametrize("profile", ["fd"])
def test_fd_runs_ten_joints_at_1khz_with_one_command_frame_per_cycle_at_the_bench_load(rig):
    with open(locator.robot_file("koopaee6"), encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    data["links"]["count"], data["can"]["module_ids"] = 11, list(range(1, 11))
    r = rig(robot=robot_from_dict(data, "test"), rate=1000.0)
    r.start()
    sent, bits, duration = r.sent.copy(), r.wire_bits.copy(), 1.0
    worst = [0.0, 0.0]

    def check(rig):
        states, true = rig.driver.joint_states(), rig.true_at_step
        assert states.valid.all()
        worst[0] = max(worst[0], np.max(np.abs(states.alpha - true[:, 0])))
        worst[1] = max(worst[1], np.max(np.abs(states.beta - true[:, 1])))

    r.run_gait(duration, on_cycle=check)
    assert max(worst) <= p.ENCODER_COUNT / 2 + 1e-12  # α and β (recomputed from the deflection) to the encoder
    cycles = round(duration / r.dt)
    on_bus = r.sent - sent
    assert on_bus["COMMAND_FD"] == cycles and on_bus["STATE_FD"] == 10 * cycles  # one command, ten replies a cycle
    assert on_bus["HEARTBEAT"] == 10 and set(on_bus) == {"COMMAND_FD", "STATE_FD", "HEARTBEAT"}  # the master's
    nominal, data_bits = (r.wire_bits - bits) / duration
    assert nominal / p.BITRATE + data_bits / p.FD.data_bitrate == pytest.approx(p.FD.bus_load(10, 1000), rel=1e-9)
    assert not any(k in r.driver.faults for k in HOLDING)
