"""Protocol: every frame type of every bus profile through our encoder and cantools' decoder of the DBC
(and back), the DBC and the encoder describe the same layout, ids follow the robot file, bad frames are
refused, the compact profile's truncated groups and recomputed β and τ, the fd profile's padded CAN FD
frames and their length on the wire, and the bus loads."""

from __future__ import annotations

import copy
import math
from dataclasses import replace
from importlib import resources

import cantools
import numpy as np
import pytest
import yaml

from snake_core import locator
from snake_core.robot import load_robot, robot_from_dict
from snake_hardware import protocol as p

DBC_MODULES = range(1, 17)  # the shipped DBC describes module ids 1..16


@pytest.fixture(scope="module")
def db():
    with resources.as_file(resources.files("snake_hardware") / "data" / "snake.dbc") as path:
        return cantools.database.load_file(str(path))


def _message_name(ft: p.FrameType, node: int) -> str:
    if len(ft.nodes) == 1:
        return ft.name
    if ft.name == "HEARTBEAT" and node == 0:
        return "HEARTBEAT_MASTER"
    return f"{ft.name}_{node}"


def _random_values(ft: p.FrameType, rng: np.random.Generator) -> dict[str, float]:
    values = {}
    for s in ft.signals:
        lo, hi = s.raw_range
        raw = int(rng.choice(list(s.choices))) if s.choices else int(rng.integers(lo, hi + 1))
        values[s.name] = raw * s.scale
    return values


def _nodes(ft: p.FrameType) -> list[int]:
    return [n for n in ft.nodes if n <= DBC_MODULES[-1]]


@pytest.mark.parametrize("ft", p.FRAME_TYPES, ids=lambda f: f.name)
def test_every_frame_round_trips_through_our_encoder_and_cantools(db, ft):
    rng = np.random.default_rng(ft.function)
    for node in _nodes(ft):
        msg = db.get_message_by_name(_message_name(ft, node))
        for _ in range(20):
            values = _random_values(ft, rng)
            fid, data = p.encode(ft.name, node, values)
            assert fid == msg.frame_id and len(data) == msg.length
            theirs = db.decode_message(fid, data, decode_choices=False)
            for s in ft.signals:
                assert theirs[s.name] == pytest.approx(values[s.name], abs=1e-9), (ft.name, node, s.name)
            # and back: cantools encodes, we decode
            ours = p.decode(fid, msg.encode(theirs, scaling=True, strict=True))
            assert ours.kind == ft.name and ours.node == node
            for s in ft.signals:
                assert ours.values[s.name] == pytest.approx(values[s.name], abs=1e-9)


def test_the_dbc_and_the_encoder_describe_the_same_signals(db):
    for ft in p.FRAME_TYPES:
        for node in _nodes(ft):
            msg = db.get_message_by_name(_message_name(ft, node))
            assert msg.frame_id == (ft.function << 6 | node)
            assert msg.length == ft.dlc and msg.is_fd == ft.fd  # VFrameFormat StandardCAN_FD
            assert [s.name for s in msg.signals] == [s.name for s in ft.signals]
            for theirs, ours in zip(msg.signals, ft.signals, strict=True):
                assert theirs.byte_order == "little_endian"
                assert (theirs.start, theirs.length, theirs.is_signed) == (ours.start, ours.length, ours.signed)
                assert theirs.scale == pytest.approx(ours.scale, rel=1e-12) and theirs.offset == 0
                if ours.minimum == ours.maximum == 0:  # a single-choice enum: [0|0] in a DBC means "no range"
                    assert theirs.minimum is None and theirs.maximum is None
                else:
                    assert theirs.minimum == pytest.approx(ours.minimum)
                    assert theirs.maximum == pytest.approx(ours.maximum)
                if ours.choices:
                    assert {int(k): str(v) for k, v in theirs.choices.items()} == dict(ours.choices)
    assert {m.frame_id for m in db.messages} == {ft.frame_id(n) for ft in p.FRAME_TYPES for n in _nodes(ft)}


