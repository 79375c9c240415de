"""003's vertical rectilinear gait: state machine, closed-chain inverse dynamics, effort-optimal B-splines.

Modules: :mod:`.cycle` (steps and boundary states, 003 §3.3–3.4), :mod:`.bspline` (3.3)–(3.8),
:mod:`.newton_euler` (3.10)–(3.18), :mod:`.mechanism` (M1/M2/M3, (3.19)–(3.48), effort (3.75)),
:mod:`.optimise` (SLSQP with complex-step gradients, 003's ±Δ search), :mod:`.published` (003's printed C).
The gait itself is :mod:`snake_core.gaits.rectilinear`. ``model = build_model(robot, ...)``
as for every model of snake_core; the functions over it take the model first.
"""

from .mechanism import RectilinearModel, build_model

__all__ = ["RectilinearModel", "build_model"]
