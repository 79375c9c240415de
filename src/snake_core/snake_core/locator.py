"""The one place that finds the suite's data. Every other module asks here; none walks the tree or asks ament.

Two packages own the data, each as its package data (``importlib.resources.files(<package>)``):

- snake_description: the robot files (``config/robots/``), the xacro and meshes (``urdf/``) and the worlds
  (``worlds/``): :func:`description_dir`;
- snake_bringup: the launch files (``launch/``) and the rest of ``config/`` (scenarios, controllers, SEA modes,
  node parameters, RViz): :func:`data_dir`.

Both folders have the workspace's layout (``<folder>/config/robots/…``, ``<folder>/urdf/…``), so a path relative to
the workspace is one relative to either. Each package folder links the workspace's folders
(``snake_description/urdf -> ../../../urdf``, …): an editable install (``make install``: ``pip install -e``)
reads the workspace through the links, without a build; a build (colcon, a wheel) copies the same files into the
installed package and into its ``share/<package>`` (what ROS tools find through ament's index:
``$(find snake_description)``, ``FindPackageShare``, ``ros2 launch snake_bringup``).

``SNAKE_SUITE_DATA``, set, names one folder of that layout holding both (``config/robots/``, ``worlds/``,
``config/scenarios/``, …): a data set of one's own, e.g. robots and scenarios of a study. It is then the only
place looked at (a wrong value is an error, never silently passed over).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path

#: Environment variable naming a data folder for both roles.
ENV_VAR = "SNAKE_SUITE_DATA"
#: The package whose data holds the robot files, urdf/ and worlds/.
DESCRIPTION_PACKAGE = "snake_description"
#: The package whose data holds launch/ and config/ (scenarios, controllers, SEA modes, node parameters).
BRINGUP_PACKAGE = "snake_bringup"


class DataNotFound(FileNotFoundError):
    """No data folder: the message says where it was looked for."""


def is_data_dir(folder: Path) -> bool:
    """Whether ``folder`` holds the suite's description (``config/robots/`` and ``worlds/``)."""
    return all((folder / sub).is_dir() for sub in DESCRIPTION_HOLDS)


#: What a description folder holds (checked), and a bringup folder.
DESCRIPTION_HOLDS = ("config/robots", "worlds")
BRINGUP_HOLDS = ("config",)


def _folder(package: str, holds: tuple[str, ...]) -> Path:
    """``$SNAKE_SUITE_DATA``, else the package data of ``package``; DataNotFound if it lacks one of ``holds``."""
    env = os.environ.get(ENV_VAR)
    if env:
        folder, where = Path(env), f"${ENV_VAR}"
    else:
        try:
            folder, where = Path(str(resources.files(package))), f"the package data of {package}"
        except ModuleNotFoundError:
            raise DataNotFound(f"cannot find the suite's data: {package} is not installed; set {ENV_VAR} to a "
                               "data folder, source a colcon install, or pip install -e the workspace") from None
    missing = [f"{sub}/" for sub in holds if not (folder / sub).is_dir()]
    if missing:
        raise DataNotFound(f"cannot find the suite's data: {where}: {folder} holds no " + " and no ".join(missing))
    return folder


def description_dir() -> Path:
    """The folder that holds ``config/robots/``, ``urdf/`` and ``worlds/`` (snake_description's data)."""
    return _folder(DESCRIPTION_PACKAGE, DESCRIPTION_HOLDS)


def data_dir() -> Path:
    """The folder that holds ``config/`` (scenarios, controllers, SEA modes, node parameters) and ``launch/``
    (snake_bringup's data)."""
    return _folder(BRINGUP_PACKAGE, BRINGUP_HOLDS)


def _resolve(root: Callable[[], Path], kind: str, name: str | os.PathLike, suffix: str) -> Path:
    path = Path(name)
    if path.suffix == suffix or path.exists():
        return path
    return root() / kind / f"{name}{suffix}"


def _names(root: Path, kind: str, suffix: str) -> list[str]:
    return sorted(p.stem for p in (root / kind).glob(f"*{suffix}"))


def robot_file(name: str | os.PathLike) -> Path:
    """``config/robots/<name>.yaml`` or the path itself."""
    return _resolve(description_dir, "config/robots", name, ".yaml")


def scenario_file(name: str | os.PathLike) -> Path:
    """``config/scenarios/<name>.yaml`` or the path itself."""
    return _resolve(data_dir, "config/scenarios", name, ".yaml")


def world_file(name: str | os.PathLike) -> Path:
    """``worlds/<name>.sdf`` or the path itself."""
    return _resolve(description_dir, "worlds", name, ".sdf")


def robot_names() -> list[str]:
    """Robots shipped in config/robots/."""
    return _names(description_dir(), "config/robots", ".yaml")


def scenario_names() -> list[str]:
    """Scenarios shipped in config/scenarios/."""
    return _names(data_dir(), "config/scenarios", ".yaml")


def world_names() -> list[str]:
    """Worlds shipped in worlds/."""
    return _names(description_dir(), "worlds", ".sdf")
