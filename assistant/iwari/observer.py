"""What a perfect camera reads off an Iwari table: ``expected_readings(state)`` and ``region_kind(key)``.

Boards and readings (every region below is read; an empty region reads as the empty count ``()``):

* the map, board ``iwari-<map name>`` (``iwari-standard``, ...): tent space ``S01`` -> the tent on it,
  ``tent:<tribe colour>`` (count); ``totem.<territory>`` -> the top totem of the territory's stack,
  ``totem:<tribe colour>`` (top-of-stack: the totems under it do not show; history, the tracker's line, knows
  them). ``totem.<territory>#stack`` (``STACK``, only for a stack that holds totems) -> its tribe colours, bottom
  first (``"red,blue"``): no camera reads it, but the camera sees whether a stack changed
  (``totem.<territory>#changed``, ``vision.stacks``), and the tracker weighs that against it
  (``assistant.table.stacks``): a totem on a stack its own tribe tops shows no new top, yet changes the stack. With the feats module: ``feat.<territory>`` (the territory's feat space) and
  ``connection.<connection id>`` (the connection's band, where its feats lie) -> the feats there,
  ``feat:none:<kind>`` (count). The region ids are the layouts' (``calibration/layouts/iwari-*.json``).
* the cards, board ``iwari-display``: a display slot shows a printed card face, read by the tile reader
  (``vision.tiles``, gallery ``iwari-cards``): ``slot.1#tile`` ... ``slot.N#tile`` (N the display size) -> the
  colour name of the face-up card there (``"forest"``), or None once the slot stays empty (I-END-2); region kind
  ``tile-face``, weighed as the core weighs every tile face (``IwariExplainer.tile_evidence_cap``). The explainer
  reads it through ``shown_card``, which maps such a read to the card key the rest of the game counts in
  (``card:<colour>``). ``played`` -> the cards the turn played or swapped (I-TURN-6, I-TURN-8), face up in the
  play area until the turn ends (edition ``discard``, I-NIT-7), ``card:<colour>`` counted. The camera reads no
  ``played`` region: the play area is the play spaces ``played.1`` ... ``played.K`` (one card each, printed faces
  read as the display slots are: ``played.N#tile`` -> a colour name or None), and ``played_readings`` makes the
  ``played`` count of a look's space reads. ``play-area`` -> how many cards lie in the play area, whatever their
  colours, ``card`` counted: a card on a space is surely told from the bare printed space even where its colour is
  read unsurely, so this count weighs as its own reading (``played_readings``). The players may lay the cards on
  any spaces in any order, so the per-space keys are not expected. A display slot's or play space's own region (``slot.N``, ``played.N``, no
  ``#tile``) is not expected either: a card is no piece, and a reading there costs nothing.

Never read: hands, the deck, the discard pile (hidden or face down), the score track (the tablet shows the
scores the engine computes).
"""

from __future__ import annotations

from assistant.errors import UserError
from assistant.iwari.state import State
from assistant.table.observation import STACK, Pieces, Reading, pieces
from calibration.builtin import region_ids

DISPLAY_BOARD = "iwari-display"
PLAYED = f"{DISPLAY_BOARD}/played"
PLAY_AREA = f"{DISPLAY_BOARD}/play-area"  # the number of cards in the play area, any colour (``played_readings``)
PLAY_SPACE = "played."  # region prefix of a play space, where one card the turn played lies
TOTEM = "totem."  # region prefix of a totem circle
FEAT = "feat."  # region prefix of a territory's feats
CONNECTION = "connection."  # region prefix of a connection's band, where its feats lie


def map_board(state: State) -> str:
    """The map's board name (layout name): ``iwari-<map name>``."""
    return f"iwari-{state.map.name}"


SLOT = "slot."  # region prefix of a display slot
TILE = "#tile"  # suffix of a printed face's reading key (``assistant.table.observation.reading_key``)


def card(colour: str) -> Pieces:
    """The card key of one card of ``colour``, as a count: ``(("card:forest", 1),)``."""
    return (("card:" + colour, 1),)


def slot_key(slot: int) -> str:
    """The reading key of display slot ``slot`` (1-based)'s printed face: ``iwari-display/slot.1#tile``."""
    return f"{DISPLAY_BOARD}/{SLOT}{slot}{TILE}"


def shown_card(by_key: dict, slot: int):
    """What a look shows in display slot ``slot``, in card keys: ``card("forest")`` for a slot read ``"forest"``,
    ``()`` for a slot read empty, None when the slot was not read."""
    if slot_key(slot) not in by_key:
        return None
    colour = by_key[slot_key(slot)]
    return () if colour is None else card(colour)


def play_spaces() -> list[str]:
    """The play-space region ids of the card display layout (``played.1`` ...), in order; none when the layout
    cannot be loaded."""
    if DISPLAY_BOARD not in _PLAY_SPACES:
        try:
            ids = region_ids(DISPLAY_BOARD)
        except (UserError, OSError, KeyError, TypeError):
            ids = set()
        spaces = [r for r in ids if r.startswith(PLAY_SPACE) and r[len(PLAY_SPACE) :].isdigit()]
        _PLAY_SPACES[DISPLAY_BOARD] = sorted(spaces, key=lambda r: int(r[len(PLAY_SPACE) :]))
    return _PLAY_SPACES[DISPLAY_BOARD]


