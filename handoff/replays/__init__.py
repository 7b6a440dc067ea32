"""Replaying a recorded step on its stored input (``handoff replay``, ``handoff.replay``).

- :mod:`~handoff.replays.runner`: :func:`replay`, which reads the original, plans and scores;
- :mod:`~handoff.replays.original`: the handoff being replayed and the constraints it lost;
- :mod:`~handoff.replays.targets`: importing the step's function and rebuilding its arguments;
- :mod:`~handoff.replays.calls`: the N calls, each recorded as a handoff of the replay run;
- :mod:`~handoff.replays.report`: :class:`ReplayReport`.

Replaying imports and runs user code: only the function a person names by replaying a record
(or by ``target=``) is imported, never anything else a stored record names.
"""

from __future__ import annotations

from handoff.replays.report import KeptConstraint, ReplayReport
from handoff.replays.runner import replay

__all__ = ["KeptConstraint", "ReplayReport", "replay"]
