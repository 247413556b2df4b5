"""What a perfect camera would read off a Wendake table: ``expected_readings(state)``.

Owns the mapping from an engine :class:`State` to Observation readings (``assistant/table/observation.py`` keys and
values). It mirrors the synthetic renderer ``models/synth/wendake.py`` exactly — that renderer is the ground truth
of the end-to-end tests — and the region ids of ``calibration/layouts/wendake-*.json``.

Boards and readings (every region below is read; an empty region reads as the empty count ``()``):

* ``wendake-map-{n}p``: territory ``T05`` / Home ``H1`` -> standing guards ``warrior_standing:<colour>``;
  productive area ``T05.pa1`` -> its occupant, counted once (a Home stack of 4 women shows as one piece):
  ``woman:<colour>:colour``, ``hunter:<colour>:colour`` or ``warrior_lying:<colour>`` (an outpost);
  lake ``L2`` -> ``canoe:<colour>`` (a pile: a reading of some of its canoes agrees, ``pile_reading_agrees``).
* ``wendake-village-{p+1}`` (player index p): ``long_house`` -> ``warrior_standing:<c>``, ``woman:<c>:grey``,
  ``hunter:<c>:grey``; ``slot.K`` (K = row*3+col) -> ``action_marker:<c>`` when this year's marker is there and
  ``fire_token:none`` on the Sacred Fire tile; ``sage.N`` (N = 1..4) -> ``action_marker:<c>`` for the markers still
  on the Sages area (the first ``sages`` spaces); ``slot.K#tile`` -> ``"<tile id>:<side>"`` or None (an empty slot
  during the restore); ``resource.<name>`` -> ``<name>:none`` counts, ``resource.beavers`` -> ``beaver:none``.
  ``progress`` -> the player's bought progress tiles as a set, by level and side: ``progress_tile:P1:front``
  (face up) or ``progress_tile:P2:back`` (used this year, face down: W-PRG-3). No text says which progress space a
  bought tile takes (W-PRG-4 only keeps them), so the camera's reads of the spaces (``progress.N#tile``,
  ``vision.tiles``) are compared as a set, whatever their order: ``progress_readings`` gathers them into this one
  reading. A player with more tiles than the board has spaces has no ``progress`` reading (where the others lie
  is unknown). Which tile of a level it is does not weigh: the name is a few blurred glyphs, and look-alike twins
  are hidden information to the tracker. Not here: the swap token (it lies in no region).
* ``wendake-scores-a`` holds pair 0 of ``state.pairs``, ``wendake-scores-b`` pair 1; row ``upper`` is the pair's
  first track, ``lower`` its second. ``upper.V`` (V = 0..25, values clamped) -> ``tribe_disk:<c>`` of the **top**
  disk only. Disks on one space stack; the renderer stacks them in turn order (the last player in turn order on
  top), and so does this function.
  **Ambiguity:** a score space reading says only "someone is here, and the top disk is <c>". The disks under it
  are invisible, and at a real table their order is whoever moved there last, not turn order. A reading of
  ``tribe_disk:c`` on ``upper.V`` therefore agrees with a state exactly when c is among the players at V;
  an empty reading agrees when nobody is at V. :func:`score_reading_agrees` implements that test; the tracker
  uses it instead of equality for every ``wendake-scores-*`` key (``AMBIGUOUS_BOARDS``).
* ``wendake-mask``: ``turn_order.I`` (I = 1..4) -> the disk of the I-th reservation this year;
  ``ceremony.K`` (K = 0..8, space ``S{K+1}``) -> the disk of the player whose mask disk is there;
  ``restore`` -> the disks of every player whose mask disk is not on a ceremony space (a heap: a reading of
  some of them agrees, ``pile_reading_agrees``). Not read: the year marker,
  the turtle stacks and the card piles (not rendered).

Hidden information never shows: cards in hands, the piles, turtle values and the tiles below the grid during the
restore are not readings.
"""

from __future__ import annotations

from collections import Counter

from assistant.errors import UserError
from assistant.table.observation import Pieces, Reading, pieces, pile_agrees, reading_key
from calibration.builtin import region_ids

SCORE_BOARDS = ("wendake-scores-a", "wendake-scores-b")
AMBIGUOUS_BOARDS = SCORE_BOARDS
MASK_BOARD = "wendake-mask"
TRACK_MAX = 25
TURN_ORDER_SPACES = 4
CEREMONY_SPACES = 9


def map_board(n: int) -> str:
    return f"wendake-map-{n}p"


def village_board(p: int) -> str:
    return f"wendake-village-{p + 1}"


def boards_for(n: int) -> list[str]:
    return [map_board(n)] + [village_board(p) for p in range(n)] + list(SCORE_BOARDS) + [MASK_BOARD]


