"""The master side of the joint-module bus: a python-can driver with its safety layer.

The driver is stepped explicitly (``step(now)`` once per control cycle, time passed in) so that it
runs the same against SocketCAN in real time and against python-can's virtual bus in lock step
with the module emulator. Per cycle it drains the receive queue (the profile's state frames,
HEARTBEAT, CALIBRATE_REPLY; anything malformed is counted and reported, never raised), supervises,
and sends the commands of the robot file's bus profile (``can.profile``: one COMMAND per module, or
one COMMAND_GROUP per four joints, or one CAN FD COMMAND_FD for all joints) plus the master heartbeat
at 10 Hz. On the compact and fd profiles the state frame carries α and the spring deflection: β and τ
are recomputed here (:func:`protocol.state_reading`) with the zero offset δ_0 each module reports on
CALIBRATE read.

Safety (docs/design.md: bad input fails early, faults hold the robot):

- command watchdog: no fresh reference for ``command_timeout`` → hold; with :meth:`watch_upstream`, also nothing
  heard for ``command_timeout`` from the controllers upstream of ros2_control (whose forward command controller
  repeats a dead controller's last command, so the references keep coming fresh) → hold;
- a module without an accepted state frame for ``state_timeout`` is marked lost → the robot is held (its
  HEARTBEAT alone does not keep it: a module that sends no state is reported so); a new or returning module's
  frames are checked as any other (the first against its last accepted frame: no motion faster than the servo)
  and it counts as back once they have come in sequence for ``recover_time``;
- while the ROS clock is stopped or jumped back (:meth:`clock_fault`, reported first) state frames that queued
  meanwhile have no time to be judged by: each module's next frame is a new baseline, and no frame loss is
  counted over that time;
- bus-off (failed sends, SocketCAN error frames) → hold, the bus is reopened through the factory
  every ``bus_retry_period`` until sends succeed (the kernel's ``restart-ms`` does the controller
  restart; no ``ip link`` here);
- NaN/Inf or wrongly sized references → refused, hold;
- every reference sent is clipped to ±60° (or the robot's smaller joint limit) and to the SEA
  deflection limit around the measured link angle (``snake_core.controllers.limits``), and its
  change per cycle to the servo's maximum speed, so leaving a hold never jumps; its speed reference
  β̇_d to the servo's speed, never beyond a clipped β_d, and toward a joint limit to the speed from
  which the servo stops before it (``CommandLimits.speed``);
- hold = every module keeps the motor angle β it had when the hold began;
- a fault clears when its cause has been gone for ``recover_time``; every change is a
  :class:`FaultEvent` and the current picture is :meth:`diagnostics`.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import can
import numpy as np

from snake_core.controllers.limits import SEALimits, command_limits, sea_limits
from snake_core.robot import RobotParams
from snake_core.validation import ConfigError, number, positive

from . import protocol as p
from .diagnostics import ERROR, OK, STALE, WARN, DiagnosticRecord, FaultEvent
from .faults import CAN_ERR_BUSOFF
from .plausibility import FrameChecks

BusFactory = Callable[[], can.BusABC]

#: Faults after which the robot is held (the others are warnings: the loop keeps running).
#: A stopped or jumped ROS clock comes first: what follows from it (stale commands) is no cause of its own.
HOLDING = ("clock", "command_watchdog", "upstream_stale", "command_invalid", "module_lost", "bus_fault",
           "heavy_frame_loss", "estop", "implausible_state", "foreign_command")
RECONFIGURE_PERIOD = 0.2  # s between CONFIG frames to a module that reports itself disabled (and between releases)
RELEASE_TIMEOUT = 1.0  # s the modules have to confirm the release of an emergency stop
RELEASE_HOW = "release it with the can_bridge's ~/estop service (data: false)"
EVENT_HISTORY = 1000  # fault events kept for inspection
RATE_FILTER = 2 * math.pi * 20.0  # rad/s, low-pass on the differentiated β (and α on the compact profile)


@dataclass(frozen=True)
class DriverConfig:
    command_timeout: float = 0.1  # s, command watchdog
    state_timeout: float = 0.35  # s without an accepted state frame (3.5 periods of an idle module's) → module lost
    recover_time: float = 0.2  # s a cause must be gone before its fault clears
    bus_retry_period: float = 0.5  # s between attempts to reopen a bus that is off
    module_watchdog: float = 0.05  # s, the modules' own command watchdog (CONFIG)
    loss_warning: float = 0.01  # fraction of STATE frames lost (counter gaps) that raises a warning
    # CAN retransmits corrupted frames, so sustained loss means a failing node or wiring: above
    # loss_hold the robot is held (TSC needs every neighbour's angle) until loss is back under
    # loss_warning (hysteresis, so a borderline rate does not toggle the hold).
    loss_hold: float = 0.05
    statistics_window: float = 1.0  # s over which frame loss and malformed frames are counted

    def __post_init__(self) -> None:
        for name in ("command_timeout", "state_timeout", "recover_time", "bus_retry_period",
                     "statistics_window"):
            positive(getattr(self, name), f"driver.{name}")
        number(self.module_watchdog, "driver.module_watchdog", low=0.0, high=0.255)
        number(self.loss_warning, "driver.loss_warning", low=0.0, high=1.0)
        number(self.loss_hold, "driver.loss_hold", low=self.loss_warning, high=1.0)


@dataclass(frozen=True)
class JointStates:
    """The latest measurements, tail → head; ``valid`` is False for a module never heard or lost."""

    alpha: np.ndarray
    alpha_dot: np.ndarray
    beta: np.ndarray
    beta_dot: np.ndarray
    tau: np.ndarray
    valid: np.ndarray


class CanDriver:
    def __init__(self, robot: RobotParams, bus_factory: BusFactory, config: DriverConfig | None = None):
        if robot.can_ids is None:
            raise ConfigError("robot.can", None, "the CAN driver needs can.module_ids in the robot file", robot.name)
        if robot.actuator is None:
            raise ConfigError("robot.actuator", None, "the CAN driver needs the actuator section (gains, max speed)",
                              robot.name)
        self.profile = p.PROFILES[robot.can_profile]
        rate = next((s for s in self.profile.command.signals if s.name == "beta_rate_ref"), None)
        if rate is not None and robot.actuator.max_speed > rate.maximum:
            raise ConfigError("actuator.max_speed", robot.actuator.max_speed, f"must be at most {rate.maximum} rad/s, "
                              f"the β̇_d the {self.profile.command.name} frame carries", robot.name)
        if self.profile.host_torque:
            _check_host_torque(robot, self.profile)
        self.robot = robot
        self.config = config or DriverConfig()
        self.limits: list[SEALimits] = [sea_limits(robot, j + 1, robot.name) for j in range(robot.n_joints)]
        self.command_limits = command_limits(robot)
        self.commands_clamped = 0  # command values beyond the joint limits, since start
        self.nodes = robot.can_ids
        self._index = {node: j for j, node in enumerate(self.nodes)}
        self._factory = bus_factory
        self.bus: can.BusABC | None = bus_factory()
        n = robot.n_joints
        self.alpha, self.alpha_dot, self.beta, self.beta_dot, self.tau = (np.zeros(n) for _ in range(5))
        self.heard = np.zeros(n, dtype=bool)
        self.last_seen = np.full(n, -math.inf)  # time of each module's last accepted state frame
        self._back_since = np.full(n, math.inf)  # since when a new or returning module's frames come in sequence
        self._heartbeat_seen = np.full(n, -math.inf)  # time of each module's last HEARTBEAT (reported, not trusted)
        self._rebaseline = np.zeros(n, dtype=bool)  # the next state frame starts afresh (after a clock fault)
        self.module_status: list[dict[str, float]] = [{} for _ in range(n)]
        self._state_time = np.full(n, -math.inf)  # time of the last state frame of each module
        self.zero_offset = np.zeros(n)  # δ_0 of each module (CALIBRATE_REPLY); compact and fd need it
        self._offset_asked = np.full(n, -math.inf)
        self._offset_known = np.zeros(n, dtype=bool)
        self._state_counter = [-1] * n
        self._checks = FrameChecks(robot.actuator.max_speed)
        self._state_sent_after = np.full(n, -math.inf)  # a module's last accepted state frame was sent after this
        self._suspect: dict[str, str] = {}  # fault → the last frame of this step that raised it
        self._received = np.zeros(n, dtype=int)  # STATE frames in the current statistics window
        self._missed = np.zeros(n, dtype=int)  # counter gaps in the current window
        self._malformed = 0
        self._last_malformed = ""
        self._window_start = 0.0
        self.loss = np.zeros(n)  # fraction of STATE frames lost over the last window
        self.malformed_rate = 0.0  # malformed frames per second over the last window
        self.command: np.ndarray | None = None
        self.command_rate = np.zeros(n)
        self.command_time = -math.inf
        self.upstream: str | None = None  # what the deadman watches: the controllers' own command topic (None: off)
        self.upstream_time = -math.inf  # when it was last heard
        self.sent = np.zeros(n)  # last β_d sent
        self.sent_rate = np.zeros(n)  # and its β̇_d (the modules of the compact and fd profiles form it themselves)
        self.hold_beta = np.zeros(n)
        self.holding = False  # the first step holds (command watchdog) until fresh commands arrive
        self.faults: dict[str, str] = {}
        self._cause_gone: dict[str, float] = {}
        self.events: deque[FaultEvent] = deque(maxlen=EVENT_HISTORY)
        self.frames_sent = 0
        self.send_errors = 0
        self._bus_retry_at = math.inf
        self._last_config = np.full(n, -math.inf)
        self._next_heartbeat = 0.0
        self._hb_counter = 0
        self._cmd_counter = 0
        self._last_step = None
        self._previous_step = 0.0
        self._release: tuple[float, float] | None = None  # (started, last sent) of a release awaiting confirmation
        self.now = 0.0

    # ------------------------------------------------------------------------------------ input
    def set_command(self, beta_d: Sequence[float], beta_rate_d: Sequence[float] | None, now: float) -> None:
        """A fresh motor reference β_d (and its rate) for every joint, tail → head [rad, rad/s]."""
        n = self.robot.n_joints
        b = np.asarray(beta_d, dtype=float).ravel()
        r = np.zeros(n) if beta_rate_d is None else np.asarray(beta_rate_d, dtype=float).ravel()
        refused = self.command_limits.refusal(b) or (
            None if r.shape == (n,) else f"command rate has {r.size} values, the robot has {n} joints") or (
            None if np.all(np.isfinite(r)) else "command contains NaN or Inf")
        if refused:
            self.reject_command(refused, now)
            return
        self._cause_cleared("command_invalid", now)
        self._count_clamped(b, r, now)
        self.command, self.command_rate, self.command_time = b, r, now

    def watch_upstream(self, what: str) -> None:
        """Hold unless the controllers upstream of ros2_control (``what``: their own command topic) were heard
        (:meth:`upstream_heard`) within ``command_timeout``: the deadman of the controllers themselves."""
        self.upstream = what

    def upstream_heard(self, now: float) -> None:
        """The controllers watched by :meth:`watch_upstream` sent a command at ``now``."""
        self.upstream_time = now

    def _count_clamped(self, beta_d: np.ndarray, beta_rate_d: np.ndarray, now: float) -> None:
        """Command values beyond a joint's reference limit or the servo's speed (the sent reference is clipped
        to them): counted and reported as a warning (``command_clamped``) while they keep coming."""
        limits = self.command_limits
        outside = limits.outside(beta_d).sum() + (np.abs(beta_rate_d) > limits.max_speed).sum()
        if outside:
            self.commands_clamped += int(outside)
            self._set_fault("command_clamped", "command values outside the joint limits and the servo's speed ("
                            f"{limits.describe()}) clamped", now)
        else:
            self._cause_cleared("command_clamped", now)

    def clock_fault(self, reason: str | None, now: float) -> None:
        """The node's ROS clock stopped or jumped back (``reason``; None: it runs again): hold meanwhile."""
        if reason is None:
            self._clear("clock", now)
        else:
            self._set_fault("clock", f"ROS {reason}", now)
            self._rebaseline[:] = True
        self._restart_statistics(now)  # no frame loss judged across a clock fault

    def reject_command(self, reason: str, now: float) -> None:
        """A command that cannot be used: hold the robot and report ``reason``."""
        self._set_fault("command_invalid", reason, now)

    def estop(self, now: float, engage: bool = True) -> None:
        """Broadcast an emergency stop (engage; the driver holds) or release it (:meth:`release`)."""
        if not engage:
            self.release(now)
            return
        self._release = None
        self._send("ESTOP", p.MASTER_NODE, {"engage": True, "reason": 0, "source": p.MASTER_NODE})
        self._set_fault("estop", "emergency stop engaged by the operator", now)

    def release(self, now: float) -> None:
        """Release an emergency stop: ESTOP release and CONFIG enable to every module, sent again every
        RECONFIGURE_PERIOD until each module confirms (a state frame with ``estop`` clear and ``enabled``); the
        driver holds until then, and reports the modules that did not confirm within RELEASE_TIMEOUT."""
        self._release = (now, now)
        self._set_fault("estop", "release sent: waiting for every module to confirm", now)
        for fid, data in release_frames(self.robot, self.config.module_watchdog, self.nodes):
            self._transmit(fid, data)
        self._last_config[:] = now

    def configure(self, enable: bool, now: float, nodes: Sequence[int] | None = None) -> None:
        """CONFIG: position mode with the robot file's gains, enabled or disabled."""
        for node in nodes or self.nodes:
            self._send("CONFIG", node, config_values(self.robot, self._index[node], enable,
                                                     self.config.module_watchdog))
            self._last_config[self._index[node]] = now

    # ------------------------------------------------------------------------------------- loop
    def step(self, now: float) -> None:
        """One control cycle at time ``now`` [s]: receive, supervise, send."""
        dt = 0.0 if self._last_step is None else max(now - self._last_step, 0.0)
        self._previous_step = now if self._last_step is None else self._last_step
        self._last_step, self.now = now, now
        self._receive(now)
        self._supervise(now)
        self._send_commands(now, dt)
        if now >= self._next_heartbeat:
            self._next_heartbeat = now + 1.0 / p.HEARTBEAT_RATE
            self._hb_counter = (self._hb_counter + 1) % 256
            self._send("HEARTBEAT", p.MASTER_NODE, {"state": 3 if self.holding else 2, "counter": self._hb_counter})

    def alive(self, now: float) -> np.ndarray:
        """Which modules count: an accepted state frame within ``state_timeout``, in sequence for ``recover_time``."""
        return self.heard & (now - self.last_seen <= self.config.state_timeout) & \
            (now - self._back_since >= self.config.recover_time)

    def joint_states(self) -> JointStates:
        valid = self.alive(self.now)
        return JointStates(self.alpha.copy(), self.alpha_dot.copy(), self.beta.copy(), self.beta_dot.copy(),
                           self.tau.copy(), valid)

    def close(self) -> None:
        if self.bus is not None:
            self.bus.shutdown()
            self.bus = None

    # --------------------------------------------------------------------------------- internals
    def _receive(self, now: float) -> None:
        if self.bus is None:
            return
        while True:
            try:
                msg = self.bus.recv(timeout=0)
            except can.CanError as exc:
                self._set_fault("bus_fault", f"receive failed: {exc}", now)
                return
            if msg is None:
                return
            if msg.is_error_frame:
                if msg.arbitration_id & CAN_ERR_BUSOFF:
                    self._set_fault("bus_fault", "controller reports bus-off", now)
                continue
            try:
                frame = p.decode(msg.arbitration_id, bytes(msg.data), extended=msg.is_extended_id, fd=msg.is_fd)
            except p.ProtocolError as exc:
                self._malformed += 1
                self._last_malformed = str(exc)
                continue
            foreign = self._checks.foreign(frame, msg.arbitration_id, bytes(msg.data))
            if foreign is not None:
                self._suspect["foreign_command"] = foreign
            elif frame.kind == self.profile.state.name and frame.node not in self._index:
                self._suspect["implausible_state"] = (f"{frame.kind} from module {frame.node}, which the robot file "
                                                      "does not list")
            elif frame.kind in _FOREIGN[self.profile.name]:
                self._malformed += 1
                self._last_malformed = (f"{frame.kind} from node {frame.node} belongs to another bus profile; this "
                                        f"driver runs {self.profile.name} (robot file can.profile)")
            elif frame.kind in (self.profile.state.name, "HEARTBEAT", "CALIBRATE_REPLY") and frame.node in self._index:
                self._module_frame(frame, now)
            elif frame.kind == "ESTOP" and frame.node == p.MASTER_NODE:
                if not frame.values["engage"] and not self._checks.ours(msg.arbitration_id, bytes(msg.data)):
                    self._foreign_release(now)
                elif frame.values["source"] != p.MASTER_NODE:
                    self._set_fault("estop", f"emergency stop raised by module {frame.values['source']}", now)

    def _foreign_release(self, now: float) -> None:
        """An e-stop release frame another node sent (snake-can estop --release, or any node on the bus): this
        driver's own release path if the robot file says so (can.estop_release_from_bus), else ignored, and while
        a stop holds the robot it stays held and says so."""
        if self.robot.can_bus_release:
            self.release(now)
        elif "estop" in self.faults and self._release is None:
            self._set_fault("estop", "emergency stop: a release frame from another node on the bus was ignored "
                            f"(robot file can.estop_release_from_bus is false); {RELEASE_HOW}", now)

    def _module_frame(self, frame: p.Frame, now: float) -> None:
        j = self._index[frame.node]
        if frame.kind == "CALIBRATE_REPLY":
            self.zero_offset[j], self._offset_known[j] = frame.values["offset"], True
        if frame.kind == "HEARTBEAT":
            self._heartbeat_seen[j] = now
        if frame.kind != self.profile.state.name:
            return
        reading = p.state_reading(frame, self.robot.sea.stiffness[j], self.robot.sea.deflection_limit,
                                  float(self.zero_offset[j]))
        returning = now - self.last_seen[j] > self.config.state_timeout
        fresh = returning or "clock" in self.faults or self._rebaseline[j]
        # a returning module's first frame against its last accepted one (its counter may have restarted)
        doubt = None if not self.heard[j] or (fresh and not returning) else self._checks.state(
            frame.node, reading.beta, reading.counter, float(self.beta[j]), -1 if fresh else self._state_counter[j],
            now - self._state_sent_after[j])
        if doubt is not None:  # not this module's (a spoofed or replayed frame): refused
            self._suspect["implausible_state"] = doubt
            return
        self._rebaseline[j] = "clock" in self.faults  # frames queued while the clock stood: the next starts afresh
        if fresh:
            # a new or returning module, or time to judge by lost: its frames start afresh (counter, rates); a
            # returning one is held where it is and rate-limited from there
            if returning:
                self.sent[j] = self.hold_beta[j] = reading.beta
                self._back_since[j] = now
                self._offset_known[j] = False  # a returning module may have been recalibrated or rebooted
            self.alpha[j], self.beta[j], self._state_time[j] = reading.alpha, reading.beta, now
            self._state_counter[j] = -1  # its counter restarts: not a loss
        self._state_sent_after[j] = self._previous_step
        self.last_seen[j] = now
        self.heard[j] = True
        if self._state_counter[j] >= 0:
            self._missed[j] += (reading.counter - self._state_counter[j] - 1) % 16
        self._state_counter[j] = reading.counter
        self._received[j] += 1
        elapsed = now - self._state_time[j]
        self.beta_dot[j] = _filtered_rate(self.beta_dot[j], reading.beta - self.beta[j], elapsed)
        self.alpha_dot[j] = reading.alpha_rate if reading.alpha_rate is not None else \
            _filtered_rate(self.alpha_dot[j], reading.alpha - self.alpha[j], elapsed)
        self._state_time[j] = now
        self.alpha[j], self.beta[j], self.tau[j] = reading.alpha, reading.beta, reading.tau
        self.module_status[j] = reading.status

    def _supervise(self, now: float) -> None:
        cfg = self.config
        # frames the bus should not carry (plausibility): hold while they keep coming
        for key in ("implausible_state", "foreign_command"):
            if key in self._suspect:
                self._set_fault(key, self._suspect.pop(key), now)
            else:
                self._cause_cleared(key, now)
        # command watchdog (only once something has been commanded or the robot was started)
        stale = now - self.command_time > cfg.command_timeout
        if stale:
            self._set_fault("command_watchdog", "no fresh motor command for "
                            f"{cfg.command_timeout * 1e3:.0f} ms", now)
        else:
            self._cause_cleared("command_watchdog", now)
        if self.upstream is not None:
            if now - self.upstream_time > cfg.command_timeout:
                self._set_fault("upstream_stale", f"no command from the controllers on {self.upstream} for "
                                f"{cfg.command_timeout * 1e3:.0f} ms (stopped or hung)", now)
            else:
                self._cause_cleared("upstream_stale", now)
        # modules
        lost = np.flatnonzero(~self.alive(now))
        if lost.size:
            beating = now - self._heartbeat_seen[lost] <= cfg.state_timeout
            self._set_fault("module_lost", "no state frame from module(s) " + ", ".join(
                f"{self.nodes[j]}{' (its HEARTBEAT comes)' if b else ''}" for j, b in zip(lost, beating, strict=True))
                + f" for {cfg.state_timeout * 1e3:.0f} ms", now)
        else:
            self._clear("module_lost", now)
        # bus
        if "bus_fault" in self.faults and now >= self._bus_retry_at:
            self._reopen_bus(now)
        # statistics window
        if now - self._window_start >= cfg.statistics_window and "clock" not in self.faults:
            total = self._received + self._missed
            self.loss = np.where(total > 0, self._missed / np.maximum(total, 1), 0.0)
            self.malformed_rate = self._malformed / (now - self._window_start)
            lossy = [f"module {self.nodes[j]} {100 * self.loss[j]:.0f} %" for j in range(len(self.nodes))
                     if self.loss[j] > cfg.loss_warning]
            if lossy:
                self._set_fault("frame_loss", "STATE frames lost: " + ", ".join(lossy), now)
            else:
                self._clear("frame_loss", now)
                self._clear("heavy_frame_loss", now)
            if self.loss.max(initial=0.0) > cfg.loss_hold:
                self._set_fault("heavy_frame_loss", f"more than {100 * cfg.loss_hold:.0f} % of STATE frames lost: "
                                "robot held", now)
            if self._malformed:
                self._set_fault("malformed_frames", f"{self._malformed} malformed frames in "
                                f"{now - self._window_start:.1f} s (last: {self._last_malformed})", now)
            else:
                self._clear("malformed_frames", now)
            self._restart_statistics(now)
        # τ recomputed on the host (compact, fd) needs each module's zero offset δ_0: ask until it answers
        if self.profile.host_torque:
            due = now - self._offset_asked >= RECONFIGURE_PERIOD
            for j in np.flatnonzero(self.heard & ~self._offset_known & due):
                self._send("CALIBRATE", self.nodes[j], {"op": 0, "offset": 0.0})
                self._offset_asked[j] = now
        self._supervise_estop(now)
        # modules that came back disabled (rebooted, or after an estop release) are enabled again
        if "estop" not in self.faults:
            for j, status in enumerate(self.module_status):
                if status and not status["enabled"] and now - self._last_config[j] >= RECONFIGURE_PERIOD \
                        and now - self.last_seen[j] <= cfg.state_timeout:
                    self.configure(True, now, [self.nodes[j]])
        holding = any(k in self.faults for k in HOLDING)
        if holding and not self.holding:
            # hold where the motors are; never-heard modules hold at the last reference sent
            self.hold_beta = np.where(self.heard, self.beta, self.sent)
        self.holding = holding

    def _restart_statistics(self, now: float) -> None:
        """A new window of frame statistics from ``now``."""
        self._received[:], self._missed[:], self._malformed = 0, 0, 0
        self._window_start = now

    def _supervise_estop(self, now: float) -> None:
        """A module latched in an emergency stop holds the robot (a bridge started after the stop included); a
        release clears the hold once every module confirms it."""
        alive = self.alive(now)
        if self._release is not None:
            started, sent = self._release
            confirmed = alive & (self._state_time > sent) & np.array([release_confirmed(s) for s in self.module_status])
            waiting = [self.nodes[j] for j in np.flatnonzero(~confirmed)]
            if not waiting:
                self._release = None
                self._clear("estop", now)
            elif now - started >= RELEASE_TIMEOUT:
                self._release = None
                self._set_fault("estop", "module(s) " + ", ".join(map(str, waiting)) + " did not confirm the "
                                f"release within {RELEASE_TIMEOUT:g} s: still held; {RELEASE_HOW}", now)
            elif now - sent >= RECONFIGURE_PERIOD:
                self.release(now)
                self._release = (started, now)
            return
        latched = [self.nodes[j] for j in np.flatnonzero(alive) if self.module_status[j].get("estop")]
        if latched and "estop" not in self.faults:
            self._set_fault("estop", "module(s) " + ", ".join(map(str, latched)) + " latched in an emergency stop; "
                            + RELEASE_HOW, now)

    def _send_commands(self, now: float, dt: float) -> None:
        if self.bus is None:
            return
        if self.holding:
            target, rate = self.hold_beta, np.zeros_like(self.hold_beta)
        else:
            target, rate = self.command, self.command_rate
        beta_d = self.command_limits.toward(target, self.sent, dt)
        self._cmd_counter += 1
        for j, lim in enumerate(self.limits):
            # ±60° (and the robot's joint limit), then the SEA deflection limit around the measured α
            beta_d[j] = lim.reference(lim.motor(self.alpha[j], lim.reference(beta_d[j])))
        rate = self.command_limits.speed(rate, beta_d, target, self.beta, dt)
        self.sent, self.sent_rate = beta_d, rate
        # never command a module whose position is unknown (NaN: no frame, or no slot in its group)
        for fid, data in self.profile.command_frames(self.nodes, np.where(self.heard, beta_d, np.nan), rate,
                                                     self._cmd_counter):
            self._transmit(fid, data)

    def _send(self, kind: str, node: int, values: dict) -> bool:
        return self._transmit(*p.encode(kind, node, values))

    def _transmit(self, fid: int, data: bytes) -> bool:
        if self.bus is None:
            return False
        try:
            self.bus.send(can_message(fid, data))
            self._checks.sent(fid, data)
        except can.CanError as exc:
            self.send_errors += 1
            self._set_fault("bus_fault", f"send failed: {exc}", self.now)
            return False
        self.frames_sent += 1
        if "bus_fault" in self.faults:
            self._cause_cleared("bus_fault", self.now)
        return True

    def _reopen_bus(self, now: float) -> None:
        self._bus_retry_at = now + self.config.bus_retry_period
        try:
            if self.bus is not None:
                self.bus.shutdown()
            self.bus = self._factory()
        except (can.CanError, OSError) as exc:
            self.bus = None
            self.faults["bus_fault"] = f"cannot reopen the bus: {exc}"

    # fault bookkeeping ---------------------------------------------------------------------------
    def _set_fault(self, key: str, message: str, now: float) -> None:
        self._cause_gone.pop(key, None)
        if key == "bus_fault" and "bus_fault" not in self.faults:
            self._bus_retry_at = now + self.config.bus_retry_period
        if self.faults.get(key) != message:
            if key not in self.faults:
                self.events.append(FaultEvent(now, key, True, message))
            self.faults[key] = message

    def _cause_cleared(self, key: str, now: float) -> None:
        """The cause is gone; the fault clears after ``recover_time`` without it."""
        if key not in self.faults:
            return
        since = self._cause_gone.setdefault(key, now)
        if now - since >= self.config.recover_time:
            self._clear(key, now)

    def _clear(self, key: str, now: float) -> None:
        self._cause_gone.pop(key, None)
        if self.faults.pop(key, None) is not None:
            self.events.append(FaultEvent(now, key, False, "cleared"))

    # ------------------------------------------------------------------------------ diagnostics
    def diagnostics(self) -> list[DiagnosticRecord]:
        """The bus, the safety state and one record per module, as diagnostic_msgs would carry them."""
        bus_level = ERROR if ("bus_fault" in self.faults or "heavy_frame_loss" in self.faults) else WARN if (
            "frame_loss" in self.faults or "malformed_frames" in self.faults) else OK
        bus_msg = "; ".join(self.faults[k] for k in ("bus_fault", "frame_loss", "malformed_frames")
                            if k in self.faults) or "bus ok"
        records = [DiagnosticRecord("can_bridge: bus", bus_level, bus_msg, "can", (
            ("frames_sent", str(self.frames_sent)), ("send_errors", str(self.send_errors)),
            ("malformed_per_s", f"{self.malformed_rate:.1f}"),
            ("state_loss_max", f"{float(self.loss.max()) if self.loss.size else 0.0:.3f}")))]
        held = [k for k in HOLDING if k in self.faults]
        clamped = "command_clamped" in self.faults
        records.append(DiagnosticRecord(
            "can_bridge: safety", ERROR if held else WARN if clamped else OK,
            ("robot held: " + "; ".join(self.faults[k] for k in held)) if held else
            self.faults["command_clamped"] if clamped else "running", "can",
            (*((k, self.faults[k]) for k in held), ("commands_clamped", str(self.commands_clamped)))))
        for j, node in enumerate(self.nodes):
            s = self.module_status[j]
            lost = not self.alive(self.now)[j]
            flags = [f for f in p.STATUS_FLAGS if f != "enabled" and s.get(f)]
            level = STALE if lost else WARN if flags else OK
            msg = ("module lost" if self.heard[j] else "module never heard") if lost else \
                  ("status: " + ", ".join(flags) if flags else "ok")
            records.append(DiagnosticRecord(
                f"can_bridge: joint_{j + 1} (module {node})", level, msg, f"can_module_{node}", (
                    ("alpha_rad", f"{self.alpha[j]:.4f}"), ("beta_rad", f"{self.beta[j]:.4f}"),
                    ("tau_Nm", f"{self.tau[j]:.2f}"), ("beta_ref_rad", f"{self.sent[j]:.4f}"),
                    ("state_loss", f"{self.loss[j]:.3f}"))))
        return records