def test_signals_fit_in_their_frames_without_overlap():
    for ft in p.FRAME_TYPES:
        used = 0
        for s in ft.signals:
            bits = ((1 << s.length) - 1) << s.start
            assert used & bits == 0, (ft.name, s.name)
            used |= bits
        assert used < 1 << (8 * ft.dlc)


def test_scalings_keep_the_resolutions_of_002():
    state = {s.name: s for s in p.STATE.signals}
    assert state["alpha"].scale <= math.radians(0.32)  # 002 Table 3.2: 0.32° joint angle
    assert state["beta"].scale <= math.radians(0.32)
    assert state["alpha"].scale == pytest.approx(2 * math.pi / 4096)  # one count of the 12-bit encoder
    assert state["tau"].scale == pytest.approx(0.01)  # 0.01 N·m torque
    robot = load_robot("koopaee6")
    # the ranges cover what the robot can do: ±60° joints plus the SEA deflection, the sensor's torque
    assert state["beta"].maximum >= robot.joint_limit + robot.sea.deflection_limit
    assert state["tau"].maximum >= max(robot.sea.stiffness) * robot.sea.deflection_limit
    command = {s.name: s for s in p.COMMAND.signals}
    assert command["beta_ref"].maximum >= robot.joint_limit
    assert command["beta_rate_ref"].maximum >= robot.actuator.max_speed
    gait = {s.name: s for s in p.GAIT.signals}
    assert gait["amplitude"].maximum == pytest.approx(math.pi / 3)
    assert gait["phase_shift"].minimum <= -2 * math.pi / 5 - 0.4  # 002 Table 5.2 phases fit


def test_quantisation_error_is_below_half_a_step():
    rng = np.random.default_rng(1)
    for alpha in rng.uniform(-math.pi / 3, math.pi / 3, 200):
        fid, data = p.encode("STATE", 3, {"alpha": alpha, "beta": -alpha, "tau": alpha / 3})
        v = p.decode(fid, data).values
        assert abs(v["alpha"] - alpha) <= p.ENCODER_COUNT / 2 + 1e-12
        assert abs(v["beta"] + alpha) <= p.ENCODER_COUNT / 2 + 1e-12
        assert abs(v["tau"] - alpha / 3) <= 0.005 + 1e-12


