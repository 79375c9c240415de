"""Nothing a run wrote is lost to a full disk or a signal: every output is written under a temporary name and renamed
when whole (snake_sim.outputs.output_folder), so an output cut short leaves the previous file (or none) and the
others are still written; the command ends with one line naming what could not be written, exit 2.

A full disk is simulated by a writer that raises ENOSPC part way (everywhere), and is made real on a small tmpfs
where this process may mount one in a private mount namespace (root: ``unshare -m``)."""

from __future__ import annotations

import errno
import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from matplotlib.animation import PillowWriter
from PIL import Image

from snake_sim.commands.cli import main
from snake_sim.core.signals import Interrupted, interrupt_on_signals, interrupted_by
from snake_sim.outputs import recording
from snake_sim.outputs.output_folder import whole

RUN = ["run", "pedal-wave", "--duration", "0.5", "--quiet"]


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _after(n: int, original):
    """``original`` for its first ``n`` calls, then a full disk."""
    calls = []

    def call(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs) if len(calls) <= n else _no_space()

    return call


def _staging_left(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if ".partial-" in p.name]


def _readable_bag(folder: Path) -> int:
    """The number of messages of the rosbag folder (raises if it is not whole)."""
    from rosbags.highlevel import AnyReader
    from rosbags.typesys import Stores, get_typestore

    with AnyReader([folder], default_typestore=get_typestore(Stores.ROS2_JAZZY)) as reader:
        return sum(1 for _ in reader.messages())


def test_whole_keeps_the_previous_content_when_the_writing_fails(tmp_path):
    path = tmp_path / "report.md"
    path.write_text("previous\n")
    with pytest.raises(OSError), whole(path) as target:
        target.write_text("half of the new")
        _no_space()
    assert path.read_text() == "previous\n" and _staging_left(tmp_path) == []
    with whole(path) as target:
        target.write_text("new\n")
    assert path.read_text() == "new\n" and _staging_left(tmp_path) == []
    (tmp_path / "bag").mkdir()
    (tmp_path / "bag" / "old.mcap").write_text("old")
    with whole(tmp_path / "bag") as target:  # a folder replaces the previous folder
        target.mkdir()
        (target / "new.mcap").write_text("new")
    assert [p.name for p in (tmp_path / "bag").iterdir()] == ["new.mcap"]


