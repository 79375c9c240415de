"""Tail-leading stiffness control, 002 (7.1)–(7.2): hand-computed steps, sign of K_τ, limits."""

import math

import numpy as np
import pytest

from snake_core.controllers import JointMeasurement, JointReference, make_joint_controllers
from snake_core.gaits import make_gait
from snake_core.robot import load_robot
from snake_core.validation import ConfigError

ROBOT = load_robot("koopaee6")
K = 1.74
TABLE_7_1 = {"mode": "tsc", "inertia": 1.0, "damping": 4.0, "stiffness": 12.0}


def tsc(**extra):
    return make_joint_controllers("tsc", ROBOT, {**TABLE_7_1, **extra})


def step_response(t, m, d, k, x0, u):
    """Closed form of m ẍ + d ẋ + k x = u from rest at x0 (underdamped), independent of the code."""
    wn = math.sqrt(k / m)
    zeta = d / (2 * math.sqrt(k * m))
    wd = wn * math.sqrt(1 - zeta**2)
    xs = u / k
    e = math.exp(-zeta * wn * t)
    x = xs + (x0 - xs) * e * (math.cos(wd * t) + zeta / math.sqrt(1 - zeta**2) * math.sin(wd * t))
    v = -(x0 - xs) * e * (wn / math.sqrt(1 - zeta**2)) * math.sin(wd * t)
    return x, v


def meas(alpha, alpha_prev, tau=0.0):
    return JointMeasurement(alpha=alpha, alpha_dot=0.0, beta=alpha - tau / K, tau=tau, alpha_prev=alpha_prev)


@pytest.mark.parametrize("dt", [1e-3, 1e-2, 0.05])
def test_7_2_steps_match_the_closed_form(dt):
    """Joint 3 starts at rest at its measured angle 0.1; the neighbour holds 0.4 rad: α^d rises to 0.4
    along the underdamped response of (7.2) (ζ = 0.577), exactly at every sample whatever Δt."""
    c = tsc()[2]
    n = round(0.6 / dt)
    for k in range(1, n + 1):
        cmd = c.step(k * dt, dt, meas(0.1, 0.4), JointReference())
        x, v = step_response(k * dt, 1.0, 4.0, 12.0, 0.1, 12.0 * 0.4)
        assert cmd.beta_d == pytest.approx(x, abs=1e-12)
        assert cmd.beta_d_dot == pytest.approx(v, abs=1e-12)


def test_first_step_by_hand():
    """Over a short step from rest, α^d ≈ x0 + ½ (u − K_d x0)/M_d Δt² (the Taylor term of (7.2))."""
    c = tsc(torque_gain=6.0)[1]
    dt = 1e-3
    tau = 0.2  # SEA torque K(α − β) > 0: τ_J = −0.2, so −K_τ τ_J = +1.2 N·m pushes α^d up
    cmd = c.step(dt, dt, meas(0.0, 0.05, tau=tau), JointReference())
    u = 12.0 * 0.05 + 6.0 * tau
    assert cmd.beta_d == pytest.approx(0.5 * u * dt**2, rel=2e-3)
    assert cmd.beta_d_dot == pytest.approx(u * dt, rel=2e-3)


@pytest.mark.parametrize("tau", [0.1, -0.3])
def test_torque_feedback_makes_the_joint_yield(tau):
    """Steady state of (7.2): α^d = α_{j−1} − K_τ τ_J/K_d = α_{j−1} + K_τ τ/K_d (in the load's direction)."""
    c = tsc(torque_gain=6.0)[4]
    for k in range(3000):
        cmd = c.step(k * 0.01, 0.01, meas(0.05, 0.05, tau=tau), JointReference())
    assert cmd.beta_d == pytest.approx(0.05 + 6.0 * tau / 12.0, abs=1e-9)
    assert cmd.beta_d_dot == pytest.approx(0.0, abs=1e-9)


def test_without_torque_gain_torque_is_ignored():
    a, b = tsc()[1], tsc(torque_gain=0.0)[1]
    for k in range(50):
        ca = a.step(k * 0.01, 0.01, meas(0.0, 0.2, tau=0.4), JointReference())
        cb = b.step(k * 0.01, 0.01, meas(0.0, 0.2, tau=0.0), JointReference())
    assert ca.beta_d == cb.beta_d


def test_tail_joint_follows_7_1():
    gait = make_gait("pedal_wave", 5, {"amplitude": math.pi / 6, "frequency": math.pi, "phase_shift": -1.2})
    c = tsc(torque_gain=6.0)[0]
    for t in np.linspace(0.0, 2.0, 17):
        alpha_d, alpha_d_dot = gait.reference(t)
        lagging = alpha_d[0] - 0.2  # the measured angle and torque do not enter (7.1)
        cmd = c.step(t, 0.01, meas(lagging, None, tau=0.5), JointReference(alpha_d[0], alpha_d_dot[0]))
        assert cmd.beta_d == pytest.approx(math.pi / 6 * math.sin(math.pi * t), abs=1e-12)  # (7.1)
        assert cmd.beta_d_dot == pytest.approx(math.pi**2 / 6 * math.cos(math.pi * t), abs=1e-12)


