"""Every command shown in README.md and docs/*.md works as shown.

Commands are taken from the ```bash blocks and from inline code that starts with one of the suite's tools
(``snake-sim``, ``snake-can``, ``make``). Each page's commands run in order in one scratch folder, so that a
command may use what an earlier one wrote (``snake-sim run out/o/best.yaml`` after ``snake-sim optimise``):

- ``snake-sim`` commands are parsed by the real parser and run in this process, shortened: ``run`` and
  ``compare`` with a short ``--duration`` (and no GIF), ``sweep``, ``optimise`` and ``calibrate`` with a short
  ``sim.duration`` (and two trials; ``calibrate`` with windows of 0.1 s of a shortened recording). Checked for
  syntax only (parsed, not run): ``reproduce`` (hours; its rendering is checked by test_reproduction), ``bench``
  (a measurement: ``make bench``), ``world shipped``
  (rewrites the repository's worlds), and commands with a placeholder (``SCHEDULER_HOST``, ``<scenario>``).
  Inline code outside the README is a mention (``snake-sim run --check-step``, ``snake-sim pushing study``): its
  sub-commands and options are checked against the parser, it is not run.
- ``snake-can bench`` runs; the other ``snake-can`` commands need a CAN bus: syntax only.
- ``make TARGET`` is checked with ``make -n`` (the targets and variables exist; the demo and the tests are not
  run again from here).
- ``xacro`` runs on the shipped files; ``ros2 launch snake_bringup FILE name:=value`` is checked against the
  launch file (it exists and declares every argument given); the nodes' executables must exist; ``source`` a
  file of the workspace must exist. Tools that need root, Docker, a display or a ROS installation (sudo,
  docker, xhost, colcon, rosdep, ros2 bag, dask, export) are listed in :data:`EXTERNAL` and not run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from snake_hardware import cli as can_cli
from snake_sim.commands import cli

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOOLS = ("snake-sim", "snake-can", "make")
#: Tools documented for other machines, with the reason they are not run here.
EXTERNAL = {
    "sudo": "needs root (CAN interfaces)", "docker": "needs a Docker engine", "xhost": "needs a display",
    "colcon": "a ROS workspace build", "rosdep": "needs a ROS installation", "dask": "a cluster's processes",
    "export": "shell environment", "ros2 bag": "needs the ros2 CLI", "candump": "needs a CAN bus",
    "python -m can_remote": "a CAN server that runs until stopped (the tests on the real controller_manager start it)",
}
NODES = ("simulator", "gait_generator", "sea_joint_controller")  # ROS nodes started by hand (docs/ros.md)
PLACEHOLDER = re.compile(r"<[^>]+>|\b[A-Z][A-Z_]{3,}\b|/abs/path")
SHORT = {"vertical": 0.5, "planar": 0.5, "pushing": None, "mujoco": 0.2, "dart": 0.05}
SKIP_SIM = {"reproduce": "hours; the rendering is test_reproduction's", "bench": "a measurement: make bench"}


def commands(text: str, inline_whole: bool = False) -> list[tuple[str, bool]]:
    """(command, whole): the lines of ```bash blocks (continuations joined, comments dropped), then inline code
    starting with one of :data:`TOOLS`, whole commands if ``inline_whole`` (the README's), else mentions."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in re.sub(r"\\\n\s*", "", block).splitlines():
            if line.strip() and not line.strip().startswith("#"):
                found += [(part.strip(), True) for part in line.split("&&")]
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found += [(span, inline_whole) for span in re.findall(r"`([^`\n]+)`", prose)
              if span.split(" ")[0] in TOOLS and " " in span]
    return found


def _argv(command: str) -> list[str]:
    argv = shlex.split(command, comments=True)
    while argv and re.fullmatch(r"[A-Z_]+=\S*", argv[0]):  # VAR=value before the command
        argv.pop(0)
    return [a for a in argv if a != "&"]


def _subparser(parser: argparse.ArgumentParser, names: list[str]) -> argparse.ArgumentParser:
    """The (nested) sub-command parser that ``names`` select."""
    for name in names:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or name not in subs[0].choices:
            break
        parser = subs[0].choices[name]
    return parser


def _parses(parser: argparse.ArgumentParser, argv: list[str]) -> bool:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        try:
            parser.parse_args(argv)
        except SystemExit as exc:
            return exc.code == 0  # --help
    return True


def _check_options(parser: argparse.ArgumentParser, argv: list[str], command: str) -> None:
    """A mention: its sub-commands exist and every --option is one of the selected sub-command's."""
    words = [a for a in argv if not a.startswith("-")]
    sub = _subparser(parser, words)
    known = {o for a in sub._actions for o in a.option_strings}
    unknown = [a.split("=")[0] for a in argv if a.startswith("--") and a.split("=")[0] not in known]
    assert not unknown, f"{command!r}: {unknown} not options of {sub.prog}"


def _shortened(argv: list[str]) -> list[str]:
    """A snake-sim command made short enough for a test (see the module docstring)."""
    argv = list(argv)
    sub = argv[0]
    if sub in ("run", "compare") and "--help" not in argv:
        from snake_sim.core.scenario import load_scenario

        scenario = load_scenario(argv[1], [a for i, a in enumerate(argv) if i and argv[i - 1] == "--set"])
        duration = SHORT[scenario.model]
        argv += [*(["--duration", str(duration)] if duration and "--duration" not in argv else []), "--quiet"]
        argv += ["--no-animation"] if sub == "run" else []
    if sub in ("sweep", "optimise", "calibrate"):
        argv += ["--set", "sim.duration=0.1", "--quiet"]
    if sub == "calibrate":  # a recording shortened as a run is: windows of 0.1 s, two at least in MuJoCo's 0.2 s
        argv += ["--window", "0.1"]
        if "--trials" in argv:
            argv[argv.index("--trials") + 1] = "2"
    if sub == "rectilinear":
        argv += ["--no-progress"]
    if sub == "pushing" and argv[1] == "study":
        argv += ["--no-progress"]
    return argv


def _whole(parser: argparse.ArgumentParser, argv: list[str], command: str, whole: bool) -> bool:
    """A whole command must parse (then True: it may be run); a mention's options are checked (False)."""
    if whole:
        assert _parses(parser, argv), f"{command!r} does not parse"
    else:
        _check_options(parser, argv, command)
    return whole


def _snake_sim(argv: list[str], command: str, whole: bool) -> None:
    if not _whole(cli.build_parser(), argv, command, whole):
        return
    if "--help" in argv or PLACEHOLDER.search(command) or argv[0] in SKIP_SIM or argv[:2] == ["world", "shipped"]:
        return  # the parser has printed the help
    code = cli.main(_shortened(argv))
    assert code == 0, f"{command!r} exited with {code}"


def _snake_can(argv: list[str], command: str, whole: bool) -> None:
    if _whole(can_cli.build_parser(), argv, command, whole) and argv == ["bench"]:
        assert can_cli.main(["bench"], out=io.StringIO()) == 0


def _make(argv: list[str], command: str) -> None:
    run = subprocess.run(["make", "-n", *argv], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, f"{command!r}: {run.stderr}"


def _ros2_launch(argv: list[str], command: str) -> None:
    assert argv[:3] == ["ros2", "launch", "snake_bringup"], command
    source = (ROOT / "launch" / argv[3]).read_text(encoding="utf-8")
    for arg in argv[4:]:
        name = arg.split(":=")[0]
        assert f'DeclareLaunchArgument("{name}"' in source, f"{command!r}: {argv[3]} declares no {name!r}"


def _xacro(argv: list[str], command: str) -> None:
    if PLACEHOLDER.search(command):
        return
    xacro = shutil.which("xacro") or str(Path(sys.executable).with_name("xacro"))
    run = subprocess.run([xacro, *argv[1:]], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0 and "<robot" in run.stdout, f"{command!r}: {run.stderr}"


def check(command: str, whole: bool) -> None:
    argv = _argv(command)
    tool = Path(argv[0]).name
    if tool == "snake-sim":
        _snake_sim(argv[1:], command, whole)
    elif tool == "snake-can":
        _snake_can(argv[1:], command, whole)
    elif tool == "make":
        _make(argv[1:], command)
    elif argv[:2] == ["ros2", "launch"]:
        _ros2_launch(argv, command)
    elif tool == "xacro":
        _xacro(argv, command)
    elif argv[:3] == ["python", "-m", "snake_bringup.security"]:  # makes a keystore: test_security runs it
        from snake_bringup import security

        assert _parses(security.build_parser(), argv[3:]), f"{command!r} does not parse"
    elif tool == "source":
        assert argv[1].startswith("/opt/ros/") or (ROOT / argv[1]).is_file() or argv[1] == "install/setup.bash", command
    elif tool in NODES:
        assert Path(sys.executable).with_name(tool).exists(), f"{command!r}: no executable {tool}"
        files = [argv[i + 1] for i, a in enumerate(argv) if a == "--params-file"]
        assert all((ROOT / f).is_file() for f in files), f"{command!r}: {files}"
    else:
        assert tool in EXTERNAL or {" ".join(argv[:2]), " ".join(argv[:3])} & set(EXTERNAL), \
            f"{command!r}: a tool this test does not know"


def test_the_docs_show_commands_of_every_kind():
    shown = [c for page in PAGES for c, _ in commands(page.read_text(encoding="utf-8"))]
    assert sum(c.startswith("snake-sim run ") for c in shown) >= 10
    assert any(c.startswith("ros2 launch") for c in shown) and any(c.startswith("make ") for c in shown)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_command_shown_on_the_page_works(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command, whole in commands(page.read_text(encoding="utf-8"), inline_whole=page.name == "README.md"):
        check(command, whole)
