"""A joint module as its firmware behaves on the bus, for tests, bench runs and hardware-in-the-loop
runs without hardware (``snake-can emulate``).

Per module (002 §3.3, §3.5): a 1 kHz motor-side PID, U = K_p (β_d − β) + K_i ∫(β_d − β) dt +
K_D (β̇_d − β̇) (002 (4.39) plus an optional integral term), saturated at the servo's stall torque;
12-bit encoders on the link (α) and the motor (β); the SEA spring τ = K (α − β − δ_0), 002 (4.36),
whose torque sensor saturates at the deflection limit; the ±60° reference limit; a command watchdog;
a 10 Hz heartbeat; emergency stop latch; SEA zero-offset calibration; and the gait mode in which the
module generates 002's pedal wave (4.38) itself from the master's broadcast of A, ω, φ. It speaks the
robot file's bus profile (``can.profile``); on the compact and fd ones, COMMAND_GROUP and COMMAND_FD
carry no β̇_d and the module takes it from successive references (β_d[k] − β_d[k−1]) / Δt, as a
CANopen drive in interpolated position mode does.

The mechanics are a stand-in, one degree of freedom per module: the motor (reflected inertia
n² J_r) drives through the spring a link of inertia J_l + m l² rotating about the joint (the rest of
the snake is not modelled; an external load torque can be applied). The linear plant is discretised
exactly over one firmware tick (zero-order hold of U), so the emulator is stable at any gains.

The modules of one process are stepped together (:class:`ModuleBank`): their firmware state is one array, a row
per module, and a tick is three compiled loops over the rows (safety and measurements, reference and PID, plant),
so that emulating a robot costs a small part of a core; the frames are handled module by module.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import can
import numpy as np
from numba import njit
from scipy.linalg import expm

from snake_core.gaits import make_gait
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

from . import protocol as p
from .driver import can_message

TICK = 1e-3  # s, the firmware loop: 1 kHz
HEARTBEAT_PERIOD = 1.0 / p.HEARTBEAT_RATE
MASTER_TIMEOUT = 0.5  # s without a master heartbeat → the enabled module holds
VELOCITY_FILTER = 2 * math.pi * 50.0  # rad/s, first-order low-pass on the differentiated α (firmware)
_COUNT = p.ENCODER_COUNT
FILTER_GAIN = VELOCITY_FILTER * TICK / (1 + VELOCITY_FILTER * TICK)  # its discrete (backward Euler) gain per tick
LINK_DAMPING = 2e-3  # N·m·s/rad, joint friction of the stand-in link (not given in 002)
MOTOR_DAMPING = 1e-2  # N·m·s/rad, servo gear friction reflected to the link side (not given in 002)
#: grouped commands: successive references further apart than this give no β̇_d (a restart, not a motion)
INTERPOLATION_WINDOW = 0.05  # s


def quantise(x: float, step: float) -> float:
    return round(x / step) * step


@dataclass(frozen=True)
class ModuleModel:
    """Immutable parameters of one emulated module and its exact one-tick discretisation."""

    node: int
    joint_index: int  # j, 1-based tail → head
    stiffness: float  # K [N·m/rad]
    deflection_limit: float  # δ_max [rad]
    joint_limit: float  # [rad]
    link_inertia: float  # J_l + m l² [kg·m²]
    motor_inertia: float  # n² J_r, reflected to the link side [kg·m²]
    stall_torque: float  # [N·m]
    max_speed: float  # [rad/s]
    kp: float
    kd: float
    true_zero_offset: float = 0.0  # δ_0 of the spring as built (what calibration must find) [rad]
    phi: np.ndarray = field(init=False, repr=False, compare=False)
    gam: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        k, jl, jm = self.stiffness, self.link_inertia, self.motor_inertia
        # x = [α, α̇, β, β̇]; inputs [U, τ_ext, K δ_0]: J_l α̈ = −K(α − β − δ_0) − b_l α̇ + τ_ext,
        # J_m β̈ = U + K(α − β − δ_0) − b_m β̇ (002 (4.36): the spring returns K(α − β) to the motor).
        a = np.array([[0, 1, 0, 0],
                      [-k / jl, -LINK_DAMPING / jl, k / jl, 0],
                      [0, 0, 0, 1],
                      [k / jm, 0, -k / jm, -MOTOR_DAMPING / jm]])
        b = np.array([[0, 0, 0], [0, 1 / jl, 1 / jl], [0, 0, 0], [1 / jm, 0, -1 / jm]])
        m = np.zeros((7, 7))
        m[:4, :4], m[:4, 4:] = a, b
        e = expm(m * TICK)
        object.__setattr__(self, "phi", e[:4, :4])
        object.__setattr__(self, "gam", e[:4, 4:])


def module_models(robot: RobotParams, true_zero_offsets: tuple[float, ...] | None = None) -> list[ModuleModel]:
    """One model per joint of an SEA robot with CAN ids (robot file sections sea, actuator, can)."""
    if robot.sea is None or robot.actuator is None or robot.can_ids is None:
        raise ConfigError("robot", robot.name, "the module emulator needs a robot file with sea, actuator and "
                          "can sections")
    offsets = true_zero_offsets or (0.0,) * robot.n_joints
    a = robot.actuator
    return [ModuleModel(
        node=robot.can_ids[j], joint_index=j + 1, stiffness=robot.sea.stiffness[j],
        deflection_limit=robot.sea.deflection_limit, joint_limit=min(robot.joint_limit, math.pi / 3),
        link_inertia=robot.link_inertia + robot.link_mass * robot.half_length**2,
        # The physical servo: full reflected rotor inertia n² J_r, whatever 002 (4.36) reading the
        # simulator uses (docs/readings.md, rotor term); the firmware drives the real gearbox.
        motor_inertia=a.gear_ratio**2 * a.rotor_inertia,
        stall_torque=a.stall_torque, max_speed=a.max_speed, kp=a.kp, kd=a.kd,
        true_zero_offset=offsets[j]) for j in range(robot.n_joints)]


#: the columns of a :class:`ModuleBank`'s firmware state, one row per module (flags as 0/1, modes and indices as
#: whole numbers): what the frame handlers set and the compiled tick reads
(MODE, ENABLED, ESTOP, LATCHED, HOLD, AT_LIMIT, CALIBRATED, KP, KI, KD, WATCHDOG, JOINT_INDEX, OFFSET, BETA_REF,
 BETA_RATE_REF, HOLD_BETA, INTEGRAL, LAST_COMMAND, LAST_MASTER, NEXT_HEARTBEAT, ALPHA_PREV, ALPHA_RATE, GAIT,
 GAIT_BETA, GAIT_RATE, REFERENCED, BETA_D, BETA_RATE_D, JOINT_LIMIT, STALL_TORQUE, MAX_SPEED) = range(31)
#: the columns of a bank's plant inputs z = [x U τ_ext K δ_0] (x = α, α̇, β, β̇)
U, EXTERNAL_TORQUE, OFFSET_TORQUE = 4, 5, 6


class _Row:
    """An attribute of :class:`EmulatedModule` that is its row's entry of a column of its :class:`ModuleBank`
    (``state``: the firmware's; ``z``: the plant's inputs): the frame handlers read and set one module's state,
    the compiled tick steps every module's at once."""

    def __init__(self, column: int, kind: type = float, table: str = "state"):
        self.column, self.kind, self.table = column, kind, table

    def __get__(self, module: EmulatedModule | None, owner: type | None = None):
        if module is None:
            return self
        return self.kind(getattr(module.bank, self.table)[module.row, self.column])

    def __set__(self, module: EmulatedModule, value: float) -> None:
        getattr(module.bank, self.table)[module.row, self.column] = value


