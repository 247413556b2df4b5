"""The move errors every game raises through the ``Game`` interface, and the broken rule they carry.

``MoveError`` is the base to catch around ``move_from_json``, ``check`` and ``apply``; ``InvalidMoveError`` is a
move that does not fit its schema; ``IllegalMoveError`` a well-formed move the rules forbid, with its
``violations``: each a ``Violation`` (rule ID, what is wrong in plain words, what would have been legal). A game
package re-exports them from its own moves and board modules.
"""

from __future__ import annotations

from dataclasses import dataclass


class MoveError(ValueError):
    """Base of the engine's errors about a move: catch this one around ``move_from_json``, ``check``, ``apply``."""


class InvalidMoveError(MoveError):
    """A move that does not fit its schema; the one-line message names the field and the form it needs."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: its ID, what is wrong in plain words, and what would have been legal."""

    rule: str
    message: str
    fix: str | None = None

    def __str__(self) -> str:
        return f"{self.rule}: {self.message}" + (f" {self.fix}" if self.fix else "")

    def to_json(self) -> dict:
        return {"rule": self.rule, "message": self.message, "fix": self.fix}


class IllegalMoveError(MoveError):
    """A well-formed move the rules forbid; ``violations`` says which rules and why."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations
        super().__init__("; ".join(str(v) for v in violations))
