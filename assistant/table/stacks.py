"""Stack changes as the tracker weighs them: each camera ``#changed`` reading turned into a ``#stack`` reading of
the accepted position.

The camera says whether a stack looks different since the previous observation (``observation.CHANGED``); the
tracker's lines start from its accepted position, which that observation may not have reached (a look left
unexplained: a board under a hand, an alert). ``StackChanges`` keeps, per stack, whether the table's stack differs
from the accepted position's (``carried``): after each look, the stacks whose reading the accepted position does
not show. A change seen then comes on top of the carried one, and a second change undoes the first (a piece taken
back off the stack makes it look as it did). The ``#stack`` reading (``observation.stack_reading``) says what the
stack holds relative to the accepted position: the same content, or anything but it, compared by
``observation.stack_differs``. A ``#stack`` key in an observation is dropped: no camera reads a stack's content.
"""

from __future__ import annotations

from assistant.table.observation import CHANGED, STACK, Reading, camera_reads, stack_differs, stack_reading


class StackChanges:
    """The stacks the accepted position does not show as the camera saw them, carried from look to look."""

    def __init__(self):
        self.carried: dict[str, float] = {}  # ``#stack`` key -> how sure the camera is that it differs
        self._look: dict[str, Reading] = {}  # ``#stack`` key -> the reading of the look being explained

    def readings(self, readings: dict[str, Reading], expected) -> dict[str, Reading]:
        """``readings`` with each ``#changed`` reading turned into a ``#stack`` one; ``expected()`` gives the accepted
        position's expected readings (called only when there is a change reading)."""
        out = {k: r for k, r in readings.items() if not k.endswith(CHANGED) and camera_reads(k)}
        self._look = {}
        keys = [k for k in readings if k.endswith(CHANGED)]
        if not keys:
            return out
        exp = expected()
        for key in keys:
            stack = key[: -len(CHANGED)] + STACK
            now, before = readings[key], self.carried.get(stack)
            changed = bool(now.value) != (before is not None)
            conf = now.confidence if before is None else min(now.confidence, before)
            out[stack] = self._look[stack] = Reading(stack_reading(changed, exp.get(stack, "")), conf)
        return out

    def explained(self, expected) -> None:
        """After a look: carry the stacks its readings show other than the accepted position (``expected()``: its
        expected readings) holds them, explained or not."""
        if not self._look:
            return
        exp = expected()
        for stack, read in self._look.items():
            if stack_differs(read.value, exp.get(stack, "")):
                self.carried[stack] = read.confidence
            else:
                self.carried.pop(stack, None)
