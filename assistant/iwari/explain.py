"""Iwari's explainer: the game's side of the table core's search (``assistant.table.game.Explainer``).

The inverse model: from a position and a look, the candidate moves that may explain the look's differences
(``candidates``): a look adds tents and totems in one territory (a tent where a space shows one of the mover's
colour, a totem where a stack's top turned to it, or where the play area shows cards no piece explains yet: a totem
on a stack already topped by its colour does not show), paid with the cards the play area shows (I-TURN-6); a card
laid there alone is a swap (I-TURN-8); the display changes as cards are drawn from it, each slot refilled with the
card the look shows there (I-TURN-7); the play area cleared is the turn's end. A card drawn from the deck shows
nothing: it is owed before the turn can end, so the search adds it unseen. Hands are never seen: they are paid from
unseen cards (``board.hand_problem``), and a payment or a refill the visible cards contradict (every card of that
colour in sight) is illegal, so nothing explains it and the tracker raises an alert. One unsure read is forgiven: a
payment the play area does not show stays a candidate, one step behind, when turning a single play space read below
the alert confidence to a runner-up the tile reader lists within ``NEAR_TIE`` of it shows it (``_near_tie_shows``).

Also the evidence hooks (Iwari reads no score track, so score readings cost nothing), the shape of the search (a
turn, its stage), and the move a difference looks like when nothing legal explains it (``illegal_guess``): the
pieces that appeared, placed in turn, the first one the rules refuse, with its rule (I-TURN-1, I-TURN-2, I-TURN-4,
I-TURN-5, I-COMP-3, I-TURN-6).
"""

from __future__ import annotations

from collections import Counter

from assistant.iwari import moves as M
from assistant.iwari import rules
from assistant.iwari.board import MAX_CARDS, IllegalMoveError, payment_table, place_options, unseen
from assistant.iwari.edition import load_edition
from assistant.iwari.edits import apply_edit
from assistant.iwari.maps import COLOURS
from assistant.iwari.observer import (
    CONNECTION,
    FEAT,
    PLAY_AREA,
    PLAYED,
    TOTEM,
    card,
    colours_in,
    expected_readings,
    map_board,
    play_space_key,
    play_spaces,
    played_readings,
    shown_card,
    slot_key,
    stack_content,
)
from assistant.iwari.state import State
from assistant.table.evidence import Node, pile_miscount
from assistant.table.observation import STACK, Reading, pieces, pieces_within, split_key, split_reading_key, stack_differs

PREF_COST = 0.075  # the cost of one preference step beside the readings' confidences (as Wendake's, docs/tracker.md)
UNREAD = 1  # preference steps for a move whose place was not read in the look
UNSEEN_SWAP = 2  # ... for a swap whose card the play area does not show
# a display card face read weakly costs how far the expected colour fits behind the read, at most this: the tile
# reader's runner-ups weighed by the core as for Wendake's tile faces (its TILE_EVIDENCE_CAP, docs/tracker.md)
TILE_EVIDENCE_CAP = 0.3
# a play space read below the alert confidence whose runner-up fits at most this far behind may show the runner-up:
# any runner-up the tile reader lists (``vision.tiles.OTHERS_WITHIN``); docs/benchmarks.md, Issue 35, has the figures
NEAR_TIE = 0.5
TILE_NAMED = 0.1  # a display face read at this confidence or more names the card (Wendake's TILE_NAMED, docs/tracker.md)
# the top of a stack of two totems or more, read below STACKED_TOP_SURE, weighs at most STACKED_TOP_CONFIDENCE (under
# the alert confidence): from above, the totems below show beside a top that leans out of its circle, and such tops
# are read in another tribe's colour at up to 0.85 (docs/iwari-engine.md, "A stacked top read in the colour below it")
STACKED_TOP_SURE = 0.9
STACKED_TOP_CONFIDENCE = 0.5


