"""Contact surfaces of the vertical-plane model from an SDF world (002 Fig. 4.4).

The robot moves in the world x–z plane at y = 0: the ground plane becomes the ground height and
every static box that the plane y = 0 cuts becomes a box whose top and two sides carry the
Kelvin–Voigt law of 002 (4.26)–(4.27) (``snake_core.vertical.contact``). Boxes beside the path
(not cut by y = 0) are not in the plane and are ignored.
"""

from __future__ import annotations

import numpy as np

from snake_core.validation import ConfigError
from snake_core.vertical import Terrain

from .world import World


def terrain_from_world(world: World) -> Terrain:
    """The :class:`Terrain` of ``world`` (ground height, boxes crossing y = 0)."""
    boxes = [(b.x_min, b.x_max, b.bottom, b.top) for b in world.static_boxes if b.y_min <= 0.0 <= b.y_max]
    if world.ground_height is None and not boxes:
        raise ConfigError("world.file", str(world.path), "the world has neither a ground plane nor a static box "
                          "in the plane y = 0: the snake would fall forever", world.path.name)
    return Terrain(world.ground_height, np.array(boxes, dtype=float).reshape(-1, 4))
