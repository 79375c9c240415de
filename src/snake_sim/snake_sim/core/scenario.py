"""Scenario files (``config/scenarios/*.yaml``): schema, validation and ``--set`` overrides.

A scenario says which robot walks on which world with which gait and controller, for how long,
and what the run writes. Top-level sections (docs/design.md "Command line" names)::

    name: pedal-wave                  # defaults to the file name
    description: free text
    model: vertical                   # vertical (002) | planar (004) | pushing (001); snake_sim.core.models
    robot:   {name: koopaee6, ...}    # robot.name = config/robots/<name>.yaml; model-specific keys
    world:   {file: flat, start_x: 0.0}   # worlds/<file>.sdf; start_x = tail tip x at t = 0 [m]; vertical model:
                                      # side_friction replaces the μ of every box's sides (the file's otherwise)
    gait:    {type: pedal_wave, amplitude: ..., frequency: ..., phase_shift: ...}
    controller: {mode: position, ...}
    contact: {friction: 0.6, stiffness: 550, damping: 10, ...}
    sim:     {duration: 10, time_step: 0.005, control_rate: 100, log_rate: 50}
    outputs: {animation: true, plots: true}

A scenario may name a shipped scenario as its ``base:`` and state only what differs (:func:`compose`): its mapping
is laid over the base's as a JSON Merge Patch (RFC 7386): mappings merge key by key, ``null`` removes a key, any
other value replaces the base's; ``name`` is the scenario's own (its file name by default). Bases may have bases.
``base:`` may also be a list, laid over one another in order before the scenario's own keys: the 3-D twins are
``base: [<2-D twin>, parts/mujoco-3d]``, where ``config/scenarios/parts/`` holds the shared pieces that are no
scenario of their own (not listed, not run alone; ``parts/mujoco-3d`` is the MuJoCo block of every 3-D twin).

Numbers may be written as simple expressions of ``pi`` (``-2*pi/5``), in files and in ``--set``.
This module validates the common sections (model, robot.name, world, sim, outputs) against their specs
(:data:`SIM_PARAMS`, :data:`WORLD_PARAMS`, :data:`OUTPUT_PARAMS`, :data:`ROBOT_NAME`); each model validates its own
sections (robot, world, contact against its runtime's ``PARAMS``; gait, controller) before it simulates anything.
To add a section, add its name to :data:`SECTIONS`; to add a model, register its runtime in
:func:`snake_sim.core.models.models` (a module satisfying :class:`snake_sim.core.models.ModelRuntime`).
"""

from __future__ import annotations

import ast
import copy
import difflib
import math
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from snake_core import locator, yaml_files
from snake_core.registry import Param, checked, param_table
from snake_core.validation import ConfigError, choice, get, reject_unknown

from .models import models, runtime_for

#: The scenario ``make demo`` runs (config/scenarios/demo.yaml: tsc-stairs-3d with K_τ = 6 for 35 s).
DEMO_SCENARIO = "demo"

#: The folder of config/scenarios/ whose files are pieces for ``base:`` lists, not scenarios of their own.
PARTS = "parts"

#: Top-level sections a scenario may have.
SECTIONS: tuple[str, ...] = ("name", "description", "model", "robot", "world", "gait", "controller", "contact",
                             "sim", "outputs", "expected")

#: The most samples a run's log may hold (sim.duration × sim.log_rate): the log is allocated before the run, a few
#: kB per sample on the 3-D models, so this bound keeps it to a few GB (at the default 50 Hz: 20 000 s).
MAX_LOG_SAMPLES = 1_000_000
#: The largest magnitude of any number in a scenario (the largest shipped: a contact stiffness of 1e7 N/m): beyond it a
#: number is a typing error that would overflow the models (each section also checks its own ranges).
MAX_MAGNITUDE = 1e9
#: The farthest ``world.start_x`` from the world's origin [m] (the shipped worlds span a few metres).
MAX_START_X = 1000.0
#: Largest ``sim.time_step`` [s] (each model may ask for less) and ``sim.control_rate``, ``sim.log_rate`` [Hz].
MAX_TIME_STEP = 0.05
MAX_RATE = 1e5

