"""The workspace's import graph (every module of src/*/<package>, read with ast: imports at module level and inside
functions; those under ``if TYPE_CHECKING:`` load nothing and are left out) has no cycle; an import inside a
function is one of an optional heavy third-party package (or a command module deferring its work, so that
``snake-sim --help`` does not load Dask, Optuna, matplotlib or rosbags); no engine reaches an output module, and no
product module reaches the test harness (snake_test_support); snake_sim's folders import only their own and earlier
folders of :data:`SIM_LAYERS`; the robot's packages (and robot.launch.py) never reach the simulator's."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2]

#: Third-party packages a function may import: heavy, and needed only where the function runs.
LAZY_THIRD_PARTY = {"mujoco", "dartpy", "matplotlib", "PIL", "dask", "distributed", "optuna", "pinocchio", "xacro",
                    "sros2", "rclpy", "rosgraph_msgs", "builtin_interfaces", "sensor_msgs", "std_srvs",
                    "controller_manager_msgs"}
#: Our modules a function may import: a command-line module defers the module that does a sub-command's heavy work
#: (snake-sim's parser imports every command module: Dask, Optuna, matplotlib, MuJoCo and its renderer, numba's
#: kernels, rosbags; snake-can, which tests start many times, loads the emulated modules' compiled kernels only to
#: emulate; the simulated body, the simulator's side, only through its entry point).
DEFERRED_WORK = {"snake_sim.commands": ("snake_sim.studies", "snake_sim.outputs", "snake_sim.engines",
                                        "snake_sim.reproduction"),
                 "snake_hardware.cli": ("snake_hardware.emulator",)}
#: What ``snake-sim --help`` (the parser of every sub-command) must not load.
HEAVY = ("mujoco", "dartpy", "matplotlib", "numba", "dask", "optuna", "rosbags")
#: snake_sim's folders by role, in the order they may import each other (docs/design.md, "Layout").
SIM_LAYERS = ("core", "analysis", "engines", "outputs", "studies", "reproduction", "benchmarks", "commands")
#: The robot's packages (what the robot computer runs) and the simulator's, which only the latter may import.
ROBOT_PACKAGES = ("snake_core", "snake_control", "snake_hardware", "snake_bringup")
SIMULATOR_PACKAGES = ("snake_sim", "snake_sim_ros")
#: The test harness, imported by tests only.
TEST_SUPPORT = "snake_test_support"


def modules(src: Path) -> dict[str, Path]:
    """Dotted name → file of every module of the packages under ``src`` (src/<dist>/<package>/...)."""
    found = {}
    for init in sorted(src.glob("*/*/__init__.py")):
        for path in init.parent.rglob("*.py"):
            parts = list(path.relative_to(init.parent.parent).with_suffix("").parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    return {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for stmt in node.body for n in ast.walk(stmt)}


def _in_functions(tree: ast.Module) -> set[int]:
    return {id(n) for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for n in ast.walk(node) if n is not node}


def imports(name: str, path: Path) -> Iterable[tuple[str, bool, int]]:
    """(imported dotted name, inside a function, line) of every import of the module; ``from X import y`` gives
    X.y (a submodule or a name of X)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip, lazy = _type_checking_only(tree), _in_functions(tree)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in lazy, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = ".".join([*package[:len(package) - node.level + 1], *([node.module] if node.module else [])]) \
                if node.level else node.module
            for alias in node.names:
                yield f"{base}.{alias.name}", id(node) in lazy, node.lineno


def _ours(target: str, known: dict[str, Path]) -> str | None:
    """The module of ours that importing ``target`` loads last (a name of a module → that module)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the modules of ours it imports (its own packages, always loaded first, left out)."""
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        edges[name] = set()
        for target, _, _ in imports(name, path):
            module = _ours(target, known)
            if module is not None and module != name and not name.startswith(module + "."):
                edges[name].add(module)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for w in edges.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


@pytest.fixture(scope="module")
def workspace() -> tuple[dict[str, Path], dict[str, set[str]]]:
    known = modules(SRC)
    return known, graph(known)