def _layout_regions(board: str) -> set[str] | None:
    """The region ids of a built-in layout, or None when the layout cannot be loaded (then every id is used)."""
    if board in _REGIONS:
        return _REGIONS[board]
    try:
        ids = region_ids(board)
    except (UserError, OSError, KeyError, TypeError):  # no such layout: fall back to the engine's own ids
        ids = None
    _REGIONS[board] = ids
    return ids


_REGIONS: dict[str, set[str] | None] = {}


def ceremony_region(space: str | None) -> str | None:
    """``"S3"`` -> ``"ceremony.2"``; None for no space."""
    if not space or not space[1:].isdigit():
        return None
    k = int(space[1:]) - 1
    return f"ceremony.{k}" if 0 <= k < CEREMONY_SPACES else None


def score_stacks(state, board: str) -> dict[str, list[int]]:
    """Score board region -> the players on it, bottom first (turn order, as the renderer stacks them)."""
    prefix = reading_key(board, "")
    out: dict[str, list[int]] = {f"{row}.{v}": [] for row in ("upper", "lower") for v in range(TRACK_MAX + 1)}
    for key, stack in occupied_score_spaces(state).items():
        if key.startswith(prefix):
            out[key[len(prefix):]] = stack
    return out


_SCORE_KEYS = tuple(reading_key(board, f"{row}.{v}") for board in SCORE_BOARDS for row in ("upper", "lower")
                    for v in range(TRACK_MAX + 1))


def occupied_score_spaces(state) -> dict[str, list[int]]:
    """Score reading key -> the players whose disks are on that space, bottom first (turn order, as the renderer
    stacks them); occupied spaces only. The tracker asks this of every position it weighs, so it touches only
    the disks (a few) and not the spaces (124)."""
    order = list(state.turn_order) or list(range(state.n))
    out: dict[str, list[int]] = {}
    for board, pair in zip(SCORE_BOARDS, state.pairs):
        for track, row in zip(pair, ("upper", "lower")):
            for p in order:
                v = max(0, min(TRACK_MAX, state.players[p].tracks[track]))
                out.setdefault(reading_key(board, f"{row}.{v}"), []).append(p)
    return out


def score_reading_agrees(value, colours_here: set[str]) -> bool:
    """A score space's reading against the colours of the disks a state puts there (see the module doc)."""
    if not isinstance(value, tuple):
        return False
    seen = [k for k, _ in value]
    if not colours_here:
        return not seen
    if len(seen) != 1:
        return False
    cls, _, rest = seen[0].partition(":")
    return cls == "tribe_disk" and rest.split(":")[0] in colours_here


# places where a piece may hide under another and a reading of fewer pieces is no evidence: the mask board's
# restore heap, and the lakes (W-ACT-2: canoes never leave play, and which lake holds one makes no difference)
PILE_KEYS = frozenset({f"{MASK_BOARD}/restore"} | {f"{map_board(n)}/L{k}" for n in (1, 2, 3, 4) for k in range(1, 7)})


def pile_reading_agrees(value, expected) -> bool:
    """A pile's reading (``PILE_KEYS``) against the pieces a state puts there: it agrees when it shows some of them
    and nothing else, or nothing when there are none. In the mask board's restore area the disks of every player
    off the ceremony spaces lie on top of each other, and who is there also shows on the ceremony spaces (e2e 2p
    s1004, a blue disk under a red one, read one short at 0.68 look after look). On a lake a canoe put down
    beside or over another hides it (e2e 3p s5: a green canoe over the blue one there since the set-up); no rule
    takes a canoe out of play (W-ACT-2), so fewer canoes than the game has put there is a misreading, never a
    move. A canoe seen that no state puts there still differs, and a Canoe's new canoe is still looked for."""
    if not isinstance(value, tuple) or not isinstance(expected, tuple):
        return value == expected
    return pile_agrees(value, expected)


def reading_differs(key: str, value, expected) -> bool:
    """Whether a non-score reading disagrees with the value a state expects at ``key`` (a pile agrees when it
    shows some of its pieces, ``pile_reading_agrees``)."""
    return value != expected and not (key in PILE_KEYS and pile_reading_agrees(value, expected))


def region_kind(key: str) -> str:
    """How a camera reads the region at ``key`` (``assistant.table.game.REGION_KINDS``): a score space shows its
    top disk only, a pile (``PILE_KEYS``) may hide pieces under others, a ``#tile`` key is a printed tile's
    face, and every other region is counted."""
    if is_score_key(key):
        return "top-of-stack"
    if key in PILE_KEYS:
        return "pile"
    if key.endswith("#tile"):
        return "tile-face"
    return "count"


