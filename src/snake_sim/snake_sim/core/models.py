"""The embedded simulator's models behind one runtime interface, and the registry ``model:`` → runtime.

Every model has a subpackage of :mod:`snake_sim.engines` (``vertical/`` 002, ``planar/`` 004, ``pushing/`` 001,
``mujoco/`` and ``dart/`` 002 in 3-D)
whose ``runtime`` module satisfies :class:`ModelRuntime`; the command line (``run``, ``compare``,
``--check-step``, ``sweep``) and the embedded simulator's ROS node (through :func:`snake_sim.core.stepping.stepper`)
reach a model only through :func:`runtime_for`, so they hold no per-model branches. Optional members: ``stepper``
(:class:`SteppedRuntime`), ``batch_key``/``simulate_batch`` (:class:`BatchedRuntime`, the vertical model) and
``world`` (:func:`run_world`: the 3-D engines, whose scenarios may turn the boxes or change their μ).
To add a model, give it a subpackage with such a runtime module and register it as an entry point of the group
:data:`ENGINE_GROUP` (snake_sim's setup.py lists the shipped ones): the core finds the engines there, the way
pluginlib finds ROS plugins, and never imports one (an engine imports the core).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any, Protocol

from snake_core.registry import Param
from snake_core.validation import ConfigError

from .world import World, load_world

if TYPE_CHECKING:
    from .runlog import RunLog
    from .scenario import Scenario
    from .signals import StopRequest
    from .stepping import Stepper

#: The entry-point group of the engines: ``model:`` of a scenario → the module of its runtime.
ENGINE_GROUP = "snake_sim.engines"


class ModelRuntime(Protocol):
    """What a model's runtime module exposes (module-level functions, and its figure set)."""

    #: The figures of its runs: a key of :data:`snake_sim.outputs.figures.FIGURE_SETS` (outputs draw them, so that
    #: no engine imports an output module).
    FIGURES: str
    #: The specs of the model's own sections (``robot``, ``world``, ``contact``, …: section → its fields'
    #: :class:`snake_core.registry.Param`), by which ``build`` checks them and from which the docs print their tables.
    PARAMS: dict[str, tuple[Param, ...]]

    def build(self, scenario: Scenario) -> Any:
        """Validate the model's sections of ``scenario`` and assemble its set-up before anything runs."""

    def simulate(self, setup: Any, duration: float | None = None, progress: bool = False) -> RunLog:
        """Run a set-up for ``duration`` seconds (default: the scenario's) and return the log."""

    def run_scenario(self, scenario: Scenario, progress: bool = False, stop: StopRequest | None = None) -> RunLog:
        """``simulate(build(scenario))``, ended early with ``status`` interrupted once ``stop`` is requested
        (:mod:`snake_sim.core.signals`)."""

    def summary_extra(self, log: RunLog, scenario: Scenario) -> dict[str, Any]:
        """The model's own fields of summary.json (beside :func:`snake_sim.analysis.summary.summarize`'s)."""

class SteppedRuntime(ModelRuntime, Protocol):
    """A runtime whose model can also be stepped from outside (the ROS simulator node)."""

    def stepper(self, scenario: Scenario) -> Stepper:
        """The scenario's model advanced one control period per external command."""


class BatchedRuntime(ModelRuntime, Protocol):
    """A runtime that steps several runs of one scenario together (``snake-sim sweep --batch``)."""

    def batch_key(self, scenario: Scenario) -> Hashable:
        """Scenarios with equal keys can share a batch (they differ in values, not in shapes)."""

    def simulate_batch(self, setups: Sequence[Any], progress: bool = False) -> list[RunLog]:
        """``[simulate(s) for s in setups]`` (to rounding), stepped together; refuses set-ups that cannot share a
        batch with a ConfigError; a run that goes non-finite stops alone."""


@cache
def models() -> dict[str, EntryPoint]:
    """``model:`` → the entry point of its runtime module (:data:`ENGINE_GROUP`, read once)."""
    found = {ep.name: ep for ep in entry_points(group=ENGINE_GROUP)}
    if not found:  # the distribution's metadata is missing: an install older than the group
        raise RuntimeError(f"no engine registered under the entry points {ENGINE_GROUP!r}: reinstall snake_sim "
                           "(make install, or colcon build)")
    return found


def runtime_for(model: str, source: str | None = None) -> ModelRuntime:
    """The runtime module of ``model`` (a name of :func:`models`); ConfigError naming ``model`` otherwise."""
    known = models()
    if model not in known:
        raise ConfigError("model", model, "unknown model; known: " + ", ".join(known), source)
    return known[model].load()


def run_world(runtime: ModelRuntime, scenario: Scenario) -> World:
    """The world a run of ``scenario`` meets, for its verdicts (the climb's goal, the figures): the runtime's
    ``world(scenario)`` where it has one (the world file as the scenario changes it), else the world file."""
    own = getattr(runtime, "world", None)
    return own(scenario) if own is not None else load_world(scenario.world_file)