def test_the_workspace_has_no_import_cycle(workspace):
    known, edges = workspace
    assert {"snake_core", "snake_sim", "snake_control", "snake_hardware", "snake_bringup", TEST_SUPPORT} <= {
        name.split(".")[0] for name in known}
    found = cycles(edges)
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_functions_import_only_heavy_optional_packages(workspace):
    known, _ = workspace
    bad = []
    for name, path in known.items():
        for target, lazy, line in imports(name, path):
            if not lazy or target.split(".")[0] in LAZY_THIRD_PARTY:
                continue
            deferred = [t for m, ts in DEFERRED_WORK.items() if (name + ".").startswith(m + ".") for t in ts]
            if _ours(target, known) is not None and any(target.startswith(t) for t in deferred):
                continue
            bad.append(f"{path.relative_to(SRC)}:{line} imports {target}")
    assert not bad, "imports inside functions: " + "; ".join(bad)


def test_no_engine_reaches_an_output_module(workspace):
    known, edges = workspace
    engines = [name for name in known if name.startswith("snake_sim.engines.")]
    assert len(engines) > 10
    bad = {e: sorted(m for m in reachable(edges, e) if m.startswith("snake_sim.outputs")) for e in engines}
    assert not {e: m for e, m in bad.items() if m}


def test_snake_sim_folders_import_only_their_own_and_earlier_ones(workspace):
    known, edges = workspace
    folders = {name.split(".")[1] for name in known if name.count(".") >= 2 and name.startswith("snake_sim.")}
    assert folders == set(SIM_LAYERS), "a snake_sim folder outside SIM_LAYERS"
    layer = {name: SIM_LAYERS.index(name.split(".")[1]) for name in known
             if name.count(".") >= 2 and name.startswith("snake_sim.")}
    upward = sorted(f"{a} -> {b}" for a in layer for b in edges[a] if b in layer and layer[b] > layer[a])
    assert not upward, "imports of a later folder: " + "; ".join(upward)


def test_no_product_module_reaches_the_test_harness(workspace):
    known, edges = workspace
    product = [name for name in known if not name.startswith(TEST_SUPPORT)]
    bad = {p: sorted(m for m in reachable(edges, p) if m.startswith(TEST_SUPPORT)) for p in product}
    assert not {p: m for p, m in bad.items() if m}


def test_the_robots_packages_and_robot_launch_never_reach_the_simulator(workspace):
    """What the robot computer builds (docker/Dockerfile.robot) imports nothing of snake_sim or snake_sim_ros: the
    simulator's side imports the robot's packages (its node, the emulator's simulated body), never the reverse."""
    known, edges = workspace
    launch = SRC.parent / "launch" / "robot.launch.py"
    targets = (_ours(t, known) for t, _, _ in imports("robot_launch", launch))
    edges = {**edges, "robot_launch": {t for t in targets if t is not None}}
    starts = [name for name in known if name.split(".")[0] in ROBOT_PACKAGES] + ["robot_launch"]
    assert len(starts) > 50 and edges["robot_launch"]
    bad = {s: sorted(m for m in reachable(edges, s) if m.split(".")[0] in SIMULATOR_PACKAGES) for s in starts}
    assert not {s: m for s, m in bad.items() if m}


def test_the_robots_packages_declare_no_simulator_and_the_robot_image_builds_none():
    import re
    import xml.etree.ElementTree as ET

    for package in ROBOT_PACKAGES:
        xml = ET.parse(SRC / package / "package.xml").getroot()
        declared = {e.text for e in xml if e.tag.endswith("depend")}
        requires = re.search(r"install_requires=\[([^]]*)\]", (SRC / package / "setup.py").read_text()).group(1)
        assert not declared & set(SIMULATOR_PACKAGES), package
        assert not any(f'"{s}"' in requires for s in SIMULATOR_PACKAGES), package
    dockerfile = (SRC.parent / "docker" / "Dockerfile.robot").read_text()
    assert "--packages-up-to snake_bringup" in dockerfile
    copied = set(re.findall(r"^COPY src/(\w+) ", dockerfile, flags=re.M))
    assert copied == {*ROBOT_PACKAGES, "snake_description"} and "COPY src " not in dockerfile


def test_a_cycle_through_a_function_level_import_is_found_and_named(tmp_path):
    pkg = tmp_path / "dist" / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    found = cycles(graph(modules(tmp_path)))
    assert found == [["pkg.a", "pkg.sub.b"]]


def test_the_snake_sim_parser_loads_no_heavy_package():
    """Every sub-command's parser is built at each ``snake-sim`` start: its heavy work is imported when it runs."""
    code = ("import sys; from snake_sim.commands.cli import build_parser; build_parser(); "
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == []
