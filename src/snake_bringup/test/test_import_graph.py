"""The workspace's import graph (every module of src/*/<package>, read with ast: imports at module level and inside
functions; those under ``if TYPE_CHECKING:`` load nothing and are left out) has no cycle; an import inside a
function is one of an optional heavy third-party package (or a command module deferring its work, so that
``snake-sim --help`` does not load Dask, Optuna, matplotlib or rosbags, or a registry loading the entry asked for);
no engine reaches an output module, and no product module reaches the test harness (snake_test_support);
snake_sim's folders import only their own and earlier folders of :data:`SIM_LAYERS`, snake_studies' those of
:data:`STUDIES_LAYERS`, and snake_sim never imports snake_studies; the robot's packages (and robot.launch.py) never
reach the simulator's.

Every edge is one the graph sees: no product module looks a module of ours up by a string (importlib, __import__,
pkgutil); plug-ins are plain imports or entry points of a setup.py of ours, whose edges (the module that loads the
group → each registered module) are checked here: the registered module exists and may import the loader (never
the reverse: the core finds the engines, which import the core)."""

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
                    "scipy", "sros2", "rclpy", "rosgraph_msgs", "builtin_interfaces", "sensor_msgs", "std_srvs",
                    "controller_manager_msgs"}
#: Our modules a function may import: a command-line module defers the module that does a sub-command's heavy work
#: (snake-sim's parser imports every command module: Dask, Optuna, matplotlib, MuJoCo and its renderer, numba's
#: kernels, rosbags; snake-can, which tests start many times, loads the emulated modules' compiled kernels only to
#: emulate; the simulated body, the simulator's side, only through its entry point).
#: A registry loads the entry asked for (a run of one gait loads no other; rectilinear's loads scipy.interpolate).
DEFERRED_WORK = {"snake_sim.commands": ("snake_sim.outputs", "snake_sim.engines", "snake_sim.benchmarks"),
                 "snake_studies.commands": ("snake_studies", "snake_sim.outputs", "snake_sim.engines"),
                 "snake_hardware.cli": ("snake_hardware.emulator",),
                 "snake_core.gaits": ("snake_core.gaits.",),
                 "snake_core.planar.trackers": ("snake_core.planar.trackers.",)}
