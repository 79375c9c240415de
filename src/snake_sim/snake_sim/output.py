"""The output folder of a command, made and checked before anything runs, so that a run is never lost to a
folder that cannot be written (a file in the way, no permission, a read-only disk)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from snake_core.validation import ConfigError


def prepare_output_dir(path: Path, field: str = "--out") -> Path:
    """Create ``path`` (with its parents) and write and remove a file in it; ConfigError naming ``field`` and the
    system's reason otherwise."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise ConfigError(field, str(path), f"cannot write there ({exc.strerror or exc})") from None
    return path