def test_chain_of_ideal_joints_propagates_the_wave_tail_to_head():
    """With joints that follow their references exactly, each joint lags its neighbour: the body wave
    travels tail → head (φ < 0 emerges from (7.2)) and settles to a periodic cycle."""
    cs = tsc()
    dt, w = 0.01, math.pi
    alpha = np.zeros(5)
    hist = []
    for k in range(1, 2001):
        t = k * dt
        for j, c in enumerate(cs):
            ref = JointReference(math.pi / 6 * math.sin(w * t), math.pi**2 / 6 * math.cos(w * t))
            alpha[j] = c.step(t, dt, meas(alpha[j], alpha[j - 1] if j else None), ref).beta_d
        hist.append(alpha.copy())
    hist = np.array(hist)
    last, prev = hist[-200:], hist[-400:-200]  # two periods of 2 s
    assert np.max(np.abs(last - prev)) < 1e-3 * np.max(np.abs(last))
    # phase of joint j relative to the tail: the peak comes later for joints nearer the head
    peaks = [np.argmax(last[:, j]) for j in range(5)]
    lags = np.diff(np.unwrap(np.array(peaks) * dt * w))
    assert np.all(lags > 0.05)


def test_missing_neighbour_angle_is_an_error():
    with pytest.raises(ValueError, match="alpha_prev"):
        tsc()[3].step(0.0, 0.01, meas(0.0, None), JointReference())


def test_beta_reading_filters_the_neighbours_servo_angle():
    """neighbour_angle: beta feeds (7.2) K_d β_{j−1}: with the neighbour's servo at 0.4 rad and its link at −0.2 rad,
    α^d rises along the closed form towards 0.4 (not −0.2), as the default does with α_{j−1} = 0.4."""
    c = tsc(neighbour_angle="beta")[2]
    dt = 0.01
    for k in range(1, 61):
        m = JointMeasurement(alpha=0.1, alpha_dot=0.0, beta=0.1, tau=0.0, alpha_prev=-0.2, beta_prev=0.4)
        cmd = c.step(k * dt, dt, m, JointReference())
        x, v = step_response(k * dt, 1.0, 4.0, 12.0, 0.1, 12.0 * 0.4)
        assert cmd.beta_d == pytest.approx(x, abs=1e-12)
        assert cmd.beta_d_dot == pytest.approx(v, abs=1e-12)


def test_default_reading_ignores_the_neighbours_servo_angle_bit_for_bit():
    """The default (and neighbour_angle: alpha) gives the very same commands whatever β_{j−1} is."""
    runs = []
    for extra, beta_prev in (({}, None), ({}, 0.7), ({"neighbour_angle": "alpha"}, -0.7)):
        c = tsc(torque_gain=6.0, **extra)[2]
        cmds = []
        for k in range(1, 50):
            m = JointMeasurement(alpha=0.1, alpha_dot=0.0, beta=0.05, tau=0.087, alpha_prev=0.3 * math.sin(k / 7),
                                 beta_prev=beta_prev)
            cmd = c.step(k * 0.01, 0.01, m, JointReference())
            cmds.append((cmd.beta_d, cmd.beta_d_dot))
        runs.append(cmds)
    assert runs[0] == runs[1] == runs[2]


def test_beta_reading_without_the_neighbours_servo_angle_is_an_error():
    with pytest.raises(ValueError, match="beta_prev"):
        tsc(neighbour_angle="beta")[3].step(0.0, 0.01, meas(0.0, 0.1), JointReference())


@pytest.mark.parametrize("value", ["gamma", "Beta", 1.0])
def test_bad_neighbour_angle_refused(value):
    with pytest.raises(ConfigError, match=r"controller\.neighbour_angle"):
        tsc(neighbour_angle=value)


def test_reference_and_deflection_limits_enforced():
    c = tsc()[2]
    for k in range(500):
        cmd = c.step(k * 0.01, 0.01, meas(1.0, 2.0), JointReference())
    assert cmd.beta_d == pytest.approx(math.pi / 3) and c.limited
    cmd = c.step(5.0, 0.01, meas(0.3, 2.0), JointReference())  # β_d ≤ α + 21°
    assert cmd.beta_d == pytest.approx(0.3 + math.radians(21.0))
    tail = tsc()[0]
    assert tail.step(0.0, 0.01, meas(1.0, None), JointReference(alpha_d=1.2)).beta_d == pytest.approx(math.pi / 3)


@pytest.mark.parametrize(("field", "value"), [("inertia", 0.0), ("damping", -1.0), ("stiffness", 0.0),
                                              ("torque_gain", -6.0), ("stiffness", float("nan")),
                                              ("time_unit", 0.0), ("time_unit", 20.0)])
