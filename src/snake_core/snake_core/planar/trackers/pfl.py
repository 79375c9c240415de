"""controller.mode pfl: partial feedback linearisation, 004 (70) (sign fixed) with κ (75) and u (78)."""

from __future__ import annotations

from ..head_tracking import PFL_GAINS, PartialFeedbackLinearisation, PFLGains, TrackerSpec

TRACKER = TrackerSpec("pfl", "partial feedback linearisation, 004 (70)", PFL_GAINS, PartialFeedbackLinearisation,
                      PFLGains, {})
