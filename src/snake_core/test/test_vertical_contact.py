"""Kelvin–Voigt contact (002 (4.26)–(4.32)) and the pedal-wave gait (4.38)."""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.gaits import make_gait
from snake_core.robot import load_robot
from snake_core.validation import ConfigError
from snake_core.vertical import ContactParams, Terrain, build_model, contact_forces, initial_configuration

K, D, MU, R = 550.0, 10.0, 0.6, 0.01


@pytest.fixture(scope="module")
def model():
    return build_model(load_robot("koopaee6"))


def flat_body(model, depth):
    """Straight body whose 2N+1 candidates all penetrate the ground by ``depth``."""
    return initial_configuration(model, 0.0, R - depth)


def test_normal_force_is_spring_plus_physical_damping(model):
    p = ContactParams(MU, K, D, R)
    q = flat_body(model, 0.002)
    v = np.zeros(model.n_q)
    c = contact_forces(model, Terrain.flat(), p, q, v)
    P = 2 * model.n_links + 1
    assert c.n_active == P
    assert c.f_normal == pytest.approx(np.full(P, K * 0.002))
    assert c.Q[model.i_pz] == pytest.approx(P * K * 0.002)
    assert c.Q[model.i_px] == pytest.approx(0.0, abs=1e-12)
    # moving into the ground (ż < 0): the damper resists, more force
    v[model.i_pz] = -0.05
    c = contact_forces(model, Terrain.flat(), p, q, v)
    assert c.f_normal == pytest.approx(np.full(P, K * 0.002 + D * 0.05))
    # leaving fast: max(·, 0), the ground never pulls
    v[model.i_pz] = +1.0
    c = contact_forces(model, Terrain.flat(), p, q, v)
    assert np.all(c.f_normal == 0.0) and c.Q[model.i_pz] == 0.0


def test_no_force_above_the_contact_threshold(model):
    q = initial_configuration(model, 0.0, R + 1e-4)
    c = contact_forces(model, Terrain.flat(), ContactParams(MU, K, D, R), q, np.zeros(model.n_q))
    assert c.n_active == 0 and not c.Q.any()


@pytest.mark.parametrize("direction", [+1.0, -1.0])
def test_friction_opposes_sliding_with_mu_times_normal(model, direction):
    q = flat_body(model, 0.002)
    v = np.zeros(model.n_q)
    v[model.i_px] = direction * 0.05  # 50 ε: sgn_ε = tanh(50) ≈ 1
    c = contact_forces(model, Terrain.flat(), ContactParams(MU, K, D, R), q, v)
    total_n = c.Q[model.i_pz]
    assert c.Q[model.i_px] == pytest.approx(-direction * MU * total_n, rel=1e-9)  # (4.27)


def test_box_side_pushes_back_and_top_carries(model):
    """A point against the near face of a box gets a −x normal force; on top, a +z one."""
    q = initial_configuration(model, 0.0, 0.05)  # in the air above the ground
    head_x = model.robot.total_length
    box_side = Terrain(None, np.array([[head_x + R - 0.003, head_x + 0.2, 0.0, 0.2]]))
    c = contact_forces(model, box_side, ContactParams(MU, K, D, R), q, np.zeros(model.n_q))
    assert c.n_active == 1 and c.nx[0] == -1.0 and c.f_normal[0] == pytest.approx(K * 0.003)
    assert c.Q[model.i_px] == pytest.approx(-K * 0.003) and c.Q[model.i_pz] == pytest.approx(0.0, abs=1e-12)
    box_top = Terrain(None, np.array([[-0.1, head_x + 0.1, 0.0, 0.05 - R + 0.002]]))
    c = contact_forces(model, box_top, ContactParams(MU, K, D, R), q, np.zeros(model.n_q))
    assert c.n_active == 2 * model.n_links + 1 and np.all(c.nz == 1.0)


@pytest.mark.parametrize("radius", [0.0, -0.01])
def test_a_contact_radius_that_would_remove_every_box_contact_is_refused_naming_the_field(radius):
    """r_c = 0 leaves each point a disc of radius 0, which no box face catches (the robot would drive through the
    box): ``contact.threshold`` must be > 0."""
    with pytest.raises(ConfigError, match=r"contact\.threshold = .* is invalid: .*> 0"):
        ContactParams(MU, K, D, radius)