# compiled at import (numba's cache), not at the first tick: a first tick that stalls would put the modules behind
@njit("b1(f8, f8[:, ::1], f8[:, ::1], b1[::1])", cache=True)
def _sense(t: float, state: np.ndarray, z: np.ndarray, late: np.ndarray) -> bool:
    """The safety checks and the measurements of one tick, every module: ``late`` where an enabled module's command
    watchdog (no fresh command) or the master timeout trips (True if any); the low-passed α̇ from the encoder."""
    tripped = False
    for i in range(state.shape[0]):
        s = state[i]
        late[i] = s[ENABLED] > 0 and s[HOLD] == 0 and (
            (s[MODE] == 1 and s[WATCHDOG] > 0 and t - s[LAST_COMMAND] > s[WATCHDOG])
            or t - s[LAST_MASTER] > MASTER_TIMEOUT)
        tripped |= late[i]
        alpha_m = np.rint(z[i, 0] / _COUNT) * _COUNT
        s[ALPHA_RATE] += FILTER_GAIN * ((alpha_m - s[ALPHA_PREV]) / TICK - s[ALPHA_RATE])
        s[ALPHA_PREV] = alpha_m
    return tripped


@njit("void(f8[:, ::1], f8[:, ::1])", cache=True)
def _control(state: np.ndarray, z: np.ndarray) -> None:
    """Reference and PID of one tick (002 (4.39) + integral), every module: U into z, (β_d, β̇_d) where REFERENCED
    (enabled); a reference beyond the joint limit clipped to it, and its speed reference with it."""
    for i in range(state.shape[0]):
        s = state[i]
        s[REFERENCED] = s[ENABLED]
        if s[ENABLED] == 0:
            z[i, U] = 0.0
            continue
        if s[HOLD] > 0:
            beta_d, beta_rate_d = s[HOLD_BETA], 0.0
        elif s[MODE] == 2 and s[GAIT] > 0:  # C_p: β_d = α_d, (4.39)
            beta_d, beta_rate_d = s[GAIT_BETA], s[GAIT_RATE]
        else:
            beta_d, beta_rate_d = s[BETA_REF], s[BETA_RATE_REF]
        s[AT_LIMIT] = 1.0 if abs(beta_d) > s[JOINT_LIMIT] else 0.0
        if s[AT_LIMIT] > 0:  # none beyond the limit
            beta_d = math.copysign(s[JOINT_LIMIT], beta_d)
            beta_rate_d = min(beta_rate_d, 0.0) if beta_d > 0 else max(beta_rate_d, 0.0)
        s[BETA_D], s[BETA_RATE_D] = beta_d, beta_rate_d
        error = beta_d - np.rint(z[i, 2] / _COUNT) * _COUNT
        s[INTEGRAL] += error * TICK
        u = s[KP] * error + s[KI] * s[INTEGRAL] + s[KD] * (beta_rate_d - z[i, 3])
        z[i, U] = max(-s[STALL_TORQUE], min(s[STALL_TORQUE], u))


