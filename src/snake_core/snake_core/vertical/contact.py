"""Kelvin–Voigt contact with the ground and boxes, 002 (4.26)–(4.32), §5.3.

Every one of the 2N+1 candidate points (§4.6: link centres, joints, both tips) is tested against
every surface at every evaluation. A surface is the ground plane (normal +z) or a box (its top and
sides, Fig. 4.4). For a point with penetration δ > 0 along the surface normal n:

    f^N = max(ℓ δ + d δ̇, 0)               (4.26) with physical damping (see below)
    f^T = −f^N μ sgn_ε(ẋ^T)               (4.27), ẋ^T the velocity along the face, μ the surface's
    Q^c = Jₓᵀ Fₓ + J_zᵀ F_z                (4.28)–(4.32)

Decisions (shared/reference/ambiguities.md):

- Penetration δ = r_c − (distance of the point above the face): 002 §5.3 puts a point in contact
  when z ≤ 0.01 m, so the points carry a contact radius r_c = ``threshold`` (0.01 m).
- Damping, 002 (4.26) read literally (ℓz − dż with z ≤ 0) pumps energy in; we use the physical
  law in which the damping force opposes the penetration velocity: δ̇ = −n·v.
- sgn of (4.27) is regularised as tanh(v/ε) with ε = ``slip_velocity`` (1 mm/s, far below the
  cm/s speeds of the gait) so that the integrator can linearise it; :class:`ContactResult` carries
  the Jacobians ∂Q/∂q̇ and ∂Q/∂q (with the geometric term ∂Jᵀ/∂q · F on the link angles) for the
  linearly implicit integrator.
- Each point is a disc of radius r_c. Against a box (top and both sides; the bottom is not a contact
  surface, boxes stand on the ground) δ = r_c − the distance to the box's nearest point and n points
  from that point to the disc's centre: flat on a face, turning around an edge (the box grown by the
  disc has rounded edges), so a disc pushed onto an edge from the side is lifted once its centre is
  above the edge. A centre inside the box leaves through the nearest face.
- Friction per surface: the ground's μ is μ_c (``ContactParams.friction``, 002 Table 5.1); each box has
  its own μ on its top and on its sides (:attr:`Terrain.friction`, from the world file's SDF
  ``<surface><friction>``, ``snake_sim.world``), by default μ_c on every face as 002 §4.6 (Fig. 4.4)
  puts it. A face's μ holds over the whole face and onto the rounded edge: there the normal
  n = (n_x, n_z) turns from one face to the other and μ(n) = μ_side n_x² + μ_top n_z², equal to a
  face's μ wherever the normal is that face's and continuous round the edge (no jump in f^T as a point
  rolls over it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import ConfigError, non_negative, positive
from .kinematics import link_angles
from .model import VerticalModel

#: 002 §5.3: a point is in contact when z ≤ 0.01 m.
CONTACT_THRESHOLD = 0.01
#: Regularisation velocity of sgn(ẋ) in (4.27) [m/s]; see the module docstring.
SLIP_VELOCITY = 1e-3
#: A step that changes a contact's slip velocity by more than this many ε is redone with the chord
#: slope of sgn_ε (:meth:`ContactResult.friction_secant`): the tangent slope of tanh is only valid
#: within a few ε, and with it large steps at high friction diverge.
SLIP_JUMP = 10.0


@dataclass(frozen=True)
class ContactParams:
    """Kelvin–Voigt ground model of 002 Table 5.1."""

    friction: float = 0.6  # μ_c
    stiffness: float = 550.0  # ℓ (k in Table 5.1) [N/m]
    damping: float = 10.0  # d [N·s/m]
    threshold: float = CONTACT_THRESHOLD  # r_c [m]
    slip_velocity: float = SLIP_VELOCITY  # ε [m/s]

    def __post_init__(self) -> None:
        non_negative(self.friction, "contact.friction")
        positive(self.stiffness, "contact.stiffness")
        non_negative(self.damping, "contact.damping")
        non_negative(self.threshold, "contact.threshold")
        positive(self.slip_velocity, "contact.slip_velocity")


@dataclass(frozen=True, eq=False)
class Terrain:
    """What the points can touch in the x–z plane: a ground height and boxes.

    ``boxes`` is (B, 4): x_min, x_max, bottom, top [m] of each box crossing the plane y = 0.
    ``friction`` is (B, 2): μ on the top and on the sides of each box; None: μ_c on every face
    (002 §4.6, Fig. 4.4). The ground's μ is always μ_c.
    """

    ground: float | None
    boxes: np.ndarray
    friction: np.ndarray | None = None

    def __post_init__(self) -> None:
        b = np.asarray(self.boxes, dtype=float).reshape(-1, 4)
        if np.any(b[:, 1] <= b[:, 0]) or np.any(b[:, 3] <= b[:, 2]):
            raise ConfigError("terrain.boxes", b.tolist(), "each box needs x_min < x_max and bottom < top")
        b.setflags(write=False)
        object.__setattr__(self, "boxes", b)
        if self.friction is not None:
            mu = np.asarray(self.friction, dtype=float)
            if mu.shape != (len(b), 2) or not np.all(np.isfinite(mu)) or np.any(mu < 0.0):
                raise ConfigError("terrain.friction", mu.tolist(), f"must be {len(b)} pairs (top, sides) of "
                                  "finite μ >= 0, one per box")
            mu.setflags(write=False)
            object.__setattr__(self, "friction", mu)

    @classmethod
    def flat(cls, ground: float = 0.0) -> Terrain:
        return cls(ground, np.zeros((0, 4)))

    def height(self, x: np.ndarray) -> np.ndarray:
        """Height of the terrain surface under x (for plots and start poses)."""
        x = np.asarray(x, dtype=float)
        h = np.full(x.shape, -np.inf if self.ground is None else self.ground)
        for x0, x1, _, top in self.boxes:
            h = np.where((x >= x0) & (x <= x1), np.maximum(h, top), h)
        return h


@dataclass(eq=False, slots=True)
class ContactResult:
    Q: np.ndarray  # generalised contact force Q^c (2N+1,)
    D: np.ndarray  # ∂Q^c/∂q̇ (linearised)
    K: np.ndarray  # ∂Q^c/∂q (linearised)
    n_active: int  # points in contact (a point touching two faces counts once)
    points: np.ndarray  # candidate index of each (point, face) contact pair
    f_normal: np.ndarray  # f^N of each pair [N]
    f_tangent: np.ndarray  # f^T of each pair [N], along t = (n_z, −n_x)
    nx: np.ndarray  # face normal of each pair
    nz: np.ndarray
    Jt: np.ndarray | None = None  # tangential rows of the pair Jacobians (pairs, 2N+1)
    v_t: np.ndarray | None = None  # tangential velocity of each pair [m/s]
    slope: np.ndarray | None = None  # d sgn_ε/dv used in D for each pair [s/m]
    mu: np.ndarray | float | None = None  # friction coefficient of each pair (or one for all)

    def friction_secant(self, params: ContactParams, v1: np.ndarray, dissipative: bool = False
                        ) -> np.ndarray | None:
        """Correction of D that replaces the tangent slope of sgn_ε by its chord between the velocities
        before and after a step, for the pairs whose slip velocity changed by more than
        ``SLIP_JUMP`` ε (None if none did): one secant iteration of the implicit friction.

        ``dissipative``: the chord from 0 instead, sgn_ε(v_0)/v_0, which makes the step's friction a
        damper f^T = −μ f^N (sgn_ε(v_0)/v_0) v⁺ that always opposes the new slip (unconditionally
        stable, first-order accurate); the fallback when the secant iterations do not settle.
        """
        if self.Jt is None or not self.points.size:
            return None
        vt1 = self.Jt @ v1
        dv = vt1 - self.v_t
        eps = params.slip_velocity
        big = np.abs(dv) > SLIP_JUMP * eps
        if not big.any():
            return None
        if dissipative:
            v0 = self.v_t[big]
            tiny = np.abs(v0) < 1e-9
            chord = np.where(tiny, 1.0 / eps, np.tanh(v0 / eps) / np.where(tiny, 1.0, v0))
        else:
            chord = (np.tanh(vt1[big] / eps) - np.tanh(self.v_t[big] / eps)) / dv[big]
        Jb = self.Jt[big]
        mu = self.mu[big] if isinstance(self.mu, np.ndarray) else self.mu
        return Jb.T @ ((-mu * self.f_normal[big] * (chord - self.slope[big]))[:, None] * Jb)


def _pairs(terrain: Terrain, r: float, mu_c: float, x: np.ndarray, z: np.ndarray
           ) -> tuple[np.ndarray, ...]:
    """Penetrating (point, surface) pairs: point index, penetration δ > 0, unit normal (nx, nz), the
    curvature 1/ρ of the surface the point's disc meets (0 on a flat face, 1/(distance to the edge) at a
    box's rounded corner), the pair's μ and its rate ∂μ/∂s along the tangent t (nonzero round an edge whose
    top and sides differ)."""
    idx, delta, nx, nz, curv, mu, dmu = [], [], [], [], [], [], []
    if terrain.ground is not None:
        d = terrain.ground + r - z
        hit = np.flatnonzero(d > 0.0)
        e = np.zeros(hit.size)
        if not terrain.boxes.size:
            return hit, d[hit], e, np.ones(hit.size), e, mu_c, e
        idx.append(hit)
        delta.append(d[hit])
        nx.append(e)
        nz.append(np.ones(hit.size))
        curv.append(e)
        mu.append(np.full(hit.size, mu_c))
        dmu.append(e)
    faces_mu = np.full((len(terrain.boxes), 2), mu_c) if terrain.friction is None else terrain.friction
    for (x0, x1, bottom, top), (mu_top, mu_side) in zip(terrain.boxes, faces_mu, strict=True):
        # The disc of radius r about each point against the box's top and sides: the closest point of the
        # box (bottom excluded, boxes stand on the ground) gives the distance and the normal, so the
        # edges are rounded as the Minkowski sum of box and disc is.
        ex = x - np.clip(x, x0, x1)
        ez = z - np.minimum(z, top)
        dist = np.hypot(ex, ez)
        hit = np.flatnonzero((dist < r) & (z > bottom))
        if hit.size == 0:
            continue
        de, ex, ez = dist[hit], ex[hit], ez[hit]
        out = de > 0.0
        safe = np.where(out, de, 1.0)
        n_x, n_z = ex / safe, ez / safe
        dl = r - de
        k = np.where(out & (ex != 0.0) & (ez != 0.0), 1.0 / safe, 0.0)
        inside = ~out
        if inside.any():  # centre inside the box: push out through the face it is nearest to
            xi, zi = x[hit[inside]], z[hit[inside]]
            faces = np.stack([top - zi, xi - x0, x1 - xi])
            f = np.argmin(faces, axis=0)
            dl[inside] = r + faces[f, np.arange(f.size)]
            n_x[inside] = np.choose(f, [0.0, -1.0, 1.0])
            n_z[inside] = np.choose(f, [1.0, 0.0, 0.0])
        idx.append(hit)
        delta.append(dl)
        nx.append(n_x)
        nz.append(n_z)
        curv.append(k)
        # μ(n) = μ_side n_x² + μ_top n_z² (module docstring); with ∂n/∂p = t tᵀ/ρ, ∂μ/∂s = 2 n_x n_z (μ_side − μ_top)/ρ
        mu.append(mu_side * n_x * n_x + mu_top * n_z * n_z)
        dmu.append(2.0 * (mu_side - mu_top) * n_x * n_z * k)
    if len(idx) == 1:
        return idx[0], delta[0], nx[0], nz[0], curv[0], mu[0], dmu[0]
    if not idx:
        e = np.zeros(0)
        return e.astype(int), e, e, e, e, e, e
    return tuple(np.concatenate(a) for a in (idx, delta, nx, nz, curv, mu, dmu))


def _pair_jacobians(model: VerticalModel, Gp: np.ndarray, c: np.ndarray, s: np.ndarray, nx: np.ndarray,
                    nz: np.ndarray, ground_only: bool) -> np.ndarray:
    """Normal and tangential rows of the point Jacobians (4.31)–(4.32) projected on each pair's face, stacked
    J = [J_n; J_t] (2m, 2N+1): n·[ẋ; ż] with ẋ = ṗ_x − 𝒢 𝒮_θ θ̇, ż = ṗ_z + 𝒢 𝒞_θ θ̇; t = (n_z, −n_x)."""
    n = model.n_links
    m = Gp.shape[0]
    J = np.zeros((2 * m, model.n_q))
    if ground_only:  # n = (0, 1), t = (1, 0)
        J[:m, :n] = (Gp * c) @ model.T
        J[m:, :n] = (Gp * -s) @ model.T
        J[:m, n + 1] = 1.0
        J[m:, n] = 1.0
    else:
        Gc, Gs = Gp * c, Gp * s
        J[:m, :n] = (nz[:, None] * Gc - nx[:, None] * Gs) @ model.T
        J[m:, :n] = (-nz[:, None] * Gs - nx[:, None] * Gc) @ model.T
        J[:m, n], J[:m, n + 1], J[m:, n], J[m:, n + 1] = nx, nz, nz, -nx
    return J


def _force_jacobians(J: np.ndarray, params: ContactParams, fn: np.ndarray, ft: np.ndarray, sg: np.ndarray,
                     mu: np.ndarray | float, curv: np.ndarray, dmu: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(∂Q/∂q̇, ∂Q/∂q without the geometric term, d sgn_ε/dv) of the pair forces F = f^N n + f^T t:
    ∂F/∂v = −d n nᵀ − μ f^N sgn'/ε t tᵀ + μ sgn d t nᵀ;  ∂F/∂p = −ℓ n nᵀ + μ sgn ℓ t nᵀ."""
    m = fn.size
    k, d, eps = params.stiffness, params.damping, params.slip_velocity
    Jn, Jt = J[:m], J[m:]
    wn = Jn * (fn > 0.0)[:, None]  # rows of the pairs that push (f^N > 0)
    X = np.empty_like(J)
    X[:m] = -d * wn
    slope = (1.0 - sg * sg) / eps
    X[m:] = -(mu * (fn * slope))[:, None] * Jt + ((mu * d) * sg)[:, None] * wn
    D = J.T @ X
    X[:m] = -k * wn
    X[m:] = ((mu * k) * sg)[:, None] * wn
    K = J.T @ X
    if curv.any():  # at a rounded edge n and t turn with the point: ∂n/∂p = t tᵀ/ρ, ∂t/∂p = −n tᵀ/ρ,
        # and μ(n) with them: ∂f^T/∂p ∋ −f^N sgn_ε ∂μ/∂s tᵀ
        K += Jt.T @ ((fn * curv - fn * sg * dmu)[:, None] * Jt) - Jn.T @ ((ft * curv)[:, None] * Jt)
    return D, K, slope


