"""The robot as Gazebo builds it: the xacro URDF with ``hardware:=gazebo``, converted to SDF by libsdformat
(``sdf::Root::Load``, as gz sim loads it: fixed joints lumped, ``<gazebo>`` springs, μ/μ2/fdir1 and joint
damping applied), parsed into a :class:`SdfModel` whose poses are resolved into the model frame.

The converter (``urdf2sdf.cc`` beside this module) is compiled once with g++ and ``pkg-config sdformat12``
(Debian's libsdformat-dev, as the description tests' checker) into the user's cache folder, keyed by its
source; a missing toolchain is one ConfigError naming ``model``.
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from snake_core import locator
from snake_core.validation import ConfigError

from ..engine3d import Layout

SDFORMAT_PKG = "sdformat12"
CONVERTER_SOURCE = Path(__file__).with_name("urdf2sdf.cc")
#: SDF's default <mu> of a collision without <surface> (sdformat spec, ode friction), which Gazebo applies.
SDF_DEFAULT_MU = 1.0


@dataclass(frozen=True, eq=False)
class SdfCollision:
    """A mesh collision of a link and its surface (``<surface><friction><ode>``)."""

    name: str
    pose: np.ndarray  # (4, 4) in the link frame
    mesh_uri: str
    scale: tuple[float, float, float]
    mu: float
    mu2: float
    fdir1: tuple[float, float, float]


@dataclass(frozen=True, eq=False)
class SdfLink:
    name: str
    pose: np.ndarray  # (4, 4) in the model frame
    mass: float  # [kg]
    com: np.ndarray  # (3,) centre of mass in the link frame [m]
    inertia: np.ndarray  # (3, 3) about the centre of mass, link axes [kg m²]
    collisions: tuple[SdfCollision, ...]


@dataclass(frozen=True, eq=False)
class SdfJoint:
    """A revolute joint with its ``<axis>`` (limit and dynamics) as libsdformat wrote it."""

    name: str
    parent: str
    child: str
    pose: np.ndarray  # (4, 4) in the model frame
    axis: np.ndarray  # (3,) unit, joint frame
    lower: float  # [rad]
    upper: float  # [rad]
    effort: float  # [N·m]; < 0: unlimited (SDF)
    velocity: float  # [rad/s]; < 0: unlimited
    damping: float  # [N·m·s/rad]
    friction: float  # [N·m]
    spring_reference: float  # [rad]
    spring_stiffness: float  # [N·m/rad]


@dataclass(frozen=True, eq=False)
class SdfModel:
    """The converted model: links and joints in the SDF's order."""

    name: str
    links: tuple[SdfLink, ...]
    joints: tuple[SdfJoint, ...]
    text: str  # the SDF document

    def link(self, name: str) -> SdfLink:
        return next(lk for lk in self.links if lk.name == name)

    def joint(self, name: str) -> SdfJoint:
        return next(j for j in self.joints if j.name == name)


def gazebo_urdf(robot: str, layout: Layout | None = None, mu: float | None = None) -> str:
    """The URDF text gz sim gets: ``xacro snake.urdf.xacro robot:=<robot> hardware:=gazebo mu:=…`` and the
    layout's ``joint_roll``, ``joint_twist``, ``com_offset`` (default the URDF's: all 0)."""
    import xacro

    controllers = locator.data_dir() / "config" / "controllers" / f"{robot}_gz.yaml"
    args = {"robot": robot, "hardware": "gazebo", "controllers_file": str(controllers),
            **(layout.xacro_args() if layout is not None else {})}
    if mu is not None:
        args["mu"] = repr(float(mu))
    doc = xacro.process_file(str(locator.description_dir() / "urdf" / "snake.urdf.xacro"), mappings=args)
    return doc.toprettyxml(indent="  ")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "snake_sim"


def converter() -> Path:
    """The compiled converter, built on first use (ConfigError naming ``model`` without g++/libsdformat)."""
    source = CONVERTER_SOURCE.read_bytes()
    exe = _cache_dir() / f"urdf2sdf-{hashlib.sha256(source).hexdigest()[:12]}"
    if exe.is_file():
        return exe
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None or shutil.which("pkg-config") is None:
        raise ConfigError("model", "dart", "needs a C++ compiler and pkg-config to build the URDF → SDF converter "
                          "(Debian: apt-get install g++ pkg-config libsdformat-dev)")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", SDFORMAT_PKG], capture_output=True, text=True)
    if flags.returncode != 0:
        raise ConfigError("model", "dart", f"needs libsdformat (pkg-config {SDFORMAT_PKG}: {flags.stderr.strip()}); "
                          "install libsdformat-dev")
    exe.parent.mkdir(parents=True, exist_ok=True)
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    build = subprocess.run([compiler, "-O1", "-o", str(tmp), str(CONVERTER_SOURCE), *flags.stdout.split()],
                           capture_output=True, text=True)
    if build.returncode != 0:
        raise ConfigError("model", "dart", f"building the URDF → SDF converter failed:\n{build.stderr}")
    tmp.replace(exe)  # atomic: concurrent builds each install a complete file
    return exe


def convert(urdf: str) -> str:
    """The SDF document libsdformat makes of ``urdf`` (text)."""
    with tempfile.NamedTemporaryFile("w", suffix=".urdf") as f:
        f.write(urdf)
        f.flush()
        run = subprocess.run([str(converter()), f.name], capture_output=True, text=True)
    if run.returncode != 0:
        raise ConfigError("robot.name", "(URDF)", "libsdformat cannot convert the description: " + run.stderr.strip())
    return run.stdout


