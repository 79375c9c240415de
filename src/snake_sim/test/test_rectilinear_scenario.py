"""The ``rectilinear`` scenario: 002's SEA snake driven by 003's gait moves head first, by at most 003's
no-slip step per cycle; the reproduction section runs in its fast form."""

import numpy as np

from snake_core.rectilinear.cycle import advance_per_cycle


def test_rectilinear_scenario_advances_head_first_by_at_most_the_no_slip_step():
    from snake_sim.core.scenario import load_scenario
    from snake_sim.engines.vertical import runtime

    sc = load_scenario("rectilinear", ["sim.duration=5.0"])  # one cycle of 5 steps of 1 s
    log = runtime.run_scenario(sc)
    assert log.status == "ok"
    gait = sc.section("gait")
    predicted = advance_per_cycle(log.robot.link_length, float(gait["angle"]))
    moved = log.com[-1, 0] - log.com[0, 0]
    assert moved > 0.3 * predicted  # toward the head (+x), the way the hump travels
    assert moved < 1.1 * predicted  # no gait can beat its no-slip step by more than the contact compliance
    # the references pass the hump's boundary states (joints at 0, ±α) and end the cycle flat
    alpha = float(gait["angle"])
    for k in range(6):
        i = int(np.argmin(np.abs(log.t - k)))
        ratio = np.abs(log.alpha_ref[i]) / alpha
        np.testing.assert_allclose(ratio, np.round(ratio), atol=1e-9)
        assert set(np.round(ratio)) <= {0.0, 1.0}
    np.testing.assert_allclose(log.alpha_ref[-1], 0.0, atol=1e-9)
    assert np.max(np.abs(log.alpha_ref)) <= np.pi / 3
