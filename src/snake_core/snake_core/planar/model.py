"""Planar snake robot without lateral constraint, 004 §2 (3)–(20), for any number of links n.

Coordinates and order are 004's (documented head-first exception to the suite's tail → head
order, docs/design.md): link 1 is the head link, (x_h, y_h) is the tip of the head,
θ_i the orientation of link i (the link points from its head-side end to its tail-side end),
φ_i = θ_{i+1} − θ_i the angle of joint i (between links i and i+1), and
q = [x_h, y_h, θ_1, φ_1 … φ_{n−1}] (17). :mod:`snake_core.planar.convention` maps these to the
suite's tail → head joint order and world frame.

Equation of motion (20): H(q) q̈ + h(q, q̇) = E τ with h = W diag(J q̇) J q̇ + C q̇ (18) and, for
wheeled or scaled links, a regularised anisotropic Coulomb force (not in 004, see
:func:`coulomb_force`). :class:`PlanarModel` is immutable (parameters and the constant matrices
K (4), L (17)); :class:`PlanarData` is the workspace :func:`compute_terms` fills::

    model = build_model(robot); data = model.create_data(); compute_terms(model, data, q, v)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..robot import RobotParams
from ..validation import ConfigError, integer, non_negative, positive
from .linalg import spd_solve

#: Standard gravity for the Coulomb normal force m g of a link lying on level ground [m/s²].
GRAVITY = 9.81

#: Regularisation speed ε of the Coulomb friction: the force is μ m g v / sqrt(v² + ε²) per link
#: axis, i.e. within ~1 % of the set-valued law for |v| > 7 ε and linear (viscous-like, slope
#: μ m g / ε) below ε. With 1 mm/s a link at rest behaves as if on a stiff viscous film (time
#: constant ε / (μ g) ≈ 0.2 ms for μ = 0.5): the ODE is stiff and needs an implicit integrator.
COULOMB_REGULARISATION = 1e-3


@dataclass(frozen=True, eq=False)
class PlanarModel:
    """Immutable planar model: identical links (004 §2.1) and their friction."""

    n: int  # number of links
    l: float  # noqa: E741 (004's symbol) half link length [m]
    m: float  # link mass [kg]
    J: float  # link moment of inertia about its centre of mass [kg·m²]
    c_x: float = 0.0  # viscous friction along the link (tangential) [N·s/m], 004 (10)
    c_y: float = 0.0  # viscous friction across the link (normal) [N·s/m]
    c_theta: float = 0.0  # rotational viscous friction [N·m·s]
    mu_x: float = 0.0  # Coulomb coefficient along the link (wheels roll: small)
    mu_y: float = 0.0  # Coulomb coefficient across the link (wheels skid: large)
    coulomb_regularisation: float = COULOMB_REGULARISATION  # ε [m/s]
    gravity: float = GRAVITY
    K: np.ndarray = field(init=False, repr=False)  # (4)
    L: np.ndarray = field(init=False, repr=False)  # (17)
    one_K: np.ndarray = field(init=False, repr=False)  # 1ᵀK = l [2n−1, 2n−3, …, 1], used in (19), (67)
    JLtL: np.ndarray = field(init=False, repr=False)  # J LᵀL: the rotational inertia in (19)
    LtL: np.ndarray = field(init=False, repr=False)  # LᵀL (rotational friction (13) in q)

    def __post_init__(self) -> None:
        integer(self.n, "robot.links.count", low=2)
        positive(self.l, "robot.links.length / 2")
        positive(self.m, "robot.links.mass")
        positive(self.J, "robot.links.inertia")
        for name in ("c_x", "c_y", "c_theta", "mu_x", "mu_y"):
            non_negative(getattr(self, name), f"friction.{name}")
        positive(self.coulomb_regularisation, "friction.coulomb_regularisation")
        n = self.n
        K = self.l * (2.0 * np.tril(np.ones((n, n)), -1) + np.eye(n))  # (4)
        L = np.tril(np.ones((n, n)))  # (17)
        for name, value in (("K", K), ("L", L), ("one_K", K.sum(axis=0)), ("JLtL", self.J * (L.T @ L)),
                            ("LtL", L.T @ L)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def dof(self) -> int:
        """n + 2 generalised coordinates q."""
        return self.n + 2

    @property
    def n_joints(self) -> int:
        return self.n - 1

    @property
    def body_length(self) -> float:
        return 2.0 * self.l * self.n

    def create_data(self) -> PlanarData:
        """A fresh workspace for :func:`compute_terms`."""
        n, dof = self.n, self.dof
        return PlanarData(q=np.zeros(dof), qd=np.zeros(dof), theta=np.zeros(n), theta_dot=np.zeros(n),
                          Jx=np.zeros((n, dof)), Jy=np.zeros((n, dof)), H=np.zeros((dof, dof)),
                          h_coriolis=np.zeros(dof), h_viscous=np.zeros(dof), h_coulomb=np.zeros(dof))

    def with_friction(self, *, c_x: float | None = None, c_y: float | None = None, c_theta: float | None = None,
                      mu_x: float | None = None, mu_y: float | None = None) -> PlanarModel:
        """A copy with some friction coefficients replaced."""
        def pick(new: float | None, old: float) -> float:
            return old if new is None else new
        return PlanarModel(self.n, self.l, self.m, self.J, pick(c_x, self.c_x), pick(c_y, self.c_y),
                           pick(c_theta, self.c_theta), pick(mu_x, self.mu_x), pick(mu_y, self.mu_y),
                           self.coulomb_regularisation, self.gravity)


def build_model(robot: RobotParams) -> PlanarModel:
    """The planar model of a robot file: links, and friction (c_t → c_x, c_n → c_y, μ_t → μ_x, μ_n → μ_y)."""
    f = robot.friction
    if f is None:
        raise ConfigError("friction", None, "the planar model needs a friction section (c_t, c_n, c_theta, "
                          "mu_t, mu_n): without ground friction the snake cannot propel itself", robot.name)
    return PlanarModel(n=robot.n_links, l=robot.half_length, m=robot.link_mass, J=robot.link_inertia,
                       c_x=f.c_t, c_y=f.c_n, c_theta=f.c_theta, mu_x=f.mu_t, mu_y=f.mu_n)


@dataclass
class PlanarData:
    """Workspace filled by :func:`compute_terms` (Pinocchio's ``computeAllTerms`` pattern)."""

    q: np.ndarray
    qd: np.ndarray
    theta: np.ndarray  # (n,) link orientations θ = θ_1 + [0, cumsum φ]
    theta_dot: np.ndarray  # (n,)
    Jx: np.ndarray  # (n, n+2): ẋ = Jx q̇, (7) times J_{qq̄} of (17)
    Jy: np.ndarray  # (n, n+2)
    H: np.ndarray  # (n+2, n+2) inertia (19)
    h_coriolis: np.ndarray  # (n+2,) W diag(J q̇) J q̇ of (18)
    h_viscous: np.ndarray  # (n+2,) C q̇ of (18)
    h_coulomb: np.ndarray  # (n+2,) regularised Coulomb friction (not in 004)

    @property
    def h(self) -> np.ndarray:
        """h of (20), plus Coulomb friction where the model has it."""
        return self.h_coriolis + self.h_viscous + self.h_coulomb


def check_state(model: PlanarModel, q: np.ndarray, qd: np.ndarray | None = None) -> None:
    """Refuse states of the wrong shape or with NaN/inf (one clear message)."""
    for name, v in (("q", q), ("q_dot", qd)):
        if v is None:
            continue
        if v.shape != (model.dof,):
            raise ConfigError(name, v.shape, f"must have shape ({model.dof},) = [x_h, y_h, θ_1, φ_1..φ_{model.n - 1}]")
        if not np.all(np.isfinite(v)):
            raise ConfigError(name, v.tolist(), "must be finite (NaN or inf in the robot state)")


def link_angles(model: PlanarModel, q: np.ndarray) -> np.ndarray:
    """θ = L [θ_1, φ] (17)."""
    return model.L @ q[2:]


def link_positions(model: PlanarModel, q: np.ndarray) -> np.ndarray:
    """(n, 2) centres of mass of the links, (3)."""
    th = link_angles(model, q)
    return np.column_stack((q[0] + model.K @ np.cos(th), q[1] + model.K @ np.sin(th)))


@njit(cache=True)
def _stacked_jacobian(K: np.ndarray, L: np.ndarray, c: np.ndarray, s: np.ndarray) -> np.ndarray:
    """[Jx; Jy] (2n × (n+2)): Jx = J_{q̄x} J_{qq̄}, Jy = J_{q̄y} J_{qq̄}, (7) in the coordinates q of (17)."""
    n = K.shape[0]
    J = np.zeros((2 * n, n + 2))
    J[:n, 0] = 1.0
    J[n:, 1] = 1.0
    J[:n, 2:] = -(K * s) @ L  # −K S_θ L
    J[n:, 2:] = (K * c) @ L  # K C_θ L
    return J


@njit(cache=True)
def _mass_matrix(K: np.ndarray, L: np.ndarray, JLtL: np.ndarray, m: float, q: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(H, [Jx; Jy]): H = J_{qq̄}ᵀ H̄ J_{qq̄} = m (JxᵀJx + JyᵀJy) + J LᵀL with H̄ of (9); equals the block form (19)."""
    theta = L @ np.ascontiguousarray(q[2:])  # (17)
    J = _stacked_jacobian(K, L, np.cos(theta), np.sin(theta))
    H = m * (J.T @ J)
    H[2:, 2:] += JLtL
    return H, J


@njit(cache=True)
def coulomb_force(m: float, mu_x: float, mu_y: float, eps: float, gravity: float, theta: np.ndarray,
                  J: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """Generalised regularised anisotropic Coulomb friction (wheeled or scaled links; not in 004).

    Each link's centre slides with velocity v = (v_t along, v_n across the link); the ground
    resists with F = −m g [μ_x sat(v_t), μ_y sat(v_n)] in the link frame, sat(v) = v / sqrt(v² + ε²)
    (ε = ``coulomb_regularisation``); J = [Jx; Jy]. The returned vector is the resisting generalised
    force (on the left-hand side of (20), like C q̇). No rotational Coulomb term. Compiled (numba).
    """
    n = theta.size
    if mu_x == 0.0 and mu_y == 0.0:
        return np.zeros(J.shape[1])
    c, s = np.cos(theta), np.sin(theta)
    v = J @ qd
    vx, vy = v[:n], v[n:]
    vt, vn = c * vx + s * vy, -s * vx + c * vy
    eps2 = eps**2
    normal = m * gravity
    ft = normal * mu_x * vt / np.sqrt(vt * vt + eps2)
    fn = normal * mu_y * vn / np.sqrt(vn * vn + eps2)
    return J[:n].T @ (c * ft - s * fn) + J[n:].T @ (s * ft + c * fn)


def mass_matrix(model: PlanarModel, q: np.ndarray) -> np.ndarray:
    """Inertia matrix H(q) of (19)."""
    return _mass_matrix(model.K, model.L, model.JLtL, model.m, np.ascontiguousarray(q, dtype=float))[0]


@njit(cache=True)
def _terms(K: np.ndarray, L: np.ndarray, LtL: np.ndarray, JLtL: np.ndarray, m: float, c_x: float, c_y: float,
           c_theta: float, mu_x: float, mu_y: float, eps: float, gravity: float, q: np.ndarray, qd: np.ndarray
           ) -> tuple[np.ndarray, ...]:
    """(θ, θ̇, [Jx; Jy], H, h_coriolis, h_viscous, h_coulomb) of :func:`compute_terms` (compiled, numba)."""
    n = K.shape[0]
    theta = L @ q[2:]
    theta_dot = L @ qd[2:]
    c, s = np.cos(theta), np.sin(theta)
    H, J = _mass_matrix(K, L, JLtL, m, q)
    v = J @ qd
    vx, vy = v[:n], v[n:]
    vt, vn = c * vx + s * vy, -s * vx + c * vy  # link-frame velocities of the centres
    ft, fn = c_x * vt, c_y * vn  # viscous forces (10), link frame
    th2 = theta_dot * theta_dot
    # Columns: W diag(J q̇) J q̇ of (16)/(18) — the velocity-product part of the link accelerations,
    # ẍ ∋ −K C_θ θ̇², ÿ ∋ −K S_θ θ̇², times m — and C q̇ of (11)–(14) evaluated per link (the same as
    # J_{qq̄}ᵀ (C_tr + C_rot) J_{qq̄} q̇ with the 2n × 2n matrix of (12), cheaper); both mapped back with Jᵀ.
    forces = np.empty((2 * n, 2))
    forces[:n, 0] = -m * (K @ (c * th2))
    forces[n:, 0] = -m * (K @ (s * th2))
    forces[:n, 1] = c * ft - s * fn
    forces[n:, 1] = s * ft + c * fn
    gen = J.T @ forces
    h_cor, h_vis = gen[:, 0].copy(), gen[:, 1].copy()
    h_vis[2:] += c_theta * (LtL @ qd[2:])
    h_cou = coulomb_force(m, mu_x, mu_y, eps, gravity, theta, J, qd)
    return theta, theta_dot, J, H, h_cor, h_vis, h_cou


def compute_terms(model: PlanarModel, data: PlanarData, q: np.ndarray, qd: np.ndarray) -> PlanarData:
    """Fill ``data`` with H (19), the Coriolis/centrifugal term and the friction terms of (18) at (q, q̇); returns it."""
    n = model.n
    q, qd = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(qd, dtype=float)  # one compiled type
    theta, theta_dot, J, H, h_cor, h_vis, h_cou = _terms(
        model.K, model.L, model.LtL, model.JLtL, model.m, model.c_x, model.c_y, model.c_theta, model.mu_x,
        model.mu_y, model.coulomb_regularisation, model.gravity, q, qd)
    data.q, data.qd, data.theta, data.theta_dot, data.Jx, data.Jy = q, qd, theta, theta_dot, J[:n], J[n:]
    data.H, data.h_coriolis, data.h_viscous, data.h_coulomb = H, h_cor, h_vis, h_cou
    return data


def forward_dynamics(model: PlanarModel, data: PlanarData, tau: np.ndarray) -> np.ndarray:
    """q̈ from (20): H q̈ = E τ − h, τ the (n−1) joint torques in 004's order (0 on a free joint)."""
    rhs = -data.h
    rhs[3:] += tau
    return spd_solve(data.H, rhs)