def test_a_small_contact_radius_still_stops_a_point_inside_a_box(model):
    """The smallest radius keeps the box solid: a point whose centre is inside the box is pushed out through the
    nearest face (−x here) by ℓ times its depth plus r_c."""
    q = initial_configuration(model, 0.0, 0.05)
    head_x = model.robot.total_length
    r = 1e-6
    box = Terrain(None, np.array([[head_x - 0.003, head_x + 0.2, 0.0, 0.2]]))
    c = contact_forces(model, box, ContactParams(MU, K, D, r), q, np.zeros(model.n_q))
    assert c.n_active == 1 and c.nx[0] == -1.0 and c.f_normal[0] == pytest.approx(K * (0.003 + r))


def test_contact_linearisation_matches_finite_differences(model):
    rng = np.random.default_rng(0)
    q = initial_configuration(model, 0.0, R - 0.003, alpha=rng.uniform(-0.05, 0.05, model.n_joints))
    v = rng.normal(scale=0.003, size=model.n_q)
    p = ContactParams(MU, K, D, R, slip_velocity=1e-2)
    terrain = Terrain.flat()
    c = contact_forces(model, terrain, p, q, v)
    eps = 1e-7
    Dfd = np.column_stack([(contact_forces(model, terrain, p, q, v + e).Q - contact_forces(model, terrain, p, q,
                                                                                           v - e).Q) / (2 * eps)
                           for e in np.eye(model.n_q) * eps])
    assert c.D == pytest.approx(Dfd, rel=1e-4, abs=1e-4)
    # ∂Q/∂q including the geometric term ∂Jᵀ/∂q · F (at rest: the velocity-dependent ∂(J q̇)/∂q part of
    # the friction law is left out of the linearisation)
    v0 = np.zeros(model.n_q)
    c0 = contact_forces(model, terrain, p, q, v0)
    Kfd = np.column_stack([(contact_forces(model, terrain, p, q + e, v0).Q - contact_forces(model, terrain, p, q - e,
                                                                                            v0).Q) / (2 * eps)
                           for e in np.eye(model.n_q) * eps])
    assert c0.K == pytest.approx(Kfd, rel=1e-4, abs=1e-3)


def test_pedal_wave_gait_formula():
    A, w, phi = np.pi / 6, np.pi, -2 * np.pi / 5
    gait = make_gait("pedal_wave", 5, {"amplitude": A, "frequency": w, "phase_shift": phi})
    for t in (0.0, 0.37, 2.9):
        a, ad = gait.reference(t)
        j = np.arange(1, 6)
        assert a == pytest.approx(A * np.sin(w * t + phi * (j - 1)))  # 002 (4.38), j tail → head
        h = 1e-6
        assert ad == pytest.approx((gait.reference(t + h)[0] - gait.reference(t - h)[0]) / (2 * h), abs=1e-6)
    # φ < 0: joint j+1 reaches its crest −φ/ω = 0.4 s after joint j, the wave travels tail → head
    t = np.linspace(0, 2, 2001)
    crest = [t[np.argmax([gait.reference(s)[0][k] for s in t])] for k in range(5)]
    assert np.diff(crest) % (2 * np.pi / w) == pytest.approx(np.full(4, -phi / w), abs=2e-3)


@pytest.mark.parametrize("side", [None, 0.0, 0.2])
def test_friction_on_the_box_side_opposes_sliding_up_it(model, side):
    """002 §4.6 (Fig. 4.4): (4.27) on the near face resists a point sliding up it with μ f^N, the sides' μ of
    the box (μ_c when the terrain gives none); the top has its own μ."""
    q = initial_configuration(model, 0.0, 0.05)
    v = np.zeros(model.n_q)
    v[model.i_pz] = 0.05  # 50 ε upward along the face's tangent
    head_x = model.robot.total_length
    p = ContactParams(MU, K, D, R)
    mu_top, mu_side = (MU, MU) if side is None else (0.9, side)
    faces = None if side is None else [[mu_top, mu_side]]
    box_side = Terrain(None, np.array([[head_x + R - 0.003, head_x + 0.2, 0.0, 0.2]]), faces)
    c = contact_forces(model, box_side, p, q, v)
    assert c.f_normal[0] == pytest.approx(K * 0.003)
    assert c.Q[model.i_pz] == pytest.approx(-mu_side * K * 0.003, rel=1e-9, abs=1e-12)  # downward: opposes
    v[:] = 0.0
    v[model.i_px] = 0.05
    box_top = Terrain(None, np.array([[-0.1, head_x + 0.1, 0.0, 0.05 - R + 0.002]]), faces)
    c = contact_forces(model, box_top, p, q, v)
    assert c.Q[model.i_px] == pytest.approx(-mu_top * c.Q[model.i_pz], rel=1e-9)


