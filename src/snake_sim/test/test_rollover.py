"""Roll-over of the 3-D engines (snake_sim.analysis.rollover): one module-roll implementation for MuJoCo and DART."""

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from snake_sim.analysis.rollover import module_roll, roll_over


def _chain(pitch_deg, roll_deg=0.0):
    """(N, 3, 3) link orientations of a chain heading +x: each link pitched by its θ (about −y, nose up), the
    whole body then rolled about +x; and the tail → head chord of the link centres."""
    R = np.array([(Rotation.from_euler("x", roll_deg, degrees=True)
                   * Rotation.from_euler("y", -p, degrees=True)).as_matrix() for p in pitch_deg])
    centres = np.cumsum(R[:, :, 0], axis=0)
    return R, centres[-1] - centres[0]


def test_module_roll_reads_a_roll_and_not_a_link_pitched_past_the_vertical():
    """Item 4: link 3 pitched 120° (a module on a box's face, leaning back) and a tail link pitched just past
    vertical (tsc-stairs at 1.6 s) are not rolled, where the Euler roll atan2(R_zy, R_zz) reads ±180°; a roll of
    the whole body reads as itself, also for a body heading elsewhere than +x."""
    R, chord = _chain([0.0, 60.0, 120.0, 60.0, 0.0, 0.0])
    assert abs(math.degrees(math.atan2(R[2, 2, 1], R[2, 2, 2]))) == pytest.approx(180.0)
    assert module_roll(R, chord) == pytest.approx(np.zeros(6), abs=1e-12)
    R, chord = _chain([91.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    assert module_roll(R, chord) == pytest.approx(np.zeros(6), abs=1e-12)
    R, chord = _chain([0.0] * 6, roll_deg=-25.0)
    assert np.degrees(module_roll(R, chord)) == pytest.approx([-25.0] * 6, abs=1e-9)
    yaw = Rotation.from_euler("z", 70.0, degrees=True).as_matrix()
    R, chord = _chain([0.0] * 6, roll_deg=30.0)
    assert np.degrees(module_roll(yaw @ R, yaw @ chord)) == pytest.approx([30.0] * 6, abs=1e-9)
    stacked = module_roll(np.stack([R, R]), np.stack([chord, chord]))  # (T, N) at once
    assert np.degrees(stacked) == pytest.approx(np.full((2, 6), 30.0), abs=1e-9)


def test_roll_over_fields_from_the_module_rolls():
    t = np.array([0.0, 0.5, 1.0, 1.5])
    roll = np.radians([[0, 1], [10, -30], [5, -61], [170, 0]])
    assert roll_over(t, roll) == {"max_roll_deg": pytest.approx(170.0), "rolled_over": True,
                                  "time_of_roll_over_s": 1.0}
    assert roll_over(t, roll[:2].repeat(2, axis=0))["rolled_over"] is False