#: ``sim:``, read by every model (the planar model integrates with its own adaptive step and controls in continuous
#: time with rigid joints; the pushing model asks for a finer step).
SIM_DURATION = Param("duration", None, "s", "simulated time", 0.0, low_open=True, required=True)
SIM_TIME_STEP = Param("time_step", 0.005, "s", "integration step h", 0.0, MAX_TIME_STEP, low_open=True)
SIM_PARAMS = (
    SIM_DURATION,
    SIM_TIME_STEP,
    Param("control_rate", 100.0, "Hz", "rate of the gait and the joint controllers (at least 1/h)", 0.0, MAX_RATE,
          low_open=True),
    Param("log_rate", 50.0, "Hz", "rate of the logged samples", 0.0, MAX_RATE, low_open=True),
    Param("perturbation", None, "", "the initial asymmetry of a 3-D run, a mapping (`sim.perturbation.*`; unset: none)",
          scalar=False),
)
#: ``robot.name``, the field of every model's ``robot:`` (each model adds its own).
ROBOT_NAME = Param("name", None, "", "the robot file, config/robots/<name>.yaml", kind=str, required=True)
#: ``world.file``, the field of every model's ``world:``.
WORLD_FILE = Param("file", "flat", "", "the world, worlds/<file>.sdf", kind=str)
#: ``world:`` as every scenario is read: the file and the start (each model checks the fields it takes: the models
#: that place the robot on the ground add side_friction, box_yaw_deg, tether, ...; the planar ones take the file only).
WORLD_PARAMS = (
    WORLD_FILE,
    Param("start_x", None, "m", "x of the tail tip at t = 0 (unset: 0, the world's origin)", -MAX_START_X,
          MAX_START_X),
)
#: ``outputs:`` of ``snake-sim run``.
OUTPUT_PARAMS = (
    Param("animation", True, "", "write animation.gif", kind=bool),
    Param("plots", True, "", "write the plots (joints.png, com.png, ...)", kind=bool),
)
#: ``expected:`` an outcome that looks like a failure but is the documented one (``status``: how the run's status
#: begins, ``why``: the sentence ``snake-sim run`` prints; such a run exits 0).
EXPECTED_FIELDS = ("status", "why")


@dataclass(frozen=True)
class Scenario:
    """A validated scenario: ``data`` is the nested mapping with defaults of the common sections."""

    name: str
    source: str  # file name, for error messages
    data: dict[str, Any]

    def section(self, key: str) -> dict[str, Any]:
        """A top-level mapping (empty if absent); validated as a mapping."""
        value = self.data.get(key) or {}
        if not isinstance(value, dict):
            raise ConfigError(key, value, "must be a mapping", self.source)
        return value

    @property
    def model(self) -> str:
        return self.data["model"]

    @property
    def duration(self) -> float:
        return self.data["sim"]["duration"]

    def expected(self, status: str) -> str | None:
        """Why a run that ended with ``status`` ended as documented (``expected:``), None if it is not that end."""
        expected = self.data.get("expected")
        return expected["why"] if expected and status.startswith(expected["status"]) else None

    @property
    def time_step(self) -> float:
        return self.data["sim"]["time_step"]

    @property
    def control_period(self) -> float:
        return 1.0 / self.data["sim"]["control_rate"]

    @property
    def log_period(self) -> float:
        return 1.0 / self.data["sim"]["log_rate"]

    @property
    def robot_name(self) -> str:
        return self.data["robot"]["name"]

    @property
    def world_file(self) -> str:
        return self.data["world"]["file"]

    @property
    def start_x(self) -> float:
        """x of the tail tip at t = 0 [m] (``world.start_x``; unset: 0)."""
        return self.data["world"].get("start_x", 0.0)


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.Pow: operator.pow, ast.USub: operator.neg, ast.UAdd: operator.pos}


def expression(text: str) -> float:
    """Evaluate a numeric expression of numbers, ``pi`` and + − * / ** ( ); ValueError otherwise."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value,
                                                                                                      bool):
            return float(node.value)
        if isinstance(node, ast.Name) and node.id == "pi":
            return math.pi
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
            return _OPS[type(node.op)](ev(node.operand))
        raise ValueError(text)

    return ev(ast.parse(text.strip(), mode="eval"))


def _numbers(value: Any) -> Any:
    """Replace strings that are pi-expressions by their value, recursively."""
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, str) and "pi" in value:
        try:
            return expression(value)
        except (ValueError, SyntaxError, ZeroDivisionError, OverflowError):  # not a number: validation says so
            return value
    return value


def _check_magnitudes(value: Any, path: str, source: str) -> None:
    """ConfigError naming the first number in ``value`` (at the dotted ``path``) that is not finite or larger than
    :data:`MAX_MAGNITUDE` in magnitude."""
    if isinstance(value, dict):
        for k, v in value.items():
            _check_magnitudes(v, f"{path}.{k}" if path else str(k), source)
    elif isinstance(value, list):
        for v in value:
            _check_magnitudes(v, path, source)
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= MAX_MAGNITUDE:
        raise ConfigError(path, value, f"must be a finite number of magnitude at most {MAX_MAGNITUDE:g}", source)


def apply_override(data: dict[str, Any], assignment: str, source: str = "--set") -> None:
    """Apply ``dotted.path=value`` (value parsed as YAML, e.g. ``0.8``, ``[1, 3]``, ``-2*pi/5``); a path ending in an
    index sets one element of a list the scenario has (``contact.solref.0=0.03``)."""
    if "=" not in assignment:
        raise ConfigError("--set", assignment, "must be KEY=VALUE with a dotted key, e.g. gait.amplitude=0.6", source)
    key, text = assignment.split("=", 1)
    parts = key.strip().split(".")
    if not all(parts):
        raise ConfigError("--set", assignment, "the key must be a dotted path such as contact.friction", source)
    if parts[0] not in SECTIONS:
        raise ConfigError(key, text, "unknown field; allowed sections: " + ", ".join(SECTIONS), source)
    try:
        value = yaml_files.safe_load(text)
    except yaml_files.NestingError as exc:
        raise ConfigError(key, f"{text[:20]}…", f"is {exc.problem}", source) from None
    except yaml.YAMLError:
        value = text
    node = data
    for i, p in enumerate(parts[:-1]):
        nxt = node.get(p)
        if nxt is None:
            nxt = node[p] = {}
        if isinstance(nxt, list) and i == len(parts) - 2:  # an element of a list: contact.solref.0=0.03
            index = int(parts[-1]) if parts[-1].isdigit() else -1
            if not 0 <= index < len(nxt):
                raise ConfigError(key, text, f"{'.'.join(parts[:-1])} is a list of {len(nxt)}: its elements are "
                                  f"{'.'.join(parts[:-1])}.0 to .{len(nxt) - 1}", source)
            nxt[index] = _numbers(value)
            return
        if not isinstance(nxt, dict):
            raise ConfigError(".".join(parts[: i + 1]), nxt, "is not a section; cannot set a field inside it", source)
        node = nxt
    node[parts[-1]] = _numbers(value)


def scenario_from_dict(data: Any, source: str, overrides: list[str] | tuple[str, ...] = ()) -> Scenario:
    """Validate a scenario mapping (after applying ``overrides``) into a :class:`Scenario`."""
    if not isinstance(data, dict):
        raise ConfigError("<root>", data, "a scenario file must be a YAML mapping", source)
    data = copy.deepcopy(data)
    for o in overrides:
        apply_override(data, o)
    data = _numbers(data)
    reject_unknown(data, SECTIONS, "", source)
    _check_magnitudes(data, "", source)
    name = str(data.get("name") or Path(source).stem)
    data["name"] = name
    data["model"] = choice(data.get("model", "vertical"), "model", tuple(models()), source)

    robot = get(data, "robot", "", source)
    if not isinstance(robot, dict):
        raise ConfigError("robot", robot, "must be a mapping with at least robot.name", source)
    checked(robot, (ROBOT_NAME,), "robot", source, also=tuple(robot))  # each model checks the fields of its own

    world = data.get("world") or {}
    if isinstance(world, str):
        world = {"file": world}
    if not isinstance(world, dict):
        raise ConfigError("world", world, "must be a mapping with world.file", source)
    data["world"] = {**world, **_set(checked(world, WORLD_PARAMS, "world", source, also=tuple(world)))}  # each
    # model checks the fields of its own

    sim = get(data, "sim", "", source)
    if not isinstance(sim, dict):
        raise ConfigError("sim", sim, "must be a mapping", source)
    sim = _set(checked(sim, SIM_PARAMS, "sim", source))
    samples = sim["duration"] * sim["log_rate"]
    if samples > MAX_LOG_SAMPLES:
        raise ConfigError("sim.duration", sim["duration"], f"× sim.log_rate {sim['log_rate']:g} Hz is {samples:.3g} "
                          f"logged samples, more than the {MAX_LOG_SAMPLES:,} a run may hold: shorten the run or "
                          "lower sim.log_rate", source)
    if sim["time_step"] > 1.0 / sim["control_rate"] + 1e-12:
        raise ConfigError("sim.time_step", sim["time_step"], f"must be <= the control period 1/sim.control_rate = "
                          f"{1.0 / sim['control_rate']:g} s", source)
    data["sim"] = sim

    outputs = data.get("outputs") or {}
    if not isinstance(outputs, dict):
        raise ConfigError("outputs", outputs, "must be a mapping", source)
    data["outputs"] = checked(outputs, OUTPUT_PARAMS, "outputs", source)
    expected = data.get("expected")
    if expected is not None:
        if not isinstance(expected, dict):
            raise ConfigError("expected", expected, "must be a mapping with expected.status and expected.why", source)
        reject_unknown(expected, EXPECTED_FIELDS, "expected", source)
        for k in EXPECTED_FIELDS:
            if not isinstance(get(expected, k, "expected", source), str) or not expected[k].strip():
                raise ConfigError(f"expected.{k}", expected[k], "must be a non-empty text", source)
    return Scenario(name, source, data)


def section_tables() -> str:
    """docs/simulator.md's tables of the scenario fields, made from the specs only: ``sim``, ``outputs`` and
    ``world.file`` of every model, then each model's own sections (its runtime's ``PARAMS``)."""
    blocks = [f"**{section}** (every model)\n\n{param_table(params, section)}"
              for section, params in (("sim", SIM_PARAMS), ("outputs", OUTPUT_PARAMS), ("world", (WORLD_FILE,)))]
    blocks += [f"**{model}: {section}**\n\n{param_table(params, section)}" for model in sorted(models())
               for section, params in runtime_for(model).PARAMS.items()]
    return "\n\n".join(blocks)


def _set(values: dict[str, Any]) -> dict[str, Any]:
    """The checked values of a section without the unset ones (a model's default, or nothing, stands for them)."""
    return {k: v for k, v in values.items() if v is not None}


def merge_patch(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``patch`` laid over ``base`` (JSON Merge Patch, RFC 7386 §2): mappings merge key by key, ``None`` removes the
    key, any other value replaces the base's; neither argument is changed."""
    merged = copy.deepcopy(base)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_patch(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def compose(data: Any, source: str, chain: tuple[str, ...] = ()) -> Any:
    """The scenario mapping ``data`` (from the file ``source``) over its ``base:`` scenarios (one name or a list, laid
    over one another in order), bases resolved in turn; a mapping without ``base`` as it is. ``chain``: the
    scenarios already on the way (for the cycle error)."""
    if not isinstance(data, dict) or "base" not in data:
        return data
    own = Path(source).stem
    bases = _bases(data)
    chain = (*chain, own)
    merged: dict[str, Any] = {}
    for base in bases:
        if not isinstance(base, str) or not is_shipped(base):
            raise ConfigError("base", base, "must name a shipped scenario or part" + _suggestion(str(base)), source)
        if Path(base).stem in chain:
            raise ConfigError("base", base, "makes a cycle of bases: " + " -> ".join((*chain, Path(base).stem)),
                              source)
        path = locator.scenario_file(base)
        merged = merge_patch(merged, compose(yaml_files.load_file(path), path.name, chain))
    patch = {key: value for key, value in data.items() if key != "base"}
    return {**merge_patch(merged, patch), "name": str(data.get("name") or own)}


def _bases(data: dict[str, Any]) -> list[Any]:
    """The names of a scenario mapping's ``base:`` (one name or a non-empty list), as a list."""
    return data["base"] if isinstance(data["base"], list) and data["base"] else [data["base"]]


def is_shipped(name: str) -> bool:
    """Whether ``name`` is a shipped scenario, or a shipped part (``parts/<name>``, config/scenarios/parts/)."""
    return name in list_scenarios() or (Path(name).parent == Path(PARTS) and locator.scenario_file(name).is_file())


def _suggestion(name: str) -> str:
    """The end of an unknown-scenario error: the closest shipped names (difflib), and where all are listed."""
    names = list_scenarios()
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    hint = "; did you mean " + " or ".join(close) + "?" if close else ""
    return f"{hint} (`snake-sim list` shows the {len(names)} shipped scenarios; a file of your own is run by its path)"


def scenario_data(name: str | Path) -> tuple[dict[str, Any], str]:
    """The composed mapping of ``config/scenarios/<name>.yaml`` (or a path) and its file name."""
    path = locator.scenario_file(name)
    if not path.is_file():
        raise ConfigError("scenario", str(name), "unknown scenario" + _suggestion(str(name)))
    return compose(yaml_files.load_file(path), path.name), path.name


def load_scenario(name: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> Scenario:
    """Load ``config/scenarios/<name>.yaml`` (or a path) over its base, apply ``--set`` overrides, validate."""
    data, source = scenario_data(name)
    return scenario_from_dict(data, source, overrides)


def list_scenarios() -> list[str]:
    """Names of the scenarios shipped in config/scenarios/."""
    return locator.scenario_names()


def describe(name: str) -> str:
    """The description line of a shipped scenario (empty if none or unreadable)."""
    try:
        data, _ = scenario_data(name)
    except (OSError, yaml.YAMLError, ConfigError):
        return ""
    return str(data.get("description", "")) if isinstance(data, dict) else ""


def changes(name: str) -> tuple[str | None, list[str]]:
    """A shipped scenario's bases (``a + parts/b``; None without one) and the keys that its file and the parts among
    its bases set over its scenario bases (``section.key``; a whole section where it replaces one that is not a
    mapping), sorted."""
    try:
        data = yaml_files.load_file(locator.scenario_file(name))
    except (OSError, yaml.YAMLError):
        return None, []
    if not isinstance(data, dict) or "base" not in data:
        return None, []
    bases = [str(b) for b in _bases(data)]
    layers = [data, *(yaml_files.load_file(locator.scenario_file(b)) for b in bases if b not in list_scenarios())]
    keys = {f"{section}.{key}" if isinstance(value, dict) else section
            for layer in layers for section, value in layer.items() if section not in ("base", "name", "description")
            for key in (value if isinstance(value, dict) else [None])}
    return " + ".join(bases), sorted(keys)
