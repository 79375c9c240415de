"""Numerical settings of the MuJoCo model, fixed per scenario and reported in summary.json.

From a scenario: ``sim.time_step`` (h) and the ``contact:`` section::

    contact:
      friction: 0.6               # μ_c of the ground, and of boxes whose SDF collision gives no μ
      solref: [0.02, 1.0]         # MuJoCo contact softness: time constant [s], damping ratio
      solimp: [0.9, 0.95, 0.001, 0.5, 2.0]   # impedance: d_min, d_max, width [m], midpoint, power
      cone: elliptic              # friction cone: elliptic | pyramidal
      solver: Newton              # constraint solver: Newton | CG | PGS

The vertical model's Kelvin–Voigt fields (``stiffness``, ``damping``, ``threshold``, ``slip_velocity``) are
accepted, so that ``--set model=mujoco`` turns any vertical scenario into its 3-D run, and do not act here:
MuJoCo's contact softness is ``solref``/``solimp``.

Integrator: always MuJoCo's ``discrete``. The measurements below were taken on koopaee6 as 002's simulation
built it (1.0 kg, J_l about every axis, no armature, ``rotor_inertia_model: own``); the model now has the module
mesh's moments (a pitch moment several times J_l: slower spring modes) and the armature n² J_r on the motor
hinge (the PD's pole K_D/(n² J_r) ≈ 1.6e3 s⁻¹, implicit); its step check is the reproduction page's.

- What limits the step is the SEA spring, not the contact and not the roll moment. With the motors held, the
  springs of the free chain have modes at 28.8, 82.6, 171, 296 and 390 rad/s; the fastest is the links turning
  about their own centres against the springs, √(K/J_l) = √(1.74/1.52e-5) = 338 rad/s with 002's pitch moment
  J_l (Table 3.2), which is the moment that matters here: all joints pitch. MuJoCo's ``euler``, ``implicit``
  and ``implicitfast`` integrate joint ``stiffness`` explicitly (only damping, here the motor PD's K_D, is
  implicit), i.e. symplectic Euler for the spring, stable only for ω h < 2. At rest on the ground at h = 5 ms
  the linearised step map (``mjd_transitionFD``) has an eigenvalue −1.44 on spring_1..3 (diverges in 0.17 s);
  at 2 and 1 ms it is stable but the undamped 50–60 Hz spring modes, excited by every contact and every
  control period, drive the reference gait backwards (−8.5 cm/s at 2 ms, −3.3 cm/s at 1 ms over 10 s), and
  local stiffness control diverges within 0.12 s at 1 ms (spring_2 first).
- The rotor (𝕊_3 = J_r = 2.45e-7 kg m²) is no problem: its PD pole K_D/𝕊_3 ≈ 1e8 s⁻¹ is implicit, its slow
  pole K_p/K_D = 2.4 s⁻¹. The moments about the other axes do not enter these modes; the URDF's J_l about all
  three axes is the tensor of a mass distribution as long as wide (∫x² dm = ∫y² dm = ∫z² dm, triangle
  inequality met: J_l ≤ 2 J_l); a homogeneous prism of the module's proportions scaled to J_l would have a
  roll moment 0.80 J_l. It is kept.
- ``discrete`` solves the step in the effective metric M + h D + h² K, which takes the joint stiffness (and
  the actuator's position gain) implicitly: backward Euler for the spring, stable at any h, with a numerical
  damping ratio ≈ ω h / 2 that vanishes as h → 0 (0.03 at 2 ms for the 28.8 rad/s mode, ≈ 0.4 for the
  390 rad/s one, which no step of a 100 Hz loop resolves). Nothing is added to the model: K, J_l, K_p, K_D
  are the robot file's.

Convergence (koopaee6, reference gait A = π/6, ω = π, φ = −2π/5 on flat ground, 10 s, open-loop-flat-3d):
average speed +2.700 cm/s at h = 5 ms, +2.706 at 2.5 ms, +2.743 at 2 ms, +2.743 at 1 ms, +2.767 at 0.5 ms
(002 Table 5.2: 1.8 simulated, 2.8 measured); at 2 ms with the contact twice as stiff (solref time constant
0.02/√2 s, MuJoCo's stiffness ∝ 1/time constant²) +2.880 (+5.0 %), four times (0.01 s) +2.965 (+8.1 %). The
3-D scenarios use h = 2 ms and MuJoCo's default softness solref = (0.02 s, 1). Where it does not converge:
softer-than-default contact is not covered, and every climbing verdict is step-checked (snake_sim.analysis.step_check).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from snake_core.validation import ConfigError, choice, number, positive, reject_unknown
from snake_core.vertical.model import GRAVITY

CONTACT_FIELDS = ("friction", "solref", "solimp", "cone", "solver")
#: Fields of the vertical model's contact law, accepted and unused (see the module docstring).
VERTICAL_CONTACT_FIELDS = ("stiffness", "damping", "threshold", "slip_velocity")
CONES = ("elliptic", "pyramidal")
SOLVERS = ("Newton", "CG", "PGS")


@dataclass(frozen=True)
class Settings:
    """What MuJoCo integrates with; defaults are MuJoCo's own contact parameters."""

    time_step: float = 0.002  # h [s]
    friction: float = 0.6  # μ_c (002 Table 5.1)
    solref: tuple[float, float] = (0.02, 1.0)  # time constant [s], damping ratio
    solimp: tuple[float, float, float, float, float] = (0.9, 0.95, 0.001, 0.5, 2.0)
    cone: str = "elliptic"
    solver: str = "Newton"
    integrator: str = "discrete"
    gravity: float = GRAVITY  # g [m/s²], the vertical model's

    def as_summary(self) -> dict[str, Any]:
        """The settings for summary.json (lists for tuples)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


def _numbers(value: Any, n: int, field: str, source: str | None) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n:
        raise ConfigError(field, value, f"must be a list of {n} numbers", source)
    return tuple(number(v, f"{field}[{i}]", source) for i, v in enumerate(value))


def settings_from(time_step: float, contact: dict[str, Any], source: str | None = None) -> Settings:
    """:class:`Settings` from ``sim.time_step`` and a scenario's ``contact:`` section, validated."""
    reject_unknown(contact, CONTACT_FIELDS + VERTICAL_CONTACT_FIELDS, "contact", source)
    d = Settings()
    solref = _numbers(contact.get("solref", list(d.solref)), 2, "contact.solref", source)
    positive(solref[0], "contact.solref[0]", source)
    positive(solref[1], "contact.solref[1]", source)
    solimp = _numbers(contact.get("solimp", list(d.solimp)), 5, "contact.solimp", source)
    for i in (0, 1):  # d_min, d_max
        number(solimp[i], f"contact.solimp[{i}]", source, low=0.0, high=1.0, low_open=True, high_open=True)
    positive(solimp[2], "contact.solimp[2]", source)
    number(solimp[3], "contact.solimp[3]", source, low=0.0, high=1.0)
    number(solimp[4], "contact.solimp[4]", source, low=1.0)
    return Settings(
        time_step=time_step,
        friction=number(contact.get("friction", d.friction), "contact.friction", source, low=0.0, high=5.0),
        solref=solref,  # type: ignore[arg-type]
        solimp=solimp,  # type: ignore[arg-type]
        cone=choice(contact.get("cone", d.cone), "contact.cone", CONES, source),
        solver=choice(contact.get("solver", d.solver), "contact.solver", SOLVERS, source),
    )
