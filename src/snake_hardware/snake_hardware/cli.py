"""``snake-can``: tools for the joint-module bus (protocol in docs/can_protocol.md).

    snake-can scan       which modules answer (heartbeats), against the robot file's module ids
    snake-can monitor    decoded live frames
    snake-can estop      emergency stop (or --release) for every module
    snake-can calibrate  SEA zero offsets: read, zero at the present deflection, or set
    snake-can emulate    one emulated joint module per joint on a bus (hardware in the loop without hardware)
    snake-can bench      bus load of every bus profile (worst-case bit stuffing) against 1 Mbit/s

The bus is any python-can interface (``--interface``, SocketCAN by default, ``--channel can0``); it must
be up at 1 Mbit/s already (``ip link set can0 up type can bitrate 1000000 restart-ms 100``; for the fd
profile with its data phase too: ``... bitrate 1000000 dbitrate 5000000 fd on restart-ms 100``); the
tools open it for CAN FD when the robot's profile (``can.profile``, or ``emulate --profile``) is fd.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, TextIO

import can

from snake_core.gaits import make_gait
from snake_core.gaits.pedal_wave import REFERENCE_GAIT
from snake_core.robot import RobotParams, load_robot
from snake_core.validation import ConfigError, number

from . import protocol as p
from .driver import CanDriver, DriverConfig, can_message, open_bus, release_confirmed, release_frames
from .faults import FaultSwitches, FaultyBus

if TYPE_CHECKING:
    from .emulator import Body

BENCH_JOINTS = (5, 10)
BENCH_RATES = (100.0, 250.0, 500.0, 1000.0)
LOAD_LIMIT = 0.70  # the "ok" column of the bench: a bus loaded beyond 70 % leaves too little for retransmissions
#: snake-can emulate: further behind real time than this, the modules skip ahead instead of catching up tick by
#: tick (and no turn of its loop runs more than this of their time)
MAX_LAG = 0.05  # s
#: the emulated modules' cost: this robot's, commanded at the CAN bridge's default rate, over this many seconds
BENCH_ROBOT = "koopaee6"
EMULATOR_BENCH_RATE = 250.0
EMULATOR_BENCH_SECONDS = 2.0


@dataclass(frozen=True)
class LoadTarget:
    profile: str
    joints: int
    rate: float  # Hz
    limit: float  # fraction of the bus


TARGETS = (LoadTarget("classic", 5, 500.0, 0.60), LoadTarget("compact", 5, 1000.0, 0.70),
           LoadTarget("compact", 10, 500.0, 0.70), LoadTarget("fd", 10, 1000.0, 0.50))
#: the state frames that stand for a module's heartbeat (compact, fd)
_HEARTBEAT_STATES = {prof.state.name for prof in p.PROFILES.values() if not prof.module_heartbeat}


def _float(field: str, low: float | None = None, high: float | None = None, low_open: bool = False):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(str(ConfigError(field, text, "must be a number"))) from None
        try:
            return number(value, field, low=low, high=high, low_open=low_open)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def _module_ids(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(str(ConfigError("--modules", text, "must be module ids, e.g. 1,2,3"))) \
            from None


def _robot_modules(robot: RobotParams) -> tuple[int, ...]:
    if robot.can_ids is None:
        raise ConfigError("robot.can", None, "the robot file has no can.module_ids", robot.name)
    return robot.can_ids


def describe(msg: can.Message) -> str:
    """One line for a received frame: decoded, or why it is malformed."""
    if msg.is_error_frame:
        return f"error frame 0x{msg.arbitration_id:08X}"
    try:
        frame = p.decode(msg.arbitration_id, bytes(msg.data), extended=msg.is_extended_id, fd=msg.is_fd)
    except p.ProtocolError as exc:
        return f"malformed 0x{msg.arbitration_id:03X} [{bytes(msg.data).hex()}]: {exc}"
    values = " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in frame.values.items())
    return f"0x{msg.arbitration_id:03X} {frame.kind:<15} node {frame.node:2d}  {values}"


def _frames(bus: can.BusABC, duration: float) -> list[can.Message]:
    """Every frame received within ``duration`` seconds (already queued frames first)."""
    end = time.monotonic() + duration
    out = []
    while (remaining := end - time.monotonic()) > 0:
        msg = bus.recv(timeout=min(remaining, 0.05))
        if msg is not None:
            out.append(msg)
    while (msg := bus.recv(timeout=0)) is not None:
        out.append(msg)
    return out


def scan(bus: can.BusABC, robot: RobotParams, duration: float, out: TextIO) -> int:
    """Listen for heartbeats; 0 when every module of the robot file answered."""
    seen: dict[int, str] = {}
    for msg in _frames(bus, duration):
        if msg.is_error_frame or msg.is_extended_id:
            continue
        try:
            frame = p.decode(msg.arbitration_id, bytes(msg.data))
        except p.ProtocolError:
            continue
        if frame.kind == "HEARTBEAT" and frame.node != p.MASTER_NODE:
            seen[frame.node] = p.MODULE_STATES[frame.values["state"]]
        elif frame.kind in _HEARTBEAT_STATES:  # the compact and fd profiles' heartbeat
            seen[frame.node] = p.MODULE_STATES[p.module_state(frame.values)]
    expected = _robot_modules(robot)
    print(f"{'joint':>5}  {'module':>6}  state", file=out)
    for j, node in enumerate(expected, start=1):
        print(f"{j:>5}  {node:>6}  {seen.get(node, 'MISSING')}", file=out)
    for node in sorted(set(seen) - set(expected)):
        print(f"{'?':>5}  {node:>6}  {seen[node]} (not in {robot.name}.yaml)", file=out)
    missing = [n for n in expected if n not in seen]
    print(f"{len(expected) - len(missing)}/{len(expected)} modules answered" +
          (f"; missing: {', '.join(map(str, missing))}" if missing else ""), file=out)
    return 1 if missing else 0


def monitor(bus: can.BusABC, duration: float, out: TextIO) -> int:
    start = time.monotonic()
    while duration <= 0 or time.monotonic() - start < duration:
        msg = bus.recv(timeout=0.1)
        if msg is not None:
            print(f"{time.monotonic() - start:9.4f}  {describe(msg)}", file=out, flush=True)
    return 0


def send(bus: can.BusABC, kind: str, node: int, values: dict) -> None:
    bus.send(can_message(*p.encode(kind, node, values)))


def estop(bus: can.BusABC, robot: RobotParams, release: bool, out: TextIO, timeout: float = 0.5) -> int:
    """Engage the emergency stop, or release it (:func:`request_release`, :func:`collect_release`)."""
    if not release:
        send(bus, "ESTOP", p.MASTER_NODE, {"engage": True, "reason": 0, "source": p.MASTER_NODE})
        print("emergency stop sent", file=out)
        return 0
    request_release(bus, robot)
    return collect_release(bus, robot, timeout, out)


def request_release(bus: can.BusABC, robot: RobotParams) -> None:
    """The driver's release frames: ESTOP release, then CONFIG enable of every module."""
    for fid, data in release_frames(robot, DriverConfig().module_watchdog, _robot_modules(robot)):
        bus.send(can_message(fid, data))


