"""Wendake's evidence hooks for the table core: how much each reading weighs, the score disks, the constants.

The core weighs a reading that disagrees with a line at its confidence, capped here (``weight``): a Home's
stacked guards, the mask board's restore heap, a tile face under an action marker and a resource pile read as
before weigh as unsure; a resource count read loosely agrees with one piece more or less (``loose``). Score-track
readings (only the top disk of a stack shows) are weighed apart (``score_cost``) and raise ``ScoreMismatch``
(``check_scores``, W-SCR-6), never reject a move. docs/tracker.md gives the evidence for each constant.
"""

from __future__ import annotations

from collections import Counter

from assistant.table.events import Event, ScoreMismatch
from assistant.table.evidence import Node
from assistant.table.observation import COUNT_BOUND_CONFIDENCE, pieces_within, split_key, split_reading_key
from assistant.wendake.observer import (
    MASK_BOARD,
    SCORE_BOARDS,
    TRACK_MAX,
    is_score_key,
    occupied_score_colours,
    reading_differs,
    score_colours,
    score_reading_agrees,
    village_board,
)
from assistant.wendake.state import State

# Each constant: what it caps or bounds (docs/tracker.md, "The evidence constants", says why each value).
HOME_STACK_CONFIDENCE = 0.5  # a Home read with fewer guards than a line leaves there weighs at most this (W-SET-8)
HEAP_CONFIDENCE = 0.5  # the mask board's restore heap weighs at most this: evidence for a line, never an alert
MARKED_TILE_CONFIDENCE = 0.5  # a tile face under an action marker weighs at most this ...
MARKED_TILE_SURE = 0.95  # ... when read below this, or where the line keeps the tile it started from
RESTORE_HEAP = f"{MASK_BOARD}/restore"
LOOSE_COUNT_CONFIDENCE = 0.1  # a resource count read less surely agrees with a count one piece away
BLIND_COUNT_CONFIDENCE = 0.05  # a resource count read less surely says nothing of the count (``_trade_candidates``)
SKIP_WEIGHT = 2  # preference steps a printed action given up costs (one still open at the search's end: one)
PREF_COST = 0.075  # the cost of one preference step beside the readings' confidences (``Node.key``)
TILE_EVIDENCE_CAP = 0.3  # a weak tile face costs how far the expected tile fits behind the read, at most this
STEADY_MARGIN = 0.02  # a resource space read as at the last look that added moves, as surely within this, is steady
STEADY_COUNT_CONFIDENCE = 0.2  # ... and its disagreement weighs at least this
SHAKEN_COUNT_MARGIN = 0.1  # read this much less surely than then, and below STEADY_COUNT_CONFIDENCE: loose
HIDING_LAKE_MARGIN = 0.05  # a lake read this much less surely than at the last look that added moves may hide a canoe
TILE_NAMED = 0.1  # a tile face read at this confidence or more names the tile
SCORE_RULE = "W-SCR-6"  # where points come from: a score disk must show what the engine computed
# a score disk read at this confidence or more away from where the engine puts it is a ScoreMismatch (below the
# tracker's ``alert_confidence``: the score boards of a 4-player table are read at 0.57-0.6 at best)
SCORE_ALERT_CONFIDENCE = 0.55