def test_side_friction_linearisation_matches_finite_differences(model):
    q = initial_configuration(model, 0.0, 0.05, alpha=np.array([0.0, 0.0, 0.0, 0.05, 0.1]))
    v = np.random.default_rng(1).normal(scale=0.003, size=model.n_q)
    head_x = model.robot.total_length
    terrain = Terrain(None, np.array([[head_x - 0.005, head_x + 0.2, 0.0, 0.2]]), [[0.8, 0.2]])
    p = ContactParams(MU, K, D, R, slip_velocity=1e-2)
    c = contact_forces(model, terrain, p, q, v)
    assert c.n_active >= 1 and np.any(c.nx != 0.0)
    eps = 1e-7
    Dfd = np.column_stack([(contact_forces(model, terrain, p, q, v + e).Q - contact_forces(model, terrain, p, q,
                                                                                           v - e).Q) / (2 * eps)
                           for e in np.eye(model.n_q) * eps])
    assert c.D == pytest.approx(Dfd, rel=1e-4, abs=1e-4)


@pytest.mark.parametrize("angle_deg", [10.0, 45.0, 80.0])
def test_face_friction_reaches_the_rounded_edge(model, angle_deg):
    """A point on the edge arc (its disc touches the box's top edge, the normal ψ above the horizontal) slides
    along the arc: f^T = μ(n) f^N with μ(n) = μ_side cos²ψ + μ_top sin²ψ. With top and sides at μ = 0.2 it is
    0.2 all round the arc, not the ground's μ_c = 0.6; with 0.2 / 0.9 the side's μ dominates near the side."""
    psi = np.radians(angle_deg)
    dist = 0.6 * R
    q, _ = head_tip_at_edge(model, dist * np.cos(psi), dist * np.sin(psi))
    head_x = model.robot.total_length
    box = [[head_x + dist * np.cos(psi), head_x + 0.2, 0.0, 0.05 - dist * np.sin(psi)]]
    v = np.zeros(model.n_q)
    v[model.i_px], v[model.i_pz] = 0.05 * np.sin(psi), 0.05 * np.cos(psi)  # along t = (n_z, −n_x), 50 ε
    p = ContactParams(MU, K, D, R)
    for mu_top, mu_side in ((0.2, 0.2), (0.9, 0.2)):
        c = contact_forces(model, Terrain(None, np.array(box), [[mu_top, mu_side]]), p, q, v)
        assert c.n_active == 1 and (c.nx[0], c.nz[0]) == pytest.approx((-np.cos(psi), np.sin(psi)), rel=1e-9)
        mu = mu_side * np.cos(psi) ** 2 + mu_top * np.sin(psi) ** 2
        assert c.f_tangent[0] == pytest.approx(-mu * c.f_normal[0], rel=1e-9)  # opposes the slide along t


def head_tip_at_edge(model, ex, ez):
    """A straight body in the air whose head tip is ``ex`` before and ``ez`` above a box's near top edge."""
    q = initial_configuration(model, 0.0, 0.05)
    head_x = model.robot.total_length
    return q, Terrain(None, np.array([[head_x + ex, head_x + 0.2, 0.0, 0.05 - ez]]))


def test_a_disc_on_a_box_edge_is_pushed_out_along_the_line_from_the_edge(model):
    """The disc of radius r_c about the head tip, 6 mm before and 3 mm above the edge: δ = r_c − 6.7 mm, and
    the normal points from the edge to the tip (up and back), not along a face."""
    ex, ez = 0.006, 0.003
    q, box = head_tip_at_edge(model, ex, ez)
    c = contact_forces(model, box, ContactParams(MU, K, D, R), q, np.zeros(model.n_q))
    dist = np.hypot(ex, ez)
    assert c.n_active == 1 and c.points[0] == 2 * model.n_links  # the head tip only
    assert (c.nx[0], c.nz[0]) == pytest.approx((-ex / dist, ez / dist), rel=1e-12)
    assert c.f_normal[0] == pytest.approx(K * (R - dist), rel=1e-12)
    assert c.Q[model.i_px] == pytest.approx(-K * (R - dist) * ex / dist, rel=1e-12)
    assert c.Q[model.i_pz] == pytest.approx(K * (R - dist) * ez / dist, rel=1e-12)  # lifted, not held


