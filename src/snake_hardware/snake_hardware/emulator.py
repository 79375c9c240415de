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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import can
import numpy as np
from scipy.linalg import expm

from snake_core.gaits import make_gait
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError

from . import protocol as p
from .driver import can_message

if TYPE_CHECKING:
    from .body_plant import BodyPlant

TICK = 1e-3  # s, the firmware loop: 1 kHz
HEARTBEAT_PERIOD = 1.0 / p.HEARTBEAT_RATE
MASTER_TIMEOUT = 0.5  # s without a master heartbeat → the enabled module holds
VELOCITY_FILTER = 2 * math.pi * 50.0  # rad/s, first-order low-pass on the differentiated α (firmware)
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


class EmulatedModule:
    """Firmware + plant of one joint module on a python-can bus; advance it with :meth:`advance`."""

    def __init__(self, model: ModuleModel, bus: can.BusABC, *, start_time: float = 0.0,
                 profile: p.BusProfile = p.CLASSIC):
        self.model = model
        self.profile = profile
        self.bus = bus
        self.time = start_time
        self.x = np.zeros(4)  # α, α̇, β, β̇ (true)
        self.external_torque = 0.0  # τ_ext on the link [N·m]
        self.silent = False  # fault injection: the module stops answering (and stops listening)
        # firmware state
        self.mode = 0
        self.enabled = False
        self.estop = False
        self.latched = False  # set by an emergency stop; only a CONFIG enable after the release clears it
        self.hold = False
        self.at_limit = False
        self.kp, self.ki, self.kd = model.kp, 0.0, model.kd
        self.watchdog = 0.05
        self.joint_index = model.joint_index
        self.offset = 0.0
        self.calibrated = False
        self.beta_ref = 0.0
        self.beta_rate_ref = 0.0
        self.hold_beta = 0.0
        self.integral = 0.0
        self.last_command = -math.inf
        self.last_master = start_time
        self.next_heartbeat = start_time
        self.state_counter = 0
        self.hb_counter = 0
        self.alpha_prev = 0.0
        self.alpha_rate = 0.0
        self.gait: Callable[[float], tuple[float, float]] | None = None
        self.gait_start = 0.0
        self.rejected_frames = 0
        self.command_sequence: int | None = None  # last sequence of a grouped command (compact, fd)
        self.sequence_gaps = 0  # grouped-command cycles missed (sequence jumps), counted as the firmware would
        self.last_state_true = (0.0, 0.0)
        self.reference: tuple[float, float] | None = None  # (β_d, β̇_d) of the last tick while enabled
        node = model.node
        #: ids this module listens to (the acceptance filter of its CAN controller)
        commands = [p.COMMAND.frame_id(node)] if profile.command is p.COMMAND else \
            [profile.command.frame_id(g) for g in profile.command.nodes]
        self.accepted = {p.ESTOP.frame_id(0), p.GAIT.frame_id(0), p.HEARTBEAT.frame_id(0), p.CONFIG.frame_id(node),
                         p.CALIBRATE.frame_id(node), *commands}

    # measurements -------------------------------------------------------------------------------
    @property
    def alpha_measured(self) -> float:
        return quantise(self.x[0], p.ENCODER_COUNT)

    @property
    def beta_measured(self) -> float:
        return quantise(self.x[2], p.ENCODER_COUNT)

    def torque_measured(self) -> tuple[float, bool]:
        """τ = K (α − β − δ_0) from the encoders, 002 (4.36); saturated at K δ_max (002 §3.3.2)."""
        m = self.model
        tau, saturated = p.sea_torque(m.stiffness, self.alpha_measured - self.beta_measured - self.offset,
                                      m.deflection_limit)
        return quantise(tau, p.TORQUE_LSB), saturated

    # bus ----------------------------------------------------------------------------------------
    def _send(self, kind: str, values: dict) -> None:
        if self.silent:
            return
        fid, data = p.encode(kind, self.model.node, values, saturate=True)
        try:
            self.bus.send(can_message(fid, data))
        except can.CanError:
            pass  # bus off: the transceiver drops it; the master sees the silence

    def status(self) -> dict[str, bool]:
        """The STATUS_FLAGS of the state frames."""
        return {"enabled": self.enabled, "hold": self.hold, "estop": self.estop, "at_limit": self.at_limit,
                "torque_saturated": self.torque_measured()[1], "calibrated": self.calibrated, "fault": False}

    def send_state(self) -> None:
        self.state_counter = (self.state_counter + 1) % 16
        self.last_state_true = (float(self.x[0]), float(self.x[2]))  # (α, β) the encoders read for this frame
        values = {**self.status(), "alpha": self.alpha_measured, "counter": self.state_counter}
        if self.profile.state is p.STATE:
            values.update(beta=self.beta_measured, tau=self.torque_measured()[0], alpha_rate=self.alpha_rate,
                          mode=3 if self.hold else self.mode)
        else:
            values["deflection"] = self.alpha_measured - self.beta_measured
        self._send(self.profile.state.name, values)

    def _enter_hold(self) -> None:
        if not self.hold:
            self.hold = True
            self.hold_beta = self.beta_measured

    def _handle(self, msg: can.Message) -> bool:
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
                self._enter_hold()
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

    # firmware loop ------------------------------------------------------------------------------
    def tick(self) -> None:
        """One 1 kHz firmware cycle: read the bus, run the safety checks and the PID, move the plant."""
        m = self.model
        u = self.control(self._received())
        self.x[:] = m.phi @ self.x + m.gam @ np.array([u, self.external_torque, m.stiffness * m.true_zero_offset])
        self.x[3] = max(-m.max_speed, min(m.max_speed, self.x[3]))
        self.time += TICK

    def _received(self) -> list[can.Message]:
        """What this module's own bus handle has brought since the last tick (nothing while silent)."""
        frames = []
        while not self.silent and (msg := self.bus.recv(timeout=0)) is not None:
            frames.append(msg)
        return frames

    def control(self, frames: Sequence[can.Message]) -> float:
        """The firmware part of a tick: the bus ``frames`` since the last, safety, measurements, replies, reference
        and PID. Returns the motor torque U; ``self.reference`` is (β_d, β̇_d) while enabled, else None."""
        m = self.model
        reply = False
        for msg in frames:
            reply |= self._handle(msg)
        if self.enabled and not self.hold:
            if self.mode == 1 and self.watchdog > 0 and self.time - self.last_command > self.watchdog:
                self._enter_hold()  # command watchdog: no fresh command → hold position
            if self.time - self.last_master > MASTER_TIMEOUT:
                self._enter_hold()
        # measurements
        alpha_m = self.alpha_measured
        self.alpha_rate += VELOCITY_FILTER * TICK / (1 + VELOCITY_FILTER * TICK) * (
            (alpha_m - self.alpha_prev) / TICK - self.alpha_rate)
        self.alpha_prev = alpha_m
        if reply:
            self.send_state()
        if self.time >= self.next_heartbeat - 1e-9:
            self.next_heartbeat += HEARTBEAT_PERIOD
            if self.profile.module_heartbeat:
                self.hb_counter = (self.hb_counter + 1) % 256
                self._send("HEARTBEAT", {"state": p.module_state(self.status()), "counter": self.hb_counter})
            if not reply:
                self.send_state()
        # reference and PID (002 (4.39) + integral), only when enabled
        self.reference = None
        if not self.enabled:
            return 0.0
        if self.hold:
            beta_d, beta_rate_d = self.hold_beta, 0.0
        elif self.mode == 2 and self.gait is not None:
            beta_d, beta_rate_d = self.gait(self.time - self.gait_start)  # C_p: β_d = α_d, (4.39)
        else:
            beta_d, beta_rate_d = self.beta_ref, self.beta_rate_ref
        self.at_limit = abs(beta_d) > m.joint_limit
        if self.at_limit:  # clipped to the limit, and its speed reference with it: none beyond the limit
            beta_d = math.copysign(m.joint_limit, beta_d)
            beta_rate_d = min(beta_rate_d, 0.0) if beta_d > 0 else max(beta_rate_d, 0.0)
        self.reference = (beta_d, beta_rate_d)
        error = beta_d - self.beta_measured
        self.integral += error * TICK
        u = self.kp * error + self.ki * self.integral + self.kd * (beta_rate_d - self.x[3])
        return max(-m.stall_torque, min(m.stall_torque, u))

    def advance(self, until: float) -> None:
        while self.time + 0.5 * TICK <= until:
            self.tick()


