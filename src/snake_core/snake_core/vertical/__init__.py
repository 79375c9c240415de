"""The snake robot with SEAs in the vertical plane (002 ch. 4): model, kinematics, dynamics, contact.

Generalised coordinates, 002 §4.3: q = [α_1 … α_{N−1}, θ_N, p_x, p_z, β_1 … β_{N−1}] (2N + 1 of
them), joint order tail (1) → head (N−1); θ_i absolute link angles from +x (x forward, z up),
(p_x, p_z) the centre of mass of the links. Pinocchio/MuJoCo style: an immutable
:class:`VerticalModel` with the precomputed matrices of 002 (4.2)–(4.17), a mutable
:class:`VerticalData` workspace and plain functions over them::

    model = build_model(robot); data = model.create_data(); compute_terms(model, data, q, v)
"""

from .contact import ContactParams, ContactResult, Terrain, contact_forces
from .dynamics import compute_terms, energy, mass_matrix, sea_torque
from .kinematics import (
    contact_points,
    initial_configuration,
    link_angles,
    link_positions,
    point_jacobians,
    rotor_positions,
)
from .model import VerticalData, VerticalModel, build_model

__all__ = [
    "ContactParams", "ContactResult", "Terrain", "VerticalData", "VerticalModel", "build_model", "compute_terms",
    "contact_forces", "contact_points", "energy", "initial_configuration", "link_angles", "link_positions",
    "mass_matrix", "point_jacobians", "rotor_positions", "sea_torque",
]
