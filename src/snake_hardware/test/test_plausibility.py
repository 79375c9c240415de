"""Frames the driver must not believe (on every bus profile, driver and emulated modules in lock step): state
frames of a module that a spoofer sends (a motor angle the servo cannot reach in time), a replayed state frame
(its counter repeats), a state frame of a module the robot does not have, and a master frame the driver did not
send (a spoofed command). Each is refused, reported, and holds the robot while it lasts."""

from __future__ import annotations

import math

import numpy as np

from snake_hardware import protocol as p
from snake_hardware.diagnostics import ERROR
from snake_hardware.driver import HOLDING, DriverConfig, can_message


def spoofed_state(profile: p.BusProfile, node: int, angle: float, counter: int) -> tuple[int, bytes]:
    """A state frame of ``node`` saying its link and motor are at ``angle`` (an enabled, calibrated module)."""
    values = {f: 0 for f in p.STATUS_FLAGS} | {"enabled": 1, "calibrated": 1, "alpha": angle, "counter": counter}
    if profile.state is p.STATE:
        values |= {"beta": angle, "tau": 0.0, "alpha_rate": 0.0, "mode": 1}
    else:
        values["deflection"] = 0.0
    return p.encode(profile.state.name, node, values)


def references_of(rig, node: int, since: float) -> np.ndarray:
    return np.array([c[2] for c in rig.commands if c[1] == node and c[0] >= since])


def walking_with_a_spoofer(rig, joint: int, **kw):
    """A rig whose modules have walked for 0.5 s, its bus profile, the module of ``joint`` (0-based), its id, and
    a bus handle of its own to spoof from."""
    r = rig(**kw)
    r.start()
    r.run_gait(0.5)
    module = r.emu.modules[joint]
    return r, p.PROFILES[r.robot.can_profile], module, module.model.node, r.bus()


def test_spoofed_state_frames_are_refused_and_hold_the_robot_instead_of_moving_the_joint(rig):
    r, profile, module, node, spoofer = walking_with_a_spoofer(rig, 1)
    start = r.t

    def spoof(rig):  # joint 2 "at 1.0 rad", with the counter the module would send next
        fid, data = spoofed_state(profile, node, 1.0, (module.state_counter + 1) % 16)
        spoofer.send(can_message(fid, data))

    try:
        r.run_gait(1.0, on_cycle=spoof)
        assert r.driver.holding and "implausible_state" in r.driver.faults
        assert f"module {node}: motor angle jumped" in r.driver.faults["implausible_state"]
        assert abs(r.driver.beta[1] - module.x[2]) < 0.05  # it still reads the module's own frames
        assert np.max(np.abs(references_of(r, node, start))) < 0.6  # never driven towards the spoofed 1.0 rad
        safety = r.driver.diagnostics()[1]
        assert safety.level == ERROR and "motor angle jumped" in safety.message
        r.run_gait(2.0)  # the spoofer gone: the fault clears and the gait resumes
        assert "implausible_state" not in r.driver.faults and not any(k in r.driver.faults for k in HOLDING)
    finally:
        spoofer.shutdown()


def test_a_lost_module_is_not_revived_by_a_single_frame_nor_by_one_its_servo_could_not_have_sent(rig):
    # lost after 50 ms: a return checked over a short gap
    r, profile, module, node, spoofer = walking_with_a_spoofer(rig, 2, config=DriverConfig(state_timeout=0.05))
    try:
        module.silent = True
        r.run_gait(0.06)
        assert "module_lost" in r.driver.faults
        last = float(r.driver.beta[2])
        # 0.06 s after its last frame: the servo turns at most 1.5 × 6.3 rad/s × 0.06 s = 0.57 rad
        spoofer.send(can_message(*spoofed_state(profile, node, last - math.copysign(1.0, last), 5)))
        r.cycle(r.driver.beta.copy())
        assert f"module {node}: motor angle jumped" in r.driver.faults["implausible_state"]
        assert not r.driver.joint_states().valid[2] and r.driver.beta[2] == last
        # one plausible frame alone does not bring it back: only frames in sequence for recover_time do
        spoofer.send(can_message(*spoofed_state(profile, node, last, 6)))
        for _ in range(round(0.5 / r.dt)):
            r.cycle(r.driver.beta.copy())
        assert "module_lost" in r.driver.faults and not r.driver.joint_states().valid[2] and r.driver.holding
        module.silent = False
        r.run_gait(1.0)
        assert not any(k in r.driver.faults for k in HOLDING) and r.driver.joint_states().valid.all()
    finally:
        spoofer.shutdown()


def test_a_replayed_state_frame_is_refused_by_its_counter(rig):
    r = rig()
    r.start()
    r.run_gait(0.3)
    module = r.emu.modules[2]
    replayer = r.bus()
    listener = r.bus()
    try:
        r.run_gait(0.05)
        captured = None
        while (msg := listener.recv(timeout=0)) is not None:
            if msg.arbitration_id == p.PROFILES[r.robot.can_profile].state.frame_id(module.model.node):
                captured = msg
        assert captured is not None
        replayer.send(captured)  # the module's own last frame again: same counter, same angles
        r.cycle(r.driver.beta.copy())
        assert "repeated or out of order" in r.driver.faults["implausible_state"] and r.driver.holding
    finally:
        replayer.shutdown()
        listener.shutdown()


def test_a_state_frame_of_a_module_the_robot_has_not_is_refused(rig):
    r = rig()
    r.start()
    stranger = r.bus()
    try:
        fid, data = spoofed_state(p.PROFILES[r.robot.can_profile], 40, 0.2, 1)
        stranger.send(can_message(fid, data))
        r.run_gait(0.05)
        assert "module 40, which the robot file does not list" in r.driver.faults["implausible_state"]
        assert r.driver.holding
    finally:
        stranger.shutdown()


def test_a_command_frame_the_driver_did_not_send_raises_a_fault_and_holds(rig):
    r = rig()
    r.start()
    r.run_gait(0.5)
    profile = p.PROFILES[r.robot.can_profile]
    spoofer = r.bus()
    nodes = r.robot.can_ids
    beta = np.where(np.arange(len(nodes)) == 3, 0.9, np.nan)  # module 4 to 0.9 rad
    try:
        for fid, data in profile.command_frames(nodes, beta, np.zeros(len(nodes)), 3):
            spoofer.send(can_message(fid, data))
        r.run_gait(0.05)
        assert "did not send (another master or a spoofed frame)" in r.driver.faults["foreign_command"]
        assert r.driver.holding and r.driver.diagnostics()[1].level == ERROR
        r.run_gait(1.5)
        assert "foreign_command" not in r.driver.faults and not r.driver.holding
    finally:
        spoofer.shutdown()