#: What ``snake-sim --help`` (the parser of every sub-command) must not load.
HEAVY = ("mujoco", "dartpy", "matplotlib", "numba", "dask", "optuna", "rosbags")
#: snake_sim's folders by role, in the order they may import each other (docs/design.md, "Layout").
SIM_LAYERS = ("core", "analysis", "engines", "outputs", "benchmarks", "commands")
#: snake_studies' folders in the same order (its top-level modules and sweep/: the studies), all above snake_sim,
#: which never imports them.
STUDIES_LAYERS = ("reproduction", "benchmarks", "commands")
#: The robot's packages (what the robot computer runs) and the simulator's, which only the latter may import.
ROBOT_PACKAGES = ("snake_core", "snake_control", "snake_hardware", "snake_bringup")
SIMULATOR_PACKAGES = ("snake_sim", "snake_sim_ros", "snake_studies")
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
    assert {"snake_core", "snake_sim", "snake_studies", "snake_control", "snake_hardware", "snake_bringup",
            TEST_SUPPORT} <= {
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


def layers(known: dict[str, Path]) -> dict[str, int]:
    """Rank of every module of snake_sim's and snake_studies' folders: an import goes to an equal or lower rank only
    (snake_studies above all of snake_sim; its top-level modules and sweep/ are its lowest layer)."""
    ranks = {name: SIM_LAYERS.index(name.split(".")[1]) for name in known
             if name.count(".") >= 2 and name.startswith("snake_sim.")}
    for name in known:
        if name.startswith("snake_studies."):
            part = name.split(".")[1]
            ranks[name] = len(SIM_LAYERS) + (STUDIES_LAYERS.index(part) + 1 if part in STUDIES_LAYERS else 0)
    return ranks


def test_snake_sim_folders_import_only_their_own_and_earlier_ones(workspace):
    known, edges = workspace
    folders = {name.split(".")[1] for name in known if name.count(".") >= 2 and name.startswith("snake_sim.")}
    assert folders == set(SIM_LAYERS), "a snake_sim folder outside SIM_LAYERS"
    layer = layers(known)
    upward = sorted(f"{a} -> {b}" for a in layer for b in edges[a] if b in layer and layer[b] > layer[a])
    assert not upward, "imports of a later folder: " + "; ".join(upward)


def test_snake_sim_never_imports_the_studies(workspace):
    known, edges = workspace
    assert any(name.startswith("snake_studies.") for name in known)
    bad = {m: sorted(r for r in reachable(edges, m) if r.split(".")[0] == "snake_studies")
           for m in known if m.split(".")[0] == "snake_sim"}
    assert not {m: r for m, r in bad.items() if r}


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


#: Calls that look a module up by a string: an edge no static tool sees.
STRING_LOOKUPS = {"import_module", "__import__", "iter_modules", "walk_packages", "spec_from_file_location"}


def string_lookups(path: Path, ours: set[str], root: Path = SRC) -> list[str]:
    """The calls of ``path`` that import a module by a string, unless the string is a literal naming a third-party
    module (``f"mujoco.{backend}"``: MuJoCo's GL back-ends), as ``file:line call`` (file relative to ``root``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name not in STRING_LOOKUPS:
            continue
        first = node.args[0] if node.args else None
        if isinstance(first, ast.JoinedStr) and first.values and isinstance(first.values[0], ast.Constant):
            first = first.values[0]
        literal = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if literal is None or literal.split(".")[0] in ours:
            found.append(f"{path.relative_to(root)}:{node.lineno} {ast.unparse(node)}")
    return found


def entry_point_groups(src: Path) -> dict[str, list[tuple[str, str]]]:
    """group → (name, module) of the entry points the setup.py files of ``src`` register (console scripts left out:
    programs, not plug-ins)."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for setup in sorted(src.glob("*/setup.py")):
        for node in ast.walk(ast.parse(setup.read_text(encoding="utf-8"))):
            if isinstance(node, ast.keyword) and node.arg == "entry_points":
                for group, specs in ast.literal_eval(node.value).items():
                    if group != "console_scripts":
                        groups.setdefault(group, []).extend(
                            tuple(part.strip() for part in spec.split("=")) for spec in specs)
    return groups


def entry_point_loaders(known: dict[str, Path]) -> dict[str, set[str]]:
    """group → the modules that load it (``entry_points(group=G)``, G a literal or a module-level constant)."""
    loaders: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in tree.body if isinstance(n, ast.Assign)
                     and isinstance(n.value, ast.Constant) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "entry_points":
                for kw in node.keywords:
                    group = kw.value.value if isinstance(kw.value, ast.Constant) else constants.get(
                        getattr(kw.value, "id", None))
                    if kw.arg == "group" and group is not None:
                        loaders.setdefault(group, set()).add(name)
    return loaders


def test_no_product_module_imports_one_of_ours_by_a_string(workspace):
    known, _ = workspace
    ours = {name.split(".")[0] for name in known}
    bad = [hit for path in known.values() for hit in string_lookups(path, ours)]
    assert not bad, "modules looked up by a string (use a plain import or an entry point): " + "; ".join(bad)


def test_a_string_lookup_of_our_module_is_found_and_a_third_party_one_is_not(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("import importlib\nimportlib.import_module(f'pkg.engines.{name}')\n"
                      "importlib.import_module(f'mujoco.{backend}')\n__import__(name)\n")
    assert [hit.split(" ", 1)[0] for hit in string_lookups(module, {"pkg"}, tmp_path)] == ["m.py:2", "m.py:4"]


def test_every_entry_point_of_ours_is_a_module_that_may_import_its_loader(workspace):
    """An engine registered under snake_sim.engines is a module of snake_sim.engines that exists; the module that
    loads the group (snake_sim.core.models) sits in an earlier folder and never imports it. Likewise the studies'
    sub-commands (snake_sim.commands, loaded by snake_sim.commands.cli) and benchmarks (snake_sim.benchmarks, loaded
    by snake_sim.commands.bench): modules of snake_studies, which snake_sim never imports."""
    known, edges = workspace
    groups, loaders = entry_point_groups(SRC), entry_point_loaders(known)
    assert groups.get("snake_sim.engines"), "the engines are registered as entry points"
    assert groups.get("snake_sim.commands") and groups.get("snake_sim.benchmarks"), "the studies' commands, benchmarks"
    layer = layers(known)
    bad = []
    for group, entries in groups.items():
        assert loaders.get(group), f"no module of ours loads the entry points {group!r}"
        for entry, target in entries:
            module = target.split(":")[0]
            if module not in known:
                bad.append(f"{group}: {entry} = {target} is no module of ours")
                continue
            for loader in loaders[group]:
                if layer.get(module, 0) < layer.get(loader, 0) or module in reachable(edges, loader):
                    bad.append(f"{group}: {loader} -> {module} (the loader must not depend on its plug-in)")
    assert not bad, "; ".join(bad)
