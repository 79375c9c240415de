"""Head-trajectory tracking controllers of 004 §6, both usable with free (failed) joints.

Both controllers map the state (q, q̇) in 004's coordinates and a head reference
(w^r, ẇ^r, ẅ^r) to joint torques τ (004 order, head → tail, 0 on free joints):
``tracker.step(t, q, qd, ref) -> τ``. :mod:`snake_core.planar.convention` converts to the
suite's joint order (and to SEA torque references).

* :class:`PartialFeedbackLinearisation`: (70) with κ of (75)/(78). As printed, (70) gives
  ẅ = −a instead of a (substitute it into (69)); the sign of the H22 H12⁺ 𝓗 a term is flipped
  (:data:`PFL_TRACKING_TERM_SIGN`, docs/readings.md "004 (70)"). With free joints the unactuated
  block is w̃ = [w, φ_free] (39): we ask ẅ = a and leave φ̈_free to the solution of
  [H̃12  𝓗̃_{:,free}] [H̃22⁻¹τ̃; φ̈_free] = H̃12 H̃22⁻¹ h̃2 − h̃1 − 𝓗̃_{:,w} a, which reduces to (70)
  without free joints.
* :class:`LyapunovTracker`: 004 §6.2 gives only V of (83); the law of [27] is not printed
  (docs/readings.md, "004 §6.2"). Our law: with s = (ẇ^r − ẇ) + K_w1 (w^r − w) and
  e = φ̇^r − φ̇, V = sᵀK_w2 s + eᵀK_φ e. The accelerations are affine in the torque,
  q̈ = H⁻¹(E τ − h). V̇ = −c V holds if ẅ = ẅ_d := ẅ^r + K_w1 (ẇ^r − ẇ) + (c/2) s and
  φ̈ = φ̈_d := φ̈^r + (c/2) e. τ is the least-squares solution of those targets in the metric of
  V, τ = argmin ‖ẅ(τ) − ẅ_d‖²_{K_w2} + ‖φ̈(τ) − φ̈_d‖²_{K_φ} + ρ‖τ‖², subject to |τ_i| ≤ τ_max
  (a primal active-set method, exact for this convex problem). Where the targets are reachable,
  V decays at rate c; otherwise the residual is the smallest in V's own metric.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numba import njit

from ..gaits.serpenoid import Serpenoid
from ..registry import Param, param_names
from ..validation import ConfigError, reject_unknown
from .linalg import spd_solve
from .manipulability import check_free_joints, coordinate_order
from .model import PlanarData, PlanarModel, check_state, compute_terms

#: docs/readings.md "004 (70)": (70) as printed has +H22 H12⁺ 𝓗 a, which yields ẅ = −a; −1 fixes it.
PFL_TRACKING_TERM_SIGN = -1.0

#: Relative cut-off of singular values in H12⁺ (numpy's default): at an exactly singular posture the
#: lost direction is dropped instead of dividing by zero; near it ‖τ‖ grows like 1/R (004 §6.1.3).
PINV_RCOND = 1e-15

#: Below this ratio of the Cholesky factor's diagonal (√ of the conditioning of AAᵀ) H12⁺ is taken
#: from the SVD instead of the normal equations (their rounding error grows like cond(A)²).
PINV_CHOLESKY_RATIO = 1e-7

#: Tikhonov weight ρ of the Lyapunov-like least squares [(m/s²)² per (N·m)²]: keeps τ bounded near
#: singular postures; small enough not to bias tracking (H⁻¹ entries are O(10..1000) per N·m).
LYAPUNOV_REGULARISATION = 1e-6


@dataclass(frozen=True)
class HeadReference:
    """Head reference w^r = [x_h, y_h, θ_1] and its derivatives (004's frame)."""

    w: np.ndarray
    w_dot: np.ndarray
    w_ddot: np.ndarray


@dataclass(frozen=True)
class StraightLineReference:
    """w^r(t) = [x0 + v t cos ψ, y0 + v t sin ψ, θ_1^r]: (80) with a chosen start, direction and speed."""

    start: tuple[float, float]
    direction: float  # ψ, direction of travel of the head in 004's frame [rad]
    speed: float  # [m/s]
    theta1: float  # θ_1^r [rad]

    def __call__(self, t: float) -> HeadReference:
        d = np.array([np.cos(self.direction), np.sin(self.direction)])
        w = np.array([self.start[0] + self.speed * t * d[0], self.start[1] + self.speed * t * d[1], self.theta1])
        return HeadReference(w, np.array([self.speed * d[0], self.speed * d[1], 0.0]), np.zeros(3))

    def path_distance(self, xy: np.ndarray) -> np.ndarray:
        """Distance of head positions (…, 2) from the reference line (ray from the start)."""
        d = np.array([np.cos(self.direction), np.sin(self.direction)])
        rel = np.asarray(xy) - np.asarray(self.start)
        along = np.maximum(rel @ d, 0.0)
        return np.linalg.norm(rel - along[..., None] * d, axis=-1)


class HeadTracker(Protocol):
    """What a head tracker offers: joint torques τ (004 order, head → tail) at time t for the state (q, q̇) and the
    head reference (``data``: the model's terms at (q, q̇) when the caller has them)."""

    def step(self, t: float, q: np.ndarray, qd: np.ndarray, ref: HeadReference,
             data: PlanarData | None = None) -> np.ndarray: ...


def _diag(values, size: int, name: str) -> np.ndarray:
    v = np.broadcast_to(np.asarray(values, dtype=float), (size,)) if np.ndim(values) <= 1 else None
    if v is None or v.shape != (size,) or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ConfigError(name, values, f"must be a number >= 0 or a list of {size} numbers >= 0 (diagonal gain)")
    return np.diag(v)


def _given(params: tuple[Param, ...], gains: Mapping[str, Any]) -> dict[str, Any]:
    """The gains ``gains`` over the defaults of ``params``; a gain not in ``params`` is refused."""
    reject_unknown(gains, param_names(params), "controller")
    return {p.name: p.default for p in params} | dict(gains)


#: The gains of (70), a number (the same on the diagonal) or a diagonal list each; defaults are 004 (79).
PFL_GAINS = (
    Param("K_v", 6.0, "1/s", "head velocity gain K_v of 004 (71), 3 × 3 diagonal", 0.0, vector=True),
    Param("K_p", 6.2, "1/s²", "head position gain K_p of 004 (71), 3 × 3 diagonal", 0.0, vector=True),
    Param("R_v", 0.041, "1/s", "joint velocity gain R_v of 004 (78), one per joint", 0.0, vector=True),
    Param("R_p", 0.079, "1/s²", "joint angle gain R_p of 004 (78), one per joint", 0.0, vector=True),
)


@dataclass(frozen=True, eq=False)
class PFLGains:
    """(79): K_v, K_p (3 × 3), R_v, R_p ((n−1) × (n−1)), diagonal."""

    K_v: np.ndarray
    K_p: np.ndarray
    R_v: np.ndarray
    R_p: np.ndarray

    @classmethod
    def diagonal(cls, n_joints: int, **gains: Any) -> PFLGains:
        """Gains of :data:`PFL_GAINS` (unset: 004 (79))."""
        g = _given(PFL_GAINS, gains)
        return cls(_diag(g["K_v"], 3, "controller.K_v"), _diag(g["K_p"], 3, "controller.K_p"),
                   _diag(g["R_v"], n_joints, "controller.R_v"), _diag(g["R_p"], n_joints, "controller.R_p"))


class _HeadTracker:
    """What both controllers share: model, gains, the serpenoid shape reference φ^r (43) and the
    free joints (1-based, 004 order), checked against the model."""

    def __init__(self, model: PlanarModel, gains: PFLGains | LyapunovGains, shape: Serpenoid,
                 free_joints: tuple[int, ...] = ()):
        if shape.n_joints != model.n_joints:
            raise ConfigError("gait", shape.n_joints, f"must have {model.n_joints} joints (the robot's)")
        self.model = model
        self.gains = gains
        self.shape = shape
        self.free_joints = check_free_joints(model.n, tuple(free_joints))
        self._actuated = np.array([j for j in range(model.n_joints) if j + 1 not in self.free_joints])
        self._data = model.create_data()  # workspace when the caller passes no terms

    def reset(self) -> None:
        """Stateless; present for the controller interface."""

    def _load_kernels(self) -> None:
        """One step at a bent posture at rest: loads the compiled kernels (numba's cache, or compiles them) now,
        not at a control loop's first tick, which would be late by that time (about a second)."""
        q = np.concatenate((np.zeros(3), np.full(self.model.n_joints, 0.1)))
        self.step(0.0, q, np.zeros(self.model.dof), HeadReference(q[:3].copy(), np.zeros(3), np.zeros(3)))


class PartialFeedbackLinearisation(_HeadTracker):
    """(70) with the sign fix, κ of (75) and u of (78) (serpenoid shape reference φ^r of (43))."""

    def __init__(self, model: PlanarModel, gains: PFLGains, shape: Serpenoid, free_joints: tuple[int, ...] = ()):
        super().__init__(model, gains, shape, free_joints)
        self._k = 3 + len(self.free_joints)
        self._order = coordinate_order(model.n, self.free_joints)
        self._R_v = gains.R_v[np.ix_(self._actuated, self._actuated)]
        self._R_p = gains.R_p[np.ix_(self._actuated, self._actuated)]
        # index of the actuated joints in τ: a slice (a cheap view) without free joints
        self._act = self._actuated if self.free_joints else slice(None)
        self._load_kernels()

    def step(self, t: float, q: np.ndarray, qd: np.ndarray, ref: HeadReference,
             data: PlanarData | None = None) -> np.ndarray:
        if data is None:
            check_state(self.model, q, qd)
            data = compute_terms(self.model, self._data, q, qd)
        g = self.gains
        phi_r, phid_r, phidd_r = self.shape.phi(t)
        tau = np.zeros(self.model.n_joints)
        q, qd = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(qd, dtype=float)  # one compiled type
        tau[self._act] = _pfl_torque(data.H, data.h, self._order, self._k, self._actuated, q, qd, ref.w, ref.w_dot,
                                     ref.w_ddot, g.K_v, g.K_p, self._R_v, self._R_p, phi_r, phid_r, phidd_r,
                                     PFL_TRACKING_TERM_SIGN)
        return tau


@njit(cache=True)
def _pfl_torque(H: np.ndarray, h: np.ndarray, order: np.ndarray, k: int, act: np.ndarray, q: np.ndarray,
                qd: np.ndarray, w_r: np.ndarray, wd_r: np.ndarray, wdd_r: np.ndarray, K_v: np.ndarray,
                K_p: np.ndarray, R_v: np.ndarray, R_p: np.ndarray, phi_r: np.ndarray, phid_r: np.ndarray,
                phidd_r: np.ndarray, sign: float) -> np.ndarray:
    """The actuated joint torques of (70) (``sign``: :data:`PFL_TRACKING_TERM_SIGN`, κ (75), u (78)); H, h
    reordered by ``order``, the unactuated block w̃ = [w, φ_free] of size k first. Compiled (numba)."""
    a = wdd_r + K_v @ (wd_r - qd[:3]) + K_p @ (w_r - q[:3])  # right-hand side of (71)
    Hs, hs = H[order][:, order], h[order]
    # contiguous blocks for '@' (numba would copy them at each product)
    H11, H12, H22 = Hs[:k, :k], np.ascontiguousarray(Hs[:k, k:]), np.ascontiguousarray(Hs[k:, k:])
    h1, h2 = hs[:k], hs[k:]
    m = H22.shape[0]
    rhs2 = np.empty((m, 1 + k))
    rhs2[:, 0], rhs2[:, 1:] = h2, H12.T
    sol = np.linalg.solve(H22, rhs2)
    H22inv_h2, H22inv_H21 = np.ascontiguousarray(sol[:, 0]), np.ascontiguousarray(sol[:, 1:])
    schur = H11 - H12 @ H22inv_H21  # 𝓗 (68)
    A = np.empty((k, k - 3 + m))  # unknowns [H22⁻¹τ̃, φ̈_free]
    A[:, :m], A[:, m:] = H12, schur[:, 3:]
    rhs = H12 @ H22inv_h2 - h1 + sign * (np.ascontiguousarray(schur[:, :3]) @ a)
    pa, pda, pdda, qa, qda = phi_r[act], phid_r[act], phidd_r[act], q[3:][act], qd[3:][act]
    u = -pdda - R_v @ (pda - qda) - R_p @ (pa - qa)  # (78)
    kappa = np.zeros(A.shape[1])  # no preference for φ̈_free
    kappa[:m] = H22inv_h2 - u  # (75)
    z = _min_norm_solve(A, rhs - A @ kappa) + kappa  # H12⁺(…) + (I − H12⁺H12) κ, as in (70)
    return H22 @ z[:m]


@njit(cache=True)
def _cholesky_solve(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(L Lᵀ)⁻¹ b by forward and back substitution."""
    n = b.size
    y = np.empty(n)
    for i in range(n):
        y[i] = (b[i] - L[i, :i] @ y[:i]) / L[i, i]
    x = np.empty(n)
    Lt = np.ascontiguousarray(L.T)  # Lᵀ by rows: contiguous for '@'
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - Lt[i, i + 1:] @ x[i + 1:]) / L[i, i]
    return x


@njit(cache=True)
def _min_norm_solve(A: np.ndarray, r: np.ndarray) -> np.ndarray:
    """A⁺ r for a wide matrix A (the minimum-norm least-squares solution); compiled (numba).

    Full row rank and well conditioned (the usual case): x = Aᵀ(AAᵀ)⁻¹ r by Cholesky, refined once on
    the residual of A x = r (the normal equations lose ~cond(A)² of accuracy; one step restores it).
    Otherwise (the Cholesky factor's diagonal spans more than 1/:data:`PINV_CHOLESKY_RATIO`, i.e.
    cond(A) ≳ 1e7, or AAᵀ is not positive definite) the thin SVD with numpy's cut-off
    :data:`PINV_RCOND`: at an exactly singular posture the lost direction is dropped.
    """
    G = A @ A.T
    try:
        L = np.linalg.cholesky(G)
        d = np.abs(np.diag(L))
        cholesky = d.min() > PINV_CHOLESKY_RATIO * d.max()
    except Exception:  # AAᵀ not positive definite
        cholesky = False
    if cholesky:
        x = A.T @ _cholesky_solve(L, r)
        return x + A.T @ _cholesky_solve(L, r - A @ x)
    U, sv, Vt = np.linalg.svd(A, full_matrices=False)
    keep = sv > PINV_RCOND * sv[0]
    return Vt[keep].T @ ((U[:, keep].T @ r) / sv[keep])


#: The gains of V (83) and the law of :class:`LyapunovTracker`; defaults are 004 (84).
LYAPUNOV_GAINS = (
    Param("K_w1", (2.0, 2.0, 3.0), "1/s", "head error gain K_w1 of s in 004 (83), 3 × 3 diagonal", 0.0,
          vector=True),
    Param("K_w2", (400.0, 400.0, 45.0), "", "weight K_w2 of s in V, 004 (83), 3 × 3 diagonal", 0.0, vector=True),
    Param("K_phi", None, "", "weight K_φ of the joint rate error in V, 004 (83), one per joint (unset: "
          "diag(10, 20, …, 20) of 004 (84))", 0.0, vector=True),
    Param("decay", 2.0, "1/s", "decay rate c of V", 0.0),
    Param("torque_limit", 2.0, "N·m", "joint torque limit |τ_i|, > 0", 0.0),
)


@dataclass(frozen=True, eq=False)
class LyapunovGains:
    """(84): K_w1, K_w2 (3 × 3), K_φ ((n−1) × (n−1)), decay rate c [1/s] and torque limit [N·m]."""

    K_w1: np.ndarray
    K_w2: np.ndarray
    K_phi: np.ndarray
    decay: float
    torque_limit: float

    @classmethod
    def diagonal(cls, n_joints: int, **gains: Any) -> LyapunovGains:
        """Gains of :data:`LYAPUNOV_GAINS` (unset: 004 (84), K_φ = diag(10, 20, …, 20))."""
        g = _given(LYAPUNOV_GAINS, gains)
        K_w1, K_w2, K_phi, decay, torque_limit = (g[p.name] for p in LYAPUNOV_GAINS)
        if K_phi is None:
            K_phi = [10.0] + [20.0] * (n_joints - 1)
        if not (isinstance(decay, (int, float)) and np.isfinite(decay) and decay >= 0):
            raise ConfigError("controller.decay", decay, "must be a finite number >= 0 (1/s)")
        if not (isinstance(torque_limit, (int, float)) and np.isfinite(torque_limit) and torque_limit > 0):
            raise ConfigError("controller.torque_limit", torque_limit, "must be a finite number > 0 (N·m)")
        return cls(_diag(K_w1, 3, "controller.K_w1"), _diag(K_w2, 3, "controller.K_w2"),
                   _diag(K_phi, n_joints, "controller.K_phi"), float(decay), float(torque_limit))


def lyapunov_value(gains: LyapunovGains, q: np.ndarray, qd: np.ndarray, ref: HeadReference,
                   phid_r: np.ndarray) -> float:
    """V of (83) (with ‖x‖_K = xᵀKx)."""
    s = (ref.w_dot - qd[:3]) + gains.K_w1 @ (ref.w - q[:3])
    e = phid_r - qd[3:]
    return float(s @ gains.K_w2 @ s + e @ gains.K_phi @ e)


class LyapunovTracker(_HeadTracker):
    """Torque that makes V of (83) decay at rate c where feasible (least squares, torque limits)."""

    def __init__(self, model: PlanarModel, gains: LyapunovGains, shape: Serpenoid, free_joints: tuple[int, ...] = ()):
        super().__init__(model, gains, shape, free_joints)
        self._E = np.zeros((model.dof, self._actuated.size))
        self._E[3 + self._actuated, np.arange(self._actuated.size)] = 1.0
        self._weights = np.concatenate((np.diag(gains.K_w2), np.diag(gains.K_phi)))  # metric of V (83)
        self._ridge = LYAPUNOV_REGULARISATION * np.eye(self._actuated.size)
        self._load_kernels()

    def step(self, t: float, q: np.ndarray, qd: np.ndarray, ref: HeadReference,
             data: PlanarData | None = None) -> np.ndarray:
        if data is None:
            check_state(self.model, q, qd)
            data = compute_terms(self.model, self._data, q, qd)
        g = self.gains
        _, phid_r, phidd_r = self.shape.phi(t)
        q, qd = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(qd, dtype=float)  # one compiled type
        normal, rhs = _lyapunov_normal_equations(data.H, data.h, self._E, self._weights, self._ridge, q, qd, ref.w,
                                                 ref.w_dot, ref.w_ddot, g.K_w1, g.decay, phid_r, phidd_r)
        tau = np.zeros(self.model.n_joints)
        tau[self._actuated] = _box_least_squares(normal, rhs, g.torque_limit)
        return tau

    def value(self, t: float, q: np.ndarray, qd: np.ndarray, ref: HeadReference) -> float:
        """V of (83) at time ``t``."""
        return lyapunov_value(self.gains, q, qd, ref, self.shape.phi(t)[1])


@njit(cache=True)
def _lyapunov_normal_equations(H: np.ndarray, h: np.ndarray, E: np.ndarray, weights: np.ndarray, ridge: np.ndarray,
                               q: np.ndarray, qd: np.ndarray, w_r: np.ndarray, wd_r: np.ndarray, wdd_r: np.ndarray,
                               K_w1: np.ndarray, decay: float, phid_r: np.ndarray, phidd_r: np.ndarray
                               ) -> tuple[np.ndarray, np.ndarray]:
    """(N, b) of the least squares of :class:`LyapunovTracker`, τ = argmin ½ τᵀNτ − bᵀτ: the targets ẅ_d, φ̈_d
    in the metric of V (83) with q̈ = a0 + B τ = H⁻¹(E τ − h). Compiled (numba)."""
    s = (wd_r - qd[:3]) + K_w1 @ (w_r - q[:3])
    e = phid_r - qd[3:]
    target = np.empty(qd.size)
    target[:3] = wdd_r + K_w1 @ (wd_r - qd[:3]) + 0.5 * decay * s
    target[3:] = phidd_r + 0.5 * decay * e
    rhs_h = np.empty((h.size, 1 + E.shape[1]))  # [−h, E]
    rhs_h[:, 0], rhs_h[:, 1:] = -h, E
    sol = np.linalg.solve(H, rhs_h)  # q̈ = a0 + B τ
    a0, B = sol[:, 0], np.ascontiguousarray(sol[:, 1:])
    BtW = B.T * weights
    return BtW @ B + ridge, BtW @ (target - a0)


def _box_least_squares(normal: np.ndarray, rhs: np.ndarray, limit: float) -> np.ndarray:
    """min ½ xᵀN x − rhsᵀx subject to |x_i| ≤ limit (N positive definite): primal active-set method.

    From a feasible point, solve for the free variables with the others at their bounds; step as
    far as feasibility allows (fixing the blocking variable), or, at a feasible optimum of the
    free set, release the bound variable whose multiplier has the wrong sign. Finite for strictly
    convex problems; the iteration cap only guards against rounding cycles.
    """
    x = spd_solve(normal, rhs)
    if np.all(np.abs(x) <= limit):  # the usual case: no torque at its limit
        return x
    m = rhs.size
    x = np.zeros(m)
    bound = np.zeros(m)  # −1 at the lower bound, +1 at the upper, 0 free
    for _ in range(4 * m + 4):
        free = bound == 0
        x_new = x.copy()
        x_new[~free] = bound[~free] * limit
        if free.any():
            x_new[free] = spd_solve(normal[np.ix_(free, free)],
                                          rhs[free] - normal[np.ix_(free, ~free)] @ x_new[~free])
        over = free & (np.abs(x_new) > limit)
        if over.any():
            step = x_new - x
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(over, (np.sign(step) * limit - x) / step, np.inf)
            i = int(np.argmin(room))
            x = x + max(0.0, min(1.0, room[i])) * step
            bound[i] = np.sign(step[i])
            x[i] = bound[i] * limit
            continue
        x = x_new
        grad = normal @ x - rhs  # multiplier of a bound: −bound · grad ≥ 0 at the optimum
        wrong = np.where(bound != 0, bound * grad, -np.inf)
        i = int(np.argmax(wrong))
        if wrong[i] <= 1e-12 * (1.0 + np.abs(rhs).max()):
            break
        bound[i] = 0.0
    return np.clip(x, -limit, limit)


#: A tracker's extra output: name → value(tracker, t, q, q̇, reference) recorded at every sample.
TrackerSeries = Mapping[str, Callable[[Any, float, np.ndarray, np.ndarray, HeadReference], float]]


@dataclass(frozen=True)
class TrackerSpec:
    """A head tracker as its module under :mod:`snake_core.planar.trackers` registers it (``TRACKER = ...``): its
    ``controller.mode`` name, its gains (``controller.<name>``), the tracker class and its gains class
    (``gains.diagonal(n_joints, **given)``), and series it records beside the torques."""

    name: str
    description: str
    params: tuple[Param, ...]
    tracker: type
    gains: type
    series: TrackerSeries

    def own_gains(self, given: Mapping[str, Any], source: str | None = None) -> dict[str, Any]:
        """``given`` (``controller.<gain>`` values by gain name), refused if one is not a gain of this tracker."""
        own = param_names(self.params)
        for k, v in given.items():
            if k not in own:
                raise ConfigError(f"controller.{k}", v, f"is not a gain of controller.mode = {self.name} (allowed: "
                                  + ", ".join(own) + ")", source)
        return dict(given)

    def build(self, model: PlanarModel, given: Mapping[str, Any], shape: Serpenoid,
              free_joints: tuple[int, ...] = ()) -> HeadTracker:
        """The tracker with gains ``given`` (unset: the defaults of :attr:`params`)."""
        return self.tracker(model, self.gains.diagonal(model.n_joints, **given), shape, free_joints)
