"""Terrain from a Gazebo SDF world: the ground plane and static box models.

The embedded simulators read the very files Gazebo loads (worlds/*.sdf), so both see the same
obstacles. Only what the snake can touch is extracted: a plane (the ground) and boxes. Poses of
model, link and collision are composed; boxes may be rotated about z only. A box's friction is its
collision's ``<surface><friction><ode><mu>`` (isotropic: ``mu2``, if given, equals ``mu``), the μ of the
robot on every face of that box; None where the collision has none (the simulator then uses the robot's
μ_c, as Gazebo does with the plane's default of 1 against the robot's μ). See ``snake_sim.core.worldgen``.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from snake_core import locator
from snake_core.registry import Param
from snake_core.validation import ConfigError, number

#: A scenario's ``world.side_friction`` (the vertical model and the 3-D engines).
SIDE_FRICTION = Param("side_friction", None, "", "μ of every static box's vertical faces (unset: as its top, the "
                      "world file's)", 0.0, 5.0)


@dataclass(frozen=True)
class Box:
    """An axis-aligned (up to a yaw) static box: centre and full size in the world frame [m]."""

    name: str
    center: tuple[float, float, float]
    size: tuple[float, float, float]
    yaw: float = 0.0
    friction: float | None = None  # μ of its faces (SDF <surface><friction><ode><mu>); None: not given
    side_friction: float | None = None  # μ of its vertical faces if not ``friction`` (a study's world.side_friction)

    @property
    def x_min(self) -> float:
        return self.center[0] - 0.5 * self._extent()[0]

    @property
    def x_max(self) -> float:
        return self.center[0] + 0.5 * self._extent()[0]

    @property
    def y_min(self) -> float:
        return self.center[1] - 0.5 * self._extent()[1]

    @property
    def y_max(self) -> float:
        return self.center[1] + 0.5 * self._extent()[1]

    @property
    def bottom(self) -> float:
        return self.center[2] - 0.5 * self.size[2]

    @property
    def top(self) -> float:
        return self.center[2] + 0.5 * self.size[2]

    def _extent(self) -> tuple[float, float]:
        """Extent along world x and y of the (possibly yawed) footprint."""
        c, s = abs(math.cos(self.yaw)), abs(math.sin(self.yaw))
        return (c * self.size[0] + s * self.size[1], s * self.size[0] + c * self.size[1])


@dataclass(frozen=True)
class World:
    """What a simulator needs of an SDF world."""

    name: str
    path: Path
    ground_height: float | None  # z of the ground plane, None if the world has none
    boxes: tuple[Box, ...]
    static_boxes: tuple[Box, ...]  # the boxes of static models (obstacles, steps)

    def covered(self, box: Box, tol: float = 1e-9) -> bool:
        """Another static box lies on ``box`` with its footprint (a top plate of another material,
        ``snake_sim.core.worldgen``): ``box``'s top is not a surface."""
        return any(o is not box and abs(o.bottom - box.top) < tol and abs(o.x_min - box.x_min) < tol
                   and abs(o.x_max - box.x_max) < tol and abs(o.y_min - box.y_min) < tol
                   and abs(o.y_max - box.y_max) < tol for o in self.static_boxes)

    def box(self, name: str) -> Box:
        for b in self.boxes:
            if b.name == name:
                return b
        raise KeyError(name)


def _pose(elem: ET.Element | None, field: str, source: str) -> np.ndarray:
    """4×4 transform of an SDF <pose> (x y z roll pitch yaw); identity if absent."""
    T = np.eye(4)
    if elem is None or elem.find("pose") is None:
        return T
    text = elem.find("pose").text or ""
    try:
        v = [float(t) for t in text.split()]
    except ValueError as exc:
        raise ConfigError(field, text, "a pose is six numbers: x y z roll pitch yaw", source) from exc
    if len(v) != 6:
        raise ConfigError(field, text, "a pose is six numbers: x y z roll pitch yaw", source)
    if abs(v[3]) > 1e-9 or abs(v[4]) > 1e-9:
        raise ConfigError(field, text, "only rotations about z (roll = pitch = 0) are supported", source)
    c, s = math.cos(v[5]), math.sin(v[5])
    T[:3, :3] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    T[:3, 3] = v[:3]
    return T


def _friction(col: ET.Element, field: str, source: str) -> float | None:
    """μ of a collision's <surface><friction><ode> (None if absent); mu2 must equal mu (the vertical plane has
    one tangent direction, and the shipped worlds are isotropic)."""
    ode = col.find("surface/friction/ode")
    if ode is None or ode.find("mu") is None:
        return None
    values = []
    for key in ("mu", "mu2"):
        text = ode.findtext(key)
        if text is None:
            continue
        try:
            value = float(text)
        except ValueError as exc:
            raise ConfigError(f"{field}.{key}", text, "must be a finite number >= 0", source) from exc
        values.append(number(value, f"{field}.{key}", source, low=0.0))
    if len(values) == 2 and values[1] != values[0]:
        raise ConfigError(f"{field}.mu2", values[1], f"must equal mu = {values[0]:g} (isotropic friction only)",
                          source)
    return values[0]


def load_world(name: str | Path) -> World:
    """Parse ``worlds/<name>.sdf`` (or a path) into a :class:`World`."""
    path = locator.world_file(name)
    if not path.is_file():
        raise ConfigError("world.file", str(name), "unknown world; known: " + ", ".join(locator.world_names()))
    source = path.name
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ConfigError("<file>", str(path), f"not valid XML ({exc})", source) from exc
    world = root.find("world")
    if root.tag != "sdf" or world is None:
        raise ConfigError("<file>", str(path), "must be an SDF file with a <world>", source)

    ground: float | None = None
    boxes: list[Box] = []
    static: list[Box] = []
    for model in world.findall("model"):
        mname = model.get("name", "?")
        is_static = (model.findtext("static") or "false").strip() in ("true", "1")
        T_model = _pose(model, f"model[{mname}].pose", source)
        for link in model.findall("link"):
            T_link = T_model @ _pose(link, f"model[{mname}].link.pose", source)
            for col in link.findall("collision"):
                T = T_link @ _pose(col, f"model[{mname}].collision.pose", source)
                geom = col.find("geometry")
                if geom is None:
                    continue
                if geom.find("plane") is not None:
                    ground = float(T[2, 3]) if ground is None else max(ground, float(T[2, 3]))
                elif geom.find("box") is not None:
                    text = geom.findtext("box/size") or ""
                    try:
                        size = tuple(float(t) for t in text.split())
                    except ValueError:
                        size = ()
                    if len(size) != 3 or min(size) <= 0:
                        raise ConfigError(f"model[{mname}].box.size", text, "must be three positive numbers",
                                          source)
                    box = Box(mname, (float(T[0, 3]), float(T[1, 3]), float(T[2, 3])), size,
                              math.atan2(T[1, 0], T[0, 0]),
                              _friction(col, f"model[{mname}].collision.surface.friction.ode", source))
                    boxes.append(box)
                    if is_static:
                        static.append(box)
    return World(world.get("name", path.stem), path, ground, tuple(boxes), tuple(static))