def test_no_contact_diagonally_beyond_the_contact_radius_of_an_edge(model):
    """0.8 r_c before and above the edge is 1.13 r_c from it: no contact (a box grown by a square, not a disc,
    would touch here)."""
    q, box = head_tip_at_edge(model, 0.8 * R, 0.8 * R)
    assert contact_forces(model, box, ContactParams(MU, K, D, R), q, np.zeros(model.n_q)).n_active == 0


def test_edge_contact_linearisation_matches_finite_differences(model):
    """∂Q/∂q̇ and ∂Q/∂q at an edge, where the normal and tangent turn with the point (curvature terms); the tip
    slides fast along the tangent (sgn_ε saturated) with d = 0, so that only the linearised terms vary with q."""
    q, box = head_tip_at_edge(model, 0.004, 0.005)
    v = np.zeros(model.n_q)
    v[model.i_px], v[model.i_pz] = 0.04, 0.032  # ≈ along the tangent (n ≈ (−0.62, 0.78))
    for d, slip, faces in ((D, 1e-2, None), (0.0, 1e-5, None), (D, 1e-2, [[0.9, 0.1]]), (0.0, 1e-5, [[0.9, 0.1]])):
        box = Terrain(None, box.boxes, faces)  # top and sides alike, then μ(n) turning with the normal
        p = ContactParams(MU, K, d, R, slip_velocity=slip)
        c = contact_forces(model, box, p, q, v)
        assert c.n_active == 1 and c.nx[0] < 0.0 < c.nz[0]
        eps = 1e-7
        fd = [np.column_stack([(contact_forces(model, box, p, *(x + e if i == k else x for i, x in enumerate((q, v)))).Q
                                - contact_forces(model, box, p, *(x - e if i == k else x for i, x in enumerate((q, v)))
                                                 ).Q) / (2 * eps) for e in np.eye(model.n_q) * eps]) for k in (0, 1)]
        if d:
            assert c.D == pytest.approx(fd[1], rel=1e-4, abs=1e-4)
        else:
            assert c.K == pytest.approx(fd[0], rel=1e-4, abs=1e-3)
            assert np.abs(c.K - fd[0]).max() < 0.01 * np.abs(c.K).max()


def test_friction_secant_uses_the_side_faces_own_mu(model):
    """The implicit friction's chord correction (large slip jumps) scales with the pair's own μ: none
    for a frictionless side face, μ_c's for the default."""
    q = initial_configuration(model, 0.0, 0.05)
    head_x = model.robot.total_length
    box_side = Terrain(None, np.array([[head_x + R - 0.003, head_x + 0.2, 0.0, 0.2]]))
    v1 = np.zeros(model.n_q)
    v1[model.i_pz] = 0.05  # the step's end velocity slides the tip up the face by 50 ε
    corrections = []
    p = ContactParams(MU, K, D, R)
    for faces in (None, [[MU, 0.0]]):
        c = contact_forces(model, Terrain(None, box_side.boxes, faces), p, q, np.zeros(model.n_q))
        corrections.append(c.friction_secant(p, v1))
    assert corrections[0] is not None and np.abs(corrections[0]).max() > 1.0
    assert not corrections[1].any()


@pytest.mark.parametrize("friction", [None, "own"])
def test_a_terrains_arrays_are_its_own_c_ordered_read_only_copies_whatever_it_was_given(friction):
    """The compiled contact kernels take one array type (numba compiles a read-only or strided array apart, about
    20 s of the plant step): boxes and the faces' μ are C-ordered and read-only with or without per-face μ, and the
    caller's arrays are neither aliased nor frozen."""
    given = np.zeros((4, 4))
    given[:, [1, 3]] = 1.0
    boxes = given[::2]  # a strided view
    mu = np.array([[0.3, 0.6], [0.2, 0.5]]).T.copy().T  # a Fortran-ordered array
    terrain = Terrain(0.0, boxes, None if friction is None else mu)
    for array in (terrain.boxes, terrain.faces_friction(0.6)):
        assert array.flags.c_contiguous and not array.flags.writeable
    assert terrain.faces_friction(0.6).tolist() == ([[0.6, 0.6]] * 2 if friction is None else mu.tolist())
    assert given.flags.writeable and mu.flags.writeable and not np.shares_memory(terrain.boxes, given)