_PLAY_SPACES: dict[str, list[str]] = {}


def play_space_key(space: int) -> str:
    """The reading key of play space ``space`` (1-based)'s printed face: ``iwari-display/played.1#tile``."""
    return f"{DISPLAY_BOARD}/{PLAY_SPACE}{space}{TILE}"


def played_readings(readings: dict[str, Reading]) -> dict[str, Reading]:
    """The ``played`` reading (the turn's cards, ``card:<colour>`` counted) made of a look's play-space reads
    (``played.N#tile``: a colour name, or None for a bare space), whatever spaces the cards lie on; its confidence
    the lowest of the spaces'. Beside it the ``play-area`` reading, how many cards lie there: its confidence the
    lowest of the spaces' certainty that a card lies there or not (``_card_or_bare``), not of their colours. Neither
    unless every play space was read (a hand over one leaves the count unknown)."""
    spaces = play_spaces()
    keys = [f"{DISPLAY_BOARD}/{s}{TILE}" for s in spaces]
    if not keys or any(k not in readings for k in keys):
        return {}
    counts: dict[str, int] = {}
    for k in keys:
        colour = readings[k].value
        if colour is not None:
            counts["card:" + colour] = counts.get("card:" + colour, 0) + 1
    n = sum(counts.values())
    return {
        PLAYED: Reading(pieces(counts), min(readings[k].confidence for k in keys)),
        PLAY_AREA: Reading(pieces({"card": n}), min(_card_or_bare(readings[k]) for k in keys)),
    }


def _card_or_bare(read: Reading) -> float:
    """How sure a play space's read is that a card lies there (or none): a bare space's confidence is its margin over
    the likeliest card; a card's is the bare space's margin behind it among the runner-ups (``Reading.others``), and
    1.0 when the reader did not list the bare space (it lists the runner-ups within ``vision.tiles.OTHERS_WITHIN``,
    and a card's face ahead of the bare space by more is a card, whatever its colour)."""
    if read.value is None:
        return read.confidence
    return min(1.0, next((m for v, m in read.others if v is None), 1.0))


def stack_content(state: State, territory: str) -> str:
    """What a territory's totem stack holds, as its ``#stack`` reading says it: the tribe colours, bottom first,
    comma-separated ("" for no stack)."""
    return ",".join(state.tribes[t] for t in state.stacks.get(territory, ()))


def expected_readings(state: State) -> dict[str, Pieces]:
    mb = map_board(state)
    tribes = state.tribes
    out: dict[str, Pieces] = {}
    tents = state.tents
    for space in state.map.tent_spaces:
        t = tents.get(space)
        out[f"{mb}/{space}"] = () if t is None else (("tent:" + tribes[t], 1),)
    for territory in state.map.territories:
        stack = state.stacks.get(territory)
        out[f"{mb}/{TOTEM}{territory}"] = (("totem:" + tribes[stack[-1]], 1),) if stack else ()
        if stack:
            out[f"{mb}/{TOTEM}{territory}{STACK}"] = stack_content(state, territory)
    if state.options.feats:
        placed: dict[str, dict[str, int]] = {}
        for f in state.feat_log:
            where = placed.setdefault(f["at"], {})
            key = f"feat:none:{f['feat']}"
            where[key] = where.get(key, 0) + 1
        for territory in state.map.territories:
            out[f"{mb}/{FEAT}{territory}"] = pieces(placed.get(territory, {}))
        for c in state.map.connections:
            out[f"{mb}/{CONNECTION}{c.id}"] = pieces(placed.get(f"connection:{c.id}", {}))
    for slot, colour in enumerate(state.display, 1):
        out[slot_key(slot)] = colour
    counts: dict[str, int] = {}
    for colour in state.played:
        counts["card:" + colour] = counts.get("card:" + colour, 0) + 1
    out[PLAYED] = pieces(counts)
    out[PLAY_AREA] = pieces({"card": len(state.played)})
    return out


def region_kind(key: str) -> str:
    """How a camera reads the region at ``key``: a totem circle shows the top of its stack, a display slot's or a
    play space's ``#tile`` key is a printed card face, every other region is counted."""
    region = key.partition("/")[2]
    if region.startswith(TOTEM):
        return "top-of-stack"
    return "tile-face" if key.endswith(TILE) else "count"


def colours_in(value) -> dict[str, int]:
    """``(("card:forest", 2),)`` -> ``{"forest": 2}``: the colours of a reading's pieces, counted."""
    out: dict[str, int] = {}
    if isinstance(value, tuple):
        for key, n in value:
            colour = key.split(":")[1] if ":" in key else key
            out[colour] = out.get(colour, 0) + n
    return out
