"""`snake-sim world stairs` writes flights of stairs the simulators read back as specified."""

from __future__ import annotations

import pytest

from snake_core.validation import ConfigError
from snake_sim.commands.cli import main
from snake_sim.core import worldgen
from snake_sim.core.world import load_world


@pytest.mark.parametrize(("steps", "rise", "run"), [(1, 0.02, 0.3), (3, 0.03, 0.25), (5, 0.045, 0.12)])
def test_stairs_command_writes_the_requested_flight(steps, rise, run, tmp_path):
    out = tmp_path / "flight.sdf"
    assert main(["world", "stairs", "--steps", str(steps), "--rise", str(rise), "--run", str(run),
                 "--start", "0.7", "--out", str(out)]) == 0
    boxes = sorted(load_world(out).static_boxes, key=lambda b: b.x_min)
    assert len(boxes) == steps
    assert [b.top for b in boxes] == pytest.approx([k * rise for k in range(1, steps + 1)])
    assert [b.x_min for b in boxes] == pytest.approx([0.7 + k * run for k in range(steps)])
    assert [b.size[0] for b in boxes] == pytest.approx([run] * steps)
    assert all(b.bottom == pytest.approx(0.0) and b.size[1] == pytest.approx(worldgen.PATH_WIDTH) for b in boxes)


def test_stairs_default_start_is_150_mm_ahead_of_koopaee6s_head_tip(capsys):
    assert main(["world", "stairs", "--steps", "2", "--rise", "0.03", "--run", "0.2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("<?xml")
    assert "first riser at x = 0.5952 m" in text  # 6 × 0.0742 + 0.150


@pytest.mark.parametrize(("flag", "value", "message"), [
    ("--steps", "0", r"--steps = 0 is invalid: must be an integer in \[1, 50\]"),
    ("--rise", "-0.03", r"--rise = -0\.03 is invalid: must be ?in \(0, 0\.5\]"),
    ("--run", "0", r"--run = 0\.0 is invalid: must be ?in \(0, 5\]"),
    ("--rise", "nan", r"--rise = nan is invalid: must be a finite number"),
])
def test_bad_stairs_flags_are_refused_with_one_message(flag, value, message, capsys):
    args = {"--steps": "3", "--rise": "0.03", "--run": "0.25", flag: value}
    assert main(["world", "stairs", *[t for kv in args.items() for t in kv]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    with pytest.raises(ConfigError, match=message):
        worldgen.stairs(int(args["--steps"]), float(args["--rise"]), float(args["--run"]), 0.6)


def test_shipped_command_regenerates_the_generated_worlds(tmp_path):
    assert main(["world", "shipped", "--out", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.sdf")) == sorted(worldgen.SHIPPED)
    two = sorted(load_world(tmp_path / "two_obstacles.sdf").static_boxes, key=lambda b: b.x_min)
    assert [b.name for b in two] == ["obstacle_1", "obstacle_2"]
