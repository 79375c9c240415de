"""The head's reachable linear accelerations as an ellipse in the plane, for display (RViz marker of
manipulability_monitor and of recordings).

The manipulability ellipsoid of 004 (29) lives in the 3-D space of ẅ = [ẍ_h, ÿ_h, θ̈_1] with semi-
axes ``ManipulabilityResult.axes`` (columns σ_i u_i). The head's linear accelerations it contains
form its projection onto the (ẍ_h, ÿ_h) plane: with A the first two rows of the axes, the ellipse
{A s : ‖s‖ ≤ 1} has shape matrix A Aᵀ, whose eigenvalues are the squared semi-axes.

Evaluated with θ_1 = 0 (``convention.q_from_world(0, 0, α)``), 004's x axis lies along the head
link, so the ellipse is expressed in the head's own frame (x along the head, y to its left):
004's frame and the suite's differ by a half turn, which maps an ellipse centred on the head onto
itself. D, R and the σ_i do not depend on the head's position or heading.
"""

from __future__ import annotations

import numpy as np

from .manipulability import ManipulabilityResult


def head_acceleration_ellipse(result: ManipulabilityResult) -> tuple[np.ndarray, float]:
    """Semi-axes (major, minor) [m/s² per unit ‖τ̄‖] and the major axis' angle [rad] in the head frame."""
    A = result.axes[:2, :]
    eigenvalues, vectors = np.linalg.eigh(A @ A.T)  # ascending
    semi_axes = np.sqrt(np.clip(eigenvalues[::-1], 0.0, None))
    major = vectors[:, -1]
    return semi_axes, float(np.arctan2(major[1], major[0]))


#: Display length per unit head acceleration [m per m/s²] of the ellipse markers: 004's robot
#: (Table 1) reaches a few hundred m/s² per unit torque along the major axis, shown as ~0.1 m.
DEFAULT_MARKER_SCALE = 4e-4
