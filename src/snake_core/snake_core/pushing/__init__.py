"""Pushing an object with a planar snake: 001's constrained dynamics, motion norms and slippage ratio.

Modules, one concept each: :mod:`.model` (parameters, scenarios), :mod:`.kinematics` (unconstrained
snake, 001 (3)-(5)), :mod:`.constraints` (A = [−J_s Gᵀ], 001 (7)-(11)), :mod:`.projectors`
(001 (12)-(19)), :mod:`.maps` (001 (20)-(31)), :mod:`.response` (unilateral contact and bounded
wheel friction), :mod:`.study` (reductions over the input region and configuration grids),
:mod:`.errors`.
"""

from snake_core.pushing.errors import ContactLostError, PushingError, SingularConstraintsError
from snake_core.pushing.model import PushingModel, Scenario, pushing_model_from_dict

__all__ = [
    "ContactLostError", "PushingError", "PushingModel", "Scenario", "SingularConstraintsError",
    "pushing_model_from_dict",
]
