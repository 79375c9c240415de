"""A run is never lost: `snake-sim run` checks its output folder before simulating, and SIGINT (Ctrl-C) or SIGTERM
stop it with everything up to that moment written, one line and the shell's exit code, no traceback.

Each test starts the real command in a subprocess and sends the real signal once the progress bar shows simulated
time (no timing assumption: the bar is read, then the signal sent)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading

import pytest

#: A tqdm bar's count: "12.0/600.0 s sim" (vertical, planar) or "123/150000" (3-D engines' steps).
BAR = re.compile(r"(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?)")
WAIT = 600  # s: the child is stuck, not slow, if nothing happens in this time


def _run(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "snake_sim.commands.cli", "run", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=False)


def _stderr_reader(proc: subprocess.Popen) -> tuple[threading.Thread, threading.Event, list[bytes]]:
    """Collects the child's stderr until it ends; the event is set when its progress bar has passed the first
    sample."""
    moving, chunks = threading.Event(), []

    def read() -> None:
        while chunk := proc.stderr.read1(4096):
            chunks.append(chunk)
            if any(float(m.group(1)) > 0 for m in BAR.finditer(chunk.decode(errors="replace"))):
                moving.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return reader, moving, chunks


def _interrupt(args: list[str], signum: int) -> tuple[int, str, str]:
    proc = _run(args)
    reader, moving, chunks = _stderr_reader(proc)
    assert moving.wait(WAIT), b"".join(chunks).decode(errors="replace")
    proc.send_signal(signum)
    out = proc.stdout.read()
    proc.wait(WAIT)
    reader.join(WAIT)
    return proc.returncode, out.decode(), b"".join(chunks).decode(errors="replace")


def _last_lines(err: str) -> list[str]:
    """stderr without the progress bars' redraws."""
    return [line for line in re.split(r"[\r\n]", err) if line.strip() and not BAR.search(line)]


@pytest.mark.slow
@pytest.mark.parametrize(("scenario", "signum", "code", "plot"), [
    ("pedal-wave", signal.SIGINT, 130, "joints.png"),  # vertical model (numba kernels)
    ("pedal-wave", signal.SIGTERM, 143, "joints.png"),
    ("head-tracking-lyapunov", signal.SIGINT, 130, "head_path.png"),  # planar model (an ODE solver)
    ("open-loop-flat-3d", signal.SIGTERM, 143, "com.png"),  # MuJoCo
])
def test_a_signal_stops_the_run_and_writes_what_it_reached(tmp_path, scenario, signum, code, plot):
    out = tmp_path / "run"
    rc, printed, err = _interrupt([scenario, "--duration", "2000", "--no-animation", "--out", str(out)], signum)
    assert rc == code, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    lines = _last_lines(err)
    assert len(lines) == 1 and signal.Signals(signum).name in lines[0] and str(out) in lines[0], err[-500:]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted"
    assert 0 < summary["time_reached_s"] < 2000
    assert summary["duration_s"] == pytest.approx(summary["time_reached_s"])
    assert (out / plot).stat().st_size > 1000
    assert list((out / "rosbag").glob("*.mcap"))
    assert "status            interrupted" in printed


def test_an_unwritable_output_folder_is_refused_before_the_run(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    proc = _run(["pedal-wave", "--out", str(blocker / "run")])
    out, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 2
    assert b"running" not in out  # refused before anything was simulated
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and "--out" in lines[0] and "cannot write there" in lines[0]


def _wait_for_line(proc: subprocess.Popen, start: str) -> list[str]:
    """The child's stdout lines up to the first that begins with ``start`` (all of them if none does)."""
    lines = []
    while line := proc.stdout.readline().decode():
        lines.append(line)
        if line.startswith(start):
            break
    return lines


def _signal_and_finish(proc: subprocess.Popen, signum: int, reader: threading.Thread, chunks: list[bytes]
                       ) -> list[str]:
    """Send ``signum``, wait for the child to end; its stderr lines without the progress bars."""
    proc.send_signal(signum)
    proc.stdout.read()
    proc.wait(WAIT)
    reader.join(WAIT)
    return _last_lines(b"".join(chunks).decode(errors="replace"))


def _whole_outputs(out) -> set[str]:
    """The outputs in ``out`` (no staging folder is left), each checked whole."""
    from PIL import Image
    from rosbags.highlevel import AnyReader

    names = {p.name for p in out.iterdir()}
    assert not [n for n in names if ".partial-" in n], names
    json.loads((out / "summary.json").read_text())
    for name in names & {"joints.png", "com.png", "animation.gif"}:
        Image.open(out / name).load()
    if "rosbag" in names:
        with AnyReader([out / "rosbag"]) as reader:
            assert sum(1 for _ in reader.messages()) > 0
    return names


@pytest.mark.slow
def test_sigterm_while_writing_stops_the_writing_and_keeps_what_is_whole(tmp_path):
    out = tmp_path / "run"
    proc = _run(["pedal-wave", "--duration", "20", "--out", str(out)])
    reader, _, chunks = _stderr_reader(proc)
    assert _wait_for_line(proc, "writing rosbag/")[-1].startswith("writing rosbag/")
    err = _signal_and_finish(proc, signal.SIGTERM, reader, chunks)
    assert proc.returncode == 143 and len(err) == 1, err
    step = re.search(r"SIGTERM while writing (\S+):", err[0]).group(1)  # the bag, or the GIF if the bag was done
    names = _whole_outputs(out)
    assert {"summary.json", "joints.png", "com.png"} <= names and step.rstrip("/") not in names


@pytest.mark.slow
def test_a_second_ctrl_c_while_writing_keeps_what_is_already_whole(tmp_path):
    out = tmp_path / "run"
    proc = _run(["pedal-wave", "--duration", "2000", "--out", str(out)])
    reader, moving, chunks = _stderr_reader(proc)
    assert moving.wait(WAIT)
    proc.send_signal(signal.SIGINT)  # the run stops and its outputs are written
    assert _wait_for_line(proc, "writing animation.gif")[-1].startswith("writing animation.gif")
    err = _signal_and_finish(proc, signal.SIGINT, reader, chunks)
    assert proc.returncode == 130 and len(err) == 1 and "Traceback" not in err[0], err
    names = _whole_outputs(out)
    assert {"summary.json", "joints.png", "com.png", "rosbag"} <= names
    assert json.loads((out / "summary.json").read_text())["status"] == "interrupted"
    if "while writing animation.gif" in err[0]:  # else the GIF was done before the second signal came
        assert "animation.gif" not in names
