"""Pushing an object with a planar snake: 001's constrained dynamics, motion norms and slippage ratio.

Modules, one concept each: :mod:`.model` (parameters, scenarios), :mod:`.kinematics` (unconstrained
snake, 001 (3)-(5)), :mod:`.constraints` (A = [−J_s Gᵀ], 001 (7)-(11)), :mod:`.projectors`
(001 (12)-(19)), :mod:`.maps` (001 (20)-(31)), :mod:`.response` (unilateral contact and bounded
wheel friction), :mod:`.study` (reductions over the input region and configuration grids),
:mod:`.errors`. ``model = build_model(n_joints, fields=fields)``, ``data = model.create_data()``,
``compute_terms(model, data, q, scenario)`` as for every model of snake_core.
"""

from snake_core.pushing.constraints import compute_terms
from snake_core.pushing.errors import ContactLostError, PushingError, SingularConstraintsError
from snake_core.pushing.model import PushingData, PushingModel, Scenario, build_model

__all__ = [
    "ContactLostError", "PushingData", "PushingError", "PushingModel", "Scenario", "SingularConstraintsError",
    "build_model", "compute_terms",
]
