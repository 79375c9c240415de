"""Every third-party module the suite imports is declared in its package's package.xml, under a key that Jazzy's
rosdep database resolves, so that ``rosdep install --from-paths src`` (docs/robot.md, the Dockerfiles) installs
what a node, a launch file or a test imports.

The walk covers every Python file of every package (product modules, scripts, tests; ``setup.py`` as a build file)
and the launch files, which snake_bringup installs. An import resolves to a key in one of two ways, as rosdep
itself resolves them:

- a ROS package (``rclpy``, ``sensor_msgs``, ``launch_ros``, ``xacro``, ``pinocchio``, ...): a package of Jazzy's
  distribution.yaml whose name is the module's; the key is that name;
- a Python distribution: a key of the rosdep database whose Ubuntu entry installs ``python3-<module>`` with apt or
  the module's PyPI distribution with pip (``PIL`` is python3-pil, ``mujoco`` is python3-mujoco-pip).

Modules that no key of the database installs are named in :data:`NO_ROSDEP_KEY` with the reason; the test checks
that the database really has none (a key that appears upstream must then be declared) and that requirements.txt
pins them (a Jazzy user installs them with pip, docs/ros.md).

The database is the offline snapshot of ros/rosdistro beside the clone (``shared/ros/rosdistro``); without it the
tests are skipped with one reason.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
ROSDISTRO = REPO.parent / "shared" / "ros" / "rosdistro"
PRODUCT_DEPENDS = ("depend", "exec_depend")
BUILD_DEPENDS = ("depend", "build_depend", "buildtool_depend")
TEST_DEPENDS = ("depend", "exec_depend", "test_depend")
#: Imported modules that no key of Jazzy's rosdep database installs (checked below), and what needs them.
NO_ROSDEP_KEY = {
    "dask": "snake-sim sweep / optimise / reproduce: the sweep engine's local or remote cluster",
    "distributed": "the sweep engine's client (dask.distributed)",
    "cloudpickle": "the sweep engine sends a non-default evaluate by value",
    "optuna": "snake-sim optimise and the searches of the reproduction sections",
    "dartpy": "model: dart (Gazebo's physics engine)",
    "statsmodels": "the roll-over section's Wilson interval (proportion_confint) and calibration's cluster-robust "
                   "covariance (OLS, cov_type cluster) are checked against it (tests)",
}


@pytest.fixture(scope="module")
def database():
    if not (ROSDISTRO / "index-v4.yaml").is_file():
        pytest.skip("no offline Jazzy rosdep database beside the repository")
    return _database()


@cache
def _database() -> tuple[frozenset[str], dict[str, tuple[set[str], set[str]]]]:
    """(Jazzy's ROS package names, {rosdep key: (Ubuntu apt packages, pip packages)})."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    distribution = yaml.load((ROSDISTRO / "jazzy" / "distribution.yaml").read_text(), Loader=loader)
    ros: set[str] = set()
    for name, repo in distribution["repositories"].items():  # a release without a package list is one package
        if "release" in repo:
            ros |= set(repo["release"].get("packages") or [name])
    keys: dict[str, tuple[set[str], set[str]]] = {}
    for name in ("base", "python"):
        rules = yaml.load((ROSDISTRO / "rosdep" / f"{name}.yaml").read_text(), Loader=loader)
        for key, rule in rules.items():
            apt, pip = set(), set()
            _collect(rule.get("ubuntu") if isinstance(rule, dict) else None, apt, pip, in_pip=False)
            keys[key] = (apt, pip)
    return frozenset(ros), keys


def _collect(rule, apt: set[str], pip: set[str], in_pip: bool) -> None:
    """Package names anywhere in a rule's Ubuntu entry (per-release dicts, ``pip: {packages: [...]}``, lists)."""
    if isinstance(rule, str):
        (pip if in_pip else apt).add(rule)
    elif isinstance(rule, list):
        for item in rule:
            _collect(item, apt, pip, in_pip)
    elif isinstance(rule, dict):
        for k, v in rule.items():
            _collect(v, apt, pip, in_pip or k == "pip")


@cache
def _installed() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


def _distributions(module: str) -> set[str]:
    """The PyPI distributions (lower case) that install ``module`` in this environment."""
    return {d.lower() for d in _installed().get(module, [])}


@cache
def _providers(module: str) -> frozenset[str]:
    """The rosdep keys whose Ubuntu entry installs ``module``."""
    _, keys = _database()
    apt_names = {f"python3-{module.lower()}"} | {f"python3-{d}" for d in _distributions(module)}
    pip_names = _distributions(module) | {module.lower()}
    return frozenset(key for key, (apt, pip) in keys.items()
                     if apt_names & apt or pip_names & {p.lower() for p in pip})


def _imports(path: Path) -> set[str]:
    """Top-level names of the absolute imports of a Python file, at any depth (lazy imports included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _depends(package: Path, tags: tuple[str, ...]) -> set[str]:
    root = ET.parse(package / "package.xml").getroot()
    return {e.text.strip() for tag in tags for e in root.findall(tag)}


def _files(package: Path) -> list[tuple[Path, tuple[str, ...]]]:
    """(file, the dependency tags that may declare its imports) for every Python file the package holds."""
    files = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package)
        tags = (BUILD_DEPENDS if rel.name == "setup.py" else TEST_DEPENDS if rel.parts[0] == "test"
                else PRODUCT_DEPENDS)
        files.append((path, tags))
    if package.name == "snake_bringup":  # it installs launch/
        files += [(path, PRODUCT_DEPENDS) for path in sorted((REPO / "launch").glob("*.py"))]
    return files


PACKAGES = sorted(p.parent for p in (REPO / "src").glob("*/package.xml"))


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_every_third_party_import_is_declared_under_a_key_jazzy_rosdep_resolves(database, package):
    ros, _ = database
    own = {p.name for p in PACKAGES} | {p.stem for p in package.rglob("*.py")}  # our packages, sibling modules
    missing = []
    for path, tags in _files(package):
        declared = _depends(package, tags)
        for module in sorted(_imports(path) - set(sys.stdlib_module_names) - own - set(NO_ROSDEP_KEY)):
            if module in ros:
                ok, want = module in declared, module
            else:
                providers = _providers(module)
                ok, want = bool(providers & declared), " or ".join(sorted(providers)) or "(no key: NO_ROSDEP_KEY)"
            if not ok:
                missing.append(f"{path.relative_to(REPO)} imports {module}: declare {want} ({'/'.join(tags)})")
    assert not missing, "\n".join(missing)


def test_the_modules_without_a_rosdep_key_have_none_and_are_pinned_in_requirements(database):
    pinned = {re.split(r"[=<>\[ ]", line)[0].lower() for line in (REPO / "requirements.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#")}
    for module in NO_ROSDEP_KEY:
        assert not _providers(module), f"{module} has a rosdep key now: declare it and drop it from NO_ROSDEP_KEY"
        assert (_distributions(module) | {module}) & pinned, f"{module} is not pinned in requirements.txt"


def test_the_walk_finds_the_imports_it_judges():
    """The walk sees lazy imports inside functions and the launch files' imports (a walk that saw nothing would
    pass the test above)."""
    sim = REPO / "src" / "snake_sim"
    assert "dartpy" in _imports(sim / "snake_sim" / "engines" / "dart" / "settings.py")  # imported in a function
    launch = {m for path, _ in _files(REPO / "src" / "snake_bringup") if path.parent.name == "launch"
              for m in _imports(path)}
    assert {"launch", "launch_ros"} <= launch
    assert "mujoco" in {m for path, _ in _files(sim) for m in _imports(path)}
