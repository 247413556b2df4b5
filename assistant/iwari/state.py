"""The complete state of an Iwari game in progress, and its JSON form.

Owns the data model only: the cards (deck, display, hands, the play area, the discard pile), the map's pieces
(tents on tent spaces, each territory's totem stack in order), each tribe's supply, the feats and expeditions, the
scores with the half-journey and final tallies, and the turn: whose it is, how far it went, the round bookkeeping
for the end (I-END-2). The rules that change it live in ``assistant.iwari.rules``.

Conventions:

* Tribes are numbered in seat order: tribe ``p`` is player ``p``'s; in a 2-player game tribe 2 is the shared third
  tribe (I-2P-1). ``tribes`` holds their colours, which name them in scoring and on the table.
* Piles are lists with the top at the end. A card is a colour (``maps.COLOURS``); ``None`` is a card whose face is
  not known (a real table's face-down deck, a hand the camera never sees): the move that reveals it names it.
* A display slot holding ``None`` is empty (the deck ran out for good, I-END-2).
* A totem stack lists its tribes bottom first: the camera sees the last one (I-TURN-5).
* Everything the rules need is in the state (the edition's facts are copied in at set-up), so a state read back
  from its JSON plays on exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache

from assistant.errors import UserError
from assistant.iwari.maps import IwariMap, builtin_map, map_from_json, map_names, map_to_json

FORMAT = "tablewatch.iwari-state/1"
STAGES = ("start", "place", "third", "swap", "refill", "done")
PHASES = ("play", "over")


@dataclass(slots=True)
class Options:
    """The game's options: the optional modules, the spec's readings where it is ambiguous (§14) and the engine's
    readings of what the text does not say, copied from the edition at set-up (``assistant.iwari.edition``)."""

    feats: bool = False  # I-FEAT, optional module
    expeditions: bool = False  # I-EXP, optional module
    totem_cap: str = "A"  # I-TURN-5: A the tent leader's count, B the placer's own
    pair: str = "A"  # I-TURN-6: A two cards of one other colour, B any two other-colour cards
    third_can_win: bool = False  # I-2P-4, I-NIT-13
    third_tents_out_ends: bool = False  # I-2P-4
    third_earns_feats: bool = False  # I-NIT-13
    third_scores_expeditions: bool = False  # I-NIT-13
    feat_mountains: bool = False  # I-NIT-9: a mountain connection earns Honour / Respect

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @staticmethod
    def from_json(doc: dict) -> "Options":
        known = {f.name for f in fields(Options)}
        return Options(**{k: v for k, v in doc.items() if k in known})


@dataclass(frozen=True, slots=True)
class Player:
    """A seat at the table: the player's name (the table core names a move's player by ``players[p].name``)."""

    name: str


@dataclass(slots=True)
class Turn:
    """The turn in progress: ``stage`` start (nothing done), place (the player's pieces), third (the third tribe's
    pieces, I-2P-2), swap (a card discarded, its draw due, I-TURN-8), refill (drawing, I-TURN-7), done (the swap's
    card drawn). For the player's move and the third tribe's: its territory, pieces, cards, and whether its first
    piece went into an unexplored territory (then it is that one tent, I-TURN-2)."""

    player: int
    stage: str = "start"
    territory: str | None = None
    pieces: int = 0
    cards: int = 0
    opened: bool = False
    third_territory: str | None = None
    third_pieces: int = 0
    third_cards: int = 0
    third_opened: bool = False

    def copy(self) -> "Turn":
        return Turn(
            self.player,
            self.stage,
            self.territory,
            self.pieces,
            self.cards,
            self.opened,
            self.third_territory,
            self.third_pieces,
            self.third_cards,
            self.third_opened,
        )

    def to_json(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(slots=True)
class State:
    players: list[Player]  # seat order
    tribes: list[str]  # tribe colours: the players', then the third tribe's (2 players)
    map: IwariMap
    options: Options
    cards: dict[str, int]  # the cards in play per colour, after the removal (I-COMP-2)
    hand_size: int  # I-NIT-3
    deck: list
    display: list
    hands: list[list]
    played: list  # this turn's cards, face up in the play area (I-NIT-7)
    discard: list
    tents: dict[str, int]  # tent space -> tribe
    stacks: dict[str, list[int]]  # territory -> its totem stack, bottom first
    supply: list[list[int]]  # per tribe [tents, totems] at the start (I-NIT-2)
    tents_left: list[int]
    totems_left: list[int]
    feats: dict[str, int] = field(default_factory=dict)  # territory or "connection:<id>" -> feats there (I-FEAT-6)
    feat_log: list[dict] = field(default_factory=list)  # {"feat", "at", "tribe"} in the order placed
    feat_supply: dict[str, int] = field(default_factory=dict)  # feats not yet earned, by kind
    pending: list[dict] = field(default_factory=list)  # feats earned, to place at once: {"tribe", "feat", "options"}
    expeditions: list[dict] = field(default_factory=list)  # cards in play: {"id", "mission", "points", "done": [tribe]}
    scores: list[int] = field(default_factory=list)  # per tribe
    half: dict | None = None  # the half-journey tally (I-HALF-2), as ``scoring.Tally.to_json``
    final: dict | None = None  # the final tally (I-END-3)
    winners: list[int] | None = None  # I-END-4
    tie_break: str | None = None
    first: int = 0  # the first player (I-TURN-9)
    current: int = 0
    turn: Turn = field(default_factory=lambda: Turn(0))
    turns_taken: list[int] = field(default_factory=list)  # per player: turns ended (I-END-2)
    exhaustions: int = 0  # times the deck ran out (I-HALF-1, I-END-1)
    end: str | None = None  # why the end of the journey was triggered, once it was (I-END-1)
    phase: str = "play"
    seed: int | None = None  # the half journey's shuffle (None: the new deck's order is unknown, as at a table)
    # whether the cards that go into hands are followed: False in a tracker's view (``edits.conceal``), where a card
    # taken from the display becomes one more unseen card (a look may merge two players' draws)
    hands_seen: bool = True

    @property
    def n(self) -> int:
        """The number of players."""
        return len(self.players)

    @property
    def year(self) -> int:
        """The round being played, from 1 (the table core's events call it the year)."""
        return min(self.turns_taken, default=0) + 1

    @property
    def third(self) -> int | None:
        """The third tribe's index (2-player games, I-2P-1), else None."""
        return 2 if len(self.tribes) > len(self.players) else None

    @property
    def last(self) -> int:
        """The player whose turn ends a round: the one just before the first player (I-END-2)."""
        return (self.first - 1) % self.n

    def copy(self) -> "State":
        return State(
            list(self.players),
            list(self.tribes),
            self.map,
            self.options,
            self.cards,
            self.hand_size,
            list(self.deck),
            list(self.display),
            [list(h) for h in self.hands],
            list(self.played),
            list(self.discard),
            dict(self.tents),
            {t: list(s) for t, s in self.stacks.items()},
            self.supply,
            list(self.tents_left),
            list(self.totems_left),
            dict(self.feats),
            list(self.feat_log),
            dict(self.feat_supply),
            [dict(p) for p in self.pending],
            [{**e, "done": list(e["done"])} for e in self.expeditions],
            list(self.scores),
            self.half,
            self.final,
            None if self.winners is None else list(self.winners),
            self.tie_break,
            self.first,
            self.current,
            self.turn.copy(),
            list(self.turns_taken),
            self.exhaustions,
            self.end,
            self.phase,
            self.seed,
            self.hands_seen,
        )

    # ---- views the rules and the scoring share ---------------------------------------------------------------
    def tent_counts(self, territory: str) -> dict[int, int]:
        """Tribe -> its tents in ``territory``."""
        counts: dict[int, int] = {}
        tents = self.tents
        for s in self.map.spaces_of(territory):
            t = tents.get(s)
            if t is not None:
                counts[t] = counts.get(t, 0) + 1
        return counts

    def explored(self, territory: str) -> bool:
        """Whether any piece lies in ``territory`` (I-TERM-3); a totem needs a tent there, so a tent tells."""
        tents = self.tents
        return any(s in tents for s in self.map.spaces_of(territory)) or bool(self.stacks.get(territory))

    def totem_counts(self) -> dict[str, dict[str, int]]:
        """Territory -> tribe colour -> totems there, as ``scoring.score`` takes them."""
        out: dict[str, dict[str, int]] = {}
        for t, stack in self.stacks.items():
            if stack:
                counts: dict[str, int] = {}
                for tribe in stack:
                    counts[self.tribes[tribe]] = counts.get(self.tribes[tribe], 0) + 1
                out[t] = counts
        return out

    def tents_by_colour(self) -> dict[str, str]:
        """Tent space -> tribe colour, as ``scoring.score`` takes them."""
        return {s: self.tribes[t] for s, t in self.tents.items()}

    # ---- JSON --------------------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "players": [p.name for p in self.players],
            "tribes": list(self.tribes),
            "map": map_ref(self.map),
            "options": self.options.to_json(),
            "cards": dict(self.cards),
            "hand_size": self.hand_size,
            "deck": list(self.deck),
            "display": list(self.display),
            "hands": [list(h) for h in self.hands],
            "played": list(self.played),
            "discard": list(self.discard),
            "tents": dict(sorted(self.tents.items())),
            "stacks": {t: list(s) for t, s in sorted(self.stacks.items())},
            "supply": [list(s) for s in self.supply],
            "tents_left": list(self.tents_left),
            "totems_left": list(self.totems_left),
            "feats": dict(sorted(self.feats.items())),
            "feat_log": [dict(f) for f in self.feat_log],
            "feat_supply": dict(self.feat_supply),
            "pending": [dict(p, options=list(p["options"])) for p in self.pending],
            "expeditions": [{**e, "done": list(e["done"])} for e in self.expeditions],
            "scores": list(self.scores),
            "half": self.half,
            "final": self.final,
            "winners": self.winners,
            "tie_break": self.tie_break,
            "first": self.first,
            "current": self.current,
            "turn": self.turn.to_json(),
            "turns_taken": list(self.turns_taken),
            "exhaustions": self.exhaustions,
            "end": self.end,
            "phase": self.phase,
            "seed": self.seed,
            "hands_seen": self.hands_seen,
        }

    @classmethod
    def from_json(cls, doc: dict) -> "State":
        """The state ``doc`` describes (``to_json``); ``UserError`` for a document that is not one."""
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise UserError(f"not an Iwari state: the document's format must be {FORMAT!r}.")
        try:
            return cls(
                [Player(str(name)) for name in doc["players"]],
                list(doc["tribes"]),
                map_from_ref(doc["map"]),
                Options.from_json(doc["options"]),
                dict(doc["cards"]),
                int(doc["hand_size"]),
                list(doc["deck"]),
                list(doc["display"]),
                [list(h) for h in doc["hands"]],
                list(doc["played"]),
                list(doc["discard"]),
                dict(doc["tents"]),
                {t: list(s) for t, s in doc["stacks"].items()},
                [list(s) for s in doc["supply"]],
                list(doc["tents_left"]),
                list(doc["totems_left"]),
                dict(doc["feats"]),
                [dict(f) for f in doc["feat_log"]],
                dict(doc["feat_supply"]),
                [dict(p, options=tuple(p["options"])) for p in doc["pending"]],
                [{**e, "done": list(e["done"])} for e in doc["expeditions"]],
                list(doc["scores"]),
                doc["half"],
                doc["final"],
                None if doc["winners"] is None else list(doc["winners"]),
                doc["tie_break"],
                int(doc["first"]),
                int(doc["current"]),
                Turn(**doc["turn"]),
                list(doc["turns_taken"]),
                int(doc["exhaustions"]),
                doc["end"],
                doc["phase"],
                doc["seed"],
                bool(doc.get("hands_seen", True)),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise UserError(f"not an Iwari state ({type(exc).__name__}: {exc}); write it with State.to_json.") from None


@lru_cache(maxsize=16)
def _builtin(name: str) -> IwariMap:
    return builtin_map(name)


@lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    return tuple(map_names())


def map_ref(m: IwariMap):
    """A built-in map's name, or the whole map (an inline or owner's map) as JSON."""
    if m.name in _names() and _builtin(m.name) == m:
        return m.name
    return map_to_json(m)


def map_from_ref(ref) -> IwariMap:
    """The map a state names: a built-in name (loaded once) or an inline map."""
    return _builtin(ref) if isinstance(ref, str) else map_from_json(ref)