def expected_readings(state) -> dict[str, object]:
    """Every reading a perfect camera takes of ``state``: ``{reading key: value}`` (see the module doc)."""
    out = map_readings(state)
    out.update(village_readings(state))
    out.update(score_readings(state))
    out.update(mask_readings(state))
    return out


class _Keys:
    """Piece keys and region keys precomputed for one table (colours and player count): the tracker calls
    ``expected_readings`` thousands of times per observation."""

    def __init__(self, colours: tuple[str, ...], map_name: str):
        n = len(colours)
        self.by_key = sorted(range(n), key=lambda p: colours[p])  # players in piece-key order
        self.guard = [f"warrior_standing:{c}" for c in colours]
        self.canoe = [f"canoe:{c}" for c in colours]
        self.disk = [f"tribe_disk:{c}" for c in colours]
        self.marker = [((f"action_marker:{c}", 1),) for c in colours]
        self.occupant = {(p, native): ((f"warrior_lying:{c}" if native == "warrior" else f"{native}:{c}:colour", 1),)
                         for p, c in enumerate(colours) for native in ("warrior", "woman", "hunter")}
        self.map_name = map_name
        self.map_ids = _layout_regions(map_name)
        self.villages = [village_board(p) for p in range(n)]
        self.progress_spaces = len(progress_spaces(self.villages[0])) if self.villages else 0
        self.progress_sets: dict[tuple, Pieces] = {}  # (tiles bought, tiles used) -> the ``progress`` reading


_KEYS: dict[tuple, _Keys] = {}


def _keys(state) -> _Keys:
    colours = tuple(p.colour for p in state.players)
    k = _KEYS.get(colours)
    if k is None:
        k = _KEYS[colours] = _Keys(colours, map_board(len(colours)))
    return k


def _counts(keys: list[str], order: list[int], counts) -> Pieces:
    return tuple((keys[p], counts[p]) for p in order if counts[p] > 0)


def map_readings(state) -> dict[str, object]:
    """The map board's readings only."""
    K = _keys(state)
    ids = K.map_ids
    mp = K.map_name
    out: dict[str, object] = {}
    for tid, t in state.territories.items():
        if ids is None or tid in ids:
            out[f"{mp}/{tid}"] = _counts(K.guard, K.by_key, t.guards)
        for i, pa in enumerate(t.pas):
            rid = f"{tid}.pa{i}"
            if ids is not None and rid not in ids:
                continue
            out[f"{mp}/{rid}"] = () if pa.count == 0 or pa.owner is None else K.occupant[(pa.owner, pa.native)]
    for lid, canoes in state.lakes.items():
        if ids is None or lid in ids:
            out[f"{mp}/{lid}"] = _counts(K.canoe, K.by_key, canoes)
    return out


def village_readings(state, players=None) -> dict[str, object]:
    """The village boards' readings (of ``players`` only when given)."""
    K = _keys(state)
    out: dict[str, object] = {}
    for p in range(state.n) if players is None else players:
        ps = state.players[p]
        vb = K.villages[p]
        c = ps.colour
        marker = K.marker[p]
        for k in range(9):
            if k in ps.markers:
                here = marker + (("fire_token:none", 1),) if ps.fire == k else marker
            else:
                here = (("fire_token:none", 1),) if ps.fire == k else ()
            out[f"{vb}/slot.{k}"] = here
            g = ps.grid[k] if k < len(ps.grid) else None
            out[f"{vb}/slot.{k}#tile"] = None if g is None else f"{g.tile}:{g.side}"
        for s in range(1, 5):
            out[f"{vb}/sage.{s}"] = marker if s <= ps.sages else ()
        lh = ps.long_house
        out[f"{vb}/long_house"] = pieces({f"warrior_standing:{c}": lh["warrior"], f"woman:{c}:grey": lh["woman"],
                                          f"hunter:{c}:grey": lh["hunter"]})
        for res, k in ps.resources.items():
            out[f"{vb}/resource.{res}"] = ((f"{res}:none", k),) if k > 0 else ()
        out[f"{vb}/resource.beavers"] = (("beaver:none", ps.beavers),) if ps.beavers > 0 else ()
        if len(ps.progress) <= K.progress_spaces:
            bought = (tuple(ps.progress), tuple(ps.progress_used))
            value = K.progress_sets.get(bought)
            if value is None:
                value = K.progress_sets[bought] = pieces(Counter(progress_tile_key(t, t in ps.progress_used) for t in ps.progress))
            out[f"{vb}/{PROGRESS_REGION}"] = value
    return out


PROGRESS_REGION = "progress"  # a village's progress spaces, read together (``progress_readings``)