class WendakeEvidence:
    """The evidence hooks of Wendake's explainer (a part of ``WendakeExplainer``; ``t`` is the tracker)."""

    tile_evidence_cap = TILE_EVIDENCE_CAP
    score_alert_confidence = SCORE_ALERT_CONFIDENCE
    pref_cost = PREF_COST
    stubborn_steady_only = False  # a steady misread of a place the moves leave alone may first show in this look

    def turn_in_progress(self, diffs: list, exp: dict) -> bool:
        """No Wendake difference is a turn under way that no move shows: every change is some move's."""
        return False

    def near_miscount(self, key: str, error, value, expected) -> bool:
        """A re-read past look passes any one piece off as noise (a fish read onto an empty space too)."""
        return True

    def is_score(self, key: str) -> bool:
        """Whether ``key`` is a score-track reading (weighed apart, ``score_cost``)."""
        return is_score_key(key)

    def differs(self, key: str, value, expected) -> bool:
        """Whether a reading disagrees with the expected one as its region is read (a pile read short agrees)."""
        return reading_differs(key, value, expected)

    def counted(self, key: str) -> bool:
        """Whether a reading key is a resource space, whose count the resource counter reads (``vision.counts``)."""
        return _counted(key)

    def in_flux(self, state: State) -> str | None:
        """The prefix of the reading keys an action still open may change (the current player's resources while
        the tile placed has actions open): their disagreements are not learned as misreadings."""
        t = state.turn
        return (
            f"{village_board(t.player)}/resource." if t is not None and t.placed == "tile" and t.cursor < len(t.pending) else None
        )

    def discounted(self, items) -> bool:
        """Whether the look reads a place whose weight ``weight`` may cap below its confidence (a Home)."""
        return any(k in self._homes for k, _, _ in items)

    def score_cost(self, state: State, items, exp: dict) -> tuple[float, int, list]:
        """(the score readings' disagreement with ``state``, the spaces the disks seen lie from the state's, the
        non-score readings of the look): a disk seen where the state has none, or a space whose top disk is not
        among the state's there, costs its confidence."""
        score, others, seen, disks = self._split(items, exp)
        occupied = occupied_score_colours(state)
        score_cost = sum(conf for key, conf in seen if key not in occupied)  # a disk seen where the state has none
        for key, colours in occupied.items():
            read = score.get(key)
            if read is not None and not score_reading_agrees(read[0], colours):
                score_cost += read[1]
        off = self._score_off(state, disks) if score_cost else 0
        return score_cost, off, others

    def _by_key(self, items) -> dict:
        """{key: (value, confidence)} of a look's readings (``Look.maps``)."""
        return items.maps(self.t.alert_confidence)[0]

    def _values(self, items) -> dict:
        """{key: value} of a look's readings (``Look.maps``)."""
        return items.maps(self.t.alert_confidence)[1]

    def _look_maps(self, items) -> tuple[dict, dict, set]:
        """A look's readings by key with their confidence, by key alone, and the keys read unsurely (``Look.maps``)."""
        return items.maps(self.t.alert_confidence)

    @staticmethod
    def _score_off(state: State, disks: dict) -> int:
        """Spaces between where ``state`` puts each score disk and the nearest space its colour is read on in
        that row (``disks``: (board, row, colour) -> spaces, from ``_split``); 0 for a disk not read anywhere."""
        off = 0
        for board, pair in zip(SCORE_BOARDS, state.pairs):
            for track, row in zip(pair, ("upper", "lower")):
                for pl in state.players:
                    seen = disks.get((board, row, pl.colour))
                    if seen:
                        v = max(0, min(TRACK_MAX, pl.tracks[track]))
                        off += min(abs(v - w) for w in seen)
        return off

    def _split(self, items, exp: dict):
        """A look's readings split once for the many positions weighed against it: ({score key: (value,
        confidence)}, the other readings, [(score key, confidence)] of the score spaces not read empty,
        {(score board, row, colour): [spaces the colour is read on]})."""
        got = items.cache.get("wendake.split")
        if got is not None:
            return got
        score = {k: (v, c) for k, v, c in items if k in exp and is_score_key(k)}
        others = [(k, v, c) for k, v, c in items if not is_score_key(k)]
        disks: dict[tuple, list[int]] = {}
        for k, (v, _c) in score.items():
            board, region, _ = split_reading_key(k)
            row, space = region.split(".")
            for piece, _n in v or ():
                disks.setdefault((board, row, split_key(piece)[1]), []).append(int(space))
        split = (score, others, [(k, c) for k, (v, c) in score.items() if _bad_empty(v)], disks)
        items.cache["wendake.split"] = split
        return split

    @staticmethod
    def score_sig(node: Node, items):
        """The score readings that disagree with ``node`` (key, value), as a set."""
        colours = score_colours(node.state)
        return frozenset(
            (k, v) for k, v, _ in items if is_score_key(k) and k in colours and not score_reading_agrees(v, colours[k])
        )

    def _steady_read(self, key: str, value, conf: float, base: dict) -> bool:
        """Whether a resource space reads as at the last look that added moves, where it read as the position had
        it and as the search's start has it still, as surely within ``STEADY_MARGIN``: the pile did not change. Not
        a count that is a lower bound (``COUNT_BOUND_CONFIDENCE``): more pieces do not change it."""
        before = self.t.steady.get(key)
        return (
            before is not None
            and before[0] == value == base.get(key)
            and abs(conf - before[1]) <= STEADY_MARGIN
            and conf != COUNT_BOUND_CONFIDENCE
        )

    def loose(self, key: str, value, conf: float, base: dict) -> bool:
        """Whether a resource space's count is read too loosely to tell one piece more or less: below
        ``LOOSE_COUNT_CONFIDENCE``, or below ``STEADY_COUNT_CONFIDENCE`` where the last look that added moves read
        the same count ``SHAKEN_COUNT_MARGIN`` more surely; never a steady read (``_steady_read``), which tells
        that the pile did not change whatever its count."""
        if self._steady_read(key, value, conf, base):
            return False
        before = self.t.steady.get(key)
        shaken = (
            before is not None
            and before[0] == value
            and conf < STEADY_COUNT_CONFIDENCE
            and before[1] - conf >= SHAKEN_COUNT_MARGIN
        )
        return conf < LOOSE_COUNT_CONFIDENCE or shaken

    def weight(self, key: str, value, conf: float, exp: dict, items, base: dict) -> float:
        """How much a reading that disagrees with ``exp`` weighs: its confidence, but at most
        ``HOME_STACK_CONFIDENCE`` for a Home read with fewer warriors than ``exp`` has there (warriors hidden in
        the stack) while ``exp`` keeps the Home as in ``base`` (the position the search started from), or
        while the Home reads as in ``base`` and the look shows none of the colour's warriors that ``exp``
        brings there anywhere else (map, Long Houses; ``_hidden_at_home``); at most ``HEAP_CONFIDENCE`` for the mask
        board's restore heap; at most ``MARKED_TILE_CONFIDENCE`` for a tile face under an action marker ``exp`` has
        on its slot, read below ``MARKED_TILE_SURE`` or where ``exp`` keeps the tile of ``base`` (a tile does
        not change under a marker: the marker hides part of the face, and history knows the tile)."""
        if (
            key in self._homes
            and conf > HOME_STACK_CONFIDENCE
            and _fewer(value, exp.get(key))
            and (exp.get(key) == base.get(key) or value == base.get(key) and self._hidden_at_home(key, value, exp, items))
        ):
            return HOME_STACK_CONFIDENCE
        if key == RESTORE_HEAP:
            return min(conf, HEAP_CONFIDENCE)
        if conf < STEADY_COUNT_CONFIDENCE and self._steady_read(key, value, conf, base):
            return STEADY_COUNT_CONFIDENCE
        if key.endswith("#tile") and (conf < MARKED_TILE_SURE or exp.get(key) == base.get(key)):
            slot = exp.get(key[: -len("#tile")])
            if isinstance(slot, tuple) and any(k.startswith("action_marker:") for k, _ in slot):
                return min(conf, MARKED_TILE_CONFIDENCE)
        return conf

    def _hidden_at_home(self, key: str, value, exp: dict, items) -> bool:
        """Whether the warriors ``exp`` has at the Home ``key`` beyond those read there (``value``) may hide in its
        stack: only warriors are short there, and for each colour short the look reads no more of its warriors
        elsewhere (the map, the Long Houses) than ``exp`` puts there (W-COMP-3: a colour has 7 warriors, so one
        read short at Home and seen nowhere else is in the stack). A warrior gone from its place and seen
        elsewhere (an attack past a guard, a Ritual that left it in the Long House) is where it is seen, and
        leaves no room for a line that sends it Home."""
        short = Counter(dict(exp[key]))
        short.subtract(dict(value))
        short = [piece for piece, n in short.items() if n > 0]
        if not all(piece.startswith("warrior_") for piece in short):
            return False
        away, placed = self._warriors_away(items), _warriors_off_home(exp, self._homes)
        return all(away.get(colour, 0) <= placed.get(colour, 0) for colour in {split_key(piece)[1] for piece in short})

    def _warriors_away(self, items) -> dict:
        """{colour: warriors a look reads outside the Homes}, made once per look."""
        got = items.cache.get("wendake.aways")
        if got is None:
            got = items.cache["wendake.aways"] = _warriors_off_home({k: v for k, v, _ in items}, self._homes)
        return got

    def check_scores(self, items) -> list[Event]:
        st = self.t.state
        colours = score_colours(st)
        by_colour = {p.colour: i for i, p in enumerate(st.players)}
        wrong: dict[tuple[int, str], int | None] = {}
        for key, value, conf in items:
            if not is_score_key(key) or conf < min(self.t.alert_confidence, SCORE_ALERT_CONFIDENCE) or key not in colours:
                continue
            if score_reading_agrees(value, colours[key]):
                continue
            track, v = _score_space(st, key)
            if value:
                colour = split_key(value[0][0])[1]
                if colour in by_colour:
                    wrong[(by_colour[colour], track)] = v
            # a space that should show a disk reads empty or another colour; under another player's disk seen
            # there (itself flagged just above) it may just be hidden: one alert for one disk put wrong
            covered = bool(value) and split_key(value[0][0])[1] in by_colour
            for q in range(st.n):
                if min(25, st.players[q].tracks[track]) == v and st.players[q].colour not in _colours_of(value) and not covered:
                    wrong.setdefault((q, track), None)
        active = {(ev.player, ev.track): aid for aid, ev in self.t.alerts.items() if isinstance(ev, ScoreMismatch)}
        events: list[Event] = []
        for (q, track), aid in active.items():
            if (q, track) not in wrong:
                events += self.t.clear_alerts(
                    ("ScoreMismatch",),
                    f"{st.players[q].name}'s {track} disk is right again",
                    keep=[a for a in self.t.alerts if a != aid],
                )
        for (q, track), seen in wrong.items():
            if (q, track) in active:
                continue
            pl = st.players[q]
            expected = min(25, pl.tracks[track])
            # a disk not seen on its space may just be under another disk only if someone else is there too; one
            # still on the start space, seen nowhere else in its row, has not moved since the set-up: no evidence
            if seen is None:
                others = [r for r in range(st.n) if r != q and min(25, st.players[r].tracks[track]) == expected]
                if others or expected == self.ed.track_start:
                    continue
            where = f"on {seen}" if seen is not None else "not where it should be"
            events.append(
                self.t.alert(
                    ScoreMismatch(
                        0,
                        SCORE_RULE,
                        q,
                        pl.name,
                        track,
                        expected,
                        seen,
                        f"{pl.name}'s {track} disk is {where}; the engine counts {expected} {track} point(s) for {pl.colour} (W-SCR-6).",
                        f"Move the {pl.colour} disk on the {track} track to {expected}.",
                    )
                )
            )
        return events


