"""The CAN protocol between the master (robot computer) and the joint modules, 002 §3.5.

002's robot is six modules, each with a Teensy 3.2 on one 1 Mbit/s CAN bus; the master sends
references and the gait parameters (A, ω, φ of 002 (4.38)) and the modules report joint angle,
motor angle and SEA torque (002 Table 3.2: 0.32° joint angle, 0.01 N·m torque resolution). 002
does not print a frame layout; this module defines ours, and ``data/snake.dbc`` describes the same
frames for cantools, SavvyCAN, candump decoders, … (a test checks that the two agree and that every
frame round-trips through this encoder and cantools' decoder).

Identifiers are CAN 2.0A (11 bit), CANopen-style: ``id = function << 6 | node``. ``node`` is the
module id of the joint in the robot file (``can.module_ids``, 1..63) or 0 for the master and for
broadcasts (a command group 0..7 for COMMAND_GROUP); a lower function code wins arbitration. Signals
are little-endian (Intel), LSB first.

Three bus profiles (:data:`PROFILES`, chosen by the robot file's ``can.profile``) share the frames
ESTOP, GAIT, CONFIG, CALIBRATE(_REPLY) and the master's HEARTBEAT: "classic" sends one COMMAND and one
STATE per joint and a HEARTBEAT per module; "compact" sends β_d of four joints per COMMAND_GROUP and a
4-byte STATE_COMPACT per module that stands for its heartbeat too; "fd" sends β_d of every joint in one
CAN FD frame (COMMAND_FD) and a STATE_FD per module, both with bit-rate switching. Every id is unique
across the profiles, so one decoder (and one DBC) reads any of them.

This is the hot path of the driver and the emulator: plain integer bit packing, no cantools.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from snake_core.validation import ConfigError

NODE_BITS = 6
MAX_NODE = (1 << NODE_BITS) - 1  # 63, the range RobotParams.can_ids is validated against
MASTER_NODE = 0
BITRATE = 1_000_000  # 002 Table 3.2: CAN bus at 1 Mbit/s
#: CAN FD data phase of the "fd" profile (ISO 11898-1:2015 bit-rate switching; 5 Mbit/s is the usual
#: ceiling of FD transceivers with a 1 Mbit/s arbitration phase)
DATA_BITRATE = 5_000_000
#: the fastest data phase a profile may set: CAN SIC transceivers (CiA 601-4) are specified to 8 Mbit/s
MAX_DATA_BITRATE = 8_000_000
#: the data lengths a CAN FD frame can have: DLC 0..8 are 0..8 bytes, DLC 9..15 are 12..64 bytes
FD_LENGTHS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 20, 24, 32, 48, 64)

#: One count of the 12-bit AS5145 encoder (002 Table 3.2) over a full turn: 0.088°, finer than the
#: 0.32° joint-angle resolution 002 quotes, so the wire never coarsens a reading.
ENCODER_COUNT = 2.0 * math.pi / 4096
TORQUE_LSB = 0.01  # N·m, 002 Table 3.2


class ProtocolError(ConfigError):
    """A frame that cannot be encoded or decoded (bad id, length, or a value out of range)."""


@dataclass(frozen=True)
class Signal:
    """A field of a frame: ``physical = raw * scale`` (no offsets in this protocol). A signal with
    ``none_raw`` uses that raw value for "no value", which is NaN on the host side."""

    name: str
    start: int  # bit position of the LSB, Intel byte order
    length: int  # bits
    signed: bool
    scale: float
    minimum: float  # physical range; encode refuses (or saturates to) values outside it
    maximum: float
    unit: str = ""
    choices: Mapping[int, str] | None = None  # enumerations: raw value → name
    none_raw: int | None = None  # raw value meaning "no value" (NaN), outside [minimum, maximum]
    raw_range: tuple[int, int] = field(init=False, repr=False, compare=False)  # [lo, hi] in LSB

    def __post_init__(self) -> None:
        object.__setattr__(self, "raw_range", (round(self.minimum / self.scale), round(self.maximum / self.scale)))


@dataclass(frozen=True)
class FrameType:
    name: str
    function: int  # id = function << 6 | node
    dlc: int
    nodes: range  # the node field's values: 0 only (broadcast), 1..63 (per module), 0..63, or command groups
    sender: str  # "master" | "module" | "any"
    signals: tuple[Signal, ...]
    comment: str
    #: a truncated frame carries the leading signals that fit its length (COMMAND_GROUP: fewer joints)
    truncatable: bool = False
    #: a CAN FD frame (with bit-rate switching); its lengths are the FD_LENGTHS
    fd: bool = False

    def frame_id(self, node: int) -> int:
        return (self.function << NODE_BITS) | node

    @property
    def lengths(self) -> tuple[int, ...]:
        """Valid data lengths: the dlc, or for a truncatable frame each length that ends with a whole
        signal (after the first, which every such frame carries), on CAN FD padded to an FD length."""
        if not self.truncatable:
            return (self.dlc,)
        ends = {-(-(sig.start + sig.length) // 8) for sig in self.signals[1:]}
        return tuple(sorted({fd_length(e) for e in ends} if self.fd else ends))


def fd_length(size: int) -> int:
    """The smallest CAN FD data length (FD_LENGTHS) that holds ``size`` bytes."""
    if not 0 <= size <= FD_LENGTHS[-1]:
        raise ProtocolError("length", size, f"must be in [0, {FD_LENGTHS[-1]}] bytes on CAN FD")
    return next(n for n in FD_LENGTHS if n >= size)


MODES = {0: "disabled", 1: "position", 2: "gait", 3: "hold"}
MODULE_STATES = {0: "boot", 1: "disabled", 2: "enabled", 3: "hold", 4: "estop", 5: "fault"}
ESTOP_REASONS = {0: "operator", 1: "command_watchdog", 2: "module_lost", 3: "bus_fault", 4: "limit", 5: "module"}
CALIBRATION_OPS = {0: "read", 1: "zero_here", 2: "set"}
CALIBRATION_RESULTS = {0: "ok", 1: "refused_enabled", 2: "out_of_range"}
GAIT_TYPES = {0: "pedal_wave"}
STATUS_FLAGS = ("enabled", "hold", "estop", "at_limit", "torque_saturated", "calibrated", "fault")

_ANGLE = 1e-4  # rad per LSB of references and offsets
_BROADCAST, _MODULES, _ANY_NODE = range(1), range(1, MAX_NODE + 1), range(MAX_NODE + 1)
_FLAG = {"signed": False, "scale": 1.0, "minimum": 0, "maximum": 1}


def _flag(name: str, start: int) -> Signal:
    return Signal(name, start, 1, **_FLAG)


def _enum(name: str, start: int, length: int, choices: Mapping[int, str]) -> Signal:
    return Signal(name, start, length, False, 1.0, 0, max(choices), choices=choices)


ESTOP = FrameType("ESTOP", 0, 2, _BROADCAST, "any", (
    _flag("engage", 0),
    _enum("reason", 1, 7, ESTOP_REASONS),
    Signal("source", 8, 8, False, 1.0, 0, MAX_NODE),
), "Emergency stop (engage=1) or release (engage=0) for every module; highest priority id. A module "
   "latches the stop (motor held where it is) and needs a release and a CONFIG enable to move again.")

GAIT = FrameType("GAIT", 1, 8, _BROADCAST, "master", (
    Signal("amplitude", 0, 16, False, _ANGLE, 0.0, math.pi / 3, "rad"),
    Signal("frequency", 16, 16, False, 1e-3, 0.0, 65.535, "rad/s"),
    Signal("phase_shift", 32, 16, True, 2e-4, -2 * math.pi, 2 * math.pi, "rad"),
    _enum("gait_type", 48, 8, GAIT_TYPES),
    _flag("run", 56),
), "Gait parameters broadcast, 002 §5.1: the master sends A, ω, φ of (4.38) and the modules in mode "
   "'gait' generate α_j^d = A sin(ω t + φ (j − 1)) themselves (t from the frame with run=1).")

COMMAND = FrameType("COMMAND", 2, 4, _MODULES, "master", (
    Signal("beta_ref", 0, 16, True, _ANGLE, -3.2767, 3.2767, "rad"),
    Signal("beta_rate_ref", 16, 12, True, 0.01, -20.47, 20.47, "rad/s"),
    Signal("counter", 28, 4, False, 1.0, 0, 15),
), "Motor position reference β_d and its rate (the feed-forward of 002 (4.39)), every control cycle.")

STATE = FrameType("STATE", 3, 8, _MODULES, "module", (
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

CONFIG = FrameType("CONFIG", 4, 8, _MODULES, "master", (
    _enum("mode", 0, 2, MODES),
    _flag("enable", 2),
    Signal("joint_index", 3, 5, False, 1.0, 0, 31),
    Signal("kp", 8, 16, False, 0.01, 0.0, 655.35, "N.m/rad"),
    Signal("ki", 24, 16, False, 0.01, 0.0, 655.35, "N.m/(rad.s)"),
    Signal("kd", 40, 16, False, 1e-3, 0.0, 65.535, "N.m.s/rad"),
    Signal("watchdog", 56, 8, False, 1e-3, 0.0, 0.255, "s"),
), "Mode, enable, joint index j (for the gait mode), motor-side PID gains (002 (4.39) is the PD part) "
   "and the module's command watchdog (0 = off).")

CALIBRATE = FrameType("CALIBRATE", 5, 4, _MODULES, "master", (
    _enum("op", 0, 8, CALIBRATION_OPS),
    Signal("offset", 16, 16, True, _ANGLE, -0.5, 0.5, "rad"),
), "SEA zero offset δ_0 (the deflection that reads as zero torque): read it, zero it at the present "
   "deflection (robot unloaded, module disabled) or set it.")

CALIBRATE_REPLY = FrameType("CALIBRATE_REPLY", 6, 4, _MODULES, "module", (
    _enum("op", 0, 8, CALIBRATION_OPS),
    _enum("result", 8, 8, CALIBRATION_RESULTS),
    Signal("offset", 16, 16, True, _ANGLE, -0.5, 0.5, "rad"),
), "Answer to CALIBRATE with the offset now in use.")

HEARTBEAT = FrameType("HEARTBEAT", 7, 2, _ANY_NODE, "any", (
    _enum("state", 0, 8, MODULE_STATES),
    Signal("counter", 8, 8, False, 1.0, 0, 255),
), "Liveness at 10 Hz from every module and from the master (node 0).")

GROUP_SIZE = 4  # joints per COMMAND_GROUP frame
MAX_JOINT_INDEX = 31  # CONFIG.joint_index (5 bits): the compact profile addresses joints 1..31
_ENCODER_RANGE = {"signed": True, "scale": ENCODER_COUNT, "unit": "rad"}


def _counts(name: str, start: int, length: int, **kw) -> Signal:
    """A signed angle in whole encoder counts over the full range of ``length`` bits (``none_raw``:
    the lowest raw value means "no value" and is left out of the range)."""
    half = 1 << (length - 1)
    low = -half + (1 if "none_raw" in kw else 0)
    return Signal(name, start, length, minimum=low * ENCODER_COUNT, maximum=(half - 1) * ENCODER_COUNT,
                  **_ENCODER_RANGE, **kw)


def _references(joints: int) -> tuple[Signal, ...]:
    """A grouped command: the cycle's sequence counter, then β_d of ``joints`` joints in encoder counts."""
    return (Signal("sequence", 0, 8, False, 1.0, 0, 255),
            *(_counts(f"beta_ref_{k}", 8 + 12 * (k - 1), 12, none_raw=-2048) for k in range(1, joints + 1)))