#: frame kinds of the other profiles: a module configured for another profile, reported as malformed
_FOREIGN = {name: {f.name for other in p.PROFILES.values() if other is not prof for f in (other.command, other.state)}
            for name, prof in p.PROFILES.items()}


def _filtered_rate(rate: float, change: float, elapsed: float) -> float:
    """One step of the first-order low-pass (RATE_FILTER) on a differentiated reading."""
    if not 0 < elapsed < 1.0:
        return rate
    gain = RATE_FILTER * elapsed / (1 + RATE_FILTER * elapsed)
    return rate + gain * (change / elapsed - rate)


def _check_host_torque(robot: RobotParams, profile: p.BusProfile) -> None:
    """The ranges of a profile whose state frame carries α and the deflection (compact, fd): joints 1..31
    by joint index in the command frames, α and the deflection in fewer bits than STATE."""
    if robot.sea is None:
        raise ConfigError("can.profile", profile.name, "needs the sea section (τ is recomputed from the deflection)",
                          robot.name)
    if robot.n_joints > p.MAX_JOINT_INDEX:
        raise ConfigError("can.profile", profile.name, f"addresses at most {p.MAX_JOINT_INDEX} joints; the robot "
                          f"has {robot.n_joints}", robot.name)
    alpha, deflection = (s.maximum for s in profile.state.signals[:2])
    reach = robot.joint_limit + robot.sea.deflection_limit
    if reach > alpha or robot.sea.deflection_limit > deflection:
        raise ConfigError("can.profile", profile.name, f"carries |α| ≤ {math.degrees(alpha):.1f}° and |α − β| ≤ "
                          f"{math.degrees(deflection):.1f}°; the robot reaches {math.degrees(reach):.1f}° with a "
                          f"deflection limit of {math.degrees(robot.sea.deflection_limit):.1f}°", robot.name)


