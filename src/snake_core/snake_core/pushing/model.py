"""Parameters of 001's pushing problem: a planar snake, a free rigid object and the ground.

Immutable model (this module) + functions over it (kinematics, constraints, projectors, maps,
response), as every model of snake_core::

    model = build_model(n_joints, fields=fields); data = model.create_data(); compute_terms(model, data, q, scenario)
 The snake has n_a joints and n_ℓ = n_a + 1 equal links (001 requires equal masses
for the factorisation M_s = m M̄, I_obj = κ m Ī_obj, 001 (6)); q_s = [x, y, θ₁, φ₁ … φ_{n_a}]
with (x, y) the tail end of link 1 and θ₁ its absolute angle (001 Fig. 4 caption
q_s = {0, 0, 0, −135°, −135°}; joint order tail → head as everywhere in the suite).

001 leaves several details open (seed001_pushing.md §7); each is a named field here:

* ``contact_link`` / ``contact_position``: 001 case study 1 "contacting an object with its tail
  (first link) and the contact occurs at the middle of the link" → link 1, s = ℓ/2.
* ``contact_side``: the contact normal is perpendicular to the link (not stated in 001); +1 puts
  the object on the left of the link (normal = +90° from the link's tail → head direction).
  The extremes over the input region do not depend on it (mirror symmetry).
* ``object_offset``: the object's centre of mass from the contact point, along (normal, link
  direction). 001 never gives the object's geometry; with a zero tangential offset the contact
  normal passes through the object's COM, G has no moment and ``object_gyration`` drops out.
* ``wheel_position``: passive wheels at the link centres (001 Fig. 3b/c, black rectangles), on
  every link except the contact link (001 Assumption 4).
* ``mu_s`` and ``gravity``: Scenario 2 bounds each wheel's lateral force by μ_s N with
  N = m_i g, the weight of its own link (001 gives neither the normal load nor g).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import TYPE_CHECKING, Any

import numpy as np

from snake_core.registry import Param, checked, param_table
from snake_core.validation import ConfigError

if TYPE_CHECKING:
    from snake_core.pushing.constraints import ConstraintSet

#: 001 Table 1 (case study 1); case study 2 uses the same parameters (seed001_pushing.md §3.2).
TABLE1_LINK_MASS = 1.0  # m_i [kg]
TABLE1_LINK_LENGTH = 0.15  # ℓ_i [m]
TABLE1_LINK_INERTIA = 0.002  # I_com,i [kg m²] (not m ℓ²/12 = 0.001875: 001's value is kept)
TABLE1_MU_S = 0.1  # μ_s, Scenario 2
KAPPA_FIG4 = 100.0  # κ = m_obj / m_i, 001 Fig. 4
#: Not in 001 (seed001_pushing.md §7): standard gravity for the Scenario 2 friction bound.
STANDARD_GRAVITY = 9.81
#: Not in 001: object COM 5 cm behind the contact along the normal (a 10 cm box pushed on a face
#: centre), radius of gyration of that box (side/√6). Irrelevant to the metrics while the
#: tangential offset is 0 (seed001_pushing.md §2.3).
DEFAULT_OBJECT_OFFSET = (0.05, 0.0)
DEFAULT_OBJECT_GYRATION = 0.1 / 6**0.5

MAX_JOINTS = 32

#: n_a, the snake's joints (fixed by the case study, not a model field of the mapping).
N_JOINTS = Param("n_joints", None, "", "n_a, the snake's joints (n_a + 1 links)", 1, MAX_JOINTS, kind=int,
                 source="001 (5)")
#: The two numbers of ``object_offset``: the object lies on the contact normal's side.
OBJECT_OFFSET_PARTS = (
    Param("normal", None, "m", "along the contact normal", 0.0, low_open=True),
    Param("tangent", None, "m", "along the contact link"),
)
#: ``contact_link``; its upper bound is the model's link count.
CONTACT_LINK = Param("contact_link", 1, "", "the link touching the object, 1-based from the tail (at most n_a + 1)", 1,
                     kind=int, source="001 case study 1")
#: ``contact_side``: +1 or −1 (0 is refused beside the spec).
CONTACT_SIDE = Param("contact_side", 1, "", "+1: the object on the left of the contact link, -1: on the right "
                     "(not 0)", -1, 1, kind=int)
#: The fields of :class:`PushingModel` a mapping (YAML, ``--param``) may set, 001 Table 1's values their defaults.
MODEL_PARAMS = (
    Param("link_mass", TABLE1_LINK_MASS, "kg", "m, every link's mass (001 (6) needs them equal)", 0.0, low_open=True,
          source="001 Table 1"),
    Param("link_length", TABLE1_LINK_LENGTH, "m", "ℓ, every link's length", 0.0, low_open=True, source="001 Table 1"),
    Param("link_inertia", TABLE1_LINK_INERTIA, "kg·m²", "I_com, every link's moment of inertia about its centre", 0.0,
          low_open=True, source="001 Table 1"),
    Param("kappa", KAPPA_FIG4, "", "κ = m_obj / m, the object's mass in link masses (κ ≤ 0: I_obj singular)", 0.0,
          low_open=True, source="001 (6), Fig. 4"),
    Param("object_gyration", DEFAULT_OBJECT_GYRATION, "m", "ρ, the object's radius of gyration: Ī_obj = diag(1, 1, ρ²) "
          "(not in 001: a 10 cm box)", 0.0, low_open=True),
    Param("object_offset", DEFAULT_OBJECT_OFFSET, "m", "the object's centre of mass from the contact point: "
          + ", ".join(f"{p.name} ({p.description}) {p.range or 'any'}" for p in OBJECT_OFFSET_PARTS)
          + " (not in 001)", size=len(OBJECT_OFFSET_PARTS)),
    CONTACT_LINK,
    Param("contact_position", 0.5, "", "the contact point along the contact link, a fraction of ℓ from its tail end",
          0.0, 1.0, source="001 case study 1"),
    CONTACT_SIDE,
    Param("wheel_position", 0.5, "", "the passive wheels along their links, a fraction of ℓ", 0.0, 1.0,
          source="001 Fig. 3"),
    Param("mu_s", TABLE1_MU_S, "", "μ_s, the wheels' lateral friction bound μ_s m g in Scenario 2", 0.0,
          source="001 Table 1"),
    Param("gravity", STANDARD_GRAVITY, "m/s²", "g of the wheels' normal load m g (not in 001)", 0.0, low_open=True),
)


class Scenario(IntEnum):
    """001 §Results, Fig. 3."""

    NO_FRICTION = 1  # snake touches the object, otherwise free (negligible ground friction)
    BOUNDED_WHEELS = 2  # passive wheels on all other links, lateral friction |λ_w| ≤ μ_s N
    IDEAL_WHEELS = 3  # ideal non-holonomic wheels (bilateral, unbounded: μ_s → ∞)


@dataclass(frozen=True)
class PushingModel:
    """Snake + object of 001. Lengths in m, masses in kg, angles in rad."""

    n_joints: int  # n_a
    link_mass: float = TABLE1_LINK_MASS  # m (all links equal, 001 (6))
    link_length: float = TABLE1_LINK_LENGTH  # ℓ
    link_inertia: float = TABLE1_LINK_INERTIA  # I_com about the link centre
    kappa: float = KAPPA_FIG4  # κ = m_obj / m, 001 (6)
    object_gyration: float = DEFAULT_OBJECT_GYRATION  # ρ: Ī_obj = diag(1, 1, ρ²)
    object_offset: tuple[float, float] = DEFAULT_OBJECT_OFFSET  # object COM − contact, (normal, tangent)
    contact_link: int = 1  # 1-based, tail = 1 (001 case study 1)
    contact_position: float = 0.5  # fraction of ℓ from the link's tail end
    contact_side: int = 1  # +1: object on the left of the contact link, −1: on the right
    wheel_position: float = 0.5  # fraction of ℓ (link centre)
    mu_s: float = TABLE1_MU_S
    gravity: float = STANDARD_GRAVITY

    def __post_init__(self) -> None:
        """Each field against its spec (:data:`N_JOINTS`, :data:`MODEL_PARAMS`; contact_link up to n_a + 1)."""
        N_JOINTS.check(self.n_joints, "n_joints")
        for p in MODEL_PARAMS:
            (replace(p, high=self.n_links) if p is CONTACT_LINK else p).check(getattr(self, p.name), p.name)
        for i, (part, value) in enumerate(zip(OBJECT_OFFSET_PARTS, self.object_offset, strict=True)):
            part.check(value, f"object_offset[{i}]")
        if self.contact_side == 0:
            raise ConfigError("contact_side", self.contact_side, "must be +1 (left) or -1 (right)")

    @property
    def n_links(self) -> int:  # n_ℓ = n_a + 1
        return self.n_joints + 1

    @property
    def n_s(self) -> int:  # snake DOF: 3 base + n_a joints (001 (5))
        return 3 + self.n_joints

    @property
    def object_mass(self) -> float:  # m_obj = κ m
        return self.kappa * self.link_mass

    @property
    def wheel_links(self) -> tuple[int, ...]:
        """1-based links that carry a passive wheel: all but the contact link (001 Assumption 4)."""
        return tuple(i for i in range(1, self.n_links + 1) if i != self.contact_link)

    @property
    def wheel_normal_load(self) -> float:
        """N of one wheel: its link's weight (not in 001, see the module docstring)."""
        return self.link_mass * self.gravity

    def create_data(self) -> PushingData:
        """An empty workspace for :func:`snake_core.pushing.constraints.compute_terms`."""
        n = self.n_s + 3  # snake and planar object (n_op = 3)
        return PushingData(inertia=np.zeros((0, n, n)), inertia_inv=np.zeros((0, n, n)), constraints=None)