COMMAND_GROUP = FrameType("COMMAND_GROUP", 12, 7, range(MAX_JOINT_INDEX // GROUP_SIZE + 1), "master",
                          _references(GROUP_SIZE),
   "Compact profile: motor position references β_d of joints 4g+1..4g+4 (g = node field, joint index of "
   "CONFIG) in encoder counts, every control cycle; -2048 (NaN) = no reference for that joint; truncated "
   "after the robot's last joint. sequence: +1 per control cycle, the same in every group of a cycle.",
    truncatable=True)

STATE_COMPACT = FrameType("STATE_COMPACT", 13, 4, _MODULES, "module", (
    _counts("alpha", 0, 11),
    _counts("deflection", 11, 10),
    *(_flag(f, 21 + i) for i, f in enumerate(STATUS_FLAGS)),
    Signal("counter", 28, 4, False, 1.0, 0, 15),
), "Compact profile: joint angle α and spring deflection α − β (encoder counts), status flags, rolling "
   "counter; in reply to each COMMAND_GROUP that carries this module's joint, and at 10 Hz in place of "
   "HEARTBEAT. The host recomputes β = α − deflection and τ = K (deflection − δ_0), 002 (4.36).")

COMMAND_FD = FrameType("COMMAND_FD", 14, fd_length(-(-(8 + 12 * MAX_JOINT_INDEX) // 8)), _BROADCAST,
                       "master", _references(MAX_JOINT_INDEX),
                       "FD profile: motor position references β_d of joints 1..31 (joint index of CONFIG) in encoder "
                       "counts in one CAN FD frame, every control cycle; -2048 (NaN) = no reference for that joint; "
                       "cut after the robot's last joint and padded with -2048 to the next CAN FD length. sequence: "
                       "+1 per control cycle.", truncatable=True, fd=True)

STATE_FD = replace(STATE_COMPACT, name="STATE_FD", function=15, fd=True, comment=(
    "FD profile: STATE_COMPACT's layout in a CAN FD frame (α and the spring deflection α − β in encoder counts, "
    "status flags, rolling counter); in reply to each COMMAND_FD that carries this module's joint, and at 10 Hz "
    "in place of HEARTBEAT. The host recomputes β = α − deflection and τ = K (deflection − δ_0), 002 (4.36)."))

FRAME_TYPES: tuple[FrameType, ...] = (ESTOP, GAIT, COMMAND, STATE, CONFIG, CALIBRATE, CALIBRATE_REPLY, HEARTBEAT,
                                      COMMAND_GROUP, STATE_COMPACT, COMMAND_FD, STATE_FD)
_BY_FUNCTION = {f.function: f for f in FRAME_TYPES}
_BY_NAME = {f.name: f for f in FRAME_TYPES}


@dataclass(frozen=True)
class Frame:
    kind: str
    node: int
    values: dict[str, float]


def frame_type(name: str) -> FrameType:
    if name not in _BY_NAME:
        raise ProtocolError("frame", name, "unknown frame type; known: " + ", ".join(_BY_NAME))
    return _BY_NAME[name]


def is_fd(arbitration_id: int) -> bool:
    """Whether the frame with this id of the protocol goes out as a CAN FD frame."""
    ft = _BY_FUNCTION.get(arbitration_id >> NODE_BITS)
    return ft is not None and ft.fd


def _check_node(ft: FrameType, node: int, field: str, value: object) -> None:
    if node not in ft.nodes:
        allowed = "0 (broadcast)" if len(ft.nodes) == 1 else f"{ft.nodes.start} .. {ft.nodes.stop - 1}"
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
    payload, end = 0, 8 * ft.dlc
    if ft.truncatable:
        end = max((s.start + s.length for s in ft.signals if s.name in values), default=0)
        if ft.fd:  # padded to a CAN FD length; the padding's whole slots carry "no value"
            end = 8 * fd_length(-(-end // 8))
    for s in ft.signals:
        if s.start + s.length > end:
            continue
        v = values.get(s.name, math.nan if s.none_raw is not None else 0)
        if isinstance(v, bool):
            v = int(v)
        if s.none_raw is not None and isinstance(v, float) and math.isnan(v):
            payload |= (s.none_raw & ((1 << s.length) - 1)) << s.start
            continue
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ProtocolError(f"{kind}.{s.name}", v, "must be a finite number" +
                                (" or NaN (no value)" if s.none_raw is not None else ""))
        raw = round(v / s.scale)
        lo, hi = s.raw_range
        if not lo <= raw <= hi:
            if not saturate:
                raise ProtocolError(f"{kind}.{s.name}", v, _range(s))
            raw = min(max(raw, lo), hi)
        if s.choices is not None and raw not in s.choices:
            raise ProtocolError(f"{kind}.{s.name}", v, _range(s))
        payload |= (raw & ((1 << s.length) - 1)) << s.start
    return ft.frame_id(node), payload.to_bytes(-(-end // 8), "little")


def packer(kind: str) -> Callable[[int, Mapping[str, float]], tuple[int, bytes]]:
    """:func:`encode` with ``saturate`` of a whole ``kind`` frame for a sender that fills every signal with a finite
    value (an enumeration's among its choices), as a module's firmware does: the checks made here once, each frame a
    loop of shifts (the emulated modules' state frames, every command they answer)."""
    ft = frame_type(kind)
    if ft.truncatable:
        raise ProtocolError("frame", kind, "must have a fixed length to be packed")
    fields = [(s.name, s.scale, *s.raw_range, (1 << s.length) - 1, s.start) for s in ft.signals]
    size = ft.dlc

    def pack(node: int, values: Mapping[str, float]) -> tuple[int, bytes]:
        payload = 0
        for name, scale, lo, hi, mask, start in fields:
            payload |= (min(max(round(values[name] / scale), lo), hi) & mask) << start
        return ft.frame_id(node), payload.to_bytes(size, "little")

    return pack


def decode(arbitration_id: int, data: bytes, *, extended: bool = False, fd: bool | None = None) -> Frame:
    """Decode and validate one received frame; anything malformed raises :class:`ProtocolError`.
    ``fd``: whether it came as a CAN FD frame (None: not known, as from a log of payloads)."""
    field = f"can frame 0x{arbitration_id:03X}"
    if extended or not 0 <= arbitration_id < (1 << 11):
        raise ProtocolError(field, arbitration_id, "must be a standard 11-bit id of this protocol")
    ft = _BY_FUNCTION.get(arbitration_id >> NODE_BITS)
    if ft is None:
        raise ProtocolError(field, arbitration_id, f"unknown function code {arbitration_id >> NODE_BITS} (known "
                            + ", ".join(str(f) for f in _BY_FUNCTION) + ")")
    node = arbitration_id & MAX_NODE
    _check_node(ft, node, field, arbitration_id)
    if fd is not None and fd != ft.fd:
        raise ProtocolError(f"{field} ({ft.name}) format", "CAN FD" if fd else "classic CAN",
                            "must be " + ("a CAN FD frame" if ft.fd else "a classic CAN frame"))
    if len(data) not in ft.lengths:
        raise ProtocolError(f"{field} ({ft.name}) length", len(data),
                            "must be " + " or ".join(map(str, ft.lengths)) + " bytes")
    payload = int.from_bytes(bytes(data), "little")
    values: dict[str, float] = {}
    for s in ft.signals:
        if s.start + s.length > 8 * len(data):
            continue  # truncated frame: the signal is not carried
        raw = (payload >> s.start) & ((1 << s.length) - 1)
        if s.signed and raw >= 1 << (s.length - 1):
            raw -= 1 << s.length
        if raw == s.none_raw:
            values[s.name] = math.nan
            continue
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


ARBITRATION_BITS = 17  # CAN FD base format at the nominal rate: SOF, 11-bit id, RRS, IDE, FDF, res, BRS


def fd_frame_bits(length: int, *, worst_case_stuffing: bool = True) -> tuple[int, int]:
    """(nominal-rate bits, data-rate bits) of a CAN FD base-format frame with bit-rate switching and
    ``length`` data bytes, including the 3-bit interframe space. Frame format of ISO 11898-1:2015
    §10.4.2 (Bosch CAN FD specification v1.0 plus the stuff count of the ISO version):

    - arbitration phase (nominal rate): SOF, 11-bit id, RRS, IDE, FDF, res, BRS: 17 bits;
    - data phase (data rate): ESI, DLC (4), data (8 s), stuff count (3-bit Gray code + parity), CRC-17
      (s ≤ 16) or CRC-21 (s > 16), and the fixed stuff bits of stuff count and CRC: one before the
      stuff count and one after every fourth bit, 6 with CRC-17 and 7 with CRC-21;
    - back at the nominal rate: CRC delimiter, ACK slot, ACK delimiter, EOF (7), interframe space (3).

    Dynamic stuffing covers SOF to the end of the data field, 22 + 8 s bits: at worst ⌊(22 + 8 s − 1)/4⌋
    stuff bits (the bound of Davis et al. 2007 over the stuffed bits), of which at most
    ⌊(17 − 1)/4⌋ = 4 fall in the arbitration phase; they are counted there, at the slower rate."""
    if length not in FD_LENGTHS:
        raise ProtocolError("length", length, "must be a CAN FD length: " + ", ".join(map(str, FD_LENGTHS)))
    crc = 17 if length <= 16 else 21
    fixed_stuff = -(-(4 + crc) // 4)
    stuffed = ARBITRATION_BITS + 1 + 4 + 8 * length  # SOF .. end of the data field: + ESI, DLC, data
    stuff = (stuffed - 1) // 4 if worst_case_stuffing else 0
    arbitration_stuff = min(stuff, (ARBITRATION_BITS - 1) // 4)
    nominal = ARBITRATION_BITS + arbitration_stuff + 1 + 1 + 1 + 7 + 3
    data = 1 + 4 + 8 * length + (stuff - arbitration_stuff) + 4 + crc + fixed_stuff
    return nominal, data


def phase_bits(ft: FrameType, length: int, *, worst_case_stuffing: bool = True) -> tuple[int, int]:
    """(nominal-rate, data-rate) bits on the wire of one ``ft`` frame of ``length`` bytes: a classic
    frame is all nominal; a CAN FD frame has its arbitration phase at the nominal rate."""
    if ft.fd:
        return fd_frame_bits(length, worst_case_stuffing=worst_case_stuffing)
    return frame_bits(length, worst_case_stuffing=worst_case_stuffing), 0


HEARTBEAT_RATE = 10.0  # Hz, every module and the master


def sea_torque(stiffness: float, deflection: float, limit: float) -> tuple[float, bool]:
    """The SEA torque sensor: τ = K (α − β − δ_0) from the spring's ``deflection`` α − β − δ_0,
    002 (4.36), saturated at K δ_max beyond the sensor's range (002 §3.3.2); (τ, saturated)."""
    saturated = abs(deflection) > limit
    return stiffness * max(-limit, min(limit, deflection)), saturated


def module_state(status: Mapping[str, float]) -> int:
    """The HEARTBEAT state (MODULE_STATES) that a module's STATUS_FLAGS stand for."""
    if status["estop"]:
        return 4
    if status["fault"]:
        return 5
    if not status["enabled"]:
        return 1
    return 3 if status["hold"] else 2


@dataclass(frozen=True)
class StateReading:
    """A module's state frame in SI units, whatever the profile: α, β, τ [rad, rad, N·m], α̇ [rad/s]
    or None when the frame carries none (the host differentiates α), and the status flags."""

    alpha: float
    beta: float
    tau: float
    alpha_rate: float | None
    status: dict[str, float]
    counter: int


def state_reading(frame: Frame, stiffness: float, deflection_limit: float, zero_offset: float) -> StateReading:
    """STATE as sent; STATE_COMPACT with β = α − (α − β) and τ = K (α − β − δ_0) recomputed with the
    joint's K, its sensor range δ_max and the module's zero offset δ_0 (from CALIBRATE_REPLY)."""
    v = frame.values
    status = {f: v[f] for f in STATUS_FLAGS}
    if frame.kind == "STATE":
        return StateReading(v["alpha"], v["beta"], v["tau"], v["alpha_rate"], {**status, "mode": v["mode"]},
                            v["counter"])
    tau, _ = sea_torque(stiffness, v["deflection"] - zero_offset, deflection_limit)
    return StateReading(v["alpha"], v["alpha"] - v["deflection"], tau, None, status, v["counter"])


@dataclass(frozen=True)
class BusProfile:
    """The frames of one bus profile: how commands go out and which state frame comes back."""

    name: str
    command: FrameType
    state: FrameType
    counter_modulus: int  # of the command counter (COMMAND.counter, the grouped frames' sequence)
    module_heartbeat: bool  # modules send HEARTBEAT (classic) or let their state frame stand for it
    data_bitrate: float | None = None  # bit/s of the CAN FD data phase; None: no FD frames

    def __post_init__(self) -> None:
        if self.fd and (self.data_bitrate is None or not BITRATE <= self.data_bitrate <= MAX_DATA_BITRATE):
            raise ProtocolError(f"{self.name}.data_bitrate", self.data_bitrate,
                                f"must be in [{BITRATE:g}, {MAX_DATA_BITRATE:g}] bit/s for a profile with CAN FD "
                                "frames")

    @property
    def fd(self) -> bool:
        """The profile sends CAN FD frames: the bus (and every controller on it) must be FD-capable."""
        return self.command.fd or self.state.fd

    @property
    def host_torque(self) -> bool:
        """The state frame carries the deflection, not τ: the host needs K and each module's δ_0."""
        return all(sig.name != "tau" for sig in self.state.signals)

    @property
    def group_size(self) -> int:
        """Joints per command frame: 1 (COMMAND) or the references of a grouped frame."""
        return 1 if self.command is COMMAND else len(self.command.signals) - 1

    def command_slot(self, joint_index: int) -> tuple[int, str]:
        """(node field, signal) of joint ``joint_index`` (1-based, tail → head) in a grouped command frame."""
        if not 1 <= joint_index <= MAX_JOINT_INDEX:
            raise ProtocolError("joint_index", joint_index, f"must be in [1, {MAX_JOINT_INDEX}] on the {self.name} "
                                "profile")
        group, slot = divmod(joint_index - 1, self.group_size)
        return group, f"beta_ref_{slot + 1}"

    def command_frames(self, nodes: Sequence[int], beta_d: Sequence[float], beta_rate_d: Sequence[float],
                       counter: int) -> list[tuple[int, bytes]]:
        """The frames of one control cycle for joints 1..n (tail → head) with module ids ``nodes``;
        NaN in ``beta_d``: no reference for that joint (a module whose position is unknown)."""
        count = counter % self.counter_modulus
        if self.command is COMMAND:
            return [encode("COMMAND", node, {"beta_ref": b, "beta_rate_ref": r, "counter": count})
                    for node, b, r in zip(nodes, beta_d, beta_rate_d, strict=True) if not math.isnan(b)]
        frames = []
        for start in range(0, len(nodes), self.group_size):
            group = [float(b) for b in beta_d[start:start + self.group_size]]
            if all(math.isnan(b) for b in group):
                continue
            group_index, _ = self.command_slot(start + 1)
            frames.append(encode(self.command.name, group_index, {
                "sequence": count, **{f"beta_ref_{k}": b for k, b in enumerate(group, start=1)}}))
        return frames

    def bits_per_second(self, n_joints: int, loop_rate: float, *,
                        worst_case_stuffing: bool = True) -> tuple[float, float]:
        """(nominal-rate, data-rate) bits per second of the control loop: per cycle the command frames
        and one state frame per joint, plus the heartbeats (the master's; on classic also every
        module's). CAN FD frames count their arbitration phase at the nominal rate, the rest at the
        data rate; classic frames are all nominal."""
        def bits(ft: FrameType, length: int) -> np.ndarray:
            return np.array(phase_bits(ft, length, worst_case_stuffing=worst_case_stuffing))

        zeros = [0.0] * n_joints
        commands = sum(bits(self.command, len(data))
                       for _, data in self.command_frames(range(1, n_joints + 1), zeros, zeros, 0))
        per_cycle = commands + n_joints * bits(self.state, self.state.dlc)
        senders = n_joints + 1 if self.module_heartbeat else 1
        nominal, data = per_cycle * loop_rate + senders * HEARTBEAT_RATE * bits(HEARTBEAT, HEARTBEAT.dlc)
        return float(nominal), float(data)

    def bus_load(self, n_joints: int, loop_rate: float, bitrate: float = BITRATE, *,
                 worst_case_stuffing: bool = True) -> float:
        """Fraction of the bus used by the control loop (:meth:`bits_per_second`), with the nominal
        rate ``bitrate`` and the profile's data rate."""
        nominal, data = self.bits_per_second(n_joints, loop_rate, worst_case_stuffing=worst_case_stuffing)
        return nominal / bitrate + (data / self.data_bitrate if self.fd else 0.0)


CLASSIC = BusProfile("classic", COMMAND, STATE, 16, True)
COMPACT = BusProfile("compact", COMMAND_GROUP, STATE_COMPACT, 256, False)
#: CAN FD (ISO 11898-1:2015) for a future module revision: 002's Teensy 3.2 has a classic-only FlexCAN
#: controller, so every module (and the master's interface) needs an FD-capable controller (e.g.
#: Teensy 4.x FlexCAN-FD, MCP2518FD) and a transceiver rated for the data rate (≥ 5 Mbit/s).
FD = BusProfile("fd", COMMAND_FD, STATE_FD, 256, False, data_bitrate=DATA_BITRATE)
#: by name, as the robot file's ``can.profile`` (snake_core.robot.CAN_PROFILES) and ``--profile`` give it
PROFILES: dict[str, BusProfile] = {b.name: b for b in (CLASSIC, COMPACT, FD)}