def _bad_empty(value) -> bool:
    """Whether a score space's reading disagrees with the space holding no disk (``score_reading_agrees``)."""
    return not isinstance(value, tuple) or bool(value)


def _score_space(st: State, key: str) -> tuple[str, int]:
    """(track, space) of a score reading key: which track a score board's row holds in this game (``State.pairs``)."""
    board, region, _ = split_reading_key(key)
    row, space = region.split(".")
    return st.pairs[SCORE_BOARDS.index(board)][0 if row == "upper" else 1], int(space)


def _counted(key: str) -> bool:
    """Whether a reading key is a resource space, whose count the resource counter reads (``vision.counts``)."""
    return "/resource." in key


def _warriors_off_home(values: dict, homes: set) -> Counter:
    """{colour: warriors} in ``values`` (reading key -> pieces) outside ``homes``: on the map and in the Long
    Houses."""
    out: Counter = Counter()
    for k, v in values.items():
        if k not in homes and isinstance(v, tuple):
            for piece, n in v:
                if piece.startswith("warrior_"):
                    out[split_key(piece)[1]] += n
    return out


def _fewer(value, expected) -> bool:
    """Whether the pieces of ``value`` are some of those of ``expected`` and not all (pieces hidden, none added)."""
    return isinstance(value, tuple) and isinstance(expected, tuple) and value != expected and pieces_within(value, expected)


def _colours_of(value) -> set[str]:
    return {split_key(k)[1] for k, _ in value} if isinstance(value, tuple) else set()


def _row0_tiles(p: int, items) -> dict[int, tuple]:
    """{slot 0..2: (value, confidence)} of the ``#tile`` readings of player p's village row 0 (the new row a Restore
    lays out)."""
    keys = {f"{village_board(p)}/slot.{k}#tile": k for k in range(3)}
    return {keys[k]: (v, c) for k, v, c in items if k in keys}
