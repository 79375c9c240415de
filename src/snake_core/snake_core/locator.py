"""The one place that finds the suite's data: robot files (config/robots/), scenarios
(config/scenarios/), worlds (worlds/), and the rest of what snake_bringup installs (urdf/, launch/,
config/controllers/, …). Every other module asks here; none walks up the tree or asks ament.

A data folder is one that holds ``config/robots/`` and ``worlds/``. It is looked up in this order,
and the first source that gives one is used:

1. ``SNAKE_SUITE_DATA``: the environment variable, set, names the folder. It is then the only place
   looked at (a wrong value is an error, never silently passed over).
2. The installed snake_bringup share:

   a. ``<prefix>/share/snake_bringup`` of the first prefix on ``AMENT_PREFIX_PATH`` whose ament
      resource index lists snake_bringup (what ``ament_index_python.get_package_share_directory``
      and ``ros2 launch`` use: a sourced colcon install or ROS installation; ``make build`` refreshes
      the copies there, ``colcon build --symlink-install`` links them to the workspace);
   b. the ``share/snake_bringup`` folder that the installed snake_bringup distribution lists among
      its files (pip's ``data_files``, e.g. ``<sys.prefix>/share/snake_bringup`` of a wheel install).
      Only a listed folder counts: an editable install lists none (setuptools installs no data files
      for it), so a copy left in ``.venv/share`` by an earlier install cannot shadow the workspace.
3. The workspace the suite was installed from in editable mode (``pip install -e src/snake_core``):
   two levels above the project folder that the PEP 610 ``direct_url.json`` of the first editable
   snake_core distribution on the path names (``<workspace>/src/snake_core``). Every snake_core
   distribution on the path is asked, so a colcon build's copy of the package (``colcon test`` puts
   it first) does not hide the editable install beside it.

If none gives a data folder, :class:`DataNotFound` lists every place looked at and why it did not serve.
"""

from __future__ import annotations

import json
import os
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

#: Environment variable naming a data folder (source 1).
ENV_VAR = "SNAKE_SUITE_DATA"
#: The package whose share directory holds the data (source 2).
SHARE_PACKAGE = "snake_bringup"
#: The distribution whose editable install names the workspace (source 3).
CORE_DISTRIBUTION = "snake_core"
#: A package's project folder relative to its workspace (``src/<package>``), as a path from the package up.
PACKAGE_TO_WORKSPACE = Path("..", "..")


class DataNotFound(FileNotFoundError):
    """No source gave a data folder; the message lists each place looked at."""


def is_data_dir(folder: Path) -> bool:
    """Whether ``folder`` holds the suite's data (``config/robots/`` and ``worlds/``)."""
    return (folder / "config" / "robots").is_dir() and (folder / "worlds").is_dir()


def ament_share() -> Path | None:
    """snake_bringup's share directory through the ament resource index on ``AMENT_PREFIX_PATH`` (source 2a)."""
    for prefix in filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep)):
        if (Path(prefix) / "share" / "ament_index" / "resource_index" / "packages" / SHARE_PACKAGE).is_file():
            return Path(prefix) / "share" / SHARE_PACKAGE
    return None


def installed_share() -> Path | None:
    """The ``share/snake_bringup`` folder listed in the installed snake_bringup distribution's files (2b)."""
    try:
        files = metadata.distribution(SHARE_PACKAGE).files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == "package.xml" and file.parent.name == SHARE_PACKAGE and file.parent.parent.name == "share":
            return Path(file.locate()).resolve().parent
    return None


def editable_workspace() -> Path | None:
    """The workspace snake_core was installed from in editable mode (PEP 610 ``direct_url.json``, source 3)."""
    for dist in metadata.distributions(name=CORE_DISTRIBUTION):
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        url = urlparse(direct.get("url", ""))
        if url.scheme == "file" and direct.get("dir_info", {}).get("editable", False):
            return (Path(unquote(url.path)) / PACKAGE_TO_WORKSPACE).resolve()
    return None


def sources() -> list[tuple[str, Path | None]]:
    """(description, folder or None) of every place looked at, in order (see the module docstring)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return [(f"${ENV_VAR}", Path(env))]
    return [("snake_bringup's share on AMENT_PREFIX_PATH", ament_share()),
            ("the share/snake_bringup files of the installed snake_bringup distribution", installed_share()),
            ("the workspace of an editable snake_core install (direct_url.json)", editable_workspace())]


def data_dir() -> Path:
    """The folder that holds ``config/``, ``worlds/``, ``urdf/`` and ``launch/``; DataNotFound if none."""
    looked = []
    for description, folder in sources():
        if folder is not None and is_data_dir(folder):
            return folder
        looked.append(f"{description}: " + ("none" if folder is None else f"{folder} holds no config/robots/ "
                                                                           "and worlds/"))
    raise DataNotFound("cannot find the suite's data (config/, worlds/, urdf/); looked at: " + "; ".join(looked)
                       + f". Set {ENV_VAR} to the folder, source a colcon install, or pip install -e the workspace")


def _resolve(kind: str, name: str | os.PathLike, suffix: str) -> Path:
    path = Path(name)
    if path.suffix == suffix or path.exists():
        return path
    return data_dir() / kind / f"{name}{suffix}"


def _names(kind: str, suffix: str) -> list[str]:
    return sorted(p.stem for p in (data_dir() / kind).glob(f"*{suffix}"))


def robot_file(name: str | os.PathLike) -> Path:
    """``config/robots/<name>.yaml`` or the path itself."""
    return _resolve("config/robots", name, ".yaml")


def scenario_file(name: str | os.PathLike) -> Path:
    """``config/scenarios/<name>.yaml`` or the path itself."""
    return _resolve("config/scenarios", name, ".yaml")


def world_file(name: str | os.PathLike) -> Path:
    """``worlds/<name>.sdf`` or the path itself."""
    return _resolve("worlds", name, ".sdf")


def robot_names() -> list[str]:
    """Robots shipped in config/robots/."""
    return _names("config/robots", ".yaml")


def scenario_names() -> list[str]:
    """Scenarios shipped in config/scenarios/."""
    return _names("config/scenarios", ".yaml")


def world_names() -> list[str]:
    """Worlds shipped in worlds/."""
    return _names("worlds", ".sdf")
