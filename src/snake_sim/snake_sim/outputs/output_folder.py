"""The output folder of a command, made and checked before anything runs, and its files written whole.

``snake-sim run`` and ``snake-sim sweep`` write their outputs at the end of (or during) a run that may take hours:
:func:`writable_folder` creates the folder and writes (and removes) a probe file in it first, so that a folder that
cannot be written is one error before the run, not a traceback after it. Every output file (or folder: the rosbag)
is written under a temporary name and renamed when whole (:func:`whole`), so that a full disk or a signal in the
middle of the writing leaves the previous file or none, never a cut one; :class:`OutputWriter` writes a command's
outputs one after another, says which it is writing and goes on past one that cannot be written.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snake_core.validation import ConfigError


def writable_folder(path: Path, option: str = "--out") -> Path:
    """``path``, created if absent and checked writable by a probe file; ConfigError naming ``option`` otherwise."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise ConfigError(option, str(path), f"cannot write there ({exc.strerror or exc})") from None
    return path


def writable_file(path: Path, option: str = "--out") -> Path:
    """``path`` of a file to write, its folder made and checked by :func:`writable_folder`; ConfigError naming
    ``option`` if that folder cannot be written or ``path`` is a folder."""
    writable_folder(path.parent, option)
    if path.is_dir():
        raise ConfigError(option, str(path), "is a folder: give the file to write")
    return path


@contextmanager
def whole(path: Path) -> Iterator[Path]:
    """Where to write ``path`` (a file or a folder): the same name in a hidden folder beside it, renamed over
    ``path`` when the block ends without an exception and removed otherwise, so that ``path`` holds either what it
    held before or the new content whole, whatever stops the writing (a full disk, a signal)."""
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.partial-", dir=path.parent))
    try:
        target = staging / path.name
        yield target
        if target.is_dir() and path.is_dir():
            shutil.rmtree(path)
        os.replace(target, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_text(path: Path, text: str) -> Path:
    """``text`` (UTF-8) written whole at ``path`` (:func:`whole`)."""
    with whole(path) as target:
        target.write_text(text, encoding="utf-8")
    return path


@dataclass
class OutputWriter:
    """A command's outputs written one after another: each step prints what it writes (unless ``quiet``); a step
    that an OSError stops (a full disk) is noted in ``failed`` and the next one is tried, the files it wrote whole
    are in ``written``; ``current`` is the step under way (for a signal's message)."""

    quiet: bool = False
    written: list[Path] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    current: str = ""

    def step(self, what: str, write: Callable[[], list[Path]]) -> None:
        """Run ``write`` (it returns the files it wrote) as the step ``what``."""
        self.current = what
        if not self.quiet:
            print(f"writing {what} ...", flush=True)
        try:
            self.written += write()
        except OSError as exc:
            self.failed.append(f"{what} ({exc.strerror or exc})")
        self.current = ""

    def kept(self) -> str:
        """The files written, for a message."""
        return ", ".join(p.name for p in self.written) or "nothing"


def save_figure(fig: Any, path: Path, dpi: float) -> Path:
    """The matplotlib figure ``fig`` written whole at ``path`` (:func:`whole`; the format from its suffix), then
    closed."""
    import matplotlib.pyplot as plt

    try:
        with whole(path) as target:
            fig.savefig(target, dpi=dpi)
    finally:
        plt.close(fig)
    return path