@dataclass(eq=False)
class PushingData:
    """001's terms at a batch of C configurations, filled by :func:`snake_core.pushing.constraints.compute_terms`."""

    inertia: np.ndarray  # I = blockdiag(M_s, I_obj) (001 (12)), (C, n, n) [kg, kg·m, kg·m²]
    inertia_inv: np.ndarray  # I⁻¹, (C, n, n)
    constraints: ConstraintSet | None  # A = [−J_s Gᵀ] of the scenario (001 (9)); None before the first fill


def model_table() -> str:
    """docs/simulator.md's table of the model fields ``snake-sim pushing --param`` sets, made from :data:`MODEL_PARAMS`
    only."""
    return param_table(MODEL_PARAMS, "")


def build_model(n_joints: int, *, fields: Mapping[str, Any] | None = None, source: str | None = None,
                path: str = "pushing") -> PushingModel:
    """The model of 001 for a snake of ``n_joints`` joints: 001 Table 1 with the given ``fields`` replaced.

    ``fields`` is a mapping (YAML, ``--param``) of :class:`PushingModel` fields (:data:`MODEL_PARAMS`); unknown ones
    are refused, and a bad value is reported as ``{path}.{field}``.
    """
    values = checked({} if fields is None else fields, MODEL_PARAMS, path, source)
    try:
        return PushingModel(n_joints=n_joints, **values)
    except ConfigError as exc:
        raise ConfigError(f"{path}.{exc.field}" if path else exc.field, exc.value, exc.allowed, source) from None