def collect_release(bus: can.BusABC, robot: RobotParams, timeout: float, out: TextIO) -> int:
    """Wait for a state frame of every module that confirms the release; 0 when all did."""
    nodes = _robot_modules(robot)
    state = p.PROFILES[robot.can_profile].state.name
    confirmed: dict[int, bool] = {}

    def take(frame: p.Frame) -> None:
        if frame.kind == state and frame.node in nodes:
            confirmed[frame.node] = release_confirmed(frame.values)

    _collect(bus, timeout, take, lambda: len(confirmed) == len(nodes) and all(confirmed.values()))
    missing = [str(n) for n in nodes if not confirmed.get(n)]
    if not missing:
        print(f"emergency stop released: all {len(nodes)} modules confirmed (enabled, no stop latched)", file=out)
        return 0
    print("emergency stop NOT released: module(s) " + ", ".join(missing) + " did not confirm (still latched, "
          "or no state frame)", file=out)
    return 1


def request_calibration(bus: can.BusABC, robot: RobotParams, op: str, offset: float) -> None:
    """Send CALIBRATE (op read | zero_here | set) to every module of the robot."""
    code = {v: k for k, v in p.CALIBRATION_OPS.items()}[op]
    for node in _robot_modules(robot):
        send(bus, "CALIBRATE", node, {"op": code, "offset": offset})


