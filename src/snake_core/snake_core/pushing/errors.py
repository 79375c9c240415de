"""Conditions under which 001's constrained analysis has no numeric answer.

They are raised, never returned as numbers (a number would pass for a result): a lost contact is not
"sr = 0", a singular constraint set is not a pseudo-inverse of whatever G_c happens to be. Bad parameters (κ ≤ 0, a
link count out of range, …) are :class:`snake_core.validation.ConfigError`, as for every other
entry point of the suite.
"""

from __future__ import annotations


class PushingError(RuntimeError):
    """Base class: the pushing analysis cannot give a number for this configuration/input."""


class ContactLostError(PushingError):
    """The input pulls the contacting link away from the object: 001 (13) holds with A a > 0 and
    λ*_contact = 0, so the object is not pushed (001 §Results: "sr → 0 in the region where there
    is no contact with the object"). Raised where a quantity is only defined with contact."""


class SingularConstraintsError(PushingError):
    """G_c = A I⁻¹ Aᵀ (001 (14)) is rank deficient: the constraints are linearly dependent, so the
    constraint forces are not unique (001 Assumptions 1-4 are violated)."""
