"""Per-step kinematics and inverse dynamics of 003's closed-chain mechanisms M1, M2, M3 (003 §3.4–3.5, App. A).

Each mechanism is a planar chain in its local frame: local joint 1 pinned at the origin on the anchor link
(which does not slip), local links 1..n rising toward +x, the distal end of link n on the ground. The first
``n − 1`` joints are driven along B-splines; the last link closes the chain (its angle follows from the
tip staying on the ground, (3.19)–(3.30)). M3 adds the flat links behind the hump as one rigid slider on
the ground with θ_{n+1} = −φ_n (3.50). The tip (M1, M2) or the slider (M3) slides with Coulomb friction
F_fr = −μ F_R sign(v_tip) (3.33).

Forces follow from one linear system per sample, A·Fa = Fi (3.48): three equations per link
(ΣF = m v̇, ΣM = I ω̇, (3.34)–(3.44)) and two for the slider, in the unknowns
Fa = [F01x, F01y, …, F_R, τ1, …, τ_{n−1}] (9×9 for M1, 12×12 for M2, 14×14 for M3); v̇ includes +g in y
(the base-acceleration trick; 003 prints no explicit m g term, [RECON]).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..registry import Param
from ..robot import RobotParams
from . import bspline
from .cycle import N_CHAIN, N_DRIVEN, StepSpec
from .newton_euler import GRAVITY, PlanarChain, inverse_dynamics, link_kinematics

#: Samples per gait step: 003 §3.5.3 "20 times/interval", read as 20 samples on [0, T] with Δt = T/19
#: ([AMBIG] in seed003_rectilinear.md §5.1; 21 samples with Δt = T/20 is the other reading).
SAMPLES_PER_STEP = 20
#: A joint counts as above the ground down to this depth [m]: 003's optimum sits on the y ≥ 0 boundary and
#: joints lie on the ground by construction at the step ends ([AMBIG] 003 §3.5.3 step (5), seed003 §6.1, §10).
GROUND_TOLERANCE = 1e-4
#: A joint may exceed its range by this much [rad] (0.006°): the boundary states sit exactly on ±α, which may be
#: the range itself, and the optimiser meets its constraints only to its own tolerance.
JOINT_LIMIT_TOLERANCE = 1e-4
#: |sin φ_n| of the closing link beyond which a step is refused: (3.24) needs |sin φ_n| ≤ 1 for a real
#: solution, and (3.27), (3.29) are singular at φ_n = ±π/2 (003: "the trajectories used do not approach this
#: singularity"); we refuse closing links steeper than 85°, where the accelerations grow beyond 11× (1/cos φ_n).
CLOSURE_LIMIT = float(np.sin(np.radians(85.0)))

#: The fields of :class:`RectilinearModel` (but gravity), each checked against its spec when a model is made.
MODEL_PARAMS = (
    Param("link_length", None, "m", "l, a link's full length", 0.0, low_open=True, required=True, source="003 §3.6"),
    Param("link_mass", None, "kg", "m, a link's mass", 0.0, low_open=True, required=True, source="003 §3.6"),
    Param("link_inertia", None, "kg·m²", "I, a link's moment of inertia about its centroid", 0.0, required=True),
    Param("mu", 0.4, "", "Coulomb friction at the sliding contact", 0.0, 2.0, source="003 §3.6"),
    Param("step_time", 1.0, "s", "T, the duration of a gait step", 0.0, low_open=True),
    Param("samples", SAMPLES_PER_STEP, "", "samples of a step on [0, T]", 3, kind=int, source="003 §3.5.3"),
    Param("joint_limit", np.pi / 2, "rad", "|θ| allowed for every joint during a step", 0.0, np.pi, low_open=True),
    Param("ground_tolerance", GROUND_TOLERANCE, "m", "depth down to which a joint counts as above the ground", 0.0),
)
_DEFAULT = {p.name: p.default for p in MODEL_PARAMS}
#: The gait angle α (the boundary states put joints at ±α), checked with the model's joint limit as its bound.
ALPHA = Param("alpha", None, "rad", "the gait angle: the step's boundary states put joints at ±α", 0.0, low_open=True,
              required=True, source="003 §3.5")


@dataclass(frozen=True)
class RectilinearModel:
    """003's analysis model: identical thin links, Coulomb tip friction, uniform sampling of a step."""

    link_length: float  # l [m] (003's full link length)
    link_mass: float  # m [kg]
    link_inertia: float  # I about the centroid [kg·m²]
    mu: float = _DEFAULT["mu"]  # Coulomb friction at the sliding contact (003 §3.6)
    step_time: float = _DEFAULT["step_time"]  # T [s]
    samples: int = _DEFAULT["samples"]
    gravity: float = GRAVITY
    joint_limit: float = _DEFAULT["joint_limit"]  # |θ| allowed for every joint during a step [rad]
    ground_tolerance: float = _DEFAULT["ground_tolerance"]

    def __post_init__(self) -> None:
        """Each field against its spec (:data:`MODEL_PARAMS`)."""
        for p in MODEL_PARAMS:
            p.check(getattr(self, p.name), p.name)

    @property
    def u(self) -> np.ndarray:
        return np.linspace(0.0, 1.0, self.samples)

    @property
    def dt(self) -> float:
        return self.step_time / (self.samples - 1)  # total time / number of intervals ([AMBIG] (3.75))

    def scaled_mass(self, k: float) -> RectilinearModel:
        """The same model with every mass (and so every inertia) multiplied by ``k``."""
        return RectilinearModel(self.link_length, self.link_mass * k, self.link_inertia * k, self.mu, self.step_time,
                                self.samples, self.gravity, self.joint_limit, self.ground_tolerance)


