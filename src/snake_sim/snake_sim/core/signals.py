"""A run stopped by the user: SIGINT (Ctrl-C) or SIGTERM while ``snake-sim run`` simulates.

Inside :func:`stop_on_signals` the first signal only marks the :class:`StopRequest` that the block received; the
runtimes check it once per control period (or solver step) and return the log up to that moment with ``status``
:data:`INTERRUPTED`, so that the command writes the summary, plots and rosbag of the run so far and exits with 128 +
the signal's number (130, 143), as a shell reports a process ended by that signal. Nothing is raised inside the
compiled kernels (numba, MuJoCo, DART, the ODE solvers), which do not pass a Python exception through. A second
signal raises KeyboardInterrupt (a run that does not reach its next check). Inside :func:`interrupt_on_signals` (a
sweep's runs, the writing of a command's outputs) SIGTERM raises :class:`Interrupted` as SIGINT does, so that both
end the block the same way: what is whole is kept.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

#: ``status`` of a run stopped by SIGINT or SIGTERM (summary.json: with ``time_reached_s``).
INTERRUPTED = "interrupted"
SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class StopRequest:
    """The first stopping signal received (None: none yet)."""

    signum: int | None = None

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum is not None else ""

    @property
    def exit_code(self) -> int:
        """128 + the signal's number (SIGINT 130, SIGTERM 143); 0 when none arrived."""
        return 128 + self.signum if self.signum is not None else 0


def stopped(stop: StopRequest | None) -> bool:
    """Whether a run given ``stop`` (None: a run nobody stops) should end at this check."""
    return stop is not None and stop.requested


@contextmanager
def stop_on_signals() -> Iterator[StopRequest]:
    """SIGINT and SIGTERM mark the yielded request (the second one raises KeyboardInterrupt); the handlers before
    the block are restored after it."""
    request = StopRequest()

    def handler(signum: int, frame: FrameType | None) -> None:
        if request.requested:
            raise KeyboardInterrupt
        request.signum = signum

    with _handled(handler):
        yield request


@contextmanager
def _handled(handler: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """``handler`` for SIGINT and SIGTERM in the block; the handlers before it restored after it."""
    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


class Interrupted(KeyboardInterrupt):
    """KeyboardInterrupt raised by SIGINT or SIGTERM inside :func:`interrupt_on_signals`; ``stop`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.stop = StopRequest(signum)


def interrupted_by(exc: KeyboardInterrupt) -> StopRequest:
    """The signal that raised ``exc``: its :class:`Interrupted` request, SIGINT for Python's own KeyboardInterrupt."""
    return exc.stop if isinstance(exc, Interrupted) else StopRequest(signal.SIGINT)


@contextmanager
def interrupt_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM raise :class:`Interrupted` in the block; the handlers before it are restored after it."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    with _handled(handler):
        yield
