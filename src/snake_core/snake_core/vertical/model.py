"""The immutable vertical-plane model: parameters and the constant matrices of 002 (4.2)–(4.17).

Point sets (link centres, rotors at the joints, contact candidates) are all written as
x = p_x + 𝒢 cos θ, z = p_z + 𝒢 sin θ with a constant matrix 𝒢 = 𝓗 − (1/N) 𝐕 𝐕ˡᵀ 𝓗ˡ = −𝒜, i.e.
002 (4.4)–(4.5) with x_0, z_0 eliminated through p_x = (1/N) 𝐕ˡᵀ 𝐗ˡ (the 𝒜ˡ, 𝒜ʳ, 𝒜⁰ of (4.8),
(4.15), (4.31)), and θ = 𝒯 [α; θ_N] with 𝒯 = [ℱ 𝐕ˡ] (θ_i = Σ_{k≥i} α_k + θ_N, §4.3.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robot import RobotParams
from ..validation import ConfigError, choice, positive

#: Standard gravity [m/s²] (002 uses g without a value).
GRAVITY = 9.81


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class VerticalModel:
    """Parameters and precomputed matrices; never mutated (state lives in (q, v) and :class:`VerticalData`)."""

    robot: RobotParams
    n_links: int  # N
    half_length: float  # l [m]
    link_mass: float  # m_l [kg]
    link_inertia: float  # J_l [kg·m²]
    rotor_mass: float  # m_r [kg]
    rotor_inertia_model: str  # "own" | "reflected", 002 (4.36), docs/readings.md
    rotor_term: float  # 𝕊_3 diagonal: J_r ("own") or n² J_r ("reflected") [kg·m²]
    stiffness: np.ndarray  # K_j (N−1,) [N·m/rad]
    gravity: float  # g [m/s²]
    H_l: np.ndarray  # 𝓗ˡ (N, N), 002 §4.3
    H_r: np.ndarray  # 𝓗ʳ (N−1, N)
    H_0: np.ndarray  # 𝓗⁰ (N+1, N): tail tip, joints, head tip (4.31)–(4.32)
    T: np.ndarray  # 𝒯 = [ℱ 𝐕ˡ] (N, N): θ = 𝒯 [α; θ_N]
    G_l: np.ndarray  # −𝒜ˡ (N, N)
    G_r: np.ndarray  # −𝒜ʳ (N−1, N)
    G_c: np.ndarray  # contact candidates (2N+1, N): link centres, then tail tip, joints, head tip
    Phi: np.ndarray  # m_l G_lᵀG_l + m_r G_rᵀG_r (N, N)
    g_r: np.ndarray  # G_rᵀ 𝟏 (N,)
    M_const: np.ndarray  # the constant entries of 𝕄: (N m_l + (N−1) m_r) on p_x, p_z; 𝕊_3 on β

    @property
    def n_joints(self) -> int:
        return self.n_links - 1

    def create_data(self) -> VerticalData:
        """A fresh workspace for :func:`snake_core.vertical.dynamics.compute_terms`."""
        n = self.n_links
        return VerticalData(cos=np.zeros(n), sin=np.zeros(n), M=self.M_const.copy(), f=np.zeros(self.n_q))

    @property
    def n_q(self) -> int:
        """2N + 1 generalised coordinates."""
        return 2 * self.n_links + 1

    @property
    def total_mass(self) -> float:
        return self.n_links * self.link_mass + self.n_joints * self.rotor_mass

    # index helpers into q (see the package docstring)
    @property
    def i_alpha(self) -> slice:
        return slice(0, self.n_links - 1)

    @property
    def i_theta(self) -> int:
        return self.n_links - 1

    @property
    def i_px(self) -> int:
        return self.n_links

    @property
    def i_pz(self) -> int:
        return self.n_links + 1

    @property
    def i_beta(self) -> slice:
        return slice(self.n_links + 2, 2 * self.n_links + 1)

    def coordinate_name(self, i: int) -> str:
        """Human-readable name of q[i] (for diagnostics)."""
        n = self.n_links
        if i < n - 1:
            return f"alpha_{i + 1}"
        if i == n - 1:
            return f"theta_{n}"
        if i == n:
            return "p_x"
        if i == n + 1:
            return "p_z"
        return f"beta_{i - n - 1}"


@dataclass(eq=False, slots=True)
class VerticalData:
    """Mutable workspace of one state, filled by :func:`snake_core.vertical.dynamics.compute_terms`."""

    cos: np.ndarray  # cos θ of the link angles (N,)
    sin: np.ndarray  # sin θ (N,)
    M: np.ndarray  # 𝕄 of (4.35) (2N+1, 2N+1) [kg, kg·m, kg·m²]
    f: np.ndarray  # f = −ℂ − 𝐠 − K_E q of (4.35) (2N+1,) [N, N·m]


def build_model(robot: RobotParams, *, gravity: float = GRAVITY, rotor_inertia_model: str | None = None
                ) -> VerticalModel:
    """Build the model of an SEA robot (robot file with ``sea`` and ``actuator`` sections).

    ``rotor_inertia_model`` overrides the robot file's reading of 002 (4.36): "own" (𝕊_3 = J_r,
    the rotor's angular velocity is only its own) or "reflected" (𝕊_3 = n² J_r).
    """
    if robot.sea is None or robot.actuator is None:
        raise ConfigError("robot.sea", None, "the vertical-plane model (002) needs a robot with series elastic "
                          "actuators (sea: and actuator: sections)", robot.name)
    positive(gravity, "gravity")
    act = robot.actuator
    reading = choice(rotor_inertia_model or act.rotor_inertia_model, "actuator.rotor_inertia_model",
                     ("own", "reflected"))
    rotor_term = act.rotor_inertia * (act.gear_ratio**2 if reading == "reflected" else 1.0)

    n = robot.n_links
    l_half = robot.half_length
    ones = np.ones(n)
    # 𝓗ˡ: l on the diagonal, 2l below (4.4); 𝓗ʳ: 2l on and below the diagonal, last column 0 (4.13)
    H_l = 2 * l_half * np.tril(np.ones((n, n)), -1) + l_half * np.eye(n)
    H_r = 2 * l_half * np.tril(np.ones((n - 1, n)))
    # 𝓗⁰ (4.31): 002 prints [0; 𝓗ʳ] (N rows) for N+1 points; the head tip row (2l … 2l) is added so
    # that the 2N+1 candidates of §4.6 are the N centres, the N−1 joints and both tips.
    H_0 = np.vstack([np.zeros((1, n)), H_r, 2 * l_half * np.ones((1, n))])
    F = np.triu(np.ones((n, n - 1)))  # ℱ: θ_i = Σ_{k≥i} α_k + θ_N (§4.3.1)
    T = np.hstack([F, ones[:, None]])
    mean_row = ones @ H_l / n  # (1/N) 𝐕ˡᵀ 𝓗ˡ
    G_l = H_l - mean_row  # −𝒜ˡ, (4.8)
    G_r = H_r - mean_row  # −𝒜ʳ, (4.15)
    G_0 = H_0 - mean_row  # −𝒜⁰, (4.31)
    Phi = robot.link_mass * G_l.T @ G_l + act.rotor_mass * G_r.T @ G_r
    m_tot = n * robot.link_mass + (n - 1) * act.rotor_mass
    return VerticalModel(
        robot=robot, n_links=n, half_length=l_half, link_mass=robot.link_mass, link_inertia=robot.link_inertia,
        rotor_mass=act.rotor_mass, rotor_inertia_model=reading, rotor_term=rotor_term,
        stiffness=_frozen(np.asarray(robot.sea.stiffness)), gravity=float(gravity),
        H_l=_frozen(H_l), H_r=_frozen(H_r), H_0=_frozen(H_0), T=_frozen(T), G_l=_frozen(G_l), G_r=_frozen(G_r),
        G_c=_frozen(np.vstack([G_l, G_0])), Phi=_frozen(Phi), g_r=_frozen(G_r.sum(axis=0)),
        M_const=_frozen(np.diag(np.concatenate([np.zeros(n), [m_tot, m_tot], np.full(n - 1, rotor_term)]))),
    )