@njit("void(f8[:, ::1], f8[:, ::1], f8[:, :, ::1])", cache=True)
def _plant(state: np.ndarray, z: np.ndarray, maps: np.ndarray) -> None:
    """The 1-DoF plants over one tick (zero-order hold): x ← [Φ Γ] z, β̇ within the servo's no-load speed."""
    x = np.empty(4)
    for i in range(state.shape[0]):
        for r in range(4):
            x[r] = 0.0
            for c in range(7):
                x[r] += maps[i, r, c] * z[i, c]
        z[i, :4] = x
        z[i, 3] = max(-state[i, MAX_SPEED], min(state[i, MAX_SPEED], x[3]))


class ModuleBank:
    """The firmware state and the 1-DoF plants of the emulated modules of one process, one row per module, stepped
    together: a tick is three compiled loops over the modules, whatever their number (the frames, and what they
    change, are handled module by module, :class:`EmulatedModule`)."""

    def __init__(self, models: Sequence[ModuleModel], start_time: float = 0.0):
        n = len(models)
        self.modules: list[EmulatedModule] = []  # row j's module (each registers itself)
        self.time = start_time
        self.state = np.zeros((n, MAX_SPEED + 1))
        s = self.state
        s[:, KP], s[:, KD], s[:, WATCHDOG] = [m.kp for m in models], [m.kd for m in models], 0.05
        s[:, JOINT_INDEX] = [m.joint_index for m in models]
        s[:, LAST_COMMAND], s[:, LAST_MASTER], s[:, NEXT_HEARTBEAT] = -math.inf, start_time, start_time
        s[:, JOINT_LIMIT] = [m.joint_limit for m in models]
        s[:, STALL_TORQUE], s[:, MAX_SPEED] = [m.stall_torque for m in models], [m.max_speed for m in models]
        self.z = np.zeros((n, 7))
        self.z[:, OFFSET_TORQUE] = [m.stiffness * m.true_zero_offset for m in models]
        self.x = self.z[:, :4]  # α, α̇, β, β̇ (true)
        self._maps = np.stack([np.hstack([m.phi, m.gam]) for m in models])  # the exact one-tick maps [Φ Γ]
        self._late = np.zeros(n, dtype=np.bool_)
        self._next_report = start_time  # the earliest NEXT_HEARTBEAT

    def control(self, frames: Mapping[int, Sequence[can.Message]]) -> None:
        """The firmware part of a tick, every module: the bus ``frames`` since the last (by row), safety,
        measurements, replies, reference and PID; the motor torques U into ``z``, (β_d, β̇_d) where REFERENCED."""
        replies = {row for row, msgs in frames.items() if any([self.modules[row].handle(msg) for msg in msgs])}
        t = self.time
        if _sense(t, self.state, self.z, self._late):
            for row in np.flatnonzero(self._late):
                self.modules[row].enter_hold()
        if replies or t >= self._next_report - 1e-9:
            due = t >= self.state[:, NEXT_HEARTBEAT] - 1e-9
            for row in sorted(replies.union(np.flatnonzero(due).tolist())):
                self.modules[row].report(row in replies, bool(due[row]))
            self._next_report = self.state[:, NEXT_HEARTBEAT].min()
        for module in self.modules:
            if module.gait is not None and module.mode == 2:
                self.state[module.row, GAIT_BETA:GAIT_RATE + 1] = module.gait(t - module.gait_start)
        _control(self.state, self.z)

    def step(self) -> None:
        """The 1-DoF plants over one tick under the motor torques of :meth:`control`, then the clock."""
        _plant(self.state, self.z, self._maps)
        self.time += TICK