class IwariExplainer:
    """Iwari's explainer for one tracker ``t`` (module docstring)."""

    phases = ("play", "over")
    pref_cost = PREF_COST
    tile_evidence_cap = TILE_EVIDENCE_CAP
    score_alert_confidence = 0.55  # no score readings in Iwari
    stubborn_steady_only = True  # a new piece where the moves change nothing is an illegal piece seen (I-TURN-1)

    def __init__(self, tracker, edition=None):
        self.t = tracker
        self.ed = edition or load_edition()
        self.lookalikes: dict = {}

    # ---- the game's moves, as the core plays them ------------------------------------------------------------
    def readings(self, readings: dict) -> dict:
        """An observation's readings as weighed: the play spaces together, as the ``played`` count of the turn's
        cards and the ``play-area`` count of cards (``observer.played_readings``); a ``played`` reading the look
        already gives (the play area read whole) is kept as it is, its count of cards at its confidence."""
        out = {**played_readings(readings), **readings}
        given = readings.get(PLAYED)
        if given is not None:
            out[PLAY_AREA] = Reading(pieces({"card": sum(n for _, n in given.value or ())}), given.confidence)
        return out

    def apply(self, state: State, move, validate: bool = True) -> None:
        rules.apply(state, move, validate=validate)

    def apply_edit(self, state: State, edit: dict) -> None:
        apply_edit(state, edit)

    def play_checked(self, state: State, move) -> None:
        v = rules.check(state, move)
        if v:
            raise IllegalMoveError(v)
        rules.apply(state, move, validate=False)

    def child(self, state: State, move, edit) -> State | None:
        st = state.copy()
        try:
            if edit is not None:
                apply_edit(st, edit)
            rules.apply(st, move)
        except (M.MoveError, ValueError):
            return None
        return st

    def follow(self, state: State, moves) -> State | None:
        st = state.copy()
        try:
            for m in moves:
                rules.apply(st, m)
        except (M.MoveError, ValueError):
            return None
        return st

    def shows_nothing(self, move) -> bool:
        """A card drawn from the deck shows nothing on the table."""
        return isinstance(move, M.Draw) and move.slot is None

    def fill_hidden(self, state: State, move):
        """Moves entered by hand need no edit: unseen cards stand for the cards a payment names."""
        return move, None

    def note_purchases(self, state: State, move) -> None:
        return None

    def missed_marker(self, node: Node, items, before: dict, base) -> str | None:
        return None

    def player_runs(self, states: list, moves: list):
        """(player, start, end, score changes by tribe colour) for each run of moves by one player."""
        i = 0
        while i < len(moves):
            p = states[i].current
            j = i
            while j < len(moves) and states[j].current == p:
                j += 1
            before, after = states[i], states[j]
            change = {
                c: after.scores[k] - before.scores[k] for k, c in enumerate(after.tribes) if after.scores[k] != before.scores[k]
            }
            yield p, i, j, change
            i = j

    def put_back(self, key: str, expected, seen) -> dict:
        board, region, _ = split_reading_key(key)
        text = f"{board} {region}: should hold {_words(expected)}, holds {_words(seen)} (put the pieces back)"
        if key.endswith(STACK):
            text = (
                f"{board} {region}: the totem stack changed where no move explains it; it should hold "
                f"{expected or 'nothing'}, bottom first (put it back as it was)"
            )
        if key == PLAY_AREA:
            want, got = dict(expected or ()).get("card", 0), dict(seen or ()).get("card", 0)
            text = (
                f"{board} play area: should hold {want} card{'s' * (want != 1)}, holds {got} (take back the cards "
                "no move paid with, or lay the ones missing)"
            )
        return {"key": key, "board": board, "region": region, "expected": _json(expected), "seen": _json(seen), "text": text}

    # ---- the evidence hooks: every region is counted, or a stack's top read; nothing is a score -------------------
    def turn_in_progress(self, diffs: list, exp: dict) -> bool:
        """Whether all that differs from a position (its expected readings ``exp``) is cards laid in the play area
        ahead of their piece (the players lay the cards, then reach for the piece): more cards than the position's,
        nothing else. No rule is broken yet: the tracker raises no alert and waits for the piece, and a re-read takes
        such a look for the moment before the piece."""
        return bool(diffs) and all(k in (PLAYED, PLAY_AREA) and _more_cards(v, exp.get(k)) for k, v, _ in diffs)

    def near_miscount(self, key: str, error, value, expected) -> bool:
        """A re-read past look passes one piece off only as a pile miscount (``pile_miscount``): a tent or totem read
        where the line has none is an illegal piece (I-TURN-4); and never in the play area, whose cards are each
        surely told from a bare space (cards laid ahead of their piece are ``turn_in_progress``)."""
        return key != PLAY_AREA and pile_miscount(error, value, expected)

    def is_score(self, key: str) -> bool:
        return False

    def differs(self, key: str, value, expected) -> bool:
        """A stack's ``#stack`` reading says what it holds or what it no longer holds (``stack_differs``)."""
        return stack_differs(value, expected) if key.endswith(STACK) else value != expected

    def counted(self, key: str) -> bool:
        return False

    def loose(self, key: str, value, conf: float, base: dict) -> bool:
        return False

    def weight(self, key: str, value, conf: float, exp: dict, items, base: dict) -> float:
        """How much a reading that disagrees with ``exp`` weighs: its confidence, but at most
        ``STACKED_TOP_CONFIDENCE`` for the top of a stack ``exp`` holds two totems or more in, read below
        ``STACKED_TOP_SURE``. Whether the stack changed is weighed apart, at its own confidence (its ``#stack``
        reading), so a totem put on a stack against the rules is still seen."""
        if conf < STACKED_TOP_SURE and key.rpartition("/")[2].startswith(TOTEM) and "," in str(exp.get(key + STACK, "")):
            return min(conf, STACKED_TOP_CONFIDENCE)
        return conf

    def discounted(self, items) -> bool:
        return False

    def in_flux(self, state: State):
        return None

    def score_cost(self, state: State, items, exp: dict) -> tuple:
        return 0.0, 0, items

    def score_sig(self, node: Node, items) -> frozenset:
        return frozenset()

    def check_scores(self, items) -> list:
        return []

    # ---- the shape of the search -------------------------------------------------------------------------------
    def open_actions(self, state: State) -> int:
        """Feats earned and not yet placed (I-FEAT-5: placed at once)."""
        return len(state.pending)

    def skip_cost(self, state: State, move) -> int:
        return 0

    def skipped(self, state: State, move) -> int:
        return 0

    def turn_open(self, state: State) -> bool:
        """A line that explains the look goes on only to place a feat just earned."""
        return bool(state.pending)

    def may_go_on(self, state: State) -> bool:
        return state.phase == "play"

    def owed_unseen(self, move) -> bool:
        """A card drawn from the deck (the refill) and the turn's end are owed though the camera may not see them: a
        turn whose cards all went to the discard pile between two looks shows nothing of its end."""
        return (isinstance(move, M.Draw) and move.slot is None) or isinstance(move, M.EndTurn)

    def phase(self, state: State) -> str:
        return state.phase

    def point_of_turn(self, state: State) -> tuple:
        t = state.turn
        return state.current, t.stage, t.pieces, t.third_pieces, len(state.hands[state.current])

    @staticmethod
    def _turn(state: State) -> tuple:
        t = state.turn
        return (
            state.current,
            t.stage,
            t.territory,
            t.pieces,
            t.cards,
            t.opened,
            t.third_territory,
            t.third_pieces,
            t.third_cards,
            t.third_opened,
        )

    def signature(self, node: Node) -> tuple:
        s = node.state
        return (
            hash(tuple(node.exp.items())),
            s.phase,
            self._turn(s),
            tuple(len(h) for h in s.hands),
            tuple(tuple(h) for h in s.hands),
            len(s.deck),
            s.exhaustions,
            s.end,
            tuple(s.scores),
            len(s.pending),
        )

    def visible(self, node: Node) -> tuple:
        """What the table shows: the expected readings and every stack's totems. A stack's height shows on the table
        though the camera reads only its top, and it scores (I-TOT-2), so two lines that differ in it are
        confirmed by the players (a totem on a stack its tribe tops already, or a card swap, I-TURN-8)."""
        stacks = tuple(sorted((t, tuple(s)) for t, s in node.state.stacks.items()))
        return (hash(tuple(node.exp.items())), stacks)

    def hidden(self, node: Node) -> tuple:
        """Score values first (``Alternatives`` reads them there), then hands, the deck and the turn."""
        s = node.state
        return (tuple(s.scores), tuple(tuple(h) for h in s.hands), len(s.deck), self._turn(s), s.exhaustions)

    # ---- the inverse model -------------------------------------------------------------------------------------
    def candidates(self, node: Node, items) -> list:
        """(move, preference, edit) triples worth trying from ``node`` (module docstring); every edit is None."""
        st = node.state
        if st.phase != "play":
            return []
        by_key = items.maps(self.t.alert_confidence)[1]
        if st.pending:
            return self._feat_candidates(st, by_key)
        out: list = []
        stage = st.turn.stage
        new_cards = self._new_cards(st, by_key)
        # the look's pieces beyond the line's, read once for the placements and the swap
        new = list(_new_pieces(st, node.exp, items)) if stage in ("start", "place", "third") else []
        # the game's first moves, with a later player's piece surely seen: the camera's first look came after play
        # began, and the cards the play area shows may be a later turn's
        caught_up = not self.t.moves and _later_turn_shown(st, node.exp, items, self.t.alert_confidence)
        new_cards = None if stage == "start" and caught_up else new_cards
        if stage in ("start", "place"):
            shown = _shown_in(st, new, st.current)
            out += self._place_candidates(st, items, new_cards, third=False, shown=shown)
        if st.third is not None and stage in ("place", "third") and st.turn.cards < MAX_CARDS:
            shown = _shown_in(st, new, st.third)
            out += self._place_candidates(st, items, new_cards, third=True, shown=shown)
        if stage == "start" and st.hands[st.current] and not _own_piece_seen(st, new):
            if new_cards is None or not new_cards:
                colours = [
                    c for c in COLOURS if c in st.hands[st.current] or (None in st.hands[st.current] and unseen(st)[c] > 0)
                ]
                out += [(M.Swap(c), UNSEEN_SWAP, None) for c in colours]
            else:
                out += [(M.Swap(c), 0, None) for c in sorted(new_cards)]
        if stage in ("place", "third", "swap", "refill") and len(st.hands[st.current]) < st.hand_size:
            out += self._draw_candidates(st, by_key, items.maps(self.t.alert_confidence)[0])
        if caught_up or not self._stands_for_shown(node, by_key):
            out.append((M.EndTurn(), 0, None))
        return out

    @staticmethod
    def _stands_for_shown(node: Node, by_key: dict) -> bool:
        """Whether the turn's moves in this look's line stand for cards the play area shows: a card swap of a card
        lying there (I-TURN-8), or a piece paid with cards the play area shows only as a near tie
        (``_near_tie_shows``). Then the turn cannot end within the look: its cards would have gone, and the cards
        seen be another turn's (one card stood for a turn's swap and the next turn's too)."""
        seen = by_key.get(PLAYED)
        if not isinstance(seen, tuple) or not seen:
            return False
        shown = Counter(colours_in(seen))
        k = len(node.moves)
        while k and not isinstance(node.moves[k - 1], M.EndTurn):
            k -= 1
        return any(
            (isinstance(m, M.Place) and +(Counter(m.cards) - shown)) or (isinstance(m, M.Swap) and shown[m.card])
            for m in node.moves[k:]
        )

    @staticmethod
    def _new_cards(st: State, by_key: dict) -> Counter | None:
        """The cards the play area shows beyond those the position played this turn; None when that is not known:
        the play area not read, read empty (no card played yet, or the turn ended and its cards went to the discard
        pile between two looks), or not showing the turn's cards (the turn ended and the next one began)."""
        seen = by_key.get(PLAYED)
        if not isinstance(seen, tuple) or not seen:
            return None
        shown = Counter(colours_in(seen))
        if +(Counter(st.played) - shown):
            return None
        return shown - Counter(st.played)

    def _near_tie_shows(self, st: State, items, pay: tuple) -> bool:
        """Whether turning one play space read below the alert confidence to a runner-up listed within ``NEAR_TIE``
        of its read shows the turn's cards and ``pay`` (I-TURN-6: an unsure read, not a sure wrong payment)."""
        by_conf = items.maps(self.t.alert_confidence)[0]
        keys = [play_space_key(i) for i in range(1, len(play_spaces()) + 1)]
        if not keys or any(k not in by_conf for k in keys):
            return False
        want = Counter(st.played) + Counter(pay)
        shown = Counter(by_conf[k][0] for k in keys if by_conf[k][0] is not None)
        for k in keys:
            value, conf = by_conf[k]
            if conf >= self.t.alert_confidence:
                continue
            for other, margin in self.t.runner_ups(k, value, conf).items():  # the tile reader's, kept by the tracker
                if margin > NEAR_TIE or other is None:
                    continue
                turned = shown.copy()
                if value is not None:
                    turned[value] -= 1
                turned[other] += 1
                if not +(want - turned):
                    return True
        return False

    def _place_candidates(self, st: State, items, new_cards: Counter | None, third: bool, shown: set) -> list:
        """The placements the look may show; a totem that shows nothing (on a stack its tribe tops already) only in a
        territory where the look shows that tribe's pieces, if it shows them anywhere: a turn's pieces go into one
        territory (I-TURN-1), so a piece seen in another one is not explained by it. A payment the play area does not
        show is no candidate (I-TURN-6) unless one unsure play space's runner-up shows it (``_near_tie_shows``): then
        it ranks one step behind."""
        tribe = st.third if third else st.current
        colour = st.tribes[tribe]
        mb = map_board(st)
        by_key = items.maps(self.t.alert_confidence)[1]
        out = []
        for terr, piece, space, pay in place_options(st, third):
            # cards not seen: a pair ranks behind the one matching card players mostly pay with
            unpaid = 0 if new_cards is not None else len(pay) - 1
            if new_cards is not None and +(Counter(pay) - new_cards):
                if not self._near_tie_shows(st, items, pay):
                    continue  # the play area does not show these cards
                unpaid = UNREAD
            if piece == "tent":
                seen = by_key.get(f"{mb}/{space}")
                if seen is None:
                    out.append((M.Place("tent", terr, pay, space, third), UNREAD + unpaid, None))
                elif dict(seen).get("tent:" + colour):
                    out.append((M.Place("tent", terr, pay, space, third), unpaid, None))
                continue
            seen = by_key.get(f"{mb}/{TOTEM}{terr}")
            stack = st.stacks.get(terr)
            top = st.tribes[stack[-1]] if stack else None
            if seen is None:
                pref = UNREAD
            elif dict(seen).get("totem:" + colour):
                if top == colour and shown and terr not in shown:
                    continue  # shows nothing here, while the tribe's piece shows in another territory (I-TURN-1)
                pref = 0 if top != colour else (0 if new_cards else UNREAD)  # the same top: only the cards tell
            elif isinstance(seen, tuple) and seen and top is not None and not dict(seen).get("totem:" + top):
                pref = UNREAD  # another tribe's totem went on top of it in the same look
            elif top is not None and self._restacked_under(st, by_key, terr):
                pref = UNREAD  # the stack changed, yet its top reads as before: a new top read in the colour below it
            else:
                continue
            out.append((M.Place("totem", terr, pay, None, third), pref + unpaid, None))
        return out

    @staticmethod
    def _restacked_under(st: State, by_key: dict, terr: str) -> bool:
        """Whether the look's ``#stack`` reading of ``terr`` says its stack changed from what ``st`` holds there."""
        seen = by_key.get(f"{map_board(st)}/{TOTEM}{terr}{STACK}")
        return seen is not None and stack_differs(seen, stack_content(st, terr))

    def _draw_candidates(self, st: State, by_key: dict, by_conf: dict) -> list:
        """The draws (I-TURN-7): from the deck, unseen; from a display slot whose printed face the look shows turned
        to another card (``shown_card``), refilled with it; a face read below ``TILE_NAMED`` names no card, and the
        draw it shows ranks one step behind, as one from a slot not read."""
        out = []
        if st.deck:
            out.append((M.Draw(), 0, None))
        known_top = st.deck[-1] if st.deck else None
        pool = None
        for slot, colour in enumerate(st.display, 1):
            if colour is None:
                continue
            seen = shown_card(by_key, slot)  # the printed face read there, as card keys (None: not read)
            shows = UNREAD if seen is None or by_conf[slot_key(slot)][1] < TILE_NAMED else 0
            if not st.deck:
                if seen is None or seen == ():
                    out.append((M.Draw(slot), shows, None))
                continue
            if known_top is not None:
                if seen is None or seen != card(colour):
                    out.append((M.Draw(slot, refill=known_top), shows, None))
                continue
            if seen is not None and seen == card(colour):
                continue  # the slot shows its card still
            shown = next(iter(colours_in(seen)), None) if seen else None
            if shown is not None:
                out.append((M.Draw(slot, refill=shown), shows, None))
            if seen is None or len(st.hands[st.current]) + 1 < st.hand_size:
                # not read, or taken twice in one look: any colour an unseen card may have, one step behind
                pool = unseen(st) if pool is None else pool
                out += [(M.Draw(slot, refill=c), UNREAD, None) for c in COLOURS if c != shown and pool[c] > 0]
        return out

    def _feat_candidates(self, st: State, by_key: dict) -> list:
        due = st.pending[0]
        mb = map_board(st)
        out = []
        for at in due["options"]:
            key = f"{mb}/{CONNECTION}{at.split(':', 1)[1]}" if at.startswith(M.CONNECTION) else f"{mb}/{FEAT}{at}"
            seen = by_key.get(key)
            placed = sum(1 for f in st.feat_log if f["at"] == at and f["feat"] == due["feat"])
            shows = isinstance(seen, tuple) and dict(seen).get(f"feat:none:{due['feat']}", 0) > placed
            out.append((M.PlaceFeat(due["feat"], at), 0 if shows else UNREAD, None))
        return out

    def illegal_guess(self, node: Node, items):
        """(move, violation, player) for the pieces that appeared, placed in turn for the current player (or the
        third tribe) at the first one the rules refuse; tried from the accepted position, then from the end of the
        best line; None when none is refused."""
        for st in (self.t.state, node.state):
            if st.phase != "play" or st.pending:
                continue
            guess = self._guess_from(st, items)
            if guess is not None:
                return guess
        return None

    def _guess_from(self, st: State, items):
        p = st.current
        new = []
        exp = expected_readings(st)
        for region, piece_key in _new_pieces(st, exp, items):
            colour = split_key(piece_key)[1]
            placed = _placed(st, region, piece_key)
            if colour not in st.tribes or placed is None:
                continue
            tribe = st.tribes.index(colour)
            piece, terr, space = placed
            new.append((tribe != p, piece == "totem", piece, terr, space, tribe))
        for terr, tribe in _restacked(st, exp, items, self.t.alert_confidence):
            new.append((tribe != p, True, "totem", terr, None, tribe))
        s = st.copy()
        new_cards = self._new_cards(st, items.maps(self.t.alert_confidence)[1]) or Counter()
        for _, _, piece, terr, space, tribe in sorted(new):
            third = tribe != p
            if third and tribe != s.third:
                continue  # another player's piece: not a move of this turn
            move = self._guess_place(s, piece, terr, space, third, new_cards)
            v = rules.check(s, move)
            if v:
                table = [x for x in v if x.rule != "I-TURN-6"]
                return move, (table or v)[0], p
            rules.apply(s, move, validate=False)
            new_cards -= Counter(move.cards)
        return None

    @staticmethod
    def _guess_place(s: State, piece: str, terr: str, space, third: bool, new_cards: Counter) -> M.Place:
        """The piece as a Place, paid as the play area shows (a legal payment from the cards seen when there is one,
        else the cards seen as they lie: a matching card, else a pair)."""
        colour = s.map.territories[terr]
        used = s.turn.third_cards if third else s.turn.cards
        pays = payment_table(s, s.current, MAX_CARDS - used).get(colour, [])
        fits = [pay for pay in pays if not +(Counter(pay) - new_cards)]
        if fits:
            return M.Place(piece, terr, fits[0], space, third)
        seen = sorted(new_cards.elements(), key=lambda c: (c != colour, -new_cards[c], c))
        pay = tuple(seen[:1]) if seen[:1] == [colour] else tuple(seen[:2])
        return M.Place(piece, terr, pay or (pays or [(colour,)])[0], space, third)


