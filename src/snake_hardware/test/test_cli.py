"""snake-can: bench prints the loads, scan finds the emulated modules, estop reaches them, calibrate
collects their offsets, monitor decodes, emulate answers on the bus; bad flags name the field."""

from __future__ import annotations

import io
import itertools
import re
from dataclasses import replace
from pathlib import Path

import can
import pytest

from snake_core.robot import load_robot
from snake_hardware import cli
from snake_hardware import protocol as p
from snake_hardware.emulator import EmulatedRobot

_channels = itertools.count()


@pytest.fixture
def bus_pair(request):
    """A tool's bus handle and emulated modules (classic, or the profile given by indirect parametrisation)."""
    channel = f"snake_cli_{next(_channels)}"
    robot = replace(load_robot("koopaee6"), can_profile=getattr(request, "param", "classic"))
    tool = can.Bus(interface="virtual", channel=channel)
    emu = EmulatedRobot(robot, lambda: can.Bus(interface="virtual", channel=channel), true_zero_offsets=(
        0.02, -0.03, 0.0, 0.01, 0.04))
    yield robot, tool, emu, channel
    tool.shutdown()
    emu.shutdown()


def test_bench_ends_with_the_emulated_modules_cpu_cost_idle_and_commanded():
    out = io.StringIO()
    assert cli.main(["bench"], out=out) == 0
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("emulated modules (koopaee6, classic profile), CPU per module per second of the 1 kHz")
    idle, commanded, count, share = map(float, re.search(r"idle ([\d.]+) ms, commanded at 250 Hz ([\d.]+) ms; (\d) "
                                                         r"commanded modules take (\d+)% of a core", last).groups())
    assert 0 < idle < commanded and count == 5 and share == pytest.approx(count * commanded / 10, abs=1)


def emulated_on_a_fake_clock(monkeypatch, tick_cost: float, duration: float) -> tuple[list[float], float, str]:
    """``cli.emulate`` for ``duration`` s on a clock that only sleeping and the modules' ticks (``tick_cost`` s each)
    move: every sleep it asked for, the time it took, and what it printed."""
    now, sleeps, tick = [0.0], [], EmulatedRobot.tick

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds

    def working(self):
        tick(self)
        now[0] += tick_cost

    monkeypatch.setattr(EmulatedRobot, "tick", working)
    channel = f"snake_cli_{next(_channels)}"
    out = io.StringIO()
    assert cli.emulate(load_robot("koopaee6"), lambda: can.Bus(interface="virtual", channel=channel), duration, 0.0,
                       out, clock=lambda: now[0], sleep=sleep) == 0
    return sleeps, now[0], out.getvalue()


