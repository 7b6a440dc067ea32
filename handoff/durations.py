"""The one parser for durations given on the command line and in config (``90s``, ``15m``, ``24h``, ``7d``)."""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PATTERN = re.compile(r"^\s*(\d{1,12}(?:\.\d{1,9})?)\s*([smhd])\s*$", re.ASCII)
#: The longest duration accepted: a century. Longer is a typo, and overflows date arithmetic
#: (``now - 99999999d`` is before year 1).
MAX_DURATION = timedelta(days=36_525)


def parse_duration(text: str) -> timedelta:
    """Parse ``<number><unit>`` with unit s, m, h or d, at most 100 years; raise ``ValueError`` naming the bad text."""
    match = _PATTERN.match(str(text))
    if not match:
        raise ValueError(f"bad duration {str(text)[:40]!r}: use a number and a unit, e.g. 90s, 15m, 24h, 7d")
    seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"bad duration {text!r}: longer than {MAX_DURATION.days} days")
    return timedelta(seconds=seconds)