def progress_tile_key(tile: str | None, face_down: bool = False) -> str | None:
    """The piece key of a progress tile as the camera tells it apart: its level and side (``"P2-04"`` ->
    ``"progress_tile:P2:front"``; a tile read face down, ``"P2:back"``, or used this year -> ``...:back``); None for
    a bare space."""
    if tile is None:
        return None
    level, _, side = tile.partition(":")
    side = "back" if face_down else (side or "front")
    return f"progress_tile:{level[:2]}:{side}"


def progress_spaces(board: str) -> list[str]:
    """The progress-space region ids of a village layout (``progress.1`` ...), in order."""
    return sorted((r for r in _layout_regions(board) or () if r.startswith(PROGRESS_REGION + ".")),
                  key=lambda r: int(r.split(".")[1]))


def progress_readings(readings: dict[str, Reading]) -> dict[str, Reading]:
    """The ``<village>/progress`` readings made of the tile reads of each village's progress spaces: the tiles
    seen, by level and side (``progress_tile_key``), as piece counts. Only villages whose every space was read
    get one (a hand over a space leaves the set unknown). Its confidence is the least of the spaces' level-and-side
    confidences: a space's read margin, or the margin of its first runner-up of another level or side, when the
    best only led tiles of its own level and side (``Reading.others``; a runner-up not listed is at least
    ``OTHERS_WITHIN`` behind)."""
    by_board: dict[str, list[tuple[str, Reading]]] = {}
    for key, r in readings.items():
        board, _, rest = key.partition("/")
        if rest.startswith(PROGRESS_REGION + ".") and rest.endswith("#tile"):
            by_board.setdefault(board, []).append((rest[:-len("#tile")], r))
    out = {}
    for board, reads in by_board.items():
        if {region for region, _ in reads} != set(progress_spaces(board)):
            continue
        seen: Counter = Counter()
        conf = 1.0
        for _, r in reads:
            mine = progress_tile_key(r.value)
            if mine is not None:
                seen[mine] += 1
            other = [m for v, m in r.others if progress_tile_key(v) != mine]
            conf = min(conf, other[0] if other else max(r.confidence, OTHERS_WITHIN))
        out[f"{board}/{PROGRESS_REGION}"] = Reading(pieces(seen), round(conf, 4))
    return out


OTHERS_WITHIN = 0.5  # ``vision.tiles.OTHERS_WITHIN``: the runner-ups a tile read lists are those less behind than this


def score_readings(state) -> dict[str, object]:
    """The score boards' readings: the top disk of each space."""
    K = _keys(state)
    out: dict[str, object] = dict.fromkeys(_SCORE_KEYS, ())
    for key, stack in occupied_score_spaces(state).items():
        out[key] = ((K.disk[stack[-1]], 1),)
    return out


def mask_readings(state) -> dict[str, object]:
    """The mask board's readings: turn-order reservations, ceremony spaces, the restore area."""
    K = _keys(state)
    out: dict[str, object] = {}
    for i in range(TURN_ORDER_SPACES):
        out[f"{MASK_BOARD}/turn_order.{i + 1}"] = ((K.disk[state.turn_order_track[i]], 1),) if i < len(state.turn_order_track) else ()
    ceremony: dict[str, dict] = {f"ceremony.{k}": {} for k in range(CEREMONY_SPACES)}
    resting: dict[str, int] = {}
    for p, ps in enumerate(state.players):
        rid = ceremony_region(ps.mask_space)
        if rid is None:
            resting[K.disk[p]] = resting.get(K.disk[p], 0) + 1
        else:
            ceremony[rid][K.disk[p]] = 1
    for rid, here in ceremony.items():
        out[f"{MASK_BOARD}/{rid}"] = pieces(here)
    out[f"{MASK_BOARD}/restore"] = pieces(resting)
    return out


def _occupant(pa, colours) -> Pieces:
    if pa.count == 0 or pa.owner is None:
        return ()
    c = colours[pa.owner]
    if pa.native == "warrior":
        return pieces({f"warrior_lying:{c}": 1})
    return pieces({f"{pa.native}:{c}:colour": 1})


def score_colours(state) -> dict[str, set[str]]:
    """Reading key -> the colours of every disk a state puts on that score space (hidden ones included)."""
    out: dict[str, set[str]] = {key: set() for key in _SCORE_KEYS}
    out.update(occupied_score_colours(state))
    return out


def occupied_score_colours(state) -> dict[str, set[str]]:
    """``score_colours`` for the occupied spaces only."""
    colours = [p.colour for p in state.players]
    return {key: {colours[p] for p in stack} for key, stack in occupied_score_spaces(state).items()}


def is_score_key(key: str) -> bool:
    return key.split("/", 1)[0] in SCORE_BOARDS