def test_bad_gains_refused(field, value):
    with pytest.raises(ConfigError, match=rf"controller\.{field}"):
        tsc(**{field: value})


def test_table_7_1_defaults_and_unknown_key():
    c = make_joint_controllers("tsc", ROBOT, {"mode": "tsc"})[1]
    assert (c.gains.inertia, c.gains.damping, c.gains.stiffness, c.gains.torque_gain) == (1.0, 4.0, 12.0, 0.0)
    with pytest.raises(ConfigError, match=r"controller\.phase_shift"):
        tsc(phase_shift=-1.0)


@pytest.mark.parametrize(("k_d", "d_d"), [(12.0, 4.0), (14.0, 4.0), (17.5, 10.0)])
def test_neighbour_sinusoid_is_filtered_by_the_frequency_response(k_d, d_d):
    """Driven by α_{j−1} = sin(ωt), the steady α^d has gain |H(iω)| and phase arg H(iω) (7.2)."""
    c = tsc(stiffness=k_d, damping=d_d)[1]
    w, dt = math.pi, 1e-3
    ts = np.arange(1, 30001) * dt
    out, alpha = np.zeros(len(ts)), 0.0
    for k, t in enumerate(ts):  # an ideal joint (α = β_d) driven by its neighbour 0.5 sin(ωt)
        alpha = out[k] = c.step(t, dt, meas(alpha, 0.5 * math.sin(w * (t - dt))), JointReference()).beta_d
    last = ts > 26.0  # two whole periods after the transient
    a = 2 * np.mean(out[last] * np.exp(-1j * w * ts[last]))  # fundamental of the response
    h = 0.5 * c.gains.frequency_response(w) * np.exp(-1j * w * dt) * (-1j)  # sin = Im e^{iωt}; input held 1 step
    assert abs(a) == pytest.approx(abs(h), rel=2e-3)
    assert np.angle(a / h) == pytest.approx(0.0, abs=2e-3)


def test_k_d_14_gives_the_pedal_wave_phase_shift():
    """K_d = 14 (with Table 7.1's M_d = 1, D_d = 4) lags each joint by ≈ −2π/5 at ω = π, the φ of 002's gait."""
    c = tsc(stiffness=14.0)[1]
    assert np.angle(c.gains.frequency_response(math.pi)) == pytest.approx(-2 * math.pi / 5, abs=0.01)


@pytest.mark.parametrize(("gains", "time_unit"), [((1.0, 10.0, 17.5), 1.0), ((1.0, 4.0, 12.0), 1.0),
                                                   ((1.0, 10.0, 17.5), 0.01), ((1.0, 10.0, 17.5), 0.001)])
def test_frequency_response_is_the_transfer_function_of_7_2_in_its_unit_of_time(gains, time_unit):
    """H(iω) against scipy.signal.freqs of K_d / (M_d T_u² s² + D_d T_u s + K_d), s in 1/s."""
    from scipy.signal import freqs

    m_d, d_d, k_d = gains
    c = tsc(inertia=m_d, damping=d_d, stiffness=k_d, time_unit=time_unit)[1]
    _, (h,) = freqs([k_d], [m_d * time_unit**2, d_d * time_unit, k_d], worN=[math.pi])
    assert c.gains.frequency_response(math.pi) == pytest.approx(h, rel=1e-12)


def test_002s_experimental_gains_in_si_pass_about_half_the_wave_per_joint():
    """(M_d, D_d, K_d) = (1, 10, 17.5) of 002 §7.4 at ω = π: |H| ≈ 0.54 per joint, ≈ 0.09 of A at the head (four
    joints after the tail's); read per control step of 10 ms, |H| ≈ 1 and the lag ≈ 1°."""
    si = tsc(damping=10.0, stiffness=17.5)[1].gains.frequency_response(math.pi)
    assert abs(si) == pytest.approx(0.54, abs=0.005) and abs(si) ** 4 == pytest.approx(0.09, abs=0.005)
    step = tsc(damping=10.0, stiffness=17.5, time_unit=0.01)[1].gains.frequency_response(math.pi)
    assert abs(step) == pytest.approx(1.0, abs=1e-3) and math.degrees(np.angle(step)) == pytest.approx(-1.0, abs=0.1)


def test_a_unit_of_time_of_one_control_step_scales_the_step_response_in_time():
    """(7.2) with M_d, D_d per T_u: the closed form of M_d T_u² ẍ + D_d T_u ẋ + K_d x = u, sampled exactly."""
    t_u, dt = 0.01, 1e-3
    c = tsc(time_unit=t_u)[2]
    for k in range(1, 41):
        cmd = c.step(k * dt, dt, meas(0.1, 0.4), JointReference())
        x, v = step_response(k * dt, 1.0 * t_u**2, 4.0 * t_u, 12.0, 0.1, 12.0 * 0.4)
        assert cmd.beta_d == pytest.approx(x, abs=1e-12)
        assert cmd.beta_d_dot == pytest.approx(v, abs=1e-9)
