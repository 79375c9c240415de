"""Blajer's projective solution of the constrained equations of motion (001 (12)-(19)).

Generic in the inertia I (the metric tensor of 001 (1)) and the constraint matrix A, batched
over leading axes. Starting from rest (001 (17)), the velocity terms p*, Ȧυ vanish.
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


def orthogonal_projector(I_inv: np.ndarray, A: np.ndarray, names: Sequence[str] | None = None) -> np.ndarray:
    """Φ⊥ = 1 − Aᵀ A^{T†} (001 (19)): input wrenches → the complement of the constrained space 𝒞."""
    eye = np.eye(A.shape[-1])
    return eye - _t(A) @ left_pseudo_inverse(I_inv, A, names)


def constraint_forces(I_inv: np.ndarray, A: np.ndarray, f: np.ndarray) -> np.ndarray:
    """λ* = −Φ f* (001 (17)), f of shape (..., n)."""
    return -np.einsum("...cn,...n->...c", left_pseudo_inverse(I_inv, A), f)


def accelerations(I_inv: np.ndarray, A: np.ndarray, f: np.ndarray) -> np.ndarray:
    """a = I⁻¹ Φ⊥ f* (001 (18))."""
    return np.einsum("...ij,...jk,...k->...i", I_inv, orthogonal_projector(I_inv, A), f)


def kkt_solve(inertia: np.ndarray, A: np.ndarray, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Direct solve of 001 (12)-(13) with all constraints active, from rest.

    [[I, −Aᵀ], [A, 0]] [a; λ] = [f; 0]  (I a = f + Aᵀ λ, A a = 0). Independent of the projectors;
    used to check them.
    """
    n, n_c = A.shape[-1], A.shape[-2]
    kkt = np.zeros((*A.shape[:-2], n + n_c, n + n_c))
    kkt[..., :n, :n] = inertia
    kkt[..., :n, n:] = -_t(A)
    kkt[..., n:, :n] = A
    rhs = np.concatenate((f, np.zeros((*f.shape[:-1], n_c))), axis=-1)
    sol = np.linalg.solve(kkt, rhs[..., None])[..., 0]
    return sol[..., :n], sol[..., n:]
