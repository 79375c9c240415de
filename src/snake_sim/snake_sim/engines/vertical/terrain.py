"""Contact surfaces of the vertical-plane model from an SDF world (002 Fig. 4.4).

The robot moves in the world x–z plane at y = 0: the ground plane becomes the ground height and
every static box that the plane y = 0 cuts becomes a box whose top and two sides carry the
Kelvin–Voigt law of 002 (4.26)–(4.27) (``snake_core.vertical.contact``). Boxes beside the path
(not cut by y = 0) are not in the plane and are ignored.

Friction per face (``Terrain.friction``): a box's μ from its collision in the world file (SDF
``<surface><friction>``, ``snake_sim.core.world``), on its top and sides; μ_c where the file gives none. A top
plate (a second box of the same model lying on the first with the same footprint, ``snake_sim.core.worldgen``)
is joined to the box under it: one box up to the plate's top, the plate's μ on its top, the box's on its
sides (the plate's own rim, a few mm, counts as side). ``side_friction`` replaces the sides' μ of every
box (``world.side_friction`` of a scenario, for studies of the face friction).
"""

from __future__ import annotations

import numpy as np

from snake_core.validation import ConfigError
from snake_core.vertical import Terrain

from ...core.world import Box, World

#: Tolerance of "lies on" and "same footprint" when joining a top plate to its box [m].
_JOIN_TOL = 1e-9


def terrain_from_world(world: World, mu_c: float, side_friction: float | None = None) -> Terrain:
    """The :class:`Terrain` of ``world`` (ground height, boxes crossing y = 0, μ of their top and sides)."""
    in_plane = sorted((b for b in world.static_boxes if b.y_min <= 0.0 <= b.y_max), key=lambda b: b.bottom)
    if world.ground_height is None and not in_plane:
        raise ConfigError("world.file", str(world.path), "the world has neither a ground plane nor a static box "
                          "in the plane y = 0: the snake would fall forever", world.path.name)
    rows: list[list[float]] = []  # x_min, x_max, bottom, top, μ_top, μ_sides
    owners: list[str] = []
    for b in in_plane:
        mu = mu_c if b.friction is None else b.friction
        below = next((i for i, r in enumerate(rows) if owners[i] == b.name and _on_top(b, r)), None)
        if below is None:
            rows.append([b.x_min, b.x_max, b.bottom, b.top, mu, mu])
            owners.append(b.name)
        else:  # a top plate: the box grows to its top, which has the plate's μ
            rows[below][3], rows[below][4] = b.top, mu
    table = np.array(rows, dtype=float).reshape(-1, 6)
    if side_friction is not None:
        table[:, 5] = side_friction
    return Terrain(world.ground_height, table[:, :4], table[:, 4:])


def _on_top(b: Box, row: list[float]) -> bool:
    """``b`` lies on the box of ``row`` with the same footprint along x."""
    return (abs(b.bottom - row[3]) < _JOIN_TOL and abs(b.x_min - row[0]) < _JOIN_TOL
            and abs(b.x_max - row[1]) < _JOIN_TOL)
