"""Where the suite's data (config/, worlds/, urdf/) lives.

Looked up in this order: the ``SNAKE_SUITE_DATA`` environment variable; the source tree the package
was imported from (an editable install or a checkout); the share directory of ``snake_bringup``
found through ament_index (an installed colcon workspace).
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "SNAKE_SUITE_DATA"


def data_dir() -> Path:
    """The folder that holds ``config/``, ``worlds/`` and ``urdf/``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    for parent in Path(__file__).resolve().parents:
        if (parent / "config" / "robots").is_dir() and (parent / "worlds").is_dir():
            return parent
    try:
        from ament_index_python.packages import get_package_share_directory
    except ImportError as exc:  # pragma: no cover - only without a source tree and without ROS
        raise FileNotFoundError(f"cannot find the suite's data folder: set {ENV_VAR}") from exc
    return Path(get_package_share_directory("snake_bringup"))


def _resolve(kind: str, name: str | os.PathLike, suffix: str) -> Path:
    path = Path(name)
    if path.suffix == suffix or path.exists():
        return path
    return data_dir() / kind / f"{name}{suffix}"


def robot_file(name: str | os.PathLike) -> Path:
    """``config/robots/<name>.yaml`` or the path itself."""
    return _resolve("config/robots", name, ".yaml")


def scenario_file(name: str | os.PathLike) -> Path:
    """``config/scenarios/<name>.yaml`` or the path itself."""
    return _resolve("config/scenarios", name, ".yaml")


def world_file(name: str | os.PathLike) -> Path:
    """``worlds/<name>.sdf`` or the path itself."""
    return _resolve("worlds", name, ".sdf")
