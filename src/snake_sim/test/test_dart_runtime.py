"""``model: dart`` end to end (issue 18 item 5): the shipped Gazebo configuration walks on flat ground."""

from __future__ import annotations

import numpy as np
import pytest

from snake_core.validation import ConfigError
from snake_sim.core.scenario import load_scenario
from snake_sim.engines.dart import runtime


def test_a_short_flat_run_moves_forward_with_the_other_models_summary_fields():
    try:
        setup = runtime.build(load_scenario("open-loop-flat-3d", ["model=dart", "sim.time_step=0.001"]))  # Gazebo's
    except ConfigError as exc:  # no g++ / libsdformat here
        pytest.skip(str(exc))
    assert (setup.update_every, setup.substeps) == (1, 10)  # 1 kHz controller manager, 100 Hz SEA control
    log = runtime.simulate(setup, duration=3.0)
    assert log.status == "ok"
    assert log.com[-1, 0] - log.com[0, 0] > 0.03  # 4.6 cm in 3 s (A = π/6: 1.9 cm/s over 20 s)
    assert {"max_roll_deg", "rolled_over", "time_of_roll_over_s"} <= set(log.summary_fields)
    # U = command − K_D β̇ with β̇ before the contact impulse: below 1 N·m like the vertical model's (≤ 0.4 N·m);
    # with the state's β̇ (after the impulse) it read ≈ 60 N·m at the 99th percentile
    assert np.percentile(np.abs(log.motor_torque), 99) < 1.0
    gazebo = log.summary_fields["gazebo"]
    assert gazebo["effort_saturated_fraction"] == 0.0 and gazebo["feedforward_gain"] == 25.0


def test_a_robot_without_seas_is_refused_naming_the_field():
    with pytest.raises(ConfigError, match=r"robot\.name"):
        runtime.build(load_scenario("open-loop-flat-3d", ["model=dart", "robot.name=rectilinear6"]))
