"""What the driver believes of a frame beyond its format: state frames that physics or the sequence rule out,
and master frames this driver did not send (:class:`FrameChecks`, used by :class:`snake_hardware.driver.CanDriver`).

A CAN bus has no sender authentication: any node can send a module's state id or the master's command ids. The
format (id, DLC, ranges of the DBC) is :func:`snake_hardware.protocol.decode`'s; here:

- a state frame whose motor angle β moved further since the module's last accepted frame than the servo can turn
  (``actuator.max_speed`` over the time between the two frames, with a margin for the encoder counts) is refused;
- a state frame whose rolling counter repeats or goes back (more than half the counter's range ahead) is refused;
- a state frame from a module id the robot file does not list is refused;
- a master frame (COMMAND, COMMAND_GROUP, COMMAND_FD, CONFIG, CALIBRATE, GAIT) that this driver did not send is
  another master or a spoofer on the bus.

The driver holds the robot while any of these keeps happening and reports it (faults ``implausible_state`` and
``foreign_command``).
"""

from __future__ import annotations

from collections import deque

from . import protocol as p

#: Frame kinds only the master sends.
MASTER_KINDS = frozenset(f.name for f in p.FRAME_TYPES if f.sender == "master")
#: A state frame's β may move up to this multiple of actuator.max_speed over the time since the previous
#: accepted frame (frames queue between the driver's steps, so that time is known only to a step).
SPEED_MARGIN = 1.5
ANGLE_MARGIN = 4 * p.ENCODER_COUNT  # quantisation of β on the wire (β = α − deflection: two readings)
#: The state frames' rolling counter wraps at this (its bits in protocol.STATE; the compact and fd states alike).
STATE_COUNTER_MODULUS = 2 ** next(s.length for s in p.STATE.signals if s.name == "counter")
SENT_MEMORY = 512  # own master frames remembered (an echo of one is not foreign)


class FrameChecks:
    """Plausibility of received frames for a robot whose servos turn at most ``max_speed`` [rad/s]."""

    def __init__(self, max_speed: float):
        self.max_speed = max_speed
        self._sent: deque[tuple[int, bytes]] = deque(maxlen=SENT_MEMORY)
        self._sent_set: dict[tuple[int, bytes], int] = {}

    def sent(self, frame_id: int, data: bytes) -> None:
        """A frame this driver put on the bus."""
        key = (frame_id, bytes(data))
        if len(self._sent) == self._sent.maxlen:
            old = self._sent[0]
            self._sent_set[old] -= 1
            if not self._sent_set[old]:
                del self._sent_set[old]
        self._sent.append(key)
        self._sent_set[key] = self._sent_set.get(key, 0) + 1

    def ours(self, frame_id: int, data: bytes) -> bool:
        """The frame is one this driver sent lately (an echo)."""
        return (frame_id, bytes(data)) in self._sent_set

    def foreign(self, frame: p.Frame, frame_id: int, data: bytes) -> str | None:
        """Why a received master frame is not this driver's (None: not a master frame, or an echo of ours)."""
        if frame.kind not in MASTER_KINDS or self.ours(frame_id, data):
            return None
        return (f"{frame.kind} 0x{frame_id:03X} on the bus that this driver did not send (another master or a "
                "spoofed frame)")

    def state(self, node: int, beta: float, counter: int, last_beta: float, last_counter: int,
              span: float) -> str | None:
        """Why a module's state frame (β, counter) cannot follow its last accepted one (``last_beta``,
        ``last_counter``; ``last_counter`` < 0: none) within ``span`` seconds; None if it can."""
        if last_counter >= 0:
            ahead = (counter - last_counter) % STATE_COUNTER_MODULUS
            if ahead == 0 or ahead > STATE_COUNTER_MODULUS // 2:
                return f"module {node}: state counter {counter} after {last_counter} (repeated or out of order)"
        reach = SPEED_MARGIN * self.max_speed * span + ANGLE_MARGIN
        if abs(beta - last_beta) > reach:
            return (f"module {node}: motor angle jumped {beta - last_beta:+.3f} rad in {span * 1e3:.0f} ms, more "
                    f"than the servo turns ({self.max_speed:g} rad/s)")
        return None
