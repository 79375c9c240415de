"""Numerical settings of the DART model, fixed per scenario and reported in summary.json.

From a scenario: ``sim.time_step`` (h, Gazebo's ``max_step_size``: 1 ms in worlds/*.sdf) and ``contact:``::

    contact:
      friction: 0.6               # μ of the robot's links: the URDF's `mu` argument (snake.gazebo.xacro)
      collision_detector: ode     # ode (Gazebo's default) | fcl | dart | bullet
      max_contacts: 20            # per collision pair (SDF <physics><max_contacts>, default 20)

Gazebo's defaults, read from gz-physics 7 (dartsim plugin, EntityManagementFeatures::ConstructEmptyWorld:
GzOdeCollisionDetector, 10000 contacts in all, DART's BoxedLcpConstraintSolver with its default Dantzig
solver: gz-sim changes it only for an SDF ``<dart><solver>``, which worlds/*.sdf do not have, and dartpy cannot
construct another) and gz-sim 8 (Physics system: ``SetCollisionPairMaxContacts(<max_contacts>)``).
Fields of the other models' contact laws (vertical Kelvin–Voigt, MuJoCo's solref/solimp/cone/solver) are
accepted and do not act here, so that ``--set model=dart`` turns any scenario into its DART run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from snake_core.registry import Param, checked, param_names
from snake_core.validation import ConfigError
from snake_core.vertical.model import GRAVITY

from ..mujoco.settings import CONTACT_PARAMS as MUJOCO_CONTACT_PARAMS
from ..mujoco.settings import VERTICAL_CONTACT_FIELDS

COLLISION_DETECTORS = ("ode", "fcl", "dart", "bullet")
#: All contacts of a world step (gz-physics: ``collOpt.maxNumContacts = 10000``).
MAX_CONTACTS_TOTAL = 10000


@dataclass(frozen=True)
class Settings:
    """What DART integrates with; defaults are Gazebo's."""

    time_step: float = 0.001  # h [s]
    friction: float = 0.6  # μ of the robot's links (URDF `mu` argument, 002 Table 5.1)
    collision_detector: str = "ode"
    max_contacts: int = 20  # per collision pair
    gravity: float = GRAVITY  # g [m/s²]; worlds/*.sdf: <gravity>0 0 -9.81</gravity>

    def as_summary(self) -> dict[str, Any]:
        """The settings for summary.json."""
        return asdict(self)


_D = Settings()
#: ``contact:`` of the DART model (Gazebo's defaults but μ).
CONTACT_PARAMS = (
    Param("friction", _D.friction, "", "μ of the robot's links (the URDF's mu argument)", 0.0, 5.0,
          source="002 Table 5.1"),
    Param("collision_detector", _D.collision_detector, "", "DART's collision detector (ode: Gazebo's)",
          choices=COLLISION_DETECTORS),
    Param("max_contacts", _D.max_contacts, "", "contacts per collision pair (SDF <physics><max_contacts>)", 1,
          kind=int),
)
#: Fields of the vertical and MuJoCo contact laws, accepted and unused (see the module docstring).
OTHER_CONTACT_FIELDS = (*VERTICAL_CONTACT_FIELDS,
                        *(n for n in param_names(MUJOCO_CONTACT_PARAMS) if n not in param_names(CONTACT_PARAMS)))


def settings_from(time_step: float, contact: dict[str, Any], source: str | None = None) -> Settings:
    """:class:`Settings` from ``sim.time_step`` and a scenario's ``contact:`` section, validated."""
    values = checked(contact, CONTACT_PARAMS, "contact", source, also=OTHER_CONTACT_FIELDS)
    import dartpy

    cls = {"ode": "OdeCollisionDetector", "fcl": "FCLCollisionDetector", "dart": "DARTCollisionDetector",
           "bullet": "BulletCollisionDetector"}[values["collision_detector"]]
    if not hasattr(dartpy.collision, cls):
        raise ConfigError("contact.collision_detector", values["collision_detector"], f"this dartpy has no {cls}",
                          source)
    return Settings(time_step=time_step, **values)
