"""Blajer's projective solution of the constrained equations of motion (001 (12)-(19)).

Generic in the inertia I (the metric tensor of 001 (1)) and the constraint matrix A, batched
over leading axes. Starting from rest (001 (17)), the velocity terms p*, Ȧυ vanish: the constraint
forces are λ* = −A^{T†} f* (17) and the accelerations I⁻¹(f* + Aᵀλ*) (18)
(:func:`snake_core.pushing.response.respond` applies them per active set).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from snake_core.pushing.errors import SingularConstraintsError

#: G_c is treated as singular when its condition number exceeds this (dependent constraints,
#: 001 §"Motion of the system": "full rank if all constraints are linearly independent").
SINGULAR_CONDITION = 1e10


def _t(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def constraint_metric(I_inv: np.ndarray, A: np.ndarray, names: Sequence[str] | None = None) -> np.ndarray:
    """G_c = A I⁻¹ Aᵀ (001 (14)); raises :class:`SingularConstraintsError` when rank deficient."""
    g_c = A @ I_inv @ _t(A)
    eig = np.linalg.eigvalsh(g_c)
    ratio = eig[..., 0] / eig[..., -1]
    if np.any(ratio <= 1.0 / SINGULAR_CONDITION):
        worst = np.unravel_index(np.argmin(ratio), ratio.shape)
        rows = ", ".join(names) if names else f"{A.shape[-2]} rows"
        at = f" at batch index {tuple(int(i) for i in worst)}" if ratio.ndim else ""
        raise SingularConstraintsError(
            f"constraint metric G_c = A I⁻¹ Aᵀ is rank deficient{at} (constraints: {rows}; "
            f"λ_min/λ_max = {ratio[worst]:.3g} ≤ 1/{SINGULAR_CONDITION:.0e}): the constraints are linearly "
            "dependent and the constraint forces are not unique (001 Assumptions 1-4)")
    return g_c


def left_pseudo_inverse(I_inv: np.ndarray, A: np.ndarray, names: Sequence[str] | None = None) -> np.ndarray:
    """A^{T†} = (A I⁻¹ Aᵀ)⁻¹ A I⁻¹ = Φ (001 (14)-(15)); A^{T†} Aᵀ = 1."""
    return np.linalg.solve(constraint_metric(I_inv, A, names), A @ I_inv)