def _new_pieces(st: State, exp: dict, items):
    """(region, piece key) of each piece the look shows on the map, read at any confidence, beyond what ``exp``
    expects there."""
    mb = map_board(st) + "/"
    for key, seen, _ in items:
        if key.startswith(mb) and isinstance(seen, tuple) and seen != exp.get(key):
            before = dict(exp.get(key) or ())
            yield from ((key[len(mb) :], piece_key) for piece_key, n in seen if n > before.get(piece_key, 0))


def _restacked(st: State, exp: dict, items, sure: float):
    """(territory, tribe) of each stack the look surely shows changed from what ``exp`` (``st``'s expected readings)
    holds there (its ``#stack`` reading) while its top still reads its tribe's colour: a totem of that tribe put on
    it, which shows no new top."""
    mb = map_board(st) + "/"
    by_key = items.maps(sure)[1]
    for key, seen, conf in items:
        if not (key.startswith(mb + TOTEM) and key.endswith(STACK)) or conf < sure or key not in exp:
            continue
        top = key[: -len(STACK)]
        if stack_differs(seen, exp[key]) and by_key.get(top) == exp[top]:
            terr = top[len(mb + TOTEM) :]
            yield terr, st.stacks[terr][-1]


def _placed(st: State, region: str, piece_key: str) -> tuple[str, str, str | None] | None:
    """(piece, territory, tent space or None) a piece seen in ``region`` stands for: a tent on a tent space, a totem
    on a totem circle; None elsewhere."""
    piece = split_key(piece_key)[0]
    if piece == "tent" and region in st.map.tent_spaces:
        return "tent", st.map.tent_spaces[region], region
    if piece == "totem" and region.startswith(TOTEM):
        return "totem", region[len(TOTEM) :], None
    return None


