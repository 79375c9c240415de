"""Planar snake robot without lateral constraint (004): model (3)–(20), manipulability D/R
(30)–(42), head-trajectory tracking (70)–(84), the conserved quantity g (67).

Coordinates follow 004 (head-first numbering); :mod:`.convention` converts to the suite's
tail → head joint order and world frame. Model API as everywhere in snake_core::

    model = build_model(robot); data = model.create_data(); compute_terms(model, data, q, v)
"""

from .model import PlanarData, PlanarModel, build_model, compute_terms, forward_dynamics, mass_matrix

__all__ = ["PlanarData", "PlanarModel", "build_model", "compute_terms", "forward_dynamics", "mass_matrix"]
