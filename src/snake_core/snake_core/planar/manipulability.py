"""Dynamic manipulability of the head, 004 §3: D (30), R (31), free joint D̃, R̃ (33)–(42).

The head coordinates w = [x_h, y_h, θ_1] are not actuated; joint torques reach them only through
H12 (24)–(25). With ‖τ̄‖ ≤ 1 the head acceleration lies in the ellipsoid
𝓗⁻¹ H12 H22⁻¹ τ̄ (29), 𝓗 = H11 − H12 H22⁻¹ H21 (68). D is its smallest semi-axis, R the smallest
singular value of H12; both vanish exactly at singular postures (Theorem 1), and 𝓗, H22 are
always positive definite (Proposition 1), so nothing here divides by a vanishing quantity.

With free joints k (004 indices, from the head), φ_k joins the unactuated block: the coordinates
are reordered to w̃ = [x_h, y_h, θ_1, φ_k] (39). 004's S_sub of (33) as printed does not give
this order; we use the intended one (docs/readings.md, "004 (33)"). More than one free joint is an
extension of 004 (block of 3 + k rows).

Link-count requirement (004 §3.1/§3.2): n ≥ 4, and n ≥ 5 with a free joint. Note that with one
free joint and n = 5, H̃12 is 4 × 3: its fourth singular value is structurally zero, so every
posture is singular; we report the padded zero singular values rather than hide them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..validation import ConfigError
from .model import PlanarModel, check_state, mass_matrix

#: Default thresholds on R (kg·m) below which a posture is flagged near-singular. For 004's robot
#: (Table 1) the arc with all joints at 1.8° has R ≈ 4.5e-5 kg·m, at 7.2° 1.3e-3, and the
#: serpenoids of Figs. 4–5 (phase v t = 0.3 rad) 2e-3…4e-2: 1e-4 flags arcs within ≈ 2.5° of the
#: straight line. With a free joint R̃ is 10–40× smaller (Figs. 3, 8, 9), hence the second value.
DEFAULT_R_THRESHOLD = 1e-4
DEFAULT_R_THRESHOLD_FREE_JOINT = 1e-5

#: Singular values below this fraction of ‖H‖ are exact zeros (floating-point noise of a rank drop).
RANK_TOLERANCE = 1e-12


def check_link_count(n: int, free_joints: tuple[int, ...]) -> None:
    """Refuse robots too short for the criteria, with 004's reason."""
    k = len(free_joints)
    if k == 0 and n < 4:
        raise ConfigError("robot.links.count", n, "must be >= 4 for the manipulability criteria: with n <= 3 the "
                          "manipulability ellipsoid lies in a plane or on a line for every shape, so some head "
                          "acceleration is never achievable (004 §3.1)")
    if k > 0 and n < 4 + k:
        raise ConfigError("robot.links.count", n, f"must be >= {4 + k} with {k} free joint(s): otherwise the "
                          f"ellipsoid is embedded in a {2 + k}-dimensional hyperplane of the {3 + k}-dimensional "
                          "space of w̃ and w̃ cannot be assigned freely (004 §3.2)")


def check_free_joints(n: int, free_joints: tuple[int, ...]) -> tuple[int, ...]:
    """Validate free joints (004 indices 1..n−1, unique) and the link count; returns them sorted."""
    for j in free_joints:
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 1 <= j <= n - 1:
            raise ConfigError("robot.free_joints", list(free_joints), f"joint indices must be integers in [1, {n - 1}]")
    if len(set(free_joints)) != len(free_joints):
        raise ConfigError("robot.free_joints", list(free_joints), "joint indices must be unique")
    check_link_count(n, tuple(free_joints))
    return tuple(sorted(int(j) for j in free_joints))


def coordinate_order(n: int, free_joints: tuple[int, ...]) -> np.ndarray:
    """Index permutation S of (33)–(34) (intended order): q̃ = q[order] = [w, φ_free, φ_actuated]."""
    free = [2 + k for k in free_joints]
    rest = [2 + j for j in range(1, n) if j not in free_joints]
    return np.array([0, 1, 2, *free, *rest])