def collect_calibration(bus: can.BusABC, robot: RobotParams, timeout: float, out: TextIO) -> int:
    """Wait for the CALIBRATE_REPLY of every module, print them; 0 when all answered ``ok``."""
    nodes = _robot_modules(robot)
    replies: dict[int, dict] = {}

    def take(frame: p.Frame) -> None:
        if frame.kind == "CALIBRATE_REPLY" and frame.node in nodes:
            replies[frame.node] = frame.values

    _collect(bus, timeout, take, lambda: len(replies) == len(nodes))
    print(f"{'joint':>5}  {'module':>6}  {'result':<16} zero offset", file=out)
    for j, node in enumerate(nodes, start=1):
        r = replies.get(node)
        if r is None:
            print(f"{j:>5}  {node:>6}  {'no reply':<16}", file=out)
        else:
            print(f"{j:>5}  {node:>6}  {p.CALIBRATION_RESULTS[r['result']]:<16} {r['offset']:+.4f} rad", file=out)
    return 0 if len(replies) == len(nodes) and all(r["result"] == 0 for r in replies.values()) else 1


def _collect(bus: can.BusABC, timeout: float, take: Callable[[p.Frame], None], done: Callable[[], bool]) -> None:
    """Pass every decodable frame to ``take`` until ``done()`` or ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not done():
        msg = bus.recv(timeout=max(0.0, min(0.05, end - time.monotonic())))
        if msg is None:
            if time.monotonic() >= end:
                return
            continue
        if msg.is_error_frame or msg.is_extended_id:
            continue
        try:
            take(p.decode(msg.arbitration_id, bytes(msg.data)))
        except p.ProtocolError:
            continue


#: Entry point group of the simulated bodies the modules may run on (``snake-can emulate --body WORLD``): a callable
#: (robot name, world name, the body's scenario overrides KEY=VALUE) -> :class:`snake_hardware.emulator.Body`. The
#: simulator's side registers one
#: (snake_sim_ros: its vertical-plane model); this package never imports the simulator.
BODY_GROUP = "snake_hardware.bodies"


def simulated_body(robot: str, world: str, overrides: Sequence[str] = ()) -> Body:
    """The simulated body of ``robot`` on ``world`` (its scenario fields changed by ``overrides``) registered in the
    entry point group BODY_GROUP (the simulator's side, snake_sim_ros: loaded only in this mode); ConfigError naming
    --body when none is installed."""
    bodies = entry_points(group=BODY_GROUP)
    if not bodies:
        raise ConfigError("--body", world, "needs a simulated body: install the simulator's side (snake_sim_ros), "
                          f"which registers one in the entry point group {BODY_GROUP}")
    return sorted(bodies, key=lambda e: e.name)[0].load()(robot, world, overrides)


def emulate(robot: RobotParams, bus_factory: Callable[[], can.BusABC], duration: float, drop: float,
            out: TextIO, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
            world: str | None = None, modules: Sequence[int] | None = None, body_sets: Sequence[str] = ()) -> int:
    """Run one emulated module per joint (or per id of ``modules``) in real time until ``duration`` (0: until
    interrupted); with ``world``, all on the embedded simulator's whole-body model on that world, its scenario
    fields changed by ``body_sets`` (KEY=VALUE)."""
    from .emulator import TICK, EmulatedRobot  # compiled (numba): only the commands that emulate load it

    switches = FaultSwitches(drop_rate=drop)
    body = None
    if world:
        body = simulated_body(robot.name, world, body_sets)
    elif body_sets:
        raise ConfigError("--body-set", list(body_sets), "needs --body WORLD (a simulated body)")
    emu = EmulatedRobot(robot, lambda: FaultyBus(bus_factory(), switches) if drop > 0 else bus_factory(), body=body,
                        nodes=modules)
    print(f"emulating {robot.name}: modules {', '.join(str(m.model.node) for m in emu.modules)}"
          + (f" on the simulated body, world {world}" if world else " (1-DoF link each)")
          + f", {robot.can_profile} profile"
          + (f", {100 * drop:.0f} % frames dropped" if drop else ""), file=out, flush=True)
    start = clock()
    try:
        while duration <= 0 or emu.time < duration:
            behind = clock() - start - emu.time
            if behind > MAX_LAG:  # overloaded: the modules skip the backlog (as a firmware overrun) and say so
                print(f"emulated modules {behind * 1e3:.0f} ms behind real time: skipped", file=out, flush=True)
                start += behind
            began = clock()
            emu.advance(min(began - start, emu.time + MAX_LAG))
            # until the next firmware tick (no polling); behind, as long as the turn's work took, so that even
            # overloaded at real-time priority it leaves the machine at least half of a core
            ended = clock()
            sleep(max(ended - began, start + emu.time + TICK - ended))
    except KeyboardInterrupt:
        pass
    finally:
        emu.shutdown()
    return 0


_FRAMES_PER_CYCLE = {
    "classic": f"COMMAND {p.frame_bits(p.COMMAND.dlc)} bits + STATE {p.frame_bits(p.STATE.dlc)} bits per joint; "
               "HEARTBEAT from the master and every module",
    "compact": f"COMMAND_GROUP {p.frame_bits(p.COMMAND_GROUP.dlc)} bits per 4 joints (a last group of 1, 2, 3: "
               + ", ".join(str(p.frame_bits(n)) for n in p.COMMAND_GROUP.lengths[:-1])
               + f" bits) + STATE_COMPACT {p.frame_bits(p.STATE_COMPACT.dlc)} bits per joint; HEARTBEAT from the "
               "master only",
    "fd": f"CAN FD, data phase at {p.FD.data_bitrate / 1e6:g} Mbit/s, bits as (nominal + data rate): one COMMAND_FD "
          "for all joints, " + ", ".join("{} joints {} bytes {}+{}".format(n, len(data), *p.fd_frame_bits(len(data)))
                                         for n in BENCH_JOINTS for _, data in p.FD.command_frames(
                                             range(1, n + 1), [0.0] * n, [0.0] * n, 0))
          + " + STATE_FD {}+{} bits per joint; HEARTBEAT (classic) from the master only".format(
              *p.fd_frame_bits(p.STATE_FD.dlc)),
}


def bench(out: TextIO) -> int:
    """The bus loads (:func:`bus_loads`), then what the emulated modules cost (:func:`emulator_costs`)."""
    bus_loads(out)
    emulator_costs(load_robot(BENCH_ROBOT), out)
    return 0


def emulator_cost(robot: RobotParams, rate: float | None, seconds: float = EMULATOR_BENCH_SECONDS) -> float:
    """CPU time [s] that ``robot``'s emulated modules take per module per second of their 1 kHz firmware loop, in
    lock step on a virtual bus with a driver commanding 002's reference pedal wave at ``rate`` Hz (None: idle,
    no master on the bus); measured on this process's CPU clock around the modules' ticks only."""
    from .emulator import EmulatedRobot

    channel = f"snake_bench_{id(robot)}_{rate}"
    emu = EmulatedRobot(robot, lambda: can.Bus(interface="virtual", channel=channel))
    driver = CanDriver(robot, lambda: can.Bus(interface="virtual", channel=channel)) if rate else None
    gait = make_gait("pedal_wave", robot.n_joints, REFERENCE_GAIT)
    period = 1.0 / (rate or 100.0)
    cpu = 0.0
    try:
        for k in range(round(seconds / period)):
            if driver is not None:
                driver.set_command(*gait.reference(k * period), k * period)
                driver.step(k * period)
            before = time.process_time()
            emu.advance((k + 1) * period)
            cpu += time.process_time() - before
    finally:
        emu.shutdown()
        if driver is not None:
            driver.close()
    return cpu / seconds / len(emu.modules)


def emulator_costs(robot: RobotParams, out: TextIO) -> None:
    """``snake-can emulate``'s cost on this machine: CPU per module per second, idle and commanded."""
    idle, busy = emulator_cost(robot, None), emulator_cost(robot, EMULATOR_BENCH_RATE)
    n = robot.n_joints
    print(f"emulated modules ({robot.name}, {robot.can_profile} profile), CPU per module per second of the 1 kHz "
          f"firmware loop: idle {idle * 1e3:.1f} ms, commanded at {EMULATOR_BENCH_RATE:g} Hz {busy * 1e3:.1f} ms; "
          f"{n} commanded modules take {n * busy:.0%} of a core", file=out)


