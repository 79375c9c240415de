"""Tail-leading stiffness control (TSC) of one SEA joint, 002 §7.2, Fig. 7.1.

Tail joint (j = 1), (7.1):   α_1^d = A sin(ω t)
Other joints, (7.2):         M_d α̈_j^d + D_d α̇_j^d + K_d (α_j^d − α_{j−1}) = −K_τ τ_J,j

where α_{j−1} is the *measured* angle of the tail-side neighbour (sent along the CAN bus) and τ_J the
motor's measured output torque K(β − α) = −τ (``stiffness.MOTOR_TORQUE_SIGN``: the sign under which
raising K_τ makes the joint more compliant, as §7.2 says). The motor follows β_d = α_j^d through the
inner PD (4.39).

(7.1) is the pedal wave (4.38) at j = 1, so the tail joint takes the gait's reference for joint 1
(``JointReference.alpha_d``): with ``gait.type: pedal_wave`` it is exactly A sin(ω t); the phase
shift φ of the gait does not enter TSC at all.

(7.2) is integrated exactly over each control step with the neighbour's angle and the torque held
(zero-order hold, the way a module receives them once per CAN cycle): x = (α^d, α̇^d),
ẋ = F x + G u, u = K_d α_{j−1} − K_τ τ_J, and x_{k+1} = Φ x_k + Γ u_k with
[Φ Γ; 0 1] = expm([F G; 0 0] Δt). The filter starts at rest at the joint's measured angle.

The unit of time of (7.2) is ``time_unit`` T_u [s]: 1 reads M_d, D_d in SI units, as 002 prints them; another value
reads the derivatives of (7.2) per T_u (e.g. per control step of a module that evaluates (7.2) with differences per
step), i.e. M_d T_u² α̈ + D_d T_u α̇ + K_d (α^d − α_{j−1}) = −K_τ τ_J in seconds. Angles do not enter it: (7.2) is
linear and homogeneous in the angles, so reading them in degrees changes nothing but the scale of K_τ.

``neighbour_angle`` says which angle of the tail-side neighbour (7.2) filters: ``alpha``, its link angle α_{j−1}
(§7.2's words, the default), or ``beta``, its servo angle β_{j−1} (the angle a module's servo reports, Table 3.2's
0.32° resolution), i.e. M_d α̈_j^d + D_d α̇_j^d + K_d (α_j^d − β_{j−1}) = −K_τ τ_J,j.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..registry import Param, defaults
from ..robot import RobotParams
from .base import ControllerMode, JointMeasurement, JointReference, MotorCommand
from .limits import SEALimits, sea_limits
from .stiffness import MOTOR_TORQUE_SIGN

#: The unit of time of (7.2) [s] unless a scenario reads it otherwise: seconds (002 prints SI units).
SI_TIME_UNIT = 1.0
#: The tail-side neighbour's angle (7.2) filters: its link angle α_{j−1} or its servo angle β_{j−1}.
NEIGHBOUR_ANGLES = ("alpha", "beta")

#: The parameters of (7.2). Defaults: Table 7.1 (the simulated TSC run), M_d = 1, D_d = 4, K_d = 12 in SI units
#: (T_u = 1 s). K_τ is not printed there (docs/readings.md): it defaults to 0 and the scenarios
#: state it; 002's experiments use 0 and 6.
PARAMS = (
    Param("inertia", 1.0, "N·m·s²/rad", "M_d, desired inertia of the admittance", 0.0, low_open=True,
          source="002 (7.2), Table 7.1"),
    Param("damping", 4.0, "N·m·s/rad", "D_d, desired damping of the admittance", 0.0, low_open=True,
          source="002 (7.2), Table 7.1"),
    Param("stiffness", 12.0, "N·m/rad", "K_d, desired stiffness towards the tail-side neighbour's angle", 0.0,
          low_open=True, source="002 (7.2), Table 7.1"),
    Param("torque_gain", 0.0, "", "K_τ, gain of the measured torque τ_J (not printed in Table 7.1; 002's "
          "experiments use 0 and 6)", 0.0, source="002 (7.2), §7.4"),
    Param("time_unit", SI_TIME_UNIT, "s", "T_u, the unit of time of the derivatives in (7.2) (1: SI units)", 0.0, 10.0,
          low_open=True, source="002 (7.2)"),
    Param("neighbour_angle", NEIGHBOUR_ANGLES[0], "", "the tail-side neighbour's angle (7.2) filters: alpha "
          "(its link angle α_{j−1}) or beta (its servo angle β_{j−1})", kind=str, choices=NEIGHBOUR_ANGLES,
          source="002 §7.2, Table 3.2"),
)
#: Table 7.1's gains and the other defaults, as written once in :data:`PARAMS`.
DEFAULTS = defaults(PARAMS)


@dataclass(frozen=True)
class TSCGains:
    """Gains of the admittance (7.2)."""

    inertia: float  # M_d [N·m·s²/rad]
    damping: float  # D_d [N·m·s/rad]
    stiffness: float  # K_d [N·m/rad]
    torque_gain: float  # K_τ [-]
    time_unit: float = SI_TIME_UNIT  # T_u [s]: the unit of time of (7.2) (module docstring)

    @property
    def inertia_si(self) -> float:
        """M_d T_u² [N·m·s²/rad]: M_d in seconds."""
        return self.inertia * self.time_unit**2

    @property
    def damping_si(self) -> float:
        """D_d T_u [N·m·s/rad]: D_d in seconds."""
        return self.damping * self.time_unit

    def frequency_response(self, omega: float) -> complex:
        """H(iω) = α_j^d / α_{j−1} of (7.2) with K_τ τ = 0: K_d / (K_d − M_d ω² + i D_d ω), ω in rad/s (M_d, D_d
        in seconds: :attr:`inertia_si`, :attr:`damping_si`).

        Its argument is the phase lag TSC puts between neighbouring joints at the gait frequency (the φ
        of the open-loop wave (4.38)), its modulus the amplitude ratio from joint to joint.
        """
        return self.stiffness / (self.stiffness - self.inertia_si * omega**2 + 1j * self.damping_si * omega)

    def transition(self, dt: float) -> tuple[np.ndarray, np.ndarray]:
        """Exact zero-order-hold discretisation (Φ, Γ) of (7.2) over ``dt`` [s]."""
        from scipy.linalg import expm  # heavy: loaded by the first TSC step, not by listing the modes (launch files)

        m = self.inertia_si
        aug = np.zeros((3, 3))
        aug[0, 1] = 1.0
        aug[1, :] = (-self.stiffness / m, -self.damping_si / m, 1.0 / m)
        e = expm(aug * dt)
        return e[:2, :2], e[:2, 2]


@dataclass
class TSCController:
    """TSC for joint ``joint_index``: (7.1) at the tail, the admittance (7.2) elsewhere."""

    joint_index: int
    gains: TSCGains
    limits: SEALimits
    neighbour_angle: str = NEIGHBOUR_ANGLES[0]  # "alpha": α_{j−1}; "beta": β_{j−1} (module docstring)
    state: np.ndarray | None = field(default=None, init=False)  # (α_j^d, α̇_j^d); None before the first step
    limited: bool = field(default=False, init=False)
    _dt: float = field(default=0.0, init=False, repr=False)
    _phi: np.ndarray = field(default_factory=lambda: np.eye(2), init=False, repr=False)
    _gamma: np.ndarray = field(default_factory=lambda: np.zeros(2), init=False, repr=False)

    @property
    def is_tail(self) -> bool:
        return self.joint_index == 1

    def reset(self) -> None:
        self.state = None
        self.limited = False

    def step(self, t: float, dt: float, meas: JointMeasurement, ref: JointReference) -> MotorCommand:
        if self.is_tail:  # (7.1)
            alpha_d = self.limits.reference(ref.alpha_d)
            self.limited = alpha_d != ref.alpha_d
            rate = ref.alpha_d_dot if not self.limited else 0.0
            self.state = np.array([alpha_d, rate])
        else:
            self._advance(dt, meas)
        beta_d = self.limits.motor(meas.alpha, float(self.state[0]))
        self.limited = self.limited or beta_d != self.state[0]
        return MotorCommand(beta_d=beta_d, beta_d_dot=float(self.state[1]))

    def _advance(self, dt: float, meas: JointMeasurement) -> None:
        """One exact step of (7.2) from the state at t to t + dt."""
        beta = self.neighbour_angle == "beta"
        prev = meas.beta_prev if beta else meas.alpha_prev
        if prev is None:
            symbol, name = ("β", "beta_prev") if beta else ("α", "alpha_prev")
            raise ValueError(f"TSC joint {self.joint_index} needs the measured angle {symbol}_{self.joint_index - 1} "
                             f"of its tail-side neighbour (JointMeasurement.{name})")
        if self.state is None:
            self.state = np.array([self.limits.reference(meas.alpha), 0.0])
        if dt != self._dt:
            self._phi, self._gamma = self.gains.transition(dt)
            self._dt = dt
        tau = self.limits.torque(meas.tau)
        g = self.gains
        u = g.stiffness * prev - g.torque_gain * MOTOR_TORQUE_SIGN * tau  # (7.2) input
        x = self._phi @ self.state + self._gamma * u
        lim = self.limits.reference_limit
        self.limited = abs(x[0]) > lim
        if self.limited:  # saturate the integrator at ±60°: no further motion outwards
            x[0] = np.sign(x[0]) * lim
            x[1] = 0.0 if x[1] * x[0] > 0 else x[1]
        self.state = x


def gains_from_params(params: Mapping[str, Any], source: str | None = None) -> TSCGains:
    """M_d, D_d, K_d > 0, K_τ ≥ 0 and the unit of time T_u in (0, 10] s from ``controller.*``, checked against
    :data:`PARAMS` (defaults: Table 7.1, K_τ = 0, seconds)."""
    return _gains(MODE.checked(params, 1, source))


def _gains(values: Mapping[str, Any]) -> TSCGains:
    """The gains of checked ``controller`` values."""
    return TSCGains(values["inertia"], values["damping"], values["stiffness"], values["torque_gain"],
                    values["time_unit"])


def from_params(robot: RobotParams, joint_index: int, params: Mapping[str, Any],
                source: str | None = None) -> TSCController:
    """With M_d, D_d, K_d > 0 the admittance (7.2) is a stable second-order filter; ``neighbour_angle`` one of
    :data:`NEIGHBOUR_ANGLES` (default α_{j−1})."""
    values = MODE.checked(params, robot.n_joints, source)
    return TSCController(joint_index, _gains(values), sea_limits(robot, joint_index, source), values["neighbour_angle"])


MODE = ControllerMode("tsc", "tail-leading stiffness control: (7.1) at the tail, the admittance (7.2) elsewhere",
                      "002 (7.1)–(7.2), Fig. 7.1", PARAMS, from_params)