def partition(H: np.ndarray, n_unactuated: int, order: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Blocks H11, H12, H22 of (22) / (41) after the reordering ``order``."""
    if order is not None:
        H = H[np.ix_(order, order)]
    k = n_unactuated
    return H[:k, :k], H[:k, k:], H[k:, k:]


@dataclass(frozen=True)
class ManipulabilityResult:
    """D, R and the ellipsoid of one posture (k = 3, or 3 + number of free joints)."""

    D: float  # (30) / (42)
    R: float  # (31) / (42)
    sigma: np.ndarray  # (k,) singular values of 𝓗⁻¹ H12 H22⁻¹, descending, zero-padded
    lam: np.ndarray  # (k,) singular values of H12, descending, zero-padded
    axes: np.ndarray  # (k, k) columns: semi-axes σ_i u_i of the ellipsoid of ẅ (ẅ̃) for ‖τ̄‖ ≤ 1
    singular: bool  # R is zero to rounding: some head acceleration is unreachable
    near_singular: bool  # R below the monitor's threshold


def manipulability(model: PlanarModel, q: np.ndarray, free_joints: tuple[int, ...] = (),
                   threshold: float | None = None) -> ManipulabilityResult:
    """D, R (30)–(31), or D̃, R̃ (42) with ``free_joints`` (004 indices), at posture q."""
    return ManipulabilityMonitor(model, threshold, free_joints).evaluate(q)


@njit(cache=True)
def _ellipsoid(H: np.ndarray, k: int, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(axes, σ, λ) with the blocks of H reordered by ``order`` (Hs of (41)): the semi-axes σ_i u_i and singular
    values σ of 𝓗⁻¹ H12 H22⁻¹ (29) and the singular values λ of H12, descending, zero-padded to k. Compiled
    (numba)."""
    Hs = H[order][:, order]
    H11, H12, H22 = Hs[:k, :k], np.ascontiguousarray(Hs[:k, k:]), Hs[k:, k:]
    H22inv_H21 = np.linalg.solve(H22, np.ascontiguousarray(H12.T))
    schur = H11 - H12 @ H22inv_H21  # 𝓗 (68), positive definite (Proposition 1/2)
    G = np.linalg.solve(schur, np.ascontiguousarray(H22inv_H21.T))  # 𝓗⁻¹ H12 H22⁻¹ (H22 symmetric)
    U = np.zeros((k, k))
    sigma, lam = np.zeros(k), np.zeros(k)
    u, sv, _ = np.linalg.svd(G, full_matrices=False)
    U[:, : sv.size], sigma[: sv.size] = u, sv
    sv = np.linalg.svd(np.ascontiguousarray(H12), full_matrices=False)[1]
    lam[: sv.size] = sv
    return U * sigma, sigma, lam


def _evaluate(H: np.ndarray, n: int, free: tuple[int, ...], threshold: float,
              order: np.ndarray | None = None) -> ManipulabilityResult:
    k = 3 + len(free)
    if order is None:
        order = coordinate_order(n, free)
    axes, sigma, lam = _ellipsoid(H, k, order)
    tol = RANK_TOLERANCE * H[0, 0]  # m n: the largest scale of H's translational block
    R = float(lam[-1]) if lam[-1] > tol else 0.0
    D = float(sigma[-1]) if R > 0.0 else 0.0
    return ManipulabilityResult(D=D, R=R, sigma=sigma, lam=lam, axes=axes, singular=R == 0.0,
                                near_singular=R < threshold)


class ManipulabilityMonitor:
    """Evaluates D and R of postures and flags near-singular ones (the manipulability_monitor node's core).

    ``ManipulabilityMonitor(model, threshold, free_joints).evaluate(q)`` with q in 004's
    coordinates (see :mod:`snake_core.planar.convention` for joint states in the suite's order).
    """

    def __init__(self, model: PlanarModel, threshold: float | None = None, free_joints: tuple[int, ...] = ()):
        self.model = model
        self.free_joints = check_free_joints(model.n, tuple(free_joints))
        if threshold is None:
            threshold = DEFAULT_R_THRESHOLD_FREE_JOINT if self.free_joints else DEFAULT_R_THRESHOLD
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 <= threshold < np.inf:
            raise ConfigError("manipulability.threshold", threshold, "must be a finite number >= 0 (kg·m)")
        self.threshold = float(threshold)
        self._order = coordinate_order(model.n, self.free_joints)
        # load the compiled kernels (numba's cache, or compile them) now, not at a monitor's first sample
        self.evaluate(np.concatenate((np.zeros(3), np.full(model.n_joints, 0.1))))

    def evaluate(self, q: np.ndarray) -> ManipulabilityResult:
        q = np.asarray(q, dtype=float)
        check_state(self.model, q)
        return self.evaluate_inertia(mass_matrix(self.model, q))

    def evaluate_inertia(self, H: np.ndarray) -> ManipulabilityResult:
        """Evaluation from an inertia matrix already computed (the runtime's and controller's H)."""
        return _evaluate(H, self.model.n, self.free_joints, self.threshold, self._order)
