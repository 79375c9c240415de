"""The CAN protocol between the master (robot computer) and the joint modules, 002 §3.5.

002's robot is six modules, each with a Teensy 3.2 on one 1 Mbit/s CAN bus; the master sends
references and the gait parameters (A, ω, φ of 002 (4.38)) and the modules report joint angle,
motor angle and SEA torque (002 Table 3.2: 0.32° joint angle, 0.01 N·m torque resolution). 002
does not print a frame layout; this module defines ours, and ``data/snake.dbc`` describes the same
frames for cantools, SavvyCAN, candump decoders, … (a test checks that the two agree and that every
frame round-trips through this encoder and cantools' decoder).

Identifiers are CAN 2.0A (11 bit), CANopen-style: ``id = function << 6 | node``. ``node`` is the
module id of the joint in the robot file (``can.module_ids``, 1..63) or 0 for the master and for
broadcasts; a lower function code wins arbitration. Signals are little-endian (Intel), LSB first.

This is the hot path of the driver and the emulator: plain integer bit packing, no cantools.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from snake_core.validation import ConfigError

NODE_BITS = 6
MAX_NODE = (1 << NODE_BITS) - 1  # 63, the range RobotParams.can_ids is validated against
MASTER_NODE = 0
BITRATE = 1_000_000  # 002 Table 3.2: CAN bus at 1 Mbit/s

#: One count of the 12-bit AS5145 encoder (002 Table 3.2) over a full turn: 0.088°, finer than the
#: 0.32° joint-angle resolution 002 quotes, so the wire never coarsens a reading.
ENCODER_COUNT = 2.0 * math.pi / 4096
TORQUE_LSB = 0.01  # N·m, 002 Table 3.2


@dataclass(frozen=True)
class Signal:
    """A field of a frame: ``physical = raw * scale`` (no offsets in this protocol)."""

    name: str
    start: int  # bit position of the LSB, Intel byte order
    length: int  # bits
    signed: bool
    scale: float
    minimum: float  # physical range; encode refuses (or saturates to) values outside it
    maximum: float
    unit: str = ""
    choices: Mapping[int, str] | None = None  # enumerations: raw value → name
    raw_range: tuple[int, int] = field(init=False, repr=False, compare=False)  # [lo, hi] in LSB

    def __post_init__(self) -> None:
        object.__setattr__(self, "raw_range", (round(self.minimum / self.scale), round(self.maximum / self.scale)))


@dataclass(frozen=True)
class FrameType:
    name: str
    function: int  # id = function << 6 | node
    dlc: int
    per_module: bool  # node 1..63 (True) or node 0 only (False); HEARTBEAT allows both
    sender: str  # "master" | "module" | "any"
    signals: tuple[Signal, ...]
    comment: str

    def frame_id(self, node: int) -> int:
        return (self.function << NODE_BITS) | node


MODES = {0: "disabled", 1: "position", 2: "gait", 3: "hold"}
MODULE_STATES = {0: "boot", 1: "disabled", 2: "enabled", 3: "hold", 4: "estop", 5: "fault"}
ESTOP_REASONS = {0: "operator", 1: "command_watchdog", 2: "module_lost", 3: "bus_fault", 4: "limit", 5: "module"}
CALIBRATION_OPS = {0: "read", 1: "zero_here", 2: "set"}
CALIBRATION_RESULTS = {0: "ok", 1: "refused_enabled", 2: "out_of_range"}
GAIT_TYPES = {0: "pedal_wave"}
STATUS_FLAGS = ("enabled", "hold", "estop", "at_limit", "torque_saturated", "calibrated", "fault")

_ANGLE = 1e-4  # rad per LSB of references and offsets
_FLAG = {"signed": False, "scale": 1.0, "minimum": 0, "maximum": 1}


def _flag(name: str, start: int) -> Signal:
    return Signal(name, start, 1, **_FLAG)


def _enum(name: str, start: int, length: int, choices: Mapping[int, str]) -> Signal:
    return Signal(name, start, length, False, 1.0, 0, max(choices), choices=choices)


ESTOP = FrameType("ESTOP", 0, 2, False, "any", (
    _flag("engage", 0),
    _enum("reason", 1, 7, ESTOP_REASONS),
    Signal("source", 8, 8, False, 1.0, 0, MAX_NODE),
), "Emergency stop (engage=1) or release (engage=0) for every module; highest priority id. A module "
   "latches the stop (motor held where it is) and needs a release and a CONFIG enable to move again.")

GAIT = FrameType("GAIT", 1, 8, False, "master", (
    Signal("amplitude", 0, 16, False, _ANGLE, 0.0, math.pi / 3, "rad"),
    Signal("frequency", 16, 16, False, 1e-3, 0.0, 65.535, "rad/s"),
    Signal("phase_shift", 32, 16, True, 2e-4, -2 * math.pi, 2 * math.pi, "rad"),
    _enum("gait_type", 48, 8, GAIT_TYPES),
    _flag("run", 56),
), "Gait parameters broadcast, 002 §5.1: the master sends A, ω, φ of (4.38) and the modules in mode "
   "'gait' generate α_j^d = A sin(ω t + φ (j − 1)) themselves (t from the frame with run=1).")

COMMAND = FrameType("COMMAND", 2, 4, True, "master", (
    Signal("beta_ref", 0, 16, True, _ANGLE, -3.2767, 3.2767, "rad"),
    Signal("beta_rate_ref", 16, 12, True, 0.01, -20.47, 20.47, "rad/s"),
    Signal("counter", 28, 4, False, 1.0, 0, 15),
), "Motor position reference β_d and its rate (the feed-forward of 002 (4.39)), every control cycle.")

STATE = FrameType("STATE", 3, 8, True, "module", (
    Signal("alpha", 0, 12, True, ENCODER_COUNT, -2048 * ENCODER_COUNT, 2047 * ENCODER_COUNT, "rad"),
    Signal("beta", 12, 12, True, ENCODER_COUNT, -2048 * ENCODER_COUNT, 2047 * ENCODER_COUNT, "rad"),
    Signal("tau", 24, 12, True, TORQUE_LSB, -20.48, 20.47, "N.m"),
    Signal("alpha_rate", 36, 12, True, 0.01, -20.48, 20.47, "rad/s"),
    _enum("mode", 48, 2, MODES),
    *(_flag(f, 50 + i) for i, f in enumerate(STATUS_FLAGS)),
    Signal("counter", 60, 4, False, 1.0, 0, 15),
), "Module state: joint angle α and motor angle β (12-bit encoder counts), SEA torque τ = K(α − β − δ_0) "
   "(002 (4.36)), α̇, mode, status flags, rolling counter. Sent in reply to each COMMAND and with each "
   "HEARTBEAT; neighbours read it too (TSC needs α_{j−1}, 002 §7).")

CONFIG = FrameType("CONFIG", 4, 8, True, "master", (
    _enum("mode", 0, 2, MODES),
    _flag("enable", 2),
    Signal("joint_index", 3, 5, False, 1.0, 0, 31),
    Signal("kp", 8, 16, False, 0.01, 0.0, 655.35, "N.m/rad"),
    Signal("ki", 24, 16, False, 0.01, 0.0, 655.35, "N.m/(rad.s)"),
    Signal("kd", 40, 16, False, 1e-3, 0.0, 65.535, "N.m.s/rad"),
    Signal("watchdog", 56, 8, False, 1e-3, 0.0, 0.255, "s"),
), "Mode, enable, joint index j (for the gait mode), motor-side PID gains (002 (4.39) is the PD part) "
   "and the module's command watchdog (0 = off).")

CALIBRATE = FrameType("CALIBRATE", 5, 4, True, "master", (
    _enum("op", 0, 8, CALIBRATION_OPS),
    Signal("offset", 16, 16, True, _ANGLE, -0.5, 0.5, "rad"),
), "SEA zero offset δ_0 (the deflection that reads as zero torque): read it, zero it at the present "
   "deflection (robot unloaded, module disabled) or set it.")

CALIBRATE_REPLY = FrameType("CALIBRATE_REPLY", 6, 4, True, "module", (
    _enum("op", 0, 8, CALIBRATION_OPS),
    _enum("result", 8, 8, CALIBRATION_RESULTS),
    Signal("offset", 16, 16, True, _ANGLE, -0.5, 0.5, "rad"),
), "Answer to CALIBRATE with the offset now in use.")

HEARTBEAT = FrameType("HEARTBEAT", 7, 2, True, "any", (
    _enum("state", 0, 8, MODULE_STATES),
    Signal("counter", 8, 8, False, 1.0, 0, 255),
), "Liveness at 10 Hz from every module and from the master (node 0).")

FRAME_TYPES: tuple[FrameType, ...] = (ESTOP, GAIT, COMMAND, STATE, CONFIG, CALIBRATE, CALIBRATE_REPLY, HEARTBEAT)
_BY_FUNCTION = {f.function: f for f in FRAME_TYPES}
_BY_NAME = {f.name: f for f in FRAME_TYPES}


class ProtocolError(ConfigError):
    """A frame that cannot be encoded or decoded (bad id, length, or a value out of range)."""


@dataclass(frozen=True)
class Frame:
    kind: str
    node: int
    values: dict[str, float]


def frame_type(name: str) -> FrameType:
    if name not in _BY_NAME:
        raise ProtocolError("frame", name, "unknown frame type; known: " + ", ".join(_BY_NAME))
    return _BY_NAME[name]


def _check_node(ft: FrameType, node: int, field: str, value: object) -> None:
    if ft.name == "HEARTBEAT":
        ok = 0 <= node <= MAX_NODE
        allowed = f"0 (master) .. {MAX_NODE}"
    elif ft.per_module:
        ok = 1 <= node <= MAX_NODE
        allowed = f"1 .. {MAX_NODE}"
    else:
        ok = node == MASTER_NODE
        allowed = "0 (broadcast)"
    if not ok:
        raise ProtocolError(field, value, f"node of a {ft.name} frame must be {allowed}")


def encode(kind: str, node: int, values: Mapping[str, float], *, saturate: bool = False) -> tuple[int, bytes]:
    """(arbitration id, data) of a frame. Values outside a signal's range raise :class:`ProtocolError`
    or, with ``saturate`` (measurements a module reports), are clipped to the range."""
    ft = frame_type(kind)
    _check_node(ft, node, f"{kind}.node", node)
    unknown = set(values) - {s.name for s in ft.signals}
    if unknown:
        raise ProtocolError(f"{kind}.{sorted(unknown)[0]}", values[sorted(unknown)[0]],
                            "unknown signal; allowed: " + ", ".join(s.name for s in ft.signals))
    payload = 0
    for s in ft.signals:
        v = values.get(s.name, 0)
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ProtocolError(f"{kind}.{s.name}", v, "must be a finite number")
        raw = round(v / s.scale)
        lo, hi = s.raw_range
        if not lo <= raw <= hi:
            if not saturate:
                raise ProtocolError(f"{kind}.{s.name}", v, _range(s))
            raw = min(max(raw, lo), hi)
        if s.choices is not None and raw not in s.choices:
            raise ProtocolError(f"{kind}.{s.name}", v, _range(s))
        payload |= (raw & ((1 << s.length) - 1)) << s.start
    return ft.frame_id(node), payload.to_bytes(ft.dlc, "little")


def decode(arbitration_id: int, data: bytes, *, extended: bool = False) -> Frame:
    """Decode and validate one received frame; anything malformed raises :class:`ProtocolError`."""
    field = f"can frame 0x{arbitration_id:03X}"
    if extended or not 0 <= arbitration_id < (1 << 11):
        raise ProtocolError(field, arbitration_id, "must be a standard 11-bit id of this protocol")
    ft = _BY_FUNCTION.get(arbitration_id >> NODE_BITS)
    if ft is None:
        raise ProtocolError(field, arbitration_id, f"unknown function code {arbitration_id >> NODE_BITS} (known 0..7)")
    node = arbitration_id & MAX_NODE
    _check_node(ft, node, field, arbitration_id)
    if len(data) != ft.dlc:
        raise ProtocolError(f"{field} ({ft.name}) length", len(data), f"must be {ft.dlc} bytes")
    payload = int.from_bytes(bytes(data), "little")
    values: dict[str, float] = {}
    for s in ft.signals:
        raw = (payload >> s.start) & ((1 << s.length) - 1)
        if s.signed and raw >= 1 << (s.length - 1):
            raw -= 1 << s.length
        lo, hi = s.raw_range
        if not lo <= raw <= hi or (s.choices is not None and raw not in s.choices):
            raise ProtocolError(f"{field} ({ft.name}).{s.name}", raw * s.scale, _range(s))
        values[s.name] = raw * s.scale if s.scale != 1.0 else raw
    return Frame(ft.name, node, values)


def _range(s: Signal) -> str:
    if s.choices is not None:
        return "must be one of " + ", ".join(f"{k} ({n})" for k, n in s.choices.items())
    return f"must be in [{s.minimum:g}, {s.maximum:g}] {s.unit}".rstrip()


def frame_bits(dlc: int, *, worst_case_stuffing: bool = True) -> int:
    """Bits on the wire of a CAN 2.0A data frame with ``dlc`` bytes, including the 3-bit interframe
    space. Worst-case bit stuffing (Davis et al., "Controller Area Network (CAN) schedulability
    analysis", 2007, eq. 3): ⌊(34 + 8 s − 1) / 4⌋ stuff bits over the 34 + 8 s stuffed bits."""
    if not 0 <= dlc <= 8:
        raise ProtocolError("dlc", dlc, "must be in [0, 8]")
    stuffed = 34 + 8 * dlc
    return stuffed + 13 + ((stuffed - 1) // 4 if worst_case_stuffing else 0)


HEARTBEAT_RATE = 10.0  # Hz, every module and the master


def bus_load(n_joints: int, loop_rate: float, bitrate: float = BITRATE, *, worst_case_stuffing: bool = True) -> float:
    """Fraction of the bus used by the control loop: per cycle one COMMAND and one STATE per joint,
    plus the heartbeats of the master and of every module."""
    per_cycle = n_joints * (frame_bits(COMMAND.dlc, worst_case_stuffing=worst_case_stuffing)
                            + frame_bits(STATE.dlc, worst_case_stuffing=worst_case_stuffing))
    heartbeats = (n_joints + 1) * HEARTBEAT_RATE * frame_bits(HEARTBEAT.dlc, worst_case_stuffing=worst_case_stuffing)
    return (per_cycle * loop_rate + heartbeats) / bitrate