def test_the_emulator_loop_sleeps_until_the_next_firmware_tick(monkeypatch):
    """``snake-can emulate`` sleeps to the next 1 kHz tick (never a fixed period, never polls): with ticks that take
    0.3 ms, each sleep is the 0.7 ms left, and one tick runs per wake-up."""
    from snake_hardware.emulator import TICK

    sleeps, _, _ = emulated_on_a_fake_clock(monkeypatch, 0.3e-3, 0.1)
    assert len(sleeps) == pytest.approx(100, abs=2)
    assert sorted(sleeps)[len(sleeps) // 2] == pytest.approx(TICK - 0.3e-3, abs=1e-9) and min(sleeps) >= 0


def test_an_overloaded_emulator_skips_ahead_and_still_pauses_every_turn(monkeypatch):
    """Ticks that take 3 ms (three times the firmware period): no endless catching up at full load, which at
    real-time priority would starve the machine; it skips the backlog, says so, and pauses as long as it worked."""
    sleeps, elapsed, out = emulated_on_a_fake_clock(monkeypatch, 3e-3, 0.5)
    assert "behind real time: skipped" in out
    assert sum(sleeps) / elapsed >= 0.45  # it leaves about half of the time to the rest, however far behind


def test_bench_reports_every_profile_and_combination_and_the_targets():
    out = io.StringIO()
    assert cli.main(["bench"], out=out) == 0
    lines = out.getvalue().splitlines()
    sections = [i for i, line in enumerate(lines) if line.startswith("profile ")]
    assert [lines[i].split()[1].rstrip(":") for i in sections] == list(p.PROFILES)
    for i, profile in zip(sections, p.PROFILES.values(), strict=True):
        rows = [line.split() for line in lines[i + 2:i + 2 + len(cli.BENCH_JOINTS) * len(cli.BENCH_RATES)]]
        assert {(int(r[0]), float(r[1])) for r in rows} == {(n, f) for n in cli.BENCH_JOINTS for f in cli.BENCH_RATES}
        for row in rows:
            n, rate, worst = int(row[0]), float(row[1]), float(row[2].rstrip("%")) / 100
            assert worst == pytest.approx(profile.bus_load(n, rate), abs=5e-4 + 1e-9)  # printed to 0.1 %
    targets = [line for line in lines if line.startswith("target: ")]
    assert len(targets) == len(cli.TARGETS)
    for line, t in zip(targets, cli.TARGETS, strict=True):
        load = p.PROFILES[t.profile].bus_load(t.joints, t.rate)
        assert line.endswith(f": {'met' if load <= t.limit else 'NOT met'} ({load:.1%})")
    assert "compact, 5 joints at 1000 Hz <= 70%: met (68.6%)" in targets[1]
    # the CAN FD target, at the fd profile's 5 Mbit/s data phase: missed, and the note says by how much
    assert "fd, 10 joints at 1000 Hz <= 50%: NOT met (55.9%)" in targets[3]
    assert "alone take 37.5%; 50% needs a data phase of at least 7.37 Mbit/s (this profile: 5 Mbit/s)" in lines[-3]
    assert lines[-2] == "targets NOT met"


@pytest.mark.parametrize("bus_pair", tuple(p.PROFILES), indirect=True)
def test_scan_lists_the_answering_modules_and_flags_a_missing_one(bus_pair):
    robot, tool, emu, _ = bus_pair
    emu.modules[3].silent = True
    emu.advance(0.35)
    out = io.StringIO()
    assert cli.scan(tool, robot, 0.01, out) == 1
    text = out.getvalue()
    assert "4/5 modules answered; missing: 4" in text and "disabled" in text


@pytest.mark.parametrize("bus_pair", tuple(p.PROFILES), indirect=True)
def test_estop_reaches_every_module_and_release_waits_for_each_to_confirm(bus_pair):
    robot, tool, emu, _ = bus_pair
    assert cli.estop(tool, robot, False, io.StringIO()) == 0
    emu.advance(emu.time + 0.01)
    assert all(m.estop and m.hold for m in emu.modules)
    emu.modules[2].silent = True  # module 3 hears nothing: it stays latched
    cli.request_release(tool, robot)
    emu.advance(emu.time + 0.25)  # state frames at the modules' 10 Hz heartbeat
    out = io.StringIO()
    assert cli.collect_release(tool, robot, 0.01, out) == 1
    assert "NOT released: module(s) 3 did not confirm" in out.getvalue()
    assert not any(m.estop or m.latched for i, m in enumerate(emu.modules) if i != 2)  # released, enabled
    emu.modules[2].silent = False
    cli.request_release(tool, robot)
    emu.advance(emu.time + 0.25)
    out = io.StringIO()
    assert cli.collect_release(tool, robot, 0.01, out) == 0 and "all 5 modules confirmed" in out.getvalue()
    assert not any(m.estop or m.latched for m in emu.modules)


def test_calibrate_zeroes_the_offsets_of_disabled_modules(bus_pair):
    robot, tool, emu, _ = bus_pair
    emu.advance(3.0)  # motors free: every spring relaxes to its built-in zero
    while tool.recv(timeout=0) is not None:
        pass
    cli.request_calibration(tool, robot, "zero_here", 0.0)
    emu.advance(emu.time + 0.01)
    out = io.StringIO()
    assert cli.collect_calibration(tool, robot, 0.01, out) == 0
    built_in = [0.02, -0.03, 0.0, 0.01, 0.04]
    assert [m.offset for m in emu.modules] == pytest.approx(built_in, abs=2 * p.ENCODER_COUNT)
    rows = [line.split() for line in out.getvalue().splitlines()[1:]]
    assert [r[2] for r in rows] == ["ok"] * 5
    assert [float(r[3]) for r in rows] == pytest.approx(built_in, abs=2 * p.ENCODER_COUNT)
    # enabled modules refuse to be zeroed (the load would be calibrated away)
    cli.send(tool, "CONFIG", 2, {"mode": 1, "enable": 1, "joint_index": 2, "kp": 60, "kd": 25, "watchdog": 0.05})
    cli.request_calibration(tool, robot, "zero_here", 0.0)
    emu.advance(emu.time + 0.01)
    out = io.StringIO()
    assert cli.collect_calibration(tool, robot, 0.01, out) == 1
    assert "refused_enabled" in out.getvalue().splitlines()[2]


def test_monitor_decodes_frames_and_flags_malformed_ones(bus_pair):
    _robot, tool, emu, _ = bus_pair
    emu.advance(0.05)
    lines = [cli.describe(m) for m in iter(lambda: tool.recv(timeout=0), None)]
    assert any("HEARTBEAT" in line and "node  1" in line for line in lines)
    assert any(line.startswith("0x0C3 STATE") for line in lines)
    assert cli.describe(can.Message(arbitration_id=0x0C3, data=bytes(3), is_extended_id=False)).startswith("malformed")


def emulated_frames(robot, duration: float, **kwargs) -> tuple[str, list[can.Message]]:
    """``cli.emulate`` on a fresh virtual bus with a stepped clock: its printout and every frame it sent."""
    channel = f"snake_cli_{next(_channels)}"
    listener = can.Bus(interface="virtual", channel=channel)
    ticks = itertools.count()
    try:
        out = io.StringIO()
        assert cli.emulate(robot, lambda: can.Bus(interface="virtual", channel=channel), duration, 0.0, out,
                           clock=lambda: next(ticks) * 0.01, sleep=lambda s: None, **kwargs) == 0
        return out.getvalue(), list(iter(lambda: listener.recv(timeout=0), None))
    finally:
        listener.shutdown()


@pytest.mark.parametrize("profile", tuple(p.PROFILES))
def test_emulate_runs_modules_that_answer_on_the_bus(profile):
    out, messages = emulated_frames(replace(load_robot("koopaee6"), can_profile=profile), 0.25)
    assert f"{profile} profile" in out
    # each frame in its CAN format (fd: STATE_FD as CAN FD with bit-rate switching), decoded strictly
    frames = [p.decode(m.arbitration_id, bytes(m.data), fd=m.is_fd) for m in messages]
    assert all(m.bitrate_switch == m.is_fd for m in messages)
    heartbeat = "HEARTBEAT" if p.PROFILES[profile].module_heartbeat else p.PROFILES[profile].state.name
    assert {f.node for f in frames if f.kind == heartbeat} == {1, 2, 3, 4, 5}


def test_emulate_on_the_simulated_body_answers_too():
    out, messages = emulated_frames(load_robot("koopaee6"), 0.15, world="flat")
    assert "simulated body, world flat" in out
    states = [p.decode(m.arbitration_id, bytes(m.data)) for m in messages]
    assert {f.node for f in states if f.kind == "STATE"} == {1, 2, 3, 4, 5}


def test_the_simulated_body_is_the_simulators_entry_point_and_its_absence_one_line(capsys, monkeypatch):
    """snake-can finds the body through the entry point group snake_hardware.bodies (the simulator's side registers
    snake_sim_ros.body_plant.BodyPlant) and imports no simulator itself; without one, --body is one error line."""
    from importlib import metadata

    (entry,) = metadata.entry_points(group=cli.BODY_GROUP)
    assert entry.value == "snake_sim_ros.body_plant:BodyPlant"
    body = cli.simulated_body("koopaee6", "stairs")
    assert type(body).__module__ == "snake_sim_ros.body_plant" and body.n_joints == load_robot("koopaee6").n_joints
    monkeypatch.setattr(cli, "entry_points", lambda group: ())
    assert cli.main(["emulate", "--body", "flat", "--interface", "virtual", "--channel", "snake_cli_y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--body = 'flat' is invalid: needs a simulated body" in err[0], err


def test_emulate_runs_only_the_modules_named(capsys):
    """Part of a robot emulated (the rest real, or in another process that can stop answering on its own)."""
    out, messages = emulated_frames(load_robot("koopaee6"), 0.15, modules=(2, 5))
    assert "modules 2, 5 " in out
    frames = [p.decode(m.arbitration_id, bytes(m.data)) for m in messages]
    assert {f.node for f in frames if f.kind == "HEARTBEAT"} == {2, 5}
    assert cli.main(["emulate", "--modules", "4,9", "--interface", "virtual", "--channel", "snake_cli_x"]) == 2
    assert "modules = [4, 9] is invalid" in capsys.readouterr().err


def test_bad_flags_name_the_field_and_range(capsys):
    with pytest.raises(SystemExit):
        cli.main(["emulate", "--drop", "1.5"])
    assert "--drop = 1.5 is invalid" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["emulate", "--profile", "canfd"])
    assert "--profile: invalid choice: 'canfd' (choose from 'classic', 'compact', 'fd')" in capsys.readouterr().err
    assert cli.main(["scan", "--robot", "nosuchsnake", "--interface", "virtual", "--channel", "x"]) == 2
    assert "robot.name" in capsys.readouterr().err
    for flags, message in ((["--body", "flat", "--body-set", "contact.frictio=0.9"], "contact.frictio"),
                           (["--body", "flat", "--body-set", "robot.motor_kp=0"], "robot.motor_kp = 0"),
                           (["--body-set", "contact.friction=0.9"], "needs --body WORLD")):
        assert cli.main(["emulate", *flags, "--interface", "virtual", "--channel", "snake_cli_y"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and message in err[0], err


def test_the_bus_load_table_in_docs_is_what_snake_can_bench_prints():
    """docs/can_protocol.md shows the bus loads `snake-can bench` prints (deterministic: frame lengths and rates);
    after a change of the profiles, paste the new output into the document's block."""
    doc = (Path(__file__).resolve().parents[3] / "docs" / "can_protocol.md").read_text(encoding="utf-8")
    out = io.StringIO()
    cli.bus_loads(out)  # what `snake-can bench` prints first (then the emulator's cost on this machine)
    first = out.getvalue().splitlines()[0]
    block = doc[doc.index("```\n" + first) + 4:]
    assert block[:block.index("```")] == out.getvalue()
