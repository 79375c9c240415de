"""Cycle-by-cycle amplitude and phase of the joint waves (002 Figs. 7.3–7.5, 7.8).

TSC (002 §7.2) modulates the amplitude and the phase shift of each joint's oscillation; on smooth
ground the cycles repeat, in contact with an obstacle they change. Both are read here from the
fundamental of each gait period: over cycle c (t in [t_c, t_c + T), T = 2π/ω),

    a_j,c = (2/T) ∫ x_j(t) e^{−iωt} dt,   amplitude |a_j,c|,   phase arg a_j,c − arg a_1,c

so the phase of joint 1 (the tail) is 0 and a wave travelling tail → head has negative phases: the
phase is unwrapped from joint to joint, so it is the lag accumulated along the body (φ (j − 1) for
the open-loop gait (4.38) with |φ| < π).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Samples per period for the cycle integrals (resampled from the log).
SAMPLES_PER_CYCLE = 256


@dataclass(frozen=True)
class CycleWaves:
    t_start: np.ndarray  # (C,) start time of each whole cycle [s]
    amplitude: np.ndarray  # (C, J) [rad]
    phase: np.ndarray  # (C, J) relative to joint 1, unwrapped joint to joint along the body [rad]
    offset: np.ndarray  # (C, J) mean over the cycle [rad]

    def cycle_change(self) -> np.ndarray:
        """(C−1,) largest change from one cycle to the next of any joint's fundamental, relative to the
        largest amplitude: |a_j,c+1 − a_j,c| / max|a| (0 for a perfectly periodic wave)."""
        a = self.amplitude * np.exp(1j * self.phase)
        scale = np.max(self.amplitude) if self.amplitude.size else 1.0
        return np.max(np.abs(np.diff(a, axis=0)), axis=1) / scale


def cycle_waves(t: np.ndarray, x: np.ndarray, omega: float, t0: float = 0.0) -> CycleWaves:
    """Fundamental of each whole period of ``x`` (T, J), sampled at increasing times ``t``, from ``t0`` on.

    Each period is resampled (linear interpolation) at ``SAMPLES_PER_CYCLE`` equally spaced instants, so
    the log's sampling need not divide the period.
    """
    period = 2.0 * np.pi / omega
    n_cycles = int(np.floor((t[-1] - t0) / period + 1e-9)) if len(t) > 1 else 0
    if n_cycles < 1:
        empty = np.zeros((0, x.shape[1]))
        return CycleWaves(np.zeros(0), empty, empty, empty)
    ts = t0 + period * (np.arange(n_cycles)[:, None] + np.arange(SAMPLES_PER_CYCLE)[None, :] / SAMPLES_PER_CYCLE)
    xs = np.stack([np.interp(ts, t, x[:, j]) for j in range(x.shape[1])], axis=-1)  # (C, S, J)
    basis = np.exp(-1j * omega * ts)[:, :, None]
    a = 2.0 * np.mean(xs * basis, axis=1)  # rectangle rule over one whole period: exact for sinusoids
    phase = np.unwrap(np.angle(a * np.conj(a[:, :1])), axis=1)  # along the body, tail → head
    return CycleWaves(ts[:, 0], np.abs(a), phase, xs.mean(axis=1))
