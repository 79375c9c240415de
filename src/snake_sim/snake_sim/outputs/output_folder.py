"""The output folder of a command, made and checked before anything runs.

``snake-sim run`` and ``snake-sim sweep`` write their outputs at the end of (or during) a run that may take hours:
:func:`writable_folder` creates the folder and writes (and removes) a probe file in it first, so that a folder that
cannot be written is one error before the run, not a traceback after it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

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
