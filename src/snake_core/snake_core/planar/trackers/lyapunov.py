"""controller.mode lyapunov: the Lyapunov-like law of 004 §6.2 (V of (83) decays at rate c where feasible)."""

from __future__ import annotations

from ..head_tracking import LYAPUNOV_GAINS, LyapunovGains, LyapunovTracker, TrackerSpec

TRACKER = TrackerSpec("lyapunov", "Lyapunov-like tracker, 004 §6.2", LYAPUNOV_GAINS, LyapunovTracker, LyapunovGains,
                      {"lyapunov_V": LyapunovTracker.value})
