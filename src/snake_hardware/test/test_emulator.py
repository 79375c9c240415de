"""The module emulator behaves like the firmware on every bus profile: SEA sign and saturation, 12-bit
encoders, watchdog, emergency-stop latch, zero-offset calibration, the gait mode fed by the master's
broadcast, and on the grouped-command profiles (compact, fd) β̇_d from successive references and sequence gaps."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import can
import numpy as np
import pytest

from snake_core.robot import load_robot
from snake_hardware import protocol as p
from snake_hardware.driver import can_message
from snake_hardware.emulator import TICK, EmulatedModule, module_models

_channels = itertools.count()


class Bench:
    """One emulated module and a master handle on a virtual bus."""

    def __init__(self, joint: int = 3, true_zero_offset: float = 0.0, profile: str = "classic"):
        self.robot = load_robot("koopaee6")
        channel = f"snake_emu_{next(_channels)}"
        offsets = tuple(true_zero_offset if j == joint - 1 else 0.0 for j in range(self.robot.n_joints))
        self.model = module_models(self.robot, offsets)[joint - 1]
        self.profile = p.PROFILES[profile]
        self.module = EmulatedModule(self.model, can.Bus(interface="virtual", channel=channel), profile=self.profile)
        self.master = can.Bus(interface="virtual", channel=channel)
        self.node = self.model.node
        self.frames: list[p.Frame] = []
        self.cycle = 0

    def command(self, beta: float) -> None:
        """β_d for this module's joint (none for the others) in the profile's command frames."""
        self.cycle += 1
        beta_d = [beta if j == self.model.joint_index else np.nan for j in range(1, self.robot.n_joints + 1)]
        for fid, data in self.profile.command_frames(self.robot.can_ids, beta_d, [0.0] * len(beta_d), self.cycle):
            self.master.send(can_message(fid, data))

    def send(self, kind: str, values: dict, node: int | None = None) -> None:
        self.master.send(can_message(*p.encode(kind, self.node if node is None else node, values)))

    def enable(self, mode: int = 1, watchdog: float = 0.05) -> None:
        self.send("CONFIG", {"mode": mode, "enable": 1, "joint_index": self.model.joint_index,
                             "kp": self.model.kp, "ki": 0.0, "kd": self.model.kd, "watchdog": watchdog})

    def run(self, duration: float, command: float | None = None, master_heartbeat: bool = True) -> None:
        steps = round(duration / TICK)
        for k in range(steps):
            if master_heartbeat and k % 100 == 0:
                self.send("HEARTBEAT", {"state": 2, "counter": 0}, node=0)
            if command is not None and k % 4 == 0:
                self.command(command)
            self.module.tick()
            while (msg := self.master.recv(timeout=0)) is not None:
                self.frames.append(p.decode(msg.arbitration_id, bytes(msg.data), fd=msg.is_fd))

    def last(self, kind: str) -> dict:
        """The last frame of ``kind``; "STATE": the profile's state frame as the host reads it (α, β, τ,
        status flags; τ with the zero offset of the last CALIBRATE_REPLY, as the driver does)."""
        if kind != "STATE":
            return next(f.values for f in reversed(self.frames) if f.kind == kind)
        offset = next((f.values["offset"] for f in reversed(self.frames) if f.kind == "CALIBRATE_REPLY"), 0.0)
        frame = next(f for f in reversed(self.frames) if f.kind == self.profile.state.name)
        r = p.state_reading(frame, self.model.stiffness, self.model.deflection_limit, offset)
        return {"alpha": r.alpha, "beta": r.beta, "tau": r.tau, **r.status}

    def heartbeats(self) -> list[int]:
        """The module state (MODULE_STATES) of every heartbeat: HEARTBEAT, or the compact or fd state frame."""
        if self.profile.module_heartbeat:
            return [f.values["state"] for f in self.frames if f.kind == "HEARTBEAT"]
        return [p.module_state(f.values) for f in self.frames if f.kind == self.profile.state.name]

    def close(self) -> None:
        self.module.bus.shutdown()
        self.master.shutdown()


@pytest.fixture(params=tuple(p.PROFILES))
def bench(request):
    made = []

    def make(**kw) -> Bench:
        made.append(Bench(profile=request.param, **kw))
        return made[-1]

    yield make
    for b in made:
        b.close()


def test_a_disabled_module_reports_heartbeat_and_state_at_10_hz(bench):
    b = bench()
    b.run(1.0, master_heartbeat=False)
    assert b.heartbeats() == [1] * 10  # 1 = disabled
    assert sum(f.kind == b.profile.state.name for f in b.frames) == 10
    assert sum(f.kind == "HEARTBEAT" for f in b.frames) == (10 if b.profile.module_heartbeat else 0)
    assert not b.last("STATE")["enabled"]


def test_position_command_is_tracked_and_encoders_are_12_bit(bench):
    b = bench()
    b.enable()
    b.run(3.0, command=0.4)  # (4.39) without feed-forward: time constant K_D / K_p ≈ 0.4 s
    state = b.last("STATE")
    assert state["beta"] == pytest.approx(0.4, abs=2 * p.ENCODER_COUNT)
    assert state["alpha"] == pytest.approx(0.4, abs=0.01)
    for key in ("alpha", "beta"):
        counts = state[key] / p.ENCODER_COUNT
        assert counts == pytest.approx(round(counts), abs=1e-9)  # whole encoder counts
    assert abs(b.module.x[0] - state["alpha"]) <= p.ENCODER_COUNT  # true angle within the resolution


def test_sea_torque_has_the_sign_of_002_on_a_static_load(bench):
    """τ = K(α − β) (002 (4.36), docs/readings.md): a positive load on the link deflects α above β."""
    b = bench()
    b.enable()
    b.module.external_torque = 0.3
    b.run(2.0, command=0.0)
    state = b.last("STATE")
    assert state["alpha"] - state["beta"] == pytest.approx(0.3 / b.model.stiffness, abs=2 * p.ENCODER_COUNT)
    assert state["tau"] == pytest.approx(0.3, abs=b.model.stiffness * 2 * p.ENCODER_COUNT + 0.01)
    assert not state["torque_saturated"]


def test_torque_sensor_saturates_beyond_the_deflection_limit(bench):
    b = bench()
    b.enable()
    b.module.external_torque = 1.0  # > K δ_max = 1.74 · 21° = 0.64 N·m
    b.run(2.0, command=0.0)
    state = b.last("STATE")
    assert state["torque_saturated"]
    assert state["tau"] == pytest.approx(b.model.stiffness * b.model.deflection_limit, abs=0.01)
    assert b.module.x[0] - b.module.x[2] > b.model.deflection_limit  # the spring itself deflects further


def test_references_beyond_60_degrees_are_clipped_by_the_firmware(bench):
    b = bench()
    b.enable()
    b.run(4.0, command=1.5)
    state = b.last("STATE")
    assert state["at_limit"]
    assert state["beta"] == pytest.approx(math.radians(60), abs=2 * p.ENCODER_COUNT)


def test_command_watchdog_holds_the_motor_where_it_is(bench):
    b = bench()
    b.enable(watchdog=0.05)
    b.run(1.0, command=0.3)
    beta_before = b.module.beta_measured
    b.run(0.5)  # commands stop
    state = b.last("STATE")
    assert state["hold"] and b.heartbeats()[-1] == 3
    assert b.module.beta_measured == pytest.approx(beta_before, abs=2 * p.ENCODER_COUNT)
    b.run(3.0, command=0.0)  # fresh commands resume position control
    assert not b.last("STATE")["hold"]
    assert b.module.beta_measured == pytest.approx(0.0, abs=2 * p.ENCODER_COUNT)


def test_emergency_stop_latches_until_release_and_enable(bench):
    b = bench()
    b.enable()
    b.run(3.0, command=0.2)
    b.send("ESTOP", {"engage": 1, "reason": 0, "source": 0}, node=0)
    b.run(0.5, command=-0.3)  # ignored while stopped
    assert b.last("STATE")["estop"] and b.heartbeats()[-1] == 4
    assert b.module.beta_measured == pytest.approx(0.2, abs=3 * p.ENCODER_COUNT)
    b.send("ESTOP", {"engage": 0, "reason": 0, "source": 0}, node=0)
    b.run(0.3, command=-0.3)
    assert b.module.beta_measured == pytest.approx(0.2, abs=3 * p.ENCODER_COUNT)  # still held: not enabled
    b.enable()
    b.run(3.0, command=-0.3)
    assert b.module.beta_measured == pytest.approx(-0.3, abs=2 * p.ENCODER_COUNT)


def test_zero_offset_calibration_removes_the_built_in_spring_offset(bench):
    b = bench(true_zero_offset=0.05)
    b.run(3.0)  # disabled: motor and link relax to the spring's own zero
    assert b.last("STATE")["tau"] == pytest.approx(b.model.stiffness * 0.05, abs=0.015)
    b.send("CALIBRATE", {"op": 1, "offset": 0.0})
    b.run(0.2)
    reply = b.last("CALIBRATE_REPLY")
    assert reply["result"] == 0 and reply["offset"] == pytest.approx(0.05, abs=2 * p.ENCODER_COUNT)
    assert b.last("STATE")["tau"] == pytest.approx(0.0, abs=0.01) and b.last("STATE")["calibrated"]
    b.enable()
    b.send("CALIBRATE", {"op": 1, "offset": 0.0})
    b.run(0.1, command=0.0)
    assert b.last("CALIBRATE_REPLY")["result"] == 1  # refused while enabled


def test_gait_mode_generates_the_pedal_wave_from_the_broadcast(bench):
    b = bench(joint=3)
    b.enable(mode=2, watchdog=0.0)
    gait = {"amplitude": math.pi / 6, "frequency": math.pi, "phase_shift": -2 * math.pi / 5}
    b.run(0.01)
    b.send("GAIT", {**gait, "gait_type": 0, "run": 1}, node=0)
    t0 = b.module.time
    errors = []
    for _ in range(300):
        b.run(0.01)
        t = b.module.time - t0
        beta_d = gait["amplitude"] * math.sin(gait["frequency"] * t + gait["phase_shift"] * 2)  # 002 (4.38), j = 3
        errors.append(b.module.x[2] - beta_d)
    assert np.max(np.abs(errors[100:])) < 0.03


@pytest.mark.parametrize("profile", ["compact", "fd"])
def test_grouped_commands_give_the_rate_from_successive_references_and_count_sequence_gaps(profile):
    b = Bench(joint=3, profile=profile)  # joint 3: node field 0, slot beta_ref_3 (COMMAND_GROUP and COMMAND_FD)

    def group(sequence: int, beta: float) -> None:
        b.master.send(can_message(*p.encode(b.profile.command.name, 0, {"sequence": sequence, "beta_ref_3": beta})))
        b.module.advance(b.module.time + 0.004)

    try:
        b.enable()
        b.run(0.01)
        group(1, 0.1)
        assert b.module.beta_rate_ref == 0.0  # the first reference: nothing to differentiate
        group(2, 0.108)  # +2 rad/s over the 4 ms between the two frames
        assert b.module.beta_ref == pytest.approx(0.108, abs=p.ENCODER_COUNT / 2)
        assert b.module.beta_rate_ref == pytest.approx(2.0, abs=p.ENCODER_COUNT / 0.004)
        group(2, 0.5)  # the same sequence again is not a fresh reference
        assert b.module.beta_ref == pytest.approx(0.108, abs=p.ENCODER_COUNT / 2)
        group(5, 0.096)  # cycles 3 and 4 lost; the rate spans the time since the last one it got
        assert b.module.sequence_gaps == 2
        assert b.module.beta_rate_ref == pytest.approx(-0.012 / 0.008, abs=p.ENCODER_COUNT / 0.008)
    finally:
        b.close()


def test_an_fd_command_sent_as_a_classic_frame_is_refused_by_the_module():
    b = Bench(joint=3, profile="fd")
    try:
        b.enable()
        b.run(0.01)
        fid, data = p.encode("COMMAND_FD", 0, {"sequence": 1, "beta_ref_3": 0.2})
        b.master.send(can.Message(arbitration_id=fid, data=data, is_extended_id=False))  # no FDF bit
        b.module.advance(b.module.time + 0.004)
        assert b.module.rejected_frames == 1 and b.module.beta_ref == pytest.approx(b.module.beta_measured)
        b.master.send(can_message(fid, data))
        b.module.advance(b.module.time + 0.004)
        assert b.module.beta_ref == pytest.approx(0.2, abs=p.ENCODER_COUNT / 2)
    finally:
        b.close()


@pytest.mark.parametrize("profile", tuple(p.PROFILES))
def test_modules_stepped_together_move_and_answer_as_each_stepped_alone(profile):
    """An EmulatedRobot steps its modules' firmware and plants as arrays, one row per module: the same states (to
    1e-12) and the same frames as each module on a bus of its own, over a commanded run with a load on one link,
    lost command frames, a command pause that trips the watchdog and an emergency stop released and re-enabled."""
    from snake_hardware.emulator import EmulatedRobot

    robot = replace(load_robot("koopaee6"), can_profile=profile)
    prof, n = p.PROFILES[profile], robot.n_joints
    channels = [f"snake_emu_{next(_channels)}" for _ in range(n + 1)]
    offsets = tuple(0.01 * (j - 2) for j in range(n))  # every module different: rows mixed up would show
    models = module_models(robot, offsets)
    together = EmulatedRobot(robot, lambda: can.Bus(interface="virtual", channel=channels[0]),
                             true_zero_offsets=offsets)
    alone = [EmulatedModule(m, can.Bus(interface="virtual", channel=c), profile=prof)
             for m, c in zip(models, channels[1:], strict=True)]
    masters = [can.Bus(interface="virtual", channel=c) for c in channels]
    heard: list[list[tuple[int, bytes]]] = [[] for _ in masters]
    rng = np.random.default_rng(3)
    held, latched, worst = set(), set(), 0.0
    try:
        for k in range(1400):
            t = k * TICK
            frames = []
            if k % 100 == 0:
                frames.append(p.encode("HEARTBEAT", 0, {"state": 2, "counter": 0}))
            if k in (0, 950):  # enable, and again after the e-stop's release
                frames += [p.encode("CONFIG", m.node, {"mode": 1, "enable": 1, "joint_index": m.joint_index,
                                                       "kp": m.kp * (1 + 0.1 * j), "ki": 0.2, "kd": m.kd,
                                                       "watchdog": 0.05}) for j, m in enumerate(models)]
            if k in (800, 900):
                frames.append(p.encode("ESTOP", 0, {"engage": int(k == 800), "reason": 0}))
            if k % 4 == 0 and not 300 <= k < 400:  # the pause: every module's watchdog holds it
                beta_d = [0.5 * math.sin(2 * math.pi * t - 0.8 * j) for j in range(n)]
                frames += [f for f in prof.command_frames(robot.can_ids, beta_d, [0.0] * n, k // 4)
                           if rng.random() > 0.2]  # lost frames
            for fid, data in frames:
                for master in masters:
                    master.send(can_message(fid, data))
            for m in [*together.modules, *alone]:
                m.external_torque = 0.3 if m.model.joint_index == 2 else 0.0
            together.tick()
            for m in alone:
                m.tick()
            worst = max(worst, float(np.abs(together.bank.x - np.array([m.x for m in alone])).max()))
            held |= {m.model.node for m in alone if m.hold and not m.estop}
            latched |= {m.model.node for m in alone if m.latched}
            for master, got in zip(masters, heard, strict=True):
                while (msg := master.recv(timeout=0)) is not None:
                    got.append((msg.arbitration_id, bytes(msg.data)))
    finally:
        together.shutdown()
        for bus in [*masters, *(m.bus for m in alone)]:
            bus.shutdown()
    assert worst <= 1e-12
    assert held == latched == set(robot.can_ids)  # every module went through the watchdog's hold and the e-stop
    assert all(not m.hold and m.enabled for m in alone)  # re-enabled, following again
    for m, got in zip(alone, heard[1:], strict=True):
        own = [f for f in heard[0] if f[0] & p.MAX_NODE == m.model.node and f[0] >> p.NODE_BITS in
               {ft.function for ft in (p.STATE, p.STATE_COMPACT, p.STATE_FD, p.HEARTBEAT, p.CALIBRATE_REPLY)}]
        assert len(got) > 100 and own == got
    assert np.abs(together.bank.x[:, 2]).max() > 0.2  # it moved
