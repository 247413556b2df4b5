"""Parsing of "AxB" values typed on the command line (image sizes ``2304x1296``, calibration patterns ``9x6``):
one parser, so every command accepts the same spelling and says the same kind of thing when it is wrong."""

from __future__ import annotations

import re

from assistant.errors import UserError

_PAIR = re.compile(r"\s*(\d+)\s*[xX]\s*(\d+)\s*")


def parse_pair(text: str, what: str, example: str, low: int, high: int | None = None) -> tuple[int, int]:
    """``"9x6"`` -> (9, 6). ``what`` names the value in messages (``"--size"``, ``"pattern"``), ``example`` shows a
    good one; both numbers must lie in ``low..high`` (no upper bound when ``high`` is None)."""
    m = _PAIR.fullmatch(text or "")
    if not m:
        raise UserError(f"{what} {text!r} should look like {example}.")
    a, b = int(m.group(1)), int(m.group(2))
    if a < low or b < low or (high is not None and (a > high or b > high)):
        span = f"{low}..{high}" if high is not None else f"at least {low}"
        raise UserError(f"{what} {a}x{b} is out of range; both numbers must be {span}.")
    return a, b
