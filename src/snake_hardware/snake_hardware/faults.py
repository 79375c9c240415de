"""Fault injection around a python-can bus, for tests and for ``snake-can emulate --drop``: lost
frames (at random, or every frame of given ids), and a bus-off (sends fail, an error frame reports
CAN_ERR_BUSOFF as SocketCAN does)."""

from __future__ import annotations

from dataclasses import dataclass, field

import can
import numpy as np

from snake_core.validation import number

CAN_ERR_BUSOFF = 0x040  # linux/can/error.h: error class of a bus-off error frame


@dataclass
class FaultSwitches:
    """Mutable fault state shared by every :class:`FaultyBus` opened for one scenario."""

    drop_rate: float = 0.0  # probability that a frame sent or received through the wrapper is lost
    drop_ids: frozenset[int] = frozenset()  # arbitration ids whose frames are all lost (one frame type of one node)
    bus_off: bool = False
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def __post_init__(self) -> None:
        number(self.drop_rate, "drop_rate", low=0.0, high=1.0)


class FaultyBus:
    """Wraps a bus: drops frames with ``drop_rate`` and received frames of ``drop_ids``; while ``bus_off`` every
    send raises ``can.CanOperationError`` and the first receive returns a bus-off error frame."""

    def __init__(self, bus: can.BusABC, switches: FaultSwitches):
        self.bus = bus
        self.switches = switches
        self._reported_off = False

    def send(self, msg: can.Message, timeout: float | None = None) -> None:
        if self.switches.bus_off:
            raise can.CanOperationError("bus off (injected)")
        if self.switches.rng.random() < self.switches.drop_rate:
            return
        self.bus.send(msg, timeout)

    def recv(self, timeout: float | None = None) -> can.Message | None:
        if self.switches.bus_off:
            if not self._reported_off:
                self._reported_off = True
                return can.Message(arbitration_id=CAN_ERR_BUSOFF, is_error_frame=True, dlc=8, data=bytes(8))
            while self.bus.recv(timeout=0) is not None:
                pass  # nothing gets through while the controller is off the bus
            return None
        self._reported_off = False
        while True:
            msg = self.bus.recv(timeout)
            if msg is None or (msg.arbitration_id not in self.switches.drop_ids and
                               self.switches.rng.random() >= self.switches.drop_rate):
                return msg

    def shutdown(self) -> None:
        self.bus.shutdown()