class EmulatedRobot:
    """One :class:`EmulatedModule` per joint, advanced in lock step on one bus handle (the frames dispatched to
    each module by its acceptance filter, so that a bus copies a frame once for all of them); each with its own
    1-DoF plant, stepped for all modules at once, or all on one :class:`BodyPlant` (``body``)."""

    def __init__(self, robot: RobotParams, bus_factory: Callable[[], can.BusABC], *,
                 true_zero_offsets: tuple[float, ...] | None = None, start_time: float = 0.0,
                 body: BodyPlant | None = None, nodes: Sequence[int] | None = None):
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
        self.modules = [EmulatedModule(m, self.bus, start_time=start_time, profile=profile) for m in models]
        # the plants' states, one row per module (each module's x is its row), and their one-tick maps
        self._x = np.zeros((len(models), 4))
        for j, module in enumerate(self.modules):
            module.x = self._x[j]
        self._phi = np.stack([m.phi for m in models])
        self._gam = np.stack([m.gam for m in models])
        self._offset_torque = np.array([m.stiffness * m.true_zero_offset for m in models])
        self._max_speed = np.array([m.max_speed for m in models])
        self._listeners: dict[int, list[EmulatedModule]] = {}
        for module in self.modules:
            for fid in module.accepted:
                self._listeners.setdefault(fid, []).append(module)
        self.body = body
        if body is not None:
            if body.model.n_joints != robot.n_joints:
                raise ConfigError("body", body.model.n_joints, f"must have the robot's {robot.n_joints} joints")
            for j, module in enumerate(self.modules):
                module.x[:] = body.joint(j)

    @property
    def time(self) -> float:
        return self.modules[0].time

    def _dispatch(self) -> dict[int, list[can.Message]]:
        """The frames since the last tick, by the id of each (listening) module that accepts them."""
        frames: dict[int, list[can.Message]] = {id(m): [] for m in self.modules}
        while (msg := self.bus.recv(timeout=0)) is not None:
            for module in self._listeners.get(msg.arbitration_id, ()):
                if not module.silent:
                    frames[id(module)].append(msg)
        return frames

    def tick(self) -> None:
        frames = self._dispatch()
        u = np.array([module.control(frames[id(module)]) for module in self.modules])
        if self.body is None:
            inputs = np.column_stack([u, [m.external_torque for m in self.modules], self._offset_torque])
            self._x[:] = np.einsum("nij,nj->ni", self._phi, self._x) + np.einsum("nij,nj->ni", self._gam, inputs)
            np.clip(self._x[:, 3], -self._max_speed, self._max_speed, out=self._x[:, 3])
        else:
            beta_d = np.array([m.reference[0] if m.reference else m.x[2] for m in self.modules])
            beta_rate_d = np.array([m.reference[1] if m.reference else m.x[3] for m in self.modules])
            self.body.step(beta_d, beta_rate_d)
            for j, module in enumerate(self.modules):
                module.x[:] = self.body.joint(j)
        for module in self.modules:
            module.time += TICK

    def advance(self, until: float) -> None:
        while self.time + 0.5 * TICK <= until:
            self.tick()

    def shutdown(self) -> None:
        self.bus.shutdown()