class EmulatedModule:
    """Firmware + plant of one joint module on a python-can bus; advance it with :meth:`advance`. Its firmware state
    and plant are a row of a :class:`ModuleBank`: its own, or the one it shares with the other modules of an
    :class:`EmulatedRobot` (which steps them)."""

    mode, joint_index = _Row(MODE, int), _Row(JOINT_INDEX, int)
    enabled, estop, latched, hold = _Row(ENABLED, bool), _Row(ESTOP, bool), _Row(LATCHED, bool), _Row(HOLD, bool)
    at_limit, calibrated, has_gait = _Row(AT_LIMIT, bool), _Row(CALIBRATED, bool), _Row(GAIT, bool)
    kp, ki, kd, watchdog, offset = _Row(KP), _Row(KI), _Row(KD), _Row(WATCHDOG), _Row(OFFSET)
    beta_ref, beta_rate_ref, hold_beta, integral = _Row(BETA_REF), _Row(BETA_RATE_REF), _Row(HOLD_BETA), _Row(INTEGRAL)
    last_command, last_master, next_heartbeat = _Row(LAST_COMMAND), _Row(LAST_MASTER), _Row(NEXT_HEARTBEAT)
    alpha_prev, alpha_rate = _Row(ALPHA_PREV), _Row(ALPHA_RATE)
    external_torque = _Row(EXTERNAL_TORQUE, float, "z")  # τ_ext on the link [N·m]

    def __init__(self, model: ModuleModel, bus: can.BusABC, *, start_time: float = 0.0,
                 profile: p.BusProfile = p.CLASSIC, bank: ModuleBank | None = None):
        self.model = model
        self.profile = profile
        self.bus = bus
        self.bank = bank if bank is not None else ModuleBank([model], start_time)
        self.row = len(self.bank.modules)
        self.bank.modules.append(self)
        self.x = self.bank.x[self.row]  # α, α̇, β, β̇ (true): the bank's row
        self.silent = False  # fault injection: the module stops answering (and stops listening)
        self.state_counter = 0
        self.hb_counter = 0
        self.gait: Callable[[float], tuple[float, float]] | None = None
        self.gait_start = 0.0
        self.rejected_frames = 0
        self.command_sequence: int | None = None  # last sequence of a grouped command (compact, fd)
        self.sequence_gaps = 0  # grouped-command cycles missed (sequence jumps), counted as the firmware would
        self.last_state_true = (0.0, 0.0)
        self._pack_state = p.packer(profile.state.name)
        node = model.node
        #: ids this module listens to (the acceptance filter of its CAN controller)
        commands = [p.COMMAND.frame_id(node)] if profile.command is p.COMMAND else \
            [profile.command.frame_id(g) for g in profile.command.nodes]
        self.accepted = {p.ESTOP.frame_id(0), p.GAIT.frame_id(0), p.HEARTBEAT.frame_id(0), p.CONFIG.frame_id(node),
                         p.CALIBRATE.frame_id(node), *commands}

    @property
    def time(self) -> float:
        return self.bank.time

    @property
    def reference(self) -> tuple[float, float] | None:
        """(β_d, β̇_d) of the last tick while enabled, else None."""
        s = self.bank.state[self.row]
        return (float(s[BETA_D]), float(s[BETA_RATE_D])) if s[REFERENCED] else None

    # measurements -------------------------------------------------------------------------------
    @property
    def alpha_measured(self) -> float:
        return quantise(self.x[0], p.ENCODER_COUNT)

    @property
    def beta_measured(self) -> float:
        return quantise(self.x[2], p.ENCODER_COUNT)

    def torque_measured(self) -> tuple[float, bool]:
        """τ = K (α − β − δ_0) from the encoders, 002 (4.36); saturated at K δ_max (002 §3.3.2)."""
        return self._torque(self.alpha_measured, self.beta_measured)

    def _torque(self, alpha_measured: float, beta_measured: float) -> tuple[float, bool]:
        m = self.model
        tau, saturated = p.sea_torque(m.stiffness, alpha_measured - beta_measured - self.offset, m.deflection_limit)
        return quantise(tau, p.TORQUE_LSB), saturated

    # bus ----------------------------------------------------------------------------------------
    def _send(self, kind: str, values: dict) -> None:
        self._transmit(*p.encode(kind, self.model.node, values, saturate=True))

    def _transmit(self, fid: int, data: bytes) -> None:
        if self.silent:
            return
        try:
            self.bus.send(can_message(fid, data))
        except can.CanError:
            pass  # bus off: the transceiver drops it; the master sees the silence

    def status(self, torque_saturated: bool | None = None) -> dict[str, bool]:
        """The STATUS_FLAGS of the state frames (``torque_saturated``: from this tick's torque reading)."""
        if torque_saturated is None:
            torque_saturated = self.torque_measured()[1]
        return {"enabled": self.enabled, "hold": self.hold, "estop": self.estop, "at_limit": self.at_limit,
                "torque_saturated": torque_saturated, "calibrated": self.calibrated, "fault": False}

    def send_state(self) -> None:
        self.state_counter = (self.state_counter + 1) % 16
        alpha, _, beta, _ = self.x.tolist()
        self.last_state_true = (alpha, beta)  # (α, β) the encoders read for this frame
        alpha, beta = quantise(alpha, p.ENCODER_COUNT), quantise(beta, p.ENCODER_COUNT)
        tau, saturated = self._torque(alpha, beta)
        values = {**self.status(saturated), "alpha": alpha, "counter": self.state_counter}
        if self.profile.state is p.STATE:
            values.update(beta=beta, tau=tau, alpha_rate=self.alpha_rate, mode=3 if self.hold else self.mode)
        else:
            values["deflection"] = alpha - beta
        self._transmit(*self._pack_state(self.model.node, values))

    def enter_hold(self) -> None:
        if not self.hold:
            self.hold = True
            self.hold_beta = self.beta_measured

    def handle(self, msg: can.Message) -> bool:
        """Process one frame; True when it was a COMMAND for this module (answer with STATE)."""
        if msg.is_error_frame or msg.is_remote_frame or msg.arbitration_id not in self.accepted:
            return False
        try:
            frame = p.decode(msg.arbitration_id, msg.data, extended=msg.is_extended_id, fd=msg.is_fd)
        except p.ProtocolError:
            self.rejected_frames += 1
            return False
        v, mine = frame.values, frame.node == self.model.node
        if frame.kind == "ESTOP":
            if v["engage"]:
                self.estop = self.latched = True
                self.enter_hold()
            else:
                self.estop = False  # released, but stays held until a CONFIG enables it again
        elif frame.kind == "HEARTBEAT" and frame.node == p.MASTER_NODE:
            self.last_master = self.time
        elif frame.kind == "GAIT":
            self._gait_frame(v)
        elif frame.kind == "COMMAND" and mine:
            self._command(v["beta_ref"], v["beta_rate_ref"])
            return True
        elif frame.kind == self.profile.command.name:  # COMMAND_GROUP, COMMAND_FD
            return self._group_command(frame)
        elif frame.kind == "CONFIG" and mine:
            self._config(v)
        elif frame.kind == "CALIBRATE" and mine:
            self._calibrate(v)
        return False

    def _command(self, beta_ref: float, beta_rate_ref: float) -> None:
        self.beta_ref, self.beta_rate_ref = beta_ref, beta_rate_ref
        self.last_command = self.time
        if self.hold and not self.latched and self.enabled and self.mode == 1:
            self.hold = False  # fresh commands after a watchdog hold resume position control

    def _group_command(self, frame: p.Frame) -> bool:
        """COMMAND_GROUP, COMMAND_FD: this module's slot (by its joint index), β̇_d from the previous
        reference; a repeated sequence is not a fresh command, a jump is counted as missed cycles."""
        group, signal = self.profile.command_slot(self.joint_index)
        beta = frame.values.get(signal, math.nan)
        if frame.node != group or math.isnan(beta):
            return False
        sequence = frame.values["sequence"]
        if sequence == self.command_sequence:
            return False
        if self.command_sequence is not None:
            self.sequence_gaps += (sequence - self.command_sequence - 1) % self.profile.counter_modulus
        self.command_sequence = sequence
        elapsed = self.time - self.last_command
        self._command(beta, (beta - self.beta_ref) / elapsed if 0 < elapsed <= INTERPOLATION_WINDOW else 0.0)
        return True

    def _gait_frame(self, v: dict) -> None:
        self.has_gait = bool(v["run"])
        if not v["run"]:
            self.gait = None
            return
        gait = make_gait(p.GAIT_TYPES[v["gait_type"]], max(self.joint_index, 1),
                         {"amplitude": v["amplitude"], "frequency": v["frequency"], "phase_shift": v["phase_shift"]})
        j = max(self.joint_index, 1) - 1
        self.gait = lambda t: tuple(float(x[j]) for x in gait.reference(t))  # (α_j^d, α̇_j^d)
        self.gait_start = self.time

    def _config(self, v: dict) -> None:
        self.kp, self.ki, self.kd = v["kp"], v["ki"], v["kd"]
        self.watchdog = v["watchdog"]
        self.joint_index = v["joint_index"] or self.model.joint_index
        self.mode = v["mode"]
        if self.estop:
            return
        self.latched = False
        was = self.enabled
        self.enabled = bool(v["enable"]) and self.mode != 0
        self.integral = 0.0
        if self.enabled:
            self.hold = self.mode == 3
            self.hold_beta = self.beta_measured
            if not was:
                self.beta_ref, self.beta_rate_ref = self.beta_measured, 0.0
        else:
            self.hold = False

    def _calibrate(self, v: dict) -> None:
        op, result = v["op"], 0
        if op == 1:
            if self.enabled:
                result = 1
            else:
                offset = self.alpha_measured - self.beta_measured
                if abs(offset) > 0.5:
                    result = 2
                else:
                    self.offset, self.calibrated = offset, True
        elif op == 2:
            self.offset, self.calibrated = v["offset"], True
        self._send("CALIBRATE_REPLY", {"op": op, "result": result, "offset": self.offset})

    def report(self, reply: bool, heartbeat: bool) -> None:
        """The state frame in reply to a command, and at the 10 Hz heartbeat (with a state frame unless it replied)."""
        if reply:
            self.send_state()
        if heartbeat:
            self.next_heartbeat += HEARTBEAT_PERIOD
            if self.profile.module_heartbeat:
                self.hb_counter = (self.hb_counter + 1) % 256
                self._send("HEARTBEAT", {"state": p.module_state(self.status()), "counter": self.hb_counter})
            if not reply:
                self.send_state()

    # firmware loop (a module on a bank of its own) ----------------------------------------------
    def tick(self) -> None:
        """One 1 kHz firmware cycle: read the bus, run the safety checks and the PID, move the plant."""
        self.bank.control({self.row: self._received()})
        self.bank.step()

    def _received(self) -> list[can.Message]:
        """What this module's own bus handle has brought since the last tick (nothing while silent)."""
        frames = []
        while not self.silent and (msg := self.bus.recv(timeout=0)) is not None:
            frames.append(msg)
        return frames

    def advance(self, until: float) -> None:
        while self.time + 0.5 * TICK <= until:
            self.tick()