def test_a_full_disk_while_writing_keeps_every_file_whole_and_says_which_failed(tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    assert main([*RUN, "--out", str(out)]) == 0
    previous_gif = (out / "animation.gif").read_bytes()
    previous_bag = {p.name: p.read_bytes() for p in (out / "rosbag").iterdir()}
    capsys.readouterr()
    # the disk fills in the middle of the GIF's frames and of the bag's messages
    monkeypatch.setattr(PillowWriter, "grab_frame", _after(2, PillowWriter.grab_frame))
    monkeypatch.setattr(recording._Bag, "write", _after(50, recording._Bag.write))
    assert main([*RUN, "--duration", "0.6", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("snake-sim: error: cannot write"), err
    assert "rosbag/ (No space left on device)" in err[0] and "animation.gif (No space left on device)" in err[0]
    assert "kept whole: summary.json, joints.png, com.png" in err[0]
    assert json.loads((out / "summary.json").read_text())["duration_s"] == pytest.approx(0.6)  # the new run's
    assert (out / "animation.gif").read_bytes() == previous_gif  # the previous run's, whole
    assert {p.name: p.read_bytes() for p in (out / "rosbag").iterdir()} == previous_bag
    assert _staging_left(out) == []


def _in_private_tmpfs(folder: Path, kbytes: int, command: list[str]) -> subprocess.CompletedProcess | None:
    """``command`` run with a ``kbytes`` kB tmpfs mounted at ``folder`` in a mount namespace of its own (None where
    this process may not make one)."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-m", "true"], capture_output=True).returncode != 0:
        return None
    script = 'mount -t tmpfs -o size="$1"k tmpfs "$2" && shift 2 && exec "$@"'
    return subprocess.run([unshare, "-m", "sh", "-c", script, "sh", str(kbytes), str(folder), *command],
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_run_on_a_really_full_disk_keeps_what_fits_whole(tmp_path):
    folder = tmp_path / "tiny"
    folder.mkdir()
    # 200 kB: summary.json and the plots (about 170 kB) fit, the rosbag (about 180 kB) does not
    done = _in_private_tmpfs(folder, 200, [sys.executable, "-c", "import json, pathlib, sys; "
                                           "from snake_sim.commands.cli import main; code = main(sys.argv[2:]); "
                                           "out = pathlib.Path(sys.argv[1]); "
                                           "print(json.dumps({p.name: p.stat().st_size for p in out.iterdir()}));"
                                           " sys.exit(code)", str(folder / "run"),
                                           *RUN[:3], "1", "--quiet", "--out", str(folder / "run")])
    if done is None:
        pytest.skip("no private mount namespace here (unshare -m needs root): the simulated full disk stands in")
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip().splitlines()
    assert len(err) == 1 and "rosbag/ (No space left on device)" in err[0], done.stderr
    sizes = json.loads(done.stdout.strip().splitlines()[-1])
    assert "rosbag" not in sizes and not [n for n in sizes if ".partial-" in n]
    assert sizes["summary.json"] > 100 and sizes["joints.png"] > 1000


def test_sigterm_inside_interrupt_on_signals_is_an_interrupt_with_its_code():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as info, interrupt_on_signals():
        signal.raise_signal(signal.SIGTERM)
    assert (info.value.stop.name, info.value.stop.exit_code) == ("SIGTERM", 143)
    assert interrupted_by(KeyboardInterrupt()).exit_code == 130
    assert signal.getsignal(signal.SIGTERM) is before


def test_the_writing_says_what_it_writes(tmp_path, capsys):
    assert main(["run", "pedal-wave", "--duration", "0.3", "--no-animation", "--out", str(tmp_path / "run")]) == 0
    printed = capsys.readouterr().out
    steps = [line for line in printed.splitlines() if line.startswith("writing ")]
    assert steps == ["writing summary.json ...", "writing plots ...", "writing rosbag/ ..."]
    assert Image.open(tmp_path / "run" / "joints.png").size[0] > 100


@pytest.mark.parametrize("argv", [
    ["compare", "pedal-wave", "pedal-wave", "--duration", "0.1", "--out", "{dir}"],
    ["optimise", "pedal-wave", "--space", "gait.amplitude=0.4:0.6", "--objective", "average_speed_mps", "--trials",
     "1", "--workers", "1", "--out", "{dir}"],
    ["world", "stairs", "--out", "{dir}/stairs.sdf"],
    ["world", "shipped", "--out", "{dir}"],
    ["mjcf", "--out", "{dir}/snake.xml"],
    ["rectilinear", "study", "--angles", "30", "--step-times", "1", "--out", "{dir}"],
    ["run", "pedal-wave", "--out", "{dir}"],
    ["sweep", "pedal-wave", "--grid", "gait.amplitude=0.5,0.6", "--out", "{dir}"],
], ids=lambda argv: " ".join(argv[:2]))
def test_an_unwritable_out_is_one_line_before_anything_runs(tmp_path, capsys, argv):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    assert main([a.replace("{dir}", str(blocker / "sub")) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0] and "cannot write there (Not a directory)" in err[0], err


def test_a_sweep_lock_path_that_is_a_folder_is_one_line(tmp_path, capsys):
    (tmp_path / "s" / "results.csv.lock").mkdir(parents=True)
    assert main(["sweep", "pedal-wave", "--grid", "gait.amplitude=0.5,0.6", "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot open the lock file results.csv.lock (Is a directory)" in err[0], err


def test_world_and_mjcf_refuse_an_out_that_is_a_folder(tmp_path, capsys):
    for argv in (["world", "stairs"], ["mjcf"]):
        assert main([*argv, "--out", str(tmp_path)]) == 2
        assert "is a folder: give the file to write" in capsys.readouterr().err