def bus_loads(out: TextIO) -> None:
    """Bus load of the control loop on every profile, and the targets of issues 7 and 20."""
    print(f"CAN bus load at {p.BITRATE / 1e6:g} Mbit/s, worst-case bit stuffing (Davis et al. 2007), heartbeats "
          f"{p.HEARTBEAT_RATE:g} Hz", file=out)
    for name, profile in p.PROFILES.items():
        print(f"profile {name}: {_FRAMES_PER_CYCLE[name]}", file=out)
        print(f"{'joints':>6} {'rate [Hz]':>9} {'load worst':>10} {'no stuffing':>11}  vs {LOAD_LIMIT:.0%}", file=out)
        for n in BENCH_JOINTS:
            for rate in BENCH_RATES:
                worst = profile.bus_load(n, rate)
                nominal = profile.bus_load(n, rate, worst_case_stuffing=False)
                verdict = "ok" if worst <= LOAD_LIMIT else "over 100 %: infeasible" if worst >= 1 else "over"
                print(f"{n:>6} {rate:>9.0f} {worst:>10.1%} {nominal:>11.1%}  {verdict}", file=out)
    met = True
    for t in TARGETS:
        load = p.PROFILES[t.profile].bus_load(t.joints, t.rate)
        met &= load <= t.limit
        print(f"target: {t.profile}, {t.joints} joints at {t.rate:.0f} Hz <= {t.limit:.0%}: "
              f"{'met' if load <= t.limit else 'NOT met'} ({load:.1%})", file=out)
        if load > t.limit and p.PROFILES[t.profile].fd:
            print("  " + _fd_note(p.PROFILES[t.profile], t), file=out)
    print("all targets met" if met else "targets NOT met", file=out)