def test_ids_follow_the_module_ids_of_the_robot_file():
    with open(locator.robot_file("koopaee6"), encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    robot = load_robot("koopaee6")
    assert [p.STATE.frame_id(n) for n in robot.can_ids] == [0x0C0 + j for j in range(1, 6)]
    renumbered = copy.deepcopy(data)
    renumbered["can"]["module_ids"] = [21, 22, 23, 24, 25]
    other = robot_from_dict(renumbered, "test")
    assert [p.COMMAND.frame_id(n) for n in other.can_ids] == [0x080 + 21 + j for j in range(5)]
    assert p.decode(*p.encode("STATE", 25, {"alpha": 0.1})).node == 25
    # priorities: the emergency stop wins arbitration against everything, commands against states
    assert p.ESTOP.frame_id(0) == 0
    assert p.COMMAND.frame_id(63) < p.STATE.frame_id(1) < p.HEARTBEAT.frame_id(0)


@pytest.mark.parametrize(("fid", "data", "field"), [
    (0x0C3, bytes(7), "length"),  # STATE must be 8 bytes
    (0x203, bytes(8), "0x203"),  # function 8 does not exist
    (0x308, bytes(7), "0x308"),  # COMMAND_GROUP 8 would be joints 33..36 (CONFIG.joint_index is 5 bits)
    (0x300, bytes(5), "length"),  # a group truncated inside a reference
    (0x343, bytes(8), "length"),  # STATE_COMPACT is 4 bytes
    (0x0C0, bytes(8), "0x0C0"),  # STATE from node 0 (the master never sends states)
    (0x001, bytes(2), "0x001"),  # ESTOP is broadcast only (node 0)
    (0x143, bytes([7, 0, 0, 0]), "op"),  # CALIBRATE op 7 is not an operation
    (0x1C3, bytes([9, 0]), "state"),  # HEARTBEAT state 9 is not a module state
])
def test_malformed_frames_are_refused_with_the_field_named(fid, data, field):
    with pytest.raises(p.ProtocolError, match=field):
        p.decode(fid, data)


def test_extended_ids_are_refused():
    with pytest.raises(p.ProtocolError, match="11-bit"):
        p.decode(0x0C3, bytes(8), extended=True)


def test_encoding_out_of_range_names_the_signal_and_range_or_saturates():
    with pytest.raises(p.ProtocolError, match=r"GAIT.amplitude = 1.5 is invalid: must be in \[0, 1.0472\] rad"):
        p.encode("GAIT", 0, {"amplitude": 1.5, "frequency": 1.0})
    with pytest.raises(p.ProtocolError, match=r"COMMAND\.beta_ref"):
        p.encode("COMMAND", 1, {"beta_ref": float("nan")})
    with pytest.raises(p.ProtocolError, match=r"COMMAND\.node"):
        p.encode("COMMAND", 0, {"beta_ref": 0.1})
    with pytest.raises(p.ProtocolError, match="unknown signal"):
        p.encode("COMMAND", 1, {"beta": 0.1})
    fid, data = p.encode("STATE", 1, {"alpha_rate": 50.0}, saturate=True)
    assert p.decode(fid, data).values["alpha_rate"] == pytest.approx(20.47)


@pytest.mark.parametrize("kind", ["STATE", "STATE_COMPACT", "STATE_FD"])
def test_the_packer_of_a_module_frame_gives_the_saturating_encoders_bytes(kind):
    """The emulated modules' precompiled packer is encode(saturate=True) of a whole frame: the same bytes for values
    inside, beyond and on the half-LSB roundings of every signal's range."""
    ft, rng = p.frame_type(kind), np.random.default_rng(5)
    pack = p.packer(kind)
    for _ in range(300):
        values = {}
        for s in ft.signals:
            if s.choices is not None or s.length == 1:
                values[s.name] = int(rng.choice(list(s.choices or (0, 1))))
            else:
                span = max(abs(s.minimum), abs(s.maximum))
                values[s.name] = float(rng.choice([rng.uniform(-1.5, 1.5) * span,
                                                   (rng.integers(-9, 9) + 0.5) * s.scale]))
        assert pack(9, values) == p.encode(kind, 9, values, saturate=True)
    with pytest.raises(p.ProtocolError, match="fixed length"):
        p.packer("COMMAND_GROUP")


def test_worst_case_frame_lengths_follow_the_stuffing_bound():
    # Davis et al. (2007): 8 s + 47 + ⌊(34 + 8 s − 1)/4⌋ bits; a full frame is 135 bits, an empty one 55
    assert p.frame_bits(8) == 135 and p.frame_bits(0) == 55
    for s in range(9):
        assert p.frame_bits(s) - p.frame_bits(s, worst_case_stuffing=False) == (34 + 8 * s - 1) // 4
    with pytest.raises(p.ProtocolError, match="dlc"):
        p.frame_bits(9)


def test_bus_load_meets_the_target_and_scales_with_rate_and_joints():
    assert p.CLASSIC.bus_load(5, 500) < 0.60  # issue 7 target: 5 joints at ≥ 500 Hz under 60 %
    per_cycle = (p.frame_bits(p.COMMAND.dlc) + p.frame_bits(p.STATE.dlc)) / p.BITRATE
    assert p.CLASSIC.bus_load(5, 1000) - p.CLASSIC.bus_load(5, 500) == pytest.approx(5 * per_cycle * 500)
    assert p.CLASSIC.bus_load(10, 250) > p.CLASSIC.bus_load(5, 250)
    assert p.CLASSIC.bus_load(5, 500, worst_case_stuffing=False) < p.CLASSIC.bus_load(5, 500)


def test_truncated_command_groups_and_missing_references_read_the_same_in_cantools(db):
    c = p.ENCODER_COUNT
    fid, data = p.encode("COMMAND_GROUP", 1, {"sequence": 200, "beta_ref_1": -100 * c, "beta_ref_2": math.nan})
    assert fid == 0x301 and len(data) == 4  # joints 5 and 6: the frame ends after the second reference
    # sequence in byte 0; joint 5 in the next 12 bits (-100 counts, little-endian); joint 6 is -2048 (none)
    assert data == bytes([200, 0x9C, 0x0F, 0x80])
    theirs = db.decode_message(fid, data, decode_choices=False, allow_truncated=True)
    assert theirs == {"sequence": 200, "beta_ref_1": pytest.approx(-100 * c), "beta_ref_2": pytest.approx(-2048 * c)}
    ours = p.decode(fid, data).values
    assert ours["sequence"] == 200 and ours["beta_ref_1"] == pytest.approx(-100 * c)
    assert math.isnan(ours["beta_ref_2"]) and "beta_ref_3" not in ours
    assert p.COMMAND_GROUP.lengths == (3, 4, 6, 7)


def test_compact_profile_commands_group_four_joints_by_joint_index_and_skip_unknown_modules():
    c = p.ENCODER_COUNT
    beta = [1 * c, 2 * c, math.nan, 4 * c, 5 * c, math.nan, math.nan]
    frames = [p.decode(*f) for f in p.COMPACT.command_frames([21, 22, 23, 24, 25, 26, 27], beta, [0.0] * 7, 257)]
    assert [(f.kind, f.node) for f in frames] == [("COMMAND_GROUP", 0), ("COMMAND_GROUP", 1)]
    assert all(f.values["sequence"] == 1 for f in frames)  # 257 mod 256: the same in every group of a cycle
    assert [frames[0].values[f"beta_ref_{k}"] for k in (1, 2, 4)] == pytest.approx([c, 2 * c, 4 * c])
    assert math.isnan(frames[0].values["beta_ref_3"]) and frames[1].values["beta_ref_1"] == pytest.approx(5 * c)
    assert len(p.COMPACT.command_frames([1, 2, 3, 4, 5], [math.nan] * 5, [0.0] * 5, 0)) == 0
    classic = [p.decode(*f) for f in p.CLASSIC.command_frames([21, 22, 23], beta[:3], [0.5, -0.5, 0.0], 17)]
    assert [(f.node, f.values["counter"]) for f in classic] == [(21, 1), (22, 1)]
    assert [f.values["beta_rate_ref"] for f in classic] == pytest.approx([0.5, -0.5])


def test_compact_state_carries_alpha_and_deflection_and_the_host_recomputes_beta_and_tau():
    c, k, limit = p.ENCODER_COUNT, 1.74, math.radians(21)
    fid, data = p.encode("STATE_COMPACT", 4, {"alpha": 300 * c, "deflection": -40 * c, "enabled": 1,
                                              "torque_saturated": 0, "counter": 9})
    assert fid == 0x344 and data == (300 | (-40 & 0x3FF) << 11 | 1 << 21 | 9 << 28).to_bytes(4, "little")
    r = p.state_reading(p.decode(fid, data), k, limit, 0.01)
    assert r.alpha == pytest.approx(300 * c) and r.beta == pytest.approx(340 * c)  # β = α − (α − β)
    assert r.tau == pytest.approx(k * (-40 * c - 0.01))  # τ = K(α − β − δ_0) < 0: the link lags the motor
    assert r.alpha_rate is None and r.counter == 9 and r.status["enabled"] and not r.status["hold"]
    far = p.decode(*p.encode("STATE_COMPACT", 4, {"alpha": 0.0, "deflection": 0.5}))
    assert p.state_reading(far, k, limit, 0.0).tau == pytest.approx(k * limit)  # the sensor saturates


def test_compact_ranges_keep_the_encoder_resolution_and_cover_the_robot():
    robot = load_robot("koopaee6")
    group = {s.name: s for s in p.COMMAND_GROUP.signals}
    state = {s.name: s for s in p.STATE_COMPACT.signals}
    for s in (group["beta_ref_1"], state["alpha"], state["deflection"]):
        assert s.scale == pytest.approx(2 * math.pi / 4096)  # one count of the 12-bit encoder
    assert group["beta_ref_4"].maximum >= robot.joint_limit
    assert state["alpha"].maximum >= robot.joint_limit + robot.sea.deflection_limit
    assert state["deflection"].maximum >= robot.sea.deflection_limit


def test_profiles_are_the_ones_the_robot_file_accepts():
    from snake_core.robot import CAN_PROFILES

    assert tuple(p.PROFILES) == CAN_PROFILES


def test_compact_profile_meets_the_1khz_targets_on_a_1_mbit_bus():
    # issue 20: 5 joints at 1 kHz and 10 joints at 500 Hz within 70 % of 1 Mbit/s, worst-case stuffing
    assert p.COMPACT.bus_load(5, 1000) <= 0.70 and p.COMPACT.bus_load(10, 500) <= 0.70
    # per cycle: a full group (7 bytes), a group of one joint (3 bytes), five 4-byte states; the master heartbeat
    bits = p.frame_bits(7) + p.frame_bits(3) + 5 * p.frame_bits(4)
    assert p.COMPACT.bus_load(5, 1000) == pytest.approx((1000 * bits + 10 * p.frame_bits(2)) / p.BITRATE)
    assert p.CLASSIC.bus_load(5, 1000) > 1.0  # one frame per joint and direction does not fit


def test_every_function_code_is_used_by_one_frame_type_only():
    # one decoder (and one DBC) reads a bus of any profile
    assert len({ft.function for ft in p.FRAME_TYPES}) == len(p.FRAME_TYPES)
    assert [ft.name for ft in p.FRAME_TYPES if ft.fd] == ["COMMAND_FD", "STATE_FD"]


def test_fd_frame_lengths_match_a_hand_count_of_the_iso_11898_1_2015_fields():
    # 16 data bytes: nominal SOF 1 + id 11 + RRS, IDE, FDF, res, BRS 5 + ≤ 4 stuff bits, then CRC delimiter,
    # ACK, ACK delimiter 3 + EOF 7 + IFS 3 = 34; data ESI 1 + DLC 4 + 128 + stuff ⌊(22 + 128 − 1)/4⌋ − 4 = 33
    # + stuff count 4 + CRC-17 + 6 fixed stuff bits = 193
    assert p.fd_frame_bits(16) == (34, 193)
    assert p.fd_frame_bits(16, worst_case_stuffing=False) == (30, 160)
    # 20 bytes: CRC-21 and a seventh fixed stuff bit: 32 data bits, 8 stuff bits, 4 CRC bits, 1 fixed stuff bit more
    assert p.fd_frame_bits(20)[1] - p.fd_frame_bits(16)[1] == 32 + 8 + 4 + 1
    # no data: ⌊(22 − 1)/4⌋ = 5 stuff bits, 4 of them in the arbitration phase, 1 in the data phase
    assert p.fd_frame_bits(0) == (34, 1 + 4 + 1 + 4 + 17 + 6)
    with pytest.raises(p.ProtocolError, match="CAN FD length"):
        p.fd_frame_bits(9)


def test_fd_command_is_one_frame_cut_after_the_last_joint_and_padded_with_no_reference(db):
    c = p.ENCODER_COUNT
    beta = [k * c for k in range(1, 6)]
    frames = p.FD.command_frames([21, 22, 23, 24, 25], beta, [0.0] * 5, 258)
    assert [(fid, len(data)) for fid, data in frames] == [(0x380, 12)]  # 8 + 5 × 12 bits → 9 bytes → FD length 12
    ours = p.decode(*frames[0], fd=True).values
    assert ours["sequence"] == 2 and [ours[f"beta_ref_{k}"] for k in range(1, 6)] == pytest.approx(beta)
    assert math.isnan(ours["beta_ref_6"]) and math.isnan(ours["beta_ref_7"]) and "beta_ref_8" not in ours
    theirs = db.decode_message(0x380, frames[0][1], decode_choices=False, allow_truncated=True)
    assert theirs["beta_ref_5"] == pytest.approx(5 * c) and theirs["beta_ref_6"] == pytest.approx(-2048 * c)
    ten = p.FD.command_frames(range(1, 11), [0.0] * 10, [0.0] * 10, 0)
    assert [len(data) for _, data in ten] == [16]  # exactly 8 + 10 × 12 bits
    assert p.FD.command_frames(range(1, 11), [math.nan] * 10, [0.0] * 10, 0) == []
    assert p.COMMAND_FD.dlc == 48 and p.COMMAND_FD.lengths == (3, 4, 6, 7, 12, 16, 20, 24, 32, 48)
    assert p.FD.command_slot(31) == (0, "beta_ref_31")
    with pytest.raises(p.ProtocolError, match="joint_index"):
        p.FD.command_slot(32)


def test_frames_in_the_wrong_can_format_are_refused():
    fid, data = p.encode("STATE_FD", 3, {"alpha": 0.1})
    assert p.decode(fid, data, fd=True).values["alpha"] == pytest.approx(0.1, abs=p.ENCODER_COUNT / 2)
    with pytest.raises(p.ProtocolError, match=r"0x3C3 \(STATE_FD\) format = 'classic CAN' is invalid: must be a CAN"):
        p.decode(fid, data, fd=False)
    with pytest.raises(p.ProtocolError, match="must be a classic CAN frame"):
        p.decode(*p.encode("STATE_COMPACT", 3, {"alpha": 0.1}), fd=True)
    assert p.is_fd(0x380) and p.is_fd(fid) and not p.is_fd(0x343) and not p.is_fd(0x7FF)


def test_fd_bus_load_is_arbitration_at_the_nominal_rate_plus_data_phases_at_the_data_rate():
    # per cycle one 16-byte COMMAND_FD and ten 4-byte STATE_FD; the master's classic heartbeat at 10 Hz
    nominal = 1000 * (34 + 10 * 34) + 10 * p.frame_bits(2)
    data = 1000 * (193 + 10 * p.fd_frame_bits(4)[1])
    assert p.FD.bus_load(10, 1000) == pytest.approx(nominal / p.BITRATE + data / 5e6, rel=1e-12)
    assert p.FD.bits_per_second(10, 1000) == (nominal, data)
    # issue 20's "10 joints at 1 kHz <= 50 %" needs ≥ 7.37 Mbit/s in the data phase: the eleven arbitration
    # phases per cycle alone take 37.5 % at 1 Mbit/s
    assert p.FD.bus_load(10, 1000) > 0.50
    assert replace(p.FD, data_bitrate=7.37e6).bus_load(10, 1000) <= 0.50 < replace(p.FD, data_bitrate=7.3e6).bus_load(
        10, 1000)
    assert p.FD.bus_load(10, 1000) < p.COMPACT.bus_load(10, 500) and p.FD.bus_load(5, 1000) < 0.5


def test_an_fd_profile_needs_a_data_rate():
    with pytest.raises(p.ProtocolError, match=r"fd.data_bitrate .*must be in \[1e\+06, 8e\+06\]"):
        replace(p.FD, data_bitrate=None)
    with pytest.raises(p.ProtocolError, match="data_bitrate"):
        replace(p.FD, data_bitrate=20e6)
