"""Static check of the SEA torque sign, 002 (4.36) and docs/readings.md: τ = K(α − β) under gravity."""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.actuator import motor_pd
from snake_core.robot import load_robot
from snake_core.vertical import ContactParams, Terrain, build_model, initial_configuration, link_angles, sea_torque
from snake_sim.engines.vertical.plant import VerticalPlant


@pytest.fixture(scope="module")
def robot():
    return load_robot("koopaee6")


def test_static_sea_torque_sign_holds_a_raised_head_under_gravity(robot):
    """Links 1..N−1 flat on the ground, the head raised 30°: the head joint's spring carries the head's
    weight, τ_{N−1} = K(α − β) = +m_l g l cos θ_N (gravity pushes α beyond β; the ground force at the
    joint has no moment about it)."""
    model = build_model(robot)
    plant = VerticalPlant(model, Terrain.flat(), ContactParams(), motor_pd(robot))
    beta_d = np.zeros(model.n_joints)
    beta_d[-1] = -np.radians(30.0)  # α_{N−1} = θ_{N−1} − θ_N < 0 raises the head
    rest = plant.contact.threshold - model.total_mass * model.gravity / (model.n_q * plant.contact.stiffness)
    q = initial_configuration(model, 0.0, rest, alpha=beta_d, theta_n=np.radians(30.0))
    v = np.zeros(model.n_q)
    for _ in range(600):  # 3 s
        q, v, _, _ = plant.step(q, v, 0.005, beta_d, np.zeros(model.n_joints))
    tau = sea_torque(model, q)
    th_n = link_angles(model, q)[-1]
    assert th_n > np.radians(25.0)
    expected = model.link_mass * model.gravity * model.half_length * np.cos(th_n)
    assert np.abs(v).max() < 1e-4  # at rest
    assert tau[-1] == pytest.approx(expected, rel=1e-3)
    assert np.all(np.abs(tau[:-1]) < 0.8 * expected)  # the body on the ground carries less


@pytest.mark.parametrize("h", [0.005, 0.0025])
def test_a_motor_driven_far_ahead_runs_on_the_servos_torque_speed_line(robot, h):
    """002 Table 3.1 in the vertical model: the middle joint commanded 10 rad ahead on the ground turns at most at the
    no-load speed 6.30 rad/s with U on the line τ_s (1 − β̇/ω_0) (stall torque 1.18 N·m at rest) all the way;
    the rotor's tiny J_r makes β̇ follow U at once, which each step's piece of the line must agree with."""
    model = build_model(robot)
    pd = motor_pd(robot, saturate=True)
    plant = VerticalPlant(model, Terrain.flat(), ContactParams(), pd)
    rest = plant.contact.threshold - model.total_mass * model.gravity / (model.n_q * plant.contact.stiffness)
    q, v = initial_configuration(model, 0.0, rest), np.zeros(model.n_q)
    beta_d = np.zeros(model.n_joints)
    beta_d[2] = 10.0  # K_p (β_d − β)/K_D alone would turn it at 24 rad/s
    speed, torque = [], []
    for _ in range(round(0.15 / h)):
        q, v, u, _ = plant.step(q, v, h, beta_d, np.zeros(model.n_joints))
        speed.append(v[model.i_beta][2]), torque.append(u[2])
    speed, torque = np.array(speed), np.array(torque)
    act = robot.actuator
    assert speed.max() <= act.max_speed * (1 + 1e-9) and speed.max() > 0.5 * act.max_speed
    assert torque == pytest.approx(act.stall_torque * (1.0 - speed / act.max_speed), abs=1e-9)  # on the line


@pytest.mark.parametrize("h", [0.005, 0.0025])
def test_joint_angle_alpha_stays_within_60_degrees_under_a_command_beyond_it(robot, h):
    """002 Table 3.2's ±60° on α in the vertical model: motors driven to ±80° in a travelling pattern on the ground
    keep |α| within 60° up to the limit's compliance (1°); β alone would let α reach 80° plus the deflection."""
    model = build_model(robot)
    plant = VerticalPlant(model, Terrain.flat(), ContactParams(), motor_pd(robot, saturate=True))
    rest = plant.contact.threshold - model.total_mass * model.gravity / (model.n_q * plant.contact.stiffness)
    q, v = initial_configuration(model, 0.0, rest), np.zeros(model.n_q)
    worst = 0.0
    for k in range(round(3.0 / h)):
        beta_d = np.radians(80.0) * np.sign(np.sin(np.pi * k * h + 1.2 * np.arange(model.n_joints)))
        q, v, _, _ = plant.step(q, v, h, beta_d, np.zeros(model.n_joints))
        worst = max(worst, float(np.abs(q[model.i_alpha]).max()))
    assert np.radians(58.0) < worst <= robot.joint_limit + np.radians(1.0)


def test_a_steps_motor_torque_is_the_actuators_on_every_piece_of_the_line(robot):
    """U⁺ of a step (the compiled PD on the piece of the torque–speed line its end state is on) is snake_core's
    MotorPD.torque (4.39) at the end state, bit for bit: joints driven far ahead (upper bound), far behind (lower
    bound) and a little (the PD inside the line)."""
    model = build_model(robot)
    pd = motor_pd(robot, saturate=True)
    plant = VerticalPlant(model, Terrain.flat(), ContactParams(), pd)
    rest = plant.contact.threshold - model.total_mass * model.gravity / (model.n_q * plant.contact.stiffness)
    q, v = initial_configuration(model, 0.0, rest), np.zeros(model.n_q)
    beta_d, beta_d_dot = np.array([10.0, -10.0, 0.001, -0.002, 0.0]), np.zeros(model.n_joints)
    for _ in range(20):
        q, v, u, _ = plant.step(q, v, 0.005, beta_d, beta_d_dot)
        want, inside = pd.torque(q[model.i_beta], v[model.i_beta], beta_d, beta_d_dot)
        np.testing.assert_array_equal(u, want)
    assert list(inside) == [False, False, True, True, True]
    speed = v[model.i_beta]
    assert speed[0] > 0.5 * robot.actuator.max_speed and speed[1] < -0.5 * robot.actuator.max_speed  # on the line