def open_bus(interface: str = "socketcan", channel: str = "can0", *, fd: bool = False, **kwargs) -> can.BusABC:
    """A python-can bus (SocketCAN by default); ``fd``: send and receive CAN FD frames too. The interface
    must already be up at 1 Mbit/s (``ip link set can0 up type can bitrate 1000000 restart-ms 100``; for
    the fd profile add ``dbitrate 5000000 fd on``, docs/can_protocol.md)."""
    if interface == "socketcan":
        kwargs.setdefault("receive_own_messages", False)
    if fd:
        kwargs["fd"] = True
    return can.Bus(interface=interface, channel=channel, **kwargs)


def config_values(robot: RobotParams, joint: int, enable: bool, watchdog: float) -> dict[str, float]:
    """CONFIG of joint ``joint`` (0-based): position mode with the robot file's gains, enabled or disabled."""
    a = robot.actuator
    return {"mode": 1 if enable else 0, "enable": enable, "joint_index": joint + 1, "kp": a.kp, "ki": 0.0,
            "kd": a.kd, "watchdog": watchdog}


def release_frames(robot: RobotParams, watchdog: float, nodes: Sequence[int]) -> list[tuple[int, bytes]]:
    """The frames that release an emergency stop: ESTOP release, then CONFIG enable of every module (a module
    stays latched in hold until enabled again)."""
    index = {node: j for j, node in enumerate(robot.can_ids)}
    return [p.encode("ESTOP", p.MASTER_NODE, {"engage": False, "reason": 0, "source": p.MASTER_NODE}),
            *(p.encode("CONFIG", node, config_values(robot, index[node], True, watchdog)) for node in nodes)]


def release_confirmed(status: Mapping[str, float]) -> bool:
    """A module's status (the flags of its state frame) that confirms a release: emergency stop clear, enabled."""
    return bool(status) and not status["estop"] and bool(status["enabled"])


def can_message(fid: int, data: bytes) -> can.Message:
    """The python-can message of an encoded frame: classic, or CAN FD with bit-rate switching when its
    frame type is an FD one (protocol.FrameType.fd)."""
    fd = p.is_fd(fid)
    return can.Message(arbitration_id=fid, data=data, is_extended_id=False, is_fd=fd, bitrate_switch=fd)
