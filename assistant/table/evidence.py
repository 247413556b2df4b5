"""The evidence weighing: how well a candidate position explains a look.

A look is the tracker's readings of one settled observation, ``(key, value, confidence)`` triples (``Look``). A
candidate line (``Node``) is scored against it: each reading that disagrees with the line's expected readings
costs what it weighs (its confidence, capped by the game's evidence hooks, ``Explainer.weight``); one that
disagrees exactly as a misreading tolerated before did (``Misreading``) costs nothing, as it is no new evidence.
A reading at a key the line does not know (``ABSENT``) is unknown, never empty. Score readings are weighed apart
(``Explainer.score_cost``): they choose between lines and raise score alerts, never reject a move. The rank of a
line is ``Node.key``. See docs/tracker.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

ABSENT = object()  # no expected reading at a key (a place the state does not know)
# A misreading the table showed to be one (the place read right again) that comes back at a place, as unsurely within
# this much, is known again (``Evidence._known``): a phantom piece the camera sees there now and then
PHANTOM_MARGIN = 0.1


class Look(list):
    """A look's readings, ``(key, value, confidence)`` triples, with what is derived from them cached on the look
    itself (``cache``: name -> value): the cache lives exactly as long as the look, the tracker keeps a look while
    it may re-read it (``Tracker.looks``, the kept alternatives' history)."""

    __slots__ = ("cache",)

    def __init__(self, items=()):
        super().__init__(items)
        self.cache: dict = {}

    def maps(self, alert_confidence: float) -> tuple[dict, dict, set]:
        """The readings by key with their confidence, by key alone, and the keys read unsurely (below
        ``alert_confidence``): made once per look, for the many candidates weighed against it."""
        got = self.cache.get(("maps", alert_confidence))
        if got is None:
            got = self.cache[("maps", alert_confidence)] = (
                {k: (v, c) for k, v, c in self},
                {k: v for k, v, _ in self},
                {k for k, _, c in self if c < alert_confidence},
            )
        return got


class Misreading(NamedTuple):
    """A reading tolerated while it disagreed with the accepted state: how it differed (``reading_error``) and the
    moves in the log when it was first tolerated (None: a marker taken as placed unseen, ``Tracker._with_missed_marker``)."""

    error: object
    since: int | None
    value: object = None  # the reading when it was first tolerated
    conf: float = 0.0  # the most it weighed while tolerated


@dataclass
class Node:
    """A candidate line scored against a look: the position it reaches, its moves and hidden-information edits, and
    how much of the look disagrees with it."""

    state: object  # the game's state the line reaches
    moves: tuple
    exp: dict  # the expected readings of ``state``
    cost: float  # disagreement of the non-score readings
    score_cost: float  # disagreement of the score readings
    worst: float  # the highest confidence among disagreeing non-score readings
    pref: int  # policy rank among moves that look alike (lower is preferred)
    edits: tuple = ()  # (index into moves, edit dict): hidden-information edits made before that move
    known: float = 0.0  # confidence of the readings that differ exactly as a known misreading (``Evidence._known``)
    score_off: int = 0  # spaces between the score disks seen and where the state puts them (``Explainer.score_cost``)
    # the expected readings of the position the line's search started from: what a reading is weighed against
    # beside the line's own (``Explainer.weight``); each search sets it for its lines, none shares it
    base: dict = field(default=None, compare=False, repr=False)
    x: object = field(default=None, compare=False, repr=False)  # the game's explainer, which ``key`` asks

    @property
    def exact(self) -> bool:
        """Every reading agrees, known misreadings aside: no longer sequence can explain more."""
        return round(self.cost, 9) <= 0 and self.score_cost == 0

    def key(self):
        """The rank of a line, lowest first: the disagreement plus the preference rank (``Explainer.pref_cost`` a
        step), then the non-score disagreement, how far the score disks seen lie from the line's, the rank with the
        game's obligations still open counted as given up (``Explainer.open_actions``), fewest moves, and last the
        most known misreadings going on (a misreading made look after look goes on rather than vanish where a move
        could absorb it). docs/tracker.md gives the reasons."""
        left = self.x.open_actions(self.state)
        return (
            round(self.cost + self.score_cost + self.x.pref_cost * self.pref, 6),
            round(self.cost, 6),
            self.score_off,
            self.pref + left,
            len(self.moves),
            -round(self.known, 6),
        )


def reading_error(value, expected):
    """How a reading differs from what was expected: for piece counts the signed count difference per piece key
    (so that it stays the same when pieces come and go around a miscount), otherwise the pair."""
    if isinstance(value, tuple) and isinstance(expected, tuple):
        return _count_error(value, expected)
    return (value, expected)


@lru_cache(maxsize=1 << 16)
def _count_error(value: tuple, expected: tuple) -> frozenset:
    """``reading_error`` of two piece counts (``(kind, n)`` pairs), kept: the tracker weighs the same few pairs at
    every candidate line of a look."""
    diff = dict(value)
    for k, n in dict(expected).items():
        diff[k] = diff.get(k, 0) - n
    return frozenset((k, n) for k, n in diff.items() if n)


def one_piece_off(error) -> bool:
    """Whether a ``reading_error`` is one piece of one kind too many or too few."""
    return isinstance(error, frozenset) and len(error) == 1 and abs(next(iter(error))[1]) == 1


def pile_miscount(error, value, expected) -> bool:
    """Whether a one-piece ``reading_error`` is a pile read one short or over: its piece kind is in both ``value``
    and ``expected`` (piece counts), not a piece read where none is expected or none read where one is."""
    if not isinstance(value, tuple) or not isinstance(expected, tuple):
        return False
    kind = next(iter(error))[0]
    return dict(value).get(kind, 0) > 0 and dict(expected).get(kind, 0) > 0


def missing_only(error) -> bool:
    """Whether a ``reading_error`` of piece counts is pieces missing only (none read that are not there)."""
    return isinstance(error, frozenset) and bool(error) and all(n < 0 for _, n in error)


class Evidence:
    """The tracker's evidence weighing (a part of ``Tracker``): scoring a line against a look, the known
    misreadings, and the readings still to explain."""

    def node(
        self, state, moves: tuple, items, pref: int, exp=None, edits: tuple = (), as_read: bool = False, base: dict | None = None
    ) -> Node:
        """A candidate line scored against a look: ``exp`` the expected readings of ``state`` (made when None);
        ``base`` those of the position its search started from (``exp`` when None: the line starts there);
        ``as_read``: every reading weighed at its confidence (no ``Explainer.weight``)."""
        exp = self.game.expected_readings(state) if exp is None else exp
        base = exp if base is None else base
        cost = worst = known = 0.0
        x = self.x
        score_cost, off, others = x.score_cost(state, items, exp)
        for key, value, conf in others:
            expected = exp.get(key, ABSENT)
            if value == expected or expected is ABSENT:  # most readings agree: the quick test first
                continue
            if x.differs(key, value, expected) and not (
                x.counted(key) and x.loose(key, value, conf, base) and one_piece_off(reading_error(value, expected))
            ):
                w = conf if as_read else x.weight(key, value, conf, exp, items, base)
                if self._known(key, value, expected, w):
                    known += w  # no new evidence: costs nothing
                else:
                    runner_ups = self.runner_ups(key, value, conf)
                    cost += w if not runner_ups else max(w, min(runner_ups.get(expected, 1.0), x.tile_evidence_cap))
                    worst = max(worst, w)
        return Node(state, moves, exp, cost, score_cost, worst, pref, edits, known, off, base, x)

    def runner_ups(self, key: str, value, conf: float) -> dict:
        """{value: margin behind} the reader listed after ``value`` for the reading ``key`` read at ``conf`` (a tile
        face's runner-ups, ``Reading.others``); empty when it listed none."""
        return self._weighed.get((key, value, conf)) or {}

    def _known(self, key: str, value, expected, conf: float | None = None) -> bool:
        """Whether ``value`` at ``key`` disagrees with ``expected`` exactly as a misreading tolerated before did:
        a place read one piece short keeps reading one short as pieces come and go. It is then no new evidence,
        neither against a move nor for one that would 'explain' it. A counted place read short that reads the same
        count as it grows is one too (a counter undercounts a big pile; docs/tracker.md). With ``conf`` (the
        reading's weight), so is a phantom: a misreading tolerated until the place read right again
        (``Tracker.phantoms``) that comes back as unsurely (within ``PHANTOM_MARGIN`` of the most it weighed, and
        unsure): a red tent read at 0.30-0.37 now and then on a space that holds none is no tent placed there."""
        known = self.misreadings.get(key)
        seen = None if conf is None else self.phantoms.get(key)
        if known is None and not seen:
            return False
        error = reading_error(value, expected)
        if known is not None and (
            known.error == error
            or (value == known.value and self.x.counted(key) and missing_only(error) and missing_only(known.error))
        ):
            return True
        phantom = seen.get(error) if seen else None
        return phantom is not None and conf < self.alert_confidence and conf <= phantom.conf + PHANTOM_MARGIN

    def is_open(self, key: str, value, exp: dict, conf: float | None = None) -> bool:
        """Whether the reading ``value`` at ``key`` is a difference still to explain from expected readings
        ``exp``: it disagrees, and not as a known misreading does (``conf``: its weight, ``_known``)."""
        expected = exp.get(key, ABSENT)
        return (
            value != expected
            and expected is not ABSENT
            and self.x.differs(key, value, expected)
            and not self._known(key, value, expected, conf)
        )

    def _learn_misreadings(self, node: Node, items, at: int) -> None:
        """After a look is accepted (its moves played from log position ``at``): remember the unsure disagreements
        it tolerated, as weighed (``Explainer.weight``; keyed by how they differ, and from when), forget the places
        that now read right (a misreading forgotten so becomes a phantom, ``phantoms``); places not read this look
        keep what was known. The places an action still open may change (``Explainer.in_flux``) are not learned:
        that action may explain them."""
        flux = self.x.in_flux(node.state)
        for key, value, conf in items:
            if key not in node.exp or self.x.is_score(key) or (flux and key.startswith(flux)):
                continue
            expected = node.exp[key]
            w = self.x.weight(key, value, conf, node.exp, items, node.base) if self.x.differs(key, value, expected) else None
            if w is not None and w < self.alert_confidence:
                known = self.misreadings.get(key)
                if not self._known(key, value, expected):  # a phantom back is a misreading going on again
                    self.misreadings[key] = Misreading(reading_error(value, expected), at, value, w)
                elif known is not None and known.error == reading_error(value, expected) and w > known.conf:
                    self.misreadings[key] = known._replace(conf=w)
            elif not self._known(key, value, expected):  # reads right again, or a new sure disagreement (an
                gone = self.misreadings.pop(key, None)  # alert, not a misreading); the same one again stays known
                if gone is not None and w is None:  # read right: the camera saw a phantom there
                    seen = self.phantoms.setdefault(key, {})
                    old = seen.get(gone.error)
                    seen[gone.error] = gone if old is None else gone._replace(conf=max(old.conf, gone.conf))

    def differing(self, node: Node, items, min_conf: float = 0.0) -> list[tuple[str, object, float]]:
        """The non-score readings that disagree with ``node`` (known misreadings left out), with their confidence
        as weighed (``Explainer.weight``)."""
        out = []
        for k, v, c in items:
            if self.x.is_score(k) or node.exp.get(k, ABSENT) in (ABSENT, v):
                continue
            c = self.x.weight(k, v, c, node.exp, items, node.base)
            if self.is_open(k, v, node.exp, c) and c >= min_conf:
                out.append((k, v, c))
        return out

    def _acceptable(self, node: Node) -> bool:
        return node.cost < self.accept_cost and node.worst < self.alert_confidence
