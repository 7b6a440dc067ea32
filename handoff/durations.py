"""The one parser for durations given on the command line and in config (``90s``, ``15m``, ``24h``, ``7d``)."""

from __future__ import annotations

import re
from datetime import timedelta

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_PATTERN = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")


def parse_duration(text: str) -> timedelta:
    """Parse ``<number><unit>`` with unit s, m, h or d; raise ``ValueError`` naming the bad text."""
    match = _PATTERN.match(str(text))
    if not match:
        raise ValueError(f"bad duration {text!r}: use a number and a unit, e.g. 90s, 15m, 24h, 7d")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2)])
