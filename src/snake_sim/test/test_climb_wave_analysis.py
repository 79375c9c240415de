"""Cycle-by-cycle amplitude and phase of joint waves (used for TSC's modulation, 002 Figs. 7.3–7.5)."""

import numpy as np
import pytest

from snake_sim.analysis.wave_analysis import cycle_waves


def pedal(t, a, w, phi, n=5):
    return a * np.sin(w * t[:, None] + phi * np.arange(n)[None, :])


def test_pedal_wave_amplitude_and_phase_shift_recovered():
    t = np.linspace(0.0, 10.0, 7001)  # not a divisor of the period: resampled
    w, phi = np.pi, -2 * np.pi / 5
    waves = cycle_waves(t, pedal(t, np.pi / 6, w, phi), w)
    assert waves.amplitude.shape == (5, 5)
    assert np.allclose(waves.amplitude, np.pi / 6, rtol=1e-5)
    assert np.allclose(waves.phase, phi * np.arange(5)[None, :], atol=1e-5)  # lag accumulated along the body
    assert np.max(waves.cycle_change()) < 1e-5


def test_a_change_of_amplitude_or_phase_is_seen_in_its_cycle():
    t = np.linspace(0.0, 10.0, 7001)  # not a divisor of the period: resampled
    w = np.pi
    x = pedal(t, 0.5, w, -1.0)
    late = t >= 6.0
    x[late, 3] = 0.4 * np.sin(w * t[late] - 2.0)  # joint 4 from cycle 3 on: smaller, other phase
    waves = cycle_waves(t, x, w)
    change = waves.cycle_change()
    assert change[:2] == pytest.approx([0, 0], abs=1e-5)
    assert change[2] > 0.2
    assert waves.amplitude[4, 3] == pytest.approx(0.4, rel=1e-4)
    assert waves.phase[4, 3] == pytest.approx(-2.0, abs=1e-4)
    assert waves.phase[4, 4] == pytest.approx(-4.0, abs=1e-4)  # joint 5 still lags joint 1 by 4 rad (not wrapped)


def test_too_short_a_run_has_no_cycles():
    t = np.arange(0.0, 1.0, 1e-2)
    assert cycle_waves(t, pedal(t, 0.5, np.pi, -1.0), np.pi).amplitude.shape == (0, 5)