def _later_turn_shown(st: State, exp: dict, items, sure: float) -> bool:
    """Whether the look surely shows a new tent or stack top of a tribe that neither plays this turn nor is its third
    tribe: a later player's turn was played too, so the cards in the play area may be that turn's, and this turn
    may end within the look."""
    mine = {st.tribes[st.current]} | ({st.tribes[st.third]} if st.third is not None else set())
    by_conf = items.maps(sure)[0]
    for region, piece_key in _new_pieces(st, exp, items):
        piece, colour, _ = split_key(piece_key)
        if colour in st.tribes and colour not in mine and by_conf[map_board(st) + "/" + region][1] >= sure:
            if _placed(st, region, piece_key) is not None:
                return True
    return False


def _own_piece_seen(st: State, new: list) -> bool:
    """Whether the look's new pieces (``_new_pieces``) hold a tent or a stack top of the current player's colour: a
    card swap, instead of a regular move (I-TURN-8), does not explain that turn."""
    colour = st.tribes[st.current]
    return any(piece_key in ("tent:" + colour, "totem:" + colour) for _, piece_key in new)


def _shown_in(st: State, new: list, tribe: int) -> set:
    """The territories where the look's new pieces (``_new_pieces``) show a tent or a stack top of ``tribe``'s
    colour."""
    colour = st.tribes[tribe]
    out = set()
    for region, piece_key in new:
        placed = _placed(st, region, piece_key) if piece_key in ("tent:" + colour, "totem:" + colour) else None
        if placed is not None:
            out.add(placed[1])
    return out


def _more_cards(value, expected) -> bool:
    """Whether a play-area reading shows every card ``expected`` holds and more (card counts)."""
    return isinstance(value, tuple) and isinstance(expected, tuple) and value != expected and pieces_within(expected, value)


def _json(v):
    return {k: n for k, n in v} if isinstance(v, tuple) else v


def _words(v) -> str:
    if not v:
        return "nothing"
    if not isinstance(v, tuple):
        return str(v)
    parts = []
    for key, n in v:
        cls, colour, side = split_key(key)
        parts.append(f"{n} {'' if colour == 'none' else colour + ' '}{side + ' ' if side else ''}{cls}")
    return ", ".join(parts)