def _floats(text: str | None, n: int, default: tuple[float, ...]) -> tuple[float, ...]:
    if text is None or not text.split():
        return default
    values = tuple(float(v) for v in text.split())
    if len(values) != n:
        raise ValueError(f"expected {n} numbers, got {text!r}")
    return values


def _transform(pose: tuple[float, ...]) -> np.ndarray:
    """SDF pose x y z roll pitch yaw → (4, 4); R = R_z(yaw) R_y(pitch) R_x(roll)."""
    x, y, z, r, p, w = pose
    cr, sr, cp, sp, cw, sw = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(w), math.sin(w)
    T = np.eye(4)
    T[:3, :3] = [[cw * cp, cw * sp * sr - sw * cr, cw * sp * cr + sw * sr],
                 [sw * cp, sw * sp * sr + cw * cr, sw * sp * cr - cw * sr],
                 [-sp, cp * sr, cp * cr]]
    T[:3, 3] = (x, y, z)
    return T


def _pose(elem: ET.Element) -> tuple[np.ndarray, str | None]:
    node = elem.find("pose")
    if node is None:
        return np.eye(4), None
    return _transform(_floats(node.text, 6, (0.0,) * 6)), node.get("relative_to")


def parse(text: str) -> SdfModel:
    """Parse the converter's SDF (one model) and resolve every link and joint pose into the model frame."""
    model = ET.fromstring(text).find("model")
    if model is None:
        raise ConfigError("robot.name", "(SDF)", "the converted description has no <model>")
    raw: dict[str, tuple[np.ndarray, str]] = {}
    for link in model.findall("link"):
        T, rel = _pose(link)
        raw[link.get("name")] = (T, rel or "__model__")
    for joint in model.findall("joint"):
        T, rel = _pose(joint)
        raw[joint.get("name")] = (T, rel or joint.findtext("child"))
    resolved: dict[str, np.ndarray] = {"__model__": np.eye(4)}

    def frame(name: str, depth: int = 0) -> np.ndarray:
        if name not in resolved:
            if depth > len(raw):
                raise ConfigError("robot.name", "(SDF)", f"pose graph has a cycle at {name}")
            T, rel = raw[name]
            resolved[name] = frame(rel, depth + 1) @ T
        return resolved[name]

    links = []
    for link in model.findall("link"):
        inertial = link.find("inertial")
        T_in, _ = _pose(inertial) if inertial is not None else (np.eye(4), None)
        moments = {k: float(link.findtext(f"inertial/inertia/{k}") or 0.0)
                   for k in ("ixx", "iyy", "izz", "ixy", "ixz", "iyz")}
        moi = np.array([[moments["ixx"], moments["ixy"], moments["ixz"]],
                      [moments["ixy"], moments["iyy"], moments["iyz"]],
                      [moments["ixz"], moments["iyz"], moments["izz"]]])
        collisions = []
        for col in link.findall("collision"):
            mesh = col.find("geometry/mesh")
            if mesh is None:
                raise ConfigError("robot.name", "(SDF)", f"collision {col.get('name')}: only meshes are expected")
            ode = col.find("surface/friction/ode")
            mu = float(ode.findtext("mu")) if ode is not None and ode.findtext("mu") else SDF_DEFAULT_MU
            mu2 = float(ode.findtext("mu2")) if ode is not None and ode.findtext("mu2") else SDF_DEFAULT_MU
            fdir1 = _floats(ode.findtext("fdir1") if ode is not None else None, 3, (0.0, 0.0, 0.0))
            collisions.append(SdfCollision(col.get("name"), _pose(col)[0], mesh.findtext("uri", "").strip(),
                                           _floats(mesh.findtext("scale"), 3, (1.0, 1.0, 1.0)),  # type: ignore[arg-type]
                                           mu, mu2, fdir1))  # type: ignore[arg-type]
        links.append(SdfLink(link.get("name"), frame(link.get("name")),
                             float(link.findtext("inertial/mass") or 1.0), T_in[:3, 3].copy(),
                             T_in[:3, :3] @ moi @ T_in[:3, :3].T, tuple(collisions)))
    joints = []
    for joint in model.findall("joint"):
        if joint.get("type") != "revolute":
            raise ConfigError("robot.name", "(SDF)", f"joint {joint.get('name')} is {joint.get('type')}; "
                              "only revolute joints are expected after lumping")
        axis = np.array(_floats(joint.findtext("axis/xyz"), 3, (0.0, 0.0, 1.0)))

        def num(path: str, default: float, j: ET.Element = joint) -> float:
            text = j.findtext(path)
            return default if text is None else float(text)

        joints.append(SdfJoint(
            joint.get("name"), joint.findtext("parent"), joint.findtext("child"), frame(joint.get("name")),
            axis / np.linalg.norm(axis), num("axis/limit/lower", -1e16), num("axis/limit/upper", 1e16),
            num("axis/limit/effort", -1.0), num("axis/limit/velocity", -1.0), num("axis/dynamics/damping", 0.0),
            num("axis/dynamics/friction", 0.0), num("axis/dynamics/spring_reference", 0.0),
            num("axis/dynamics/spring_stiffness", 0.0)))
    return SdfModel(model.get("name"), tuple(links), tuple(joints), text)


def gazebo_model(robot: str, layout: Layout | None = None, mu: float | None = None) -> SdfModel:
    """The robot as gz sim builds it (xacro with ``hardware:=gazebo`` → libsdformat → parsed)."""
    return parse(convert(gazebo_urdf(robot, layout, mu)))
