"""Kelvin–Voigt contact with the ground and boxes, 002 (4.26)–(4.32), §5.3.

Every one of the 2N+1 candidate points (§4.6: link centres, joints, both tips) is tested against
every surface at every evaluation. A surface is the ground plane (normal +z) or a box (its top and
sides, Fig. 4.4). For a point with penetration δ > 0 along the surface normal n:

    f^N = max(ℓ δ + d δ̇, 0)               (4.26) with physical damping (see below)
    f^T = −f^N μ sgn_ε(ẋ^T)               (4.27), ẋ^T the velocity along the face, μ the surface's
    Q^c = Jₓᵀ Fₓ + J_zᵀ F_z                (4.28)–(4.32)

Decisions (docs/readings.md):

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
  ``<surface><friction>``, ``snake_sim.core.world``), by default μ_c on every face as 002 §4.6 (Fig. 4.4)
  puts it. A face's μ holds over the whole face and onto the rounded edge: there the normal
  n = (n_x, n_z) turns from one face to the other and μ(n) = μ_side n_x² + μ_top n_z², equal to a
  face's μ wherever the normal is that face's and continuous round the edge (no jump in f^T as a point
  rolls over it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..registry import Param
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
        positive(self.threshold, "contact.threshold")  # r_c = 0: no disc, a box's faces catch no point
        positive(self.slip_velocity, "contact.slip_velocity")


_D = ContactParams()
#: A scenario's ``contact:`` for this law (the vertical model's): the fields of :class:`ContactParams`.
CONTACT_PARAMS = (
    Param("friction", _D.friction, "", "μ_c, Coulomb friction of the ground (and of boxes whose world file gives none)",
          0.0, 5.0, source="002 Table 5.1"),
    Param("stiffness", _D.stiffness, "N/m", "ℓ, the ground spring", 0.0, low_open=True, source="002 Table 5.1"),
    Param("damping", _D.damping, "N·s/m", "d, the ground damper", 0.0, source="002 Table 5.1"),
    Param("threshold", _D.threshold, "m", "r_c, a point within this of the ground is in contact", 0.0, 0.1,
          low_open=True, source="002 §5.3"),
    Param("slip_velocity", _D.slip_velocity, "m/s", "ε, regularisation velocity of sgn(ẋ) in the friction (4.27)", 0.0,
          low_open=True, source="suite, on 002 (4.27)"),
)


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
        # own C-ordered read-only copies: the compiled kernels take one array type (numba types a view apart)
        b = np.array(self.boxes, dtype=float, order="C").reshape(-1, 4)
        if np.any(b[:, 1] <= b[:, 0]) or np.any(b[:, 3] <= b[:, 2]):
            raise ConfigError("terrain.boxes", b.tolist(), "each box needs x_min < x_max and bottom < top")
        b.setflags(write=False)
        object.__setattr__(self, "boxes", b)
        if self.friction is not None:
            mu = np.array(self.friction, dtype=float, order="C")
            if mu.shape != (len(b), 2) or not np.all(np.isfinite(mu)) or np.any(mu < 0.0):
                raise ConfigError("terrain.friction", mu.tolist(), f"must be {len(b)} pairs (top, sides) of "
                                  "finite μ >= 0, one per box")
            mu.setflags(write=False)
            object.__setattr__(self, "friction", mu)

    def faces_friction(self, mu_c: float) -> np.ndarray:
        """(B, 2) μ of each box's top and sides: ``friction``, else μ_c on every face (002 §4.6). Read-only either
        way: one compiled signature of the contact kernels for both (numba types a read-only array apart)."""
        if self.friction is not None:
            return self.friction
        mu = np.full((len(self.boxes), 2), mu_c)
        mu.setflags(write=False)
        return mu

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
    Jt: np.ndarray  # tangential rows of the pair Jacobians (pairs, 2N+1)
    v_t: np.ndarray  # tangential velocity of each pair [m/s]
    slope: np.ndarray  # d sgn_ε/dv used in D for each pair [s/m]
    mu: np.ndarray  # friction coefficient of each pair

    def friction_secant(self, params: ContactParams, v1: np.ndarray, dissipative: bool = False
                        ) -> np.ndarray | None:
        """Correction of D that replaces the tangent slope of sgn_ε by its chord between the velocities
        before and after a step, for the pairs whose slip velocity changed by more than
        ``SLIP_JUMP`` ε (None if none did): one secant iteration of the implicit friction.

        ``dissipative``: the chord from 0 instead, sgn_ε(v_0)/v_0, which makes the step's friction a
        damper f^T = −μ f^N (sgn_ε(v_0)/v_0) v⁺ that always opposes the new slip (unconditionally
        stable, first-order accurate); the fallback when the secant iterations do not settle.
        """
        if not self.points.size:
            return None
        any_big, dD = secant_correction(self.Jt, self.v_t, self.f_normal, self.slope, self.mu,
                                        params.slip_velocity, np.ascontiguousarray(v1, dtype=float), dissipative)
        return dD if any_big else None


@njit(cache=True)
def _pairs(has_ground: bool, ground: float, boxes: np.ndarray, faces_mu: np.ndarray, r: float, mu_c: float,
           x: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, ...]:
    """Penetrating (point, surface) pairs, ground first, then box by box, points in order: point index,
    penetration δ > 0, unit normal (nx, nz), the curvature 1/ρ of the surface the point's disc meets (0 on a
    flat face, 1/(distance to the edge) at a box's rounded corner), the pair's μ and its rate ∂μ/∂s along the
    tangent t (nonzero round an edge whose top and sides differ)."""
    P = z.size
    size = P * (int(has_ground) + boxes.shape[0])
    idx = np.empty(size, np.int64)
    delta, nx, nz, curv, mu, dmu = np.empty((6, size))
    m = 0
    if has_ground:
        for i in range(P):
            d = ground + r - z[i]
            if d > 0.0:
                idx[m], delta[m], nx[m], nz[m], curv[m], mu[m], dmu[m] = i, d, 0.0, 1.0, 0.0, mu_c, 0.0
                m += 1
    for b in range(boxes.shape[0]):
        x0, x1, bottom, top = boxes[b, 0], boxes[b, 1], boxes[b, 2], boxes[b, 3]
        mu_top, mu_side = faces_mu[b, 0], faces_mu[b, 1]
        for i in range(P):
            # The disc of radius r about the point against the box's top and sides: the closest point of the
            # box (bottom excluded, boxes stand on the ground) gives the distance and the normal, so the
            # edges are rounded as the Minkowski sum of box and disc is.
            ex = x[i] - min(max(x[i], x0), x1)
            ez = z[i] - min(z[i], top)
            dist = np.hypot(ex, ez)
            if not (dist < r and z[i] > bottom):
                continue
            if dist > 0.0:
                n_x, n_z, dl = ex / dist, ez / dist, r - dist
                k = 1.0 / dist if ex != 0.0 and ez != 0.0 else 0.0
            else:  # centre inside the box: push out through the face it is nearest to (top, left, right)
                faces = (top - z[i], x[i] - x0, x1 - x[i])
                f = 0
                for j in (1, 2):
                    if faces[j] < faces[f]:
                        f = j
                dl, k = r + faces[f], 0.0
                n_x, n_z = (0.0, 1.0) if f == 0 else ((-1.0, 0.0) if f == 1 else (1.0, 0.0))
            # μ(n) = μ_side n_x² + μ_top n_z² (module docstring); with ∂n/∂p = t tᵀ/ρ,
            # ∂μ/∂s = 2 n_x n_z (μ_side − μ_top)/ρ
            idx[m], delta[m], nx[m], nz[m], curv[m] = i, dl, n_x, n_z, k
            mu[m] = mu_side * n_x * n_x + mu_top * n_z * n_z
            dmu[m] = 2.0 * (mu_side - mu_top) * n_x * n_z * k
            m += 1
    return idx[:m], delta[:m], nx[:m], nz[:m], curv[:m], mu[:m], dmu[:m]


@njit(cache=True)
def contact_kernel(G: np.ndarray, T: np.ndarray, has_ground: bool, ground: float, boxes: np.ndarray,
                   faces_mu: np.ndarray, r: float, mu_c: float, stiffness: float, damping: float, eps: float,
                   px: float, pz: float, c: np.ndarray, s: np.ndarray, v: np.ndarray) -> tuple:
    """Q^c, ∂Q^c/∂q̇, ∂Q^c/∂q and the pair data of :class:`ContactResult` (compiled, numba):

    J_n, J_t: the point Jacobians (4.31)–(4.32) projected on each pair's face, n·[ẋ; ż] and t·[ẋ; ż] with
    ẋ = ṗ_x − 𝒢 𝒮_θ θ̇, ż = ṗ_z + 𝒢 𝒞_θ θ̇, t = (n_z, −n_x); pair forces F = f^N n + f^T t with
    ∂F/∂v = −d n nᵀ − μ f^N sgn'/ε t tᵀ + μ sgn d t nᵀ,  ∂F/∂p = −ℓ n nᵀ + μ sgn ℓ t nᵀ.
    """
    n = T.shape[0]
    nb = n + 2  # the β columns of every point Jacobian are zero (𝒪 in (4.31)–(4.32)): work on [a, p_x, p_z]
    nq = v.size
    x = px + G @ c
    z = pz + G @ s
    idx, delta, nx, nz, curv, mu, dmu = _pairs(has_ground, ground, boxes, faces_mu, r, mu_c, x, z)
    m = idx.size
    Jn = np.zeros((m, nq))
    Jt = np.zeros((m, nq))
    Q = np.zeros(nq)
    D = np.zeros((nq, nq))
    K = np.zeros((nq, nq))
    fn, ft, vt, slope = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    gx, gz = np.zeros(n), np.zeros(n)
    for p in range(m):
        g = G[idx[p]]
        for i in range(n):
            rn = g[i] * (nz[p] * c[i] - nx[p] * s[i])  # n·(∂[x; z]/∂θ_i)
            rt = g[i] * (-nz[p] * s[i] - nx[p] * c[i])  # t·(∂[x; z]/∂θ_i)
            for k in range(n):  # θ = 𝒯 a
                Jn[p, k] += rn * T[i, k]
                Jt[p, k] += rt * T[i, k]
        Jn[p, n], Jn[p, n + 1], Jt[p, n], Jt[p, n + 1] = nx[p], nz[p], nz[p], -nx[p]
        vn, vt[p] = 0.0, 0.0
        for k in range(nb):
            vn += Jn[p, k] * v[k]
            vt[p] += Jt[p, k] * v[k]
        fn[p] = max(stiffness * delta[p] - damping * vn, 0.0)  # (4.26), physical damping: opposes the penetration
        sg = np.tanh(vt[p] / eps)
        ft[p] = -mu[p] * fn[p] * sg  # (4.27), μ of the surface (module docstring)
        slope[p] = (1.0 - sg * sg) / eps
        push = 1.0 if fn[p] > 0.0 else 0.0  # only pairs that push (f^N > 0) have a force law to linearise
        # D = Jₙᵀ(−d) Jₙ + Jₜᵀ(−μ f^N sgn′) Jₜ + Jₜᵀ(μ d sgn) Jₙ;  K = Jₙᵀ(−ℓ) Jₙ + Jₜᵀ(μ ℓ sgn) Jₙ and, at a
        # rounded edge, where n and t turn with the point (∂n/∂p = t tᵀ/ρ, ∂t/∂p = −n tᵀ/ρ) and μ(n) with them
        # (∂f^T/∂p ∋ −f^N sgn_ε ∂μ/∂s tᵀ): + Jₜᵀ(f^N/ρ − f^N sgn ∂μ/∂s) Jₜ − Jₙᵀ(f^T/ρ) Jₜ
        d_nn, d_tt, d_tn = -damping * push, -mu[p] * fn[p] * slope[p], mu[p] * damping * sg * push
        k_nn, k_tn = -stiffness * push, mu[p] * stiffness * sg * push
        k_tt, k_nt = fn[p] * curv[p] - fn[p] * sg * dmu[p], -ft[p] * curv[p]
        for i in range(nb):
            Q[i] += Jn[p, i] * fn[p] + Jt[p, i] * ft[p]  # (4.29)–(4.30)
            for j in range(nb):
                nn, tt, tn, nt = Jn[p, i] * Jn[p, j], Jt[p, i] * Jt[p, j], Jt[p, i] * Jn[p, j], Jn[p, i] * Jt[p, j]
                D[i, j] += d_nn * nn + d_tt * tt + d_tn * tn
                K[i, j] += k_nn * nn + k_tn * tn + k_tt * tt + k_nt * nt
        # the pair force in x, z for the geometric stiffness below
        Fx, Fz = fn[p] * nx[p] + ft[p] * nz[p], fn[p] * nz[p] - ft[p] * nx[p]
        gx += Fx * g
        gz += Fz * g
    # Geometric stiffness ∂(Jᵀ)/∂q · F: Q_a = 𝒯ᵀ(−sin θ ∘ 𝒢ᵀF_x + cos θ ∘ 𝒢ᵀF_z), so
    # ∂Q_a/∂a = 𝒯ᵀ diag(−cos θ ∘ 𝒢ᵀF_x − sin θ ∘ 𝒢ᵀF_z) 𝒯 (large under large friction forces).
    K[:n, :n] += (T.T * -(c * gx + s * gz)) @ T
    touching = np.zeros(G.shape[0], np.bool_)  # a point touching two faces counts once
    touching[idx] = True
    return Q, D, K, int(touching.sum()), idx, fn, ft, nx, nz, Jt, vt, slope, mu


@njit(cache=True)
def secant_correction(Jt: np.ndarray, vt0: np.ndarray, fn: np.ndarray, slope: np.ndarray, mu: np.ndarray,
                      eps: float, v1: np.ndarray, dissipative: bool) -> tuple[bool, np.ndarray]:
    """(any pair corrected, correction of D) of :meth:`ContactResult.friction_secant` (compiled, numba)."""
    nq = v1.size
    vt1 = Jt @ v1
    dv = vt1 - vt0
    big = np.abs(dv) > SLIP_JUMP * eps
    dD = np.zeros((nq, nq))
    if not big.any():
        return False, dD
    for p in np.flatnonzero(big):
        if dissipative:
            v0 = vt0[p]
            chord = 1.0 / eps if abs(v0) < 1e-9 else np.tanh(v0 / eps) / v0
        else:
            chord = (np.tanh(vt1[p] / eps) - np.tanh(vt0[p] / eps)) / dv[p]
        w = -mu[p] * fn[p] * (chord - slope[p])
        dD += np.outer(Jt[p], w * Jt[p])
    return True, dD


def contact_forces(model: VerticalModel, terrain: Terrain, params: ContactParams, q: np.ndarray,
                   v: np.ndarray, trig: tuple[np.ndarray, np.ndarray] | None = None) -> ContactResult:
    """Q^c of (4.28) at the 2N+1 candidates, with the linearisation the integrator needs.

    ``trig`` = (cos θ, sin θ) if the caller has them already (``VerticalData.cos``, ``.sin``).
    """
    if trig is None:
        th = link_angles(model, q)
        trig = (np.cos(th), np.sin(th))
    c, s = trig
    has_ground = terrain.ground is not None
    Q, D, K, n_active, *pairs = contact_kernel(
        model.G_c, model.T, has_ground, terrain.ground if has_ground else 0.0, terrain.boxes,
        terrain.faces_friction(params.friction),
        params.threshold, params.friction, params.stiffness, params.damping, params.slip_velocity,
        float(q[model.i_px]), float(q[model.i_pz]), c, s, np.asarray(v, dtype=float))
    return ContactResult(Q, D, K, n_active, *pairs)