def build_model(robot: RobotParams, **settings: Any) -> RectilinearModel:
    """003's model of ``robot``'s links (length, mass) as thin rods, I = m l² / 12 (003 "treating the link as a thin
    rod", [RECON]; the robot file's inertia is not used).

    ``settings`` are the other :class:`RectilinearModel` fields (mu, step_time [s], samples, gravity [m/s²],
    joint_limit [rad], ground_tolerance [m]).
    """
    length, mass = robot.link_length, robot.link_mass
    return RectilinearModel(length, mass, mass * length**2 / 12.0, **settings)


@dataclass(frozen=True)
class StepMotion:
    """Local kinematics of a step sampled in time; arrays (…, samples, ·)."""

    theta: np.ndarray  # local joint angles (driven, closing, and M3's slider joint)
    thetad: np.ndarray
    phi: np.ndarray  # absolute angles of the chain links (without the slider)
    phid: np.ndarray
    phidd: np.ndarray
    closure: np.ndarray  # sin φ_n required to close the chain, (3.22); |·| ≤ 1 for a real solution


def driven_trajectory(spec: StepSpec, alpha: float, free: np.ndarray, u: np.ndarray, step_time: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Driven-joint θ, θ̇, θ̈ of a step: B-splines (3.8) of the forward mechanism, run backwards if reversed."""
    start, end = spec.local_boundary(alpha)
    nd = free.shape[-2]
    pts = bspline.control_points(start[:nd], free, end[:nd])
    if not spec.reversed:
        return bspline.evaluate(pts, u, step_time)
    th, thd, thdd = bspline.evaluate(pts, 1.0 - np.asarray(u), step_time)
    return th, -thd, thdd


def closed_motion(spec: StepSpec, th: np.ndarray, thd: np.ndarray, thdd: np.ndarray) -> StepMotion:
    """Close the chain: φ_n from the tip on the ground and its rates, (3.19)–(3.30) and App. A."""
    phi_d, phid_d, phidd_d = (np.cumsum(x, axis=-1) for x in (th, thd, thdd))
    closure = -np.sum(np.sin(phi_d), axis=-1)  # sin φ_n, (3.22)
    lim = CLOSURE_LIMIT
    # Outside the closable range only the optimiser's trial points land; clamp so they stay finite (they are
    # reported infeasible through ``closure``, never as a number).
    s = np.where(np.abs(closure.real) > lim, np.sign(closure.real) * lim + 1j * np.imag(closure), closure)
    s = s if np.iscomplexobj(closure) else s.real
    phi_n = np.arcsin(s)
    c_n = np.cos(phi_n)
    phid_n = -np.sum(phid_d * np.cos(phi_d), axis=-1) / c_n  # (3.27)
    phidd_n = -(np.sum(phidd_d * np.cos(phi_d) - phid_d**2 * np.sin(phi_d), axis=-1)
                - phid_n**2 * np.sin(phi_n)) / c_n  # (3.29)
    phi = np.concatenate([phi_d, phi_n[..., None]], axis=-1)
    phid = np.concatenate([phid_d, phid_n[..., None]], axis=-1)
    phidd = np.concatenate([phidd_d, phidd_n[..., None]], axis=-1)
    theta = np.diff(phi, axis=-1, prepend=0.0)  # θ_i = φ_i − φ_{i−1}, (3.23)
    thetad = np.diff(phid, axis=-1, prepend=0.0)
    if spec.kind == "M3":  # θ5 = −φ4 keeps the slider flat (3.50)
        theta = np.concatenate([theta, -phi[..., -1:]], axis=-1)
        thetad = np.concatenate([thetad, -phid[..., -1:]], axis=-1)
    return StepMotion(theta, thetad, phi, phid, phidd, closure)


@dataclass(frozen=True)
class StepDynamics:
    """Inverse dynamics of one step over its samples (local joint order)."""

    t: np.ndarray  # time from the start of the step [s]
    theta: np.ndarray  # (S, n_local) local joint angles
    thetad: np.ndarray
    tau: np.ndarray  # (S, n_driven) driven joint torques [N·m]
    normal_force: np.ndarray  # F_R (S,) [N]; zeros for the open chain
    friction: np.ndarray  # F_fr (S,) [N]
    joint_heights: np.ndarray  # (S, k) heights of the joints that must stay above the ground [m]
    closure: np.ndarray  # (S,) sin φ_n (open chain: zeros)

    def violations(self, model: RectilinearModel) -> list[str]:
        """Human-readable reasons the step is physically infeasible (empty when feasible)."""
        out = []
        if np.any(np.abs(self.closure) > CLOSURE_LIMIT):
            out.append(f"the chain cannot close: |sin φ_n| reaches {np.max(np.abs(self.closure)):.3f} > "
                       f"{CLOSURE_LIMIT:.4f} (3.24; 85° from the ground, near the singularity)")
        if self.joint_heights.size and np.min(self.joint_heights) < -model.ground_tolerance:
            out.append(f"a joint goes {-np.min(self.joint_heights) * 1e3:.2f} mm below the ground")
        if self.normal_force.any() and np.min(self.normal_force) <= 0.0:
            out.append(f"the contact lifts off: F_R reaches {np.min(self.normal_force):.4g} N <= 0")
        worst = np.max(np.abs(self.theta))
        if worst > model.joint_limit + JOINT_LIMIT_TOLERANCE:
            out.append(f"a joint reaches {np.degrees(worst):.1f} deg beyond the ±{np.degrees(model.joint_limit):.1f} "
                       "deg joint range")
        return out


def closed_chain_forces(model: RectilinearModel, spec: StepSpec, motion: StepMotion, smoothing: float = 0.0
                        ) -> tuple[np.ndarray, ...]:
    """Solve A·Fa = Fi (3.48) at every sample; returns (τ (…, n−1), F_R, F_fr, tip joint positions p).

    ``smoothing`` > 0 replaces sign(v) by tanh(v / smoothing) (an optimiser aid only, see optimise.py).
    """
    n = N_CHAIN[spec.kind]
    slider = spec.kind == "M3"
    m, inertia, h = model.link_mass, model.link_inertia, 0.5 * model.link_length
    lengths = np.full(n, model.link_length)
    p, a, a_c, v = link_kinematics(lengths, lengths / 2, motion.phi, motion.phid, motion.phidd)
    v_tip = v[..., -1, 0]
    sigma = np.tanh(v_tip / smoothing) if smoothing > 0 else np.sign(v_tip.real)  # sign(⁰v_tip), (3.33)
    s, c = np.sin(motion.phi), np.cos(motion.phi)
    n_f = n + (1 if slider else 0)  # joint forces F_{(i−1)i}, i = 1..n_f
    col_r = 2 * n_f  # F_R
    n_eq = 3 * n + (2 if slider else 0)
    shape = motion.phi.shape[:-1]
    A = np.zeros((*shape, n_eq, n_eq), dtype=np.result_type(motion.phi, float))
    rhs = np.zeros((*shape, n_eq), dtype=A.dtype)
    mu_s = model.mu * sigma
    for i in range(n):
        rx, ry, rm = 3 * i, 3 * i + 1, 3 * i + 2
        A[..., rx, 2 * i] = 1.0  # (3.39)
        A[..., ry, 2 * i + 1] = 1.0  # (3.40)
        A[..., rm, 2 * i] = h * s[..., i]  # (3.41)
        A[..., rm, 2 * i + 1] = -h * c[..., i]
        if i < n - 1 or slider:  # distal joint force −F_{i(i+1)}
            A[..., rx, 2 * i + 2] = -1.0
            A[..., ry, 2 * i + 3] = -1.0
            A[..., rm, 2 * i + 2] = h * s[..., i]
            A[..., rm, 2 * i + 3] = -h * c[..., i]
        else:  # tip on the ground: F_R up, F_fr = −μσF_R along x, (3.42)–(3.44)
            A[..., rx, col_r] = -mu_s
            A[..., ry, col_r] = 1.0
            A[..., rm, col_r] = h * c[..., i] + mu_s * h * s[..., i]
        if i <= n - 2:
            A[..., rm, col_r + 1 + i] = 1.0  # τ_i on link i
        if i + 1 <= n - 2:
            A[..., rm, col_r + 2 + i] = -1.0  # −τ_{i+1}, its reaction
        rhs[..., rx] = m * a_c[..., i, 0]
        rhs[..., ry] = m * (a_c[..., i, 1] + model.gravity)
        rhs[..., rm] = inertia * motion.phidd[..., i]
    if slider:  # the flat links behind the hump: one rigid body on the ground (App. A, [RECON])
        m_s = m * spec.slider_links
        A[..., 3 * n, 2 * n] = 1.0
        A[..., 3 * n, col_r] = -mu_s
        A[..., 3 * n + 1, 2 * n + 1] = 1.0
        A[..., 3 * n + 1, col_r] = 1.0
        rhs[..., 3 * n] = m_s * a[..., -1, 0]
        rhs[..., 3 * n + 1] = m_s * model.gravity  # flat on the ground: no vertical acceleration
    fa = np.linalg.solve(A, rhs[..., None])[..., 0]
    f_r = fa[..., col_r]
    return fa[..., col_r + 1:], f_r, -mu_s * f_r, p


def step_dynamics(model: RectilinearModel, spec: StepSpec, alpha: float, free: np.ndarray) -> StepDynamics:
    """Torques, contact forces and feasibility data of one closed-chain step for driven control points C."""
    free = np.asarray(free, dtype=float).reshape(N_DRIVEN[spec.kind], bspline.N_FREE)
    motion = closed_motion(spec, *driven_trajectory(spec, alpha, free, model.u, model.step_time))
    tau, f_r, f_fr, p = closed_chain_forces(model, spec, motion)
    return StepDynamics(model.u * model.step_time, motion.theta, motion.thetad, tau, f_r, f_fr,
                        p[..., 1:-1, 1], motion.closure)


def open_m1_dynamics(model: RectilinearModel, alpha: float, free: np.ndarray) -> StepDynamics:
    """003's open-loop alternative for step 1: three driven joints lift links 4–6 clear of the ground (§3.5).

    Recursive Newton–Euler (3.10)–(3.18); the tip must stay above the ground until it lands at the end.
    """
    spec = StepSpec(1, "M1", (0, 1, 2), False, 0)
    free = np.asarray(free, dtype=float).reshape(3, bspline.N_FREE)
    th, thd, thdd = driven_trajectory(spec, alpha, free, model.u, model.step_time)
    chain = PlanarChain.uniform(3, model.link_length, model.link_mass, model.link_inertia, model.gravity)
    tau = inverse_dynamics(chain, th, thd, thdd)
    phi = np.cumsum(th, axis=-1)
    heights = model.link_length * np.cumsum(np.sin(phi), axis=-1)  # joints 2, 3 and the tip
    zeros = np.zeros(len(model.u))
    return StepDynamics(model.u * model.step_time, th, thd, tau, zeros, zeros, heights, zeros)


def effort(tau: np.ndarray, dt: float) -> np.ndarray:
    """J = ½ ∫ τᵀτ dt (3.57), discretised as (3.75): ½ Σ_j Σ_m ((τ_{m+1,j} + τ_{m,j}) / 2)² Δt."""
    mid = 0.5 * (tau[..., 1:, :] + tau[..., :-1, :])
    return 0.5 * np.sum(mid**2, axis=(-2, -1)) * dt


def check_alpha(alpha: float, joint_limit: float, field: str = "alpha") -> float:
    """The gait angle must lie in (0, joint range]; the boundary states put joints at ±α."""
    return replace(ALPHA, high=float(joint_limit)).check(alpha, field)
