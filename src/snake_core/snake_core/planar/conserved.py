"""The conserved quantity of isotropic viscous friction, 004 (67).

With c_x = c_y = c, the first two rows of (20) integrate once (Theorem 2, partial integrability):
g = H1 q̇ + g2(q) is constant, with H1 the first two rows of H and
g21 = n c x_h + c l Σ_j (2n − 2j + 1) cos θ_j, g22 = n c y_h + c l Σ_j (2n − 2j + 1) sin θ_j (67).
Since l (2n − 2j + 1) are the column sums 1ᵀK of (4), g = m n ṗ_CM + c n p_CM: starting at rest,
the centre of mass cannot leave its initial position, whatever the joint torques.
"""

from __future__ import annotations

import numpy as np

from ..validation import ConfigError
from .model import PlanarModel, link_angles, mass_matrix


def conserved_g(model: PlanarModel, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """g = H1 q̇ + g2 of (67) (two elements, N·s)."""
    if model.c_x != model.c_y or model.mu_x != 0.0 or model.mu_y != 0.0:
        raise ConfigError("friction", {"c_x": model.c_x, "c_y": model.c_y, "mu_x": model.mu_x, "mu_y": model.mu_y},
                          "g of 004 (67) is conserved only for isotropic viscous friction (c_x = c_y, no Coulomb)")
    c = model.c_x
    th = link_angles(model, q)
    g2 = c * np.array([model.n * q[0] + model.one_K @ np.cos(th), model.n * q[1] + model.one_K @ np.sin(th)])
    return mass_matrix(model, q)[:2] @ qd + g2