def contact_forces(model: VerticalModel, terrain: Terrain, params: ContactParams, q: np.ndarray,
                   v: np.ndarray, trig: tuple[np.ndarray, np.ndarray] | None = None) -> ContactResult:
    """Q^c of (4.28) at the 2N+1 candidates, with the linearisation the integrator needs.

    ``trig`` = (cos θ, sin θ) if the caller has them already (``VerticalData.cos``, ``.sin``).
    """
    n = model.n_links
    nq = model.n_q
    G = model.G_c
    if trig is None:
        th = link_angles(model, q)
        trig = (np.cos(th), np.sin(th))
    c, s = trig
    z = q[model.i_pz] + G @ s
    x = q[model.i_px] + G @ c if terrain.boxes.size else z  # x only matters for boxes
    idx, delta, nx, nz, curv, mu, dmu = _pairs(terrain, params.threshold, params.friction, x, z)
    if idx.size == 0:
        e = np.zeros(0)
        return ContactResult(np.zeros(nq), np.zeros((nq, nq)), np.zeros((nq, nq)), 0, idx, e, e, e, e)

    m = idx.size
    Gp = G[idx]
    J = _pair_jacobians(model, Gp, c, s, nx, nz, not terrain.boxes.size)
    vel = J @ v
    fn = params.stiffness * delta - params.damping * vel[:m]  # (4.26), physical damping: opposes the penetration
    fn *= (fn > 0.0) * 1.0
    sg = np.tanh(vel[m:] / params.slip_velocity)
    ft = -mu * fn * sg  # (4.27), μ of the surface (module docstring)
    Q = J[:m].T @ fn + J[m:].T @ ft  # (4.29)–(4.30)
    D, K, slope = _force_jacobians(J, params, fn, ft, sg, mu, curv, dmu)
    # Geometric stiffness ∂(Jᵀ)/∂q · F: Q_a = 𝒯ᵀ(−sin θ ∘ 𝒢ᵀF_x + cos θ ∘ 𝒢ᵀF_z), so
    # ∂Q_a/∂a = 𝒯ᵀ diag(−cos θ ∘ 𝒢ᵀF_x − sin θ ∘ 𝒢ᵀF_z) 𝒯 (large under large friction forces).
    if terrain.boxes.size:
        Fx, Fz = fn * nx + ft * nz, fn * nz - ft * nx
    else:
        Fx, Fz = ft, fn
    K[:n, :n] += (model.T.T * -(c * (Fx @ Gp) + s * (Fz @ Gp))) @ model.T
    return ContactResult(Q, D, K, m if not terrain.boxes.size else len(set(idx.tolist())), idx, fn, ft, nx, nz,
                         J[m:], vel[m:], slope, mu)