class Body(Protocol):
    """The whole snake behind the modules (all of them), stepped once per firmware tick (:data:`TICK`); the
    simulator's side provides one through the entry point group snake_hardware.cli.BODY_GROUP."""

    n_joints: int

    def step(self, beta_d: np.ndarray, beta_rate_d: np.ndarray) -> None:
        """Advance one tick with the motors' references β_d, β̇_d (N−1,) [rad, rad/s]."""

    def joint(self, j: int) -> np.ndarray:
        """(α_j, α̇_j, β_j, β̇_j) of joint j (0-based, tail → head)."""


class EmulatedRobot:
    """One :class:`EmulatedModule` per joint, advanced in lock step on one bus handle (the frames dispatched to
    each module by its acceptance filter, so that a bus copies a frame once for all of them); their firmware
    stepped together on one :class:`ModuleBank`, each with its own 1-DoF plant, or all on one :class:`Body`
    (``body``)."""

    def __init__(self, robot: RobotParams, bus_factory: Callable[[], can.BusABC], *,
                 true_zero_offsets: tuple[float, ...] | None = None, start_time: float = 0.0,
                 body: Body | None = None, nodes: Sequence[int] | None = None):
        """``nodes``: emulate only these module ids of the robot (the others are real or another process's)."""
        profile = p.PROFILES[robot.can_profile]
        models = module_models(robot, true_zero_offsets)
        if nodes is not None:
            unknown = sorted(set(nodes) - {m.node for m in models})
            if unknown or not nodes:
                raise ConfigError("modules", list(nodes), f"must be some of the robot's module ids "
                                  f"{[m.node for m in models]}", robot.name)
            if body is not None:
                raise ConfigError("modules", list(nodes), "a simulated body needs every module", robot.name)
            models = [m for m in models if m.node in nodes]
        self.bus = bus_factory()
        self.bank = ModuleBank(models, start_time)
        self.modules = [EmulatedModule(m, self.bus, profile=profile, bank=self.bank) for m in models]
        self._listeners: dict[int, list[int]] = {}  # frame id → the rows of the modules that accept it
        for module in self.modules:
            for fid in module.accepted:
                self._listeners.setdefault(fid, []).append(module.row)
        self.body = body
        if body is not None:
            if body.n_joints != robot.n_joints:
                raise ConfigError("body", body.n_joints, f"must have the robot's {robot.n_joints} joints")
            for j in range(len(models)):
                self.bank.x[j] = body.joint(j)

    @property
    def time(self) -> float:
        return self.bank.time

    def _dispatch(self) -> dict[int, list[can.Message]]:
        """The frames since the last tick, by the row of each (listening) module that accepts them."""
        frames: dict[int, list[can.Message]] = {}
        while (msg := self.bus.recv(timeout=0)) is not None:
            for row in self._listeners.get(msg.arbitration_id, ()):
                if not self.modules[row].silent:
                    frames.setdefault(row, []).append(msg)
        return frames

    def tick(self) -> None:
        bank = self.bank
        bank.control(self._dispatch())
        if self.body is None:
            bank.step()
            return
        s, referenced = bank.state, bank.state[:, REFERENCED] > 0
        self.body.step(np.where(referenced, s[:, BETA_D], bank.x[:, 2]),
                       np.where(referenced, s[:, BETA_RATE_D], bank.x[:, 3]))
        for j in range(len(self.modules)):
            bank.x[j] = self.body.joint(j)
        bank.time += TICK

    def advance(self, until: float) -> None:
        while self.time + 0.5 * TICK <= until:
            self.tick()

    def shutdown(self) -> None:
        self.bus.shutdown()
