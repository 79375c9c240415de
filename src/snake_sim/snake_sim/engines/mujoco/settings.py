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

Integrator: MuJoCo's ``implicitfast``, the MuJoCo that Jazzy's ``mujoco_vendor`` builds (3.12.0, pinned in
requirements.txt; nothing in the model needs a newer one). It takes damping and the actuators' velocity terms
implicitly (the motor PD's −(K_D − c) β̇ and the hinge's damping c, whose pole K_D/(n² J_r) ≈ 1.6e3 s⁻¹ no
explicit step would hold) and joint stiffness explicitly: the SEA spring K is symplectic Euler, stable while
ω h < 2 for its fastest mode and without numerical damping (002 §3.3 models the SEA as a spring with no damping,
and so does this model). With the module mesh's moments (a pitch moment several times 002's J_l) and the armature
n² J_r on the motor hinge the spring modes are slow enough for every step used here: the reference gait runs
stable from 0.5 to 5 ms. MuJoCo's ``discrete`` integrator (3.13 and later), which would take K implicitly, is not
used: Jazzy's MuJoCo does not have it.

Convergence (koopaee6, reference gait A = π/6, ω = π, φ = −2π/5 on flat ground, 10 s, open-loop-flat-3d):
average speed +2.69 cm/s at h = 5 ms, +2.73 at 2.5 ms, +2.75 at 2 ms, +2.83 at 1 ms, +2.83 at 0.5 ms
(002 Table 5.2: 1.8 simulated, 2.8 measured); local stiffness (stiffness-flat-3d) +7.01 at 2 ms, +7.03 at 1 ms;
tail-leading stiffness (tsc-flat-3d) +7.36 at 2 ms, +7.21 at 1 ms. The 3-D scenarios use h = 2 ms and MuJoCo's
default softness solref = (0.02 s, 1); the speeds at 2 ms are within 3 % of the converged ones. Softer-than-default
contact is not covered, and every climbing verdict is step-checked (snake_sim.analysis.step_check).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from snake_core.registry import Param, checked, param_names
from snake_core.vertical.contact import CONTACT_PARAMS as VERTICAL_CONTACT_PARAMS
from snake_core.vertical.model import GRAVITY

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
    integrator: str = "implicitfast"
    gravity: float = GRAVITY  # g [m/s²], the vertical model's

    def as_summary(self) -> dict[str, Any]:
        """The settings for summary.json (lists for tuples)."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


_D = Settings()
#: The five numbers of ``contact.solimp`` (MuJoCo's impedance d(r)), each within its own range.
SOLIMP_PARTS = (
    Param("d_min", None, "", "impedance at zero penetration", 0.0, 1.0, low_open=True, high_open=True),
    Param("d_max", None, "", "impedance at width", 0.0, 1.0, low_open=True, high_open=True),
    Param("width", None, "m", "penetration over which d goes from d_min to d_max", 0.0, low_open=True),
    Param("midpoint", None, "", "midpoint of the sigmoid", 0.0, 1.0),
    Param("power", None, "", "power of the sigmoid", 1.0),
)
#: ``contact:`` of the MuJoCo model (MuJoCo's own defaults but μ_c).
CONTACT_PARAMS = (
    Param("friction", _D.friction, "", "μ_c of the ground, and of boxes whose world file gives none", 0.0, 5.0,
          source="002 Table 5.1"),
    Param("solref", _D.solref, "s, -", "MuJoCo's contact softness: time constant, damping ratio", 0.0, low_open=True,
          size=2),
    Param("solimp", _D.solimp, ", ".join(p.unit or "-" for p in SOLIMP_PARTS), "MuJoCo's contact impedance: "
          + ", ".join(f"{p.name} {p.range}" for p in SOLIMP_PARTS), size=len(SOLIMP_PARTS)),
    Param("cone", _D.cone, "", "friction cone", choices=CONES),
    Param("solver", _D.solver, "", "constraint solver", choices=SOLVERS),
)
#: Fields of the vertical model's contact law, accepted and unused (see the module docstring).
VERTICAL_CONTACT_FIELDS = tuple(n for n in param_names(VERTICAL_CONTACT_PARAMS) if n not in param_names(CONTACT_PARAMS))


def settings_from(time_step: float, contact: dict[str, Any], source: str | None = None) -> Settings:
    """:class:`Settings` from ``sim.time_step`` and a scenario's ``contact:`` section, validated."""
    values = checked(contact, CONTACT_PARAMS, "contact", source, also=VERTICAL_CONTACT_FIELDS)
    for i, (part, value) in enumerate(zip(SOLIMP_PARTS, values["solimp"], strict=True)):
        part.check(value, f"contact.solimp[{i}]", source)
    return Settings(time_step=time_step, **values)