def _fd_note(profile: p.BusProfile, t: LoadTarget) -> str:
    """Why a CAN FD target is missed: the arbitration phases at the nominal rate, and the data rate that
    would meet it."""
    nominal, data = profile.bits_per_second(t.joints, t.rate)
    floor = nominal / p.BITRATE
    if floor >= t.limit:
        return f"the arbitration phases at {p.BITRATE / 1e6:g} Mbit/s alone take {floor:.1%}: no data rate meets it"
    return (f"the arbitration phases at {p.BITRATE / 1e6:g} Mbit/s alone take {floor:.1%}; {t.limit:.0%} needs a "
            f"data phase of at least {data / (t.limit - floor) / 1e6:.2f} Mbit/s (this profile: "
            f"{profile.data_bitrate / 1e6:g} Mbit/s)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="snake-can", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def with_bus(name: str, help_text: str) -> argparse.ArgumentParser:
        cmd = sub.add_parser(name, help=help_text)
        cmd.add_argument("--interface", default="socketcan", help="python-can interface (default socketcan)")
        cmd.add_argument("--channel", default="can0", help="channel, e.g. can0, vcan0 (default can0)")
        cmd.add_argument("--robot", default="koopaee6", help="robot file in config/robots/ (module ids)")
        return cmd

    with_bus("scan", "which modules answer").add_argument(
        "--duration", type=_float("--duration", low=0.0, low_open=True), default=0.5, help="listen for S seconds")
    with_bus("monitor", "decoded live frames").add_argument(
        "--duration", type=_float("--duration", low=0.0), default=0.0, help="seconds (0: until Ctrl-C)")
    stop = with_bus("estop", "emergency stop for every module")
    stop.add_argument("--release", action="store_true", help="release the stop: ESTOP release and CONFIG enable "
                      "to every module, then wait until each confirms (exit 1 naming those that do not)")
    stop.add_argument("--timeout", type=_float("--timeout", low=0.0, low_open=True), default=0.5,
                      help="seconds to wait for the modules' confirmation of a release")
    cal = with_bus("calibrate", "SEA zero offsets")
    cal.add_argument("--op", choices=tuple(p.CALIBRATION_OPS.values()), default="read")
    cal.add_argument("--offset", type=_float("--offset", low=-0.5, high=0.5), default=0.0,
                     help="offset for --op set [rad]")
    cal.add_argument("--timeout", type=_float("--timeout", low=0.0, low_open=True), default=0.5)
    emu = with_bus("emulate", "emulated joint modules on the bus")
    emu.add_argument("--profile", choices=tuple(p.PROFILES), default=None,
                     help="bus profile of the modules (default: the robot file's can.profile)")
    emu.add_argument("--duration", type=_float("--duration", low=0.0), default=0.0, help="seconds (0: until Ctrl-C)")
    emu.add_argument("--drop", type=_float("--drop", low=0.0, high=1.0), default=0.0,
                     help="fraction of frames the emulated modules lose (fault injection)")
    emu.add_argument("--modules", type=_module_ids, default=None, metavar="ID,ID,...",
                     help="emulate only these module ids (default: every module of the robot file)")
    emu.add_argument("--body", metavar="WORLD", default=None,
                     help="back the modules with the embedded simulator's whole-body model on worlds/WORLD.sdf "
                          "(e.g. flat, stairs) instead of one 1-DoF link per module")
    emu.add_argument("--body-set", dest="body_sets", action="append", default=[], metavar="KEY=VALUE",
                     help="a scenario field of the simulated body, as snake-sim run --set (e.g. contact.friction=0.9, "
                          "robot.motor_kp=40; repeatable)")
    sub.add_parser("bench", help="bus load of every profile at 100..1000 Hz for 5 and 10 joints")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "bench":
        return bench(out)
    try:
        robot = load_robot(args.robot)
        if args.command == "emulate" and args.profile is not None:
            robot = replace(robot, can_profile=args.profile)
        fd = p.PROFILES[robot.can_profile].fd
        if args.command == "emulate":
            return emulate(robot, lambda: open_bus(args.interface, args.channel, fd=fd), args.duration, args.drop,
                           out, world=args.body, modules=args.modules, body_sets=args.body_sets)
        bus = open_bus(args.interface, args.channel, fd=fd)
    except (ConfigError, OSError, can.CanError) as exc:
        print(f"snake-can {args.command}: error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.command == "scan":
            return scan(bus, robot, args.duration, out)
        if args.command == "monitor":
            return monitor(bus, args.duration, out)
        if args.command == "estop":
            return estop(bus, robot, args.release, out, args.timeout)
        if args.op == "zero_here":
            print("zero_here: the robot must be unloaded (lying straight, nothing touching it) and the modules "
                  "disabled (snake-can estop, or stop the bridge)", file=out)
        request_calibration(bus, robot, args.op, args.offset)
        return collect_calibration(bus, robot, args.timeout, out)
    except KeyboardInterrupt:
        return 0
    except ConfigError as exc:
        print(f"snake-can {args.command}: error: {exc}", file=sys.stderr)
        return 2
    finally:
        bus.shutdown()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
