"""The complete state of a Wendake game in progress, and its JSON form.

Owns the data model only: the map (guards, productive-area occupants, Home stacks, canoes), each player's
village board, the score tracks, the mask board, the progress rows, the advanced tiles, the mask deck and
the turtle stacks, plus turn order, the current player, the year and the phase. The rules that change it
live in the ``rules`` package.

Conventions:
* Players are numbered 0..N-1 in seating order; ``turn_order`` lists them first to last.
* A grid slot is ``(row, col)`` with row 0 at the top (W-LINE-1); stored as the index ``row * 3 + col``.
* Piles are lists with the **top at the end**. An entry of ``None`` is a card or tile whose face is not
  known (a real table's face-down deck); the move that reveals it supplies its identity.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TRACKS = ("economic", "military", "ritual", "mask")
RESOURCES = ("leather", "fish", "corn", "beans", "pumpkins")
ANIMALS = ("leather", "fish")
VEGETABLES = ("corn", "beans", "pumpkins")
NATIVES = ("warrior", "woman", "hunter")
PA_NATIVE = {"harvest": "woman", "hunt": "hunter"}
PHASES = ("actions", "restore", "over")


def slot_index(slot) -> int:
    row, col = slot
    return row * 3 + col


def slot_of(index: int) -> tuple[int, int]:
    return divmod(index, 3)


@dataclass(slots=True)
class ProductiveArea:
    """A productive area: its kind from the map, and who occupies it.

    Outside a Home it holds at most one native (W-TERM-4): ``owner`` and ``native`` ("woman", "hunter", or
    "warrior" for an outpost), ``count`` 1. In a Home it holds the owner's stack: ``count`` 0..7 of the
    matching native; ``owner`` stays set while the stack is empty.
    """

    kind: str  # "harvest" | "hunt"
    crop: str | None = None
    owner: int | None = None
    native: str | None = None
    count: int = 0

    def copy(self) -> "ProductiveArea":
        return ProductiveArea(self.kind, self.crop, self.owner, self.native, self.count)

    @property
    def empty(self) -> bool:
        return self.count == 0


@dataclass(slots=True)
class Territory:
    id: str
    home_of: int | None  # player whose Home this is, or None
    guards: list[int]  # standing warriors per player
    pas: list[ProductiveArea]

    def copy(self) -> "Territory":
        return Territory(self.id, self.home_of, self.guards[:], [p.copy() for p in self.pas])


@dataclass(slots=True)
class GridTile:
    tile: str
    side: str = "action"  # "action" | "ritual"


@dataclass(slots=True)
class PlayerState:
    name: str
    colour: str
    home: str
    tribe: str | None = None
    grid: list[GridTile | None] = field(default_factory=list)  # 9 slots, index row*3+col
    markers: list[int] = field(default_factory=list)  # slots holding this year's action markers, in order
    fire: int | None = None  # slot holding the Sacred Fire marker (W-ACT-11)
    sages: int = 4  # action markers still on the Sages area
    reserved: bool = False  # turn-order marker placed this year (W-RND-3 B)
    long_house: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NATIVES, 0))
    canoe_reserve: int = 4
    resources: dict[str, int] = field(default_factory=lambda: dict.fromkeys(RESOURCES, 0))
    beavers: int = 0
    hand: list[str | None] = field(default_factory=list)  # mask cards in hand
    played: list[str | None] = field(default_factory=list)  # mask cards played this year
    progress: list[str] = field(default_factory=list)  # progress tiles owned
    progress_used: list[str] = field(default_factory=list)  # turned face down this year (W-PRG-3)
    turtles: list[dict] = field(default_factory=list)  # {"type": id, "hidden": {"track"|"tracks"} or None}
    swap_tokens: int = 1
    flag: str | None = None
    tracks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TRACKS, 0))
    mask_space: str | None = None  # None: the disk is in the Restore Area
    below: list[str] = field(default_factory=list)  # tiles slid below the grid during the restore (W-RES-3)
    set_aside: list[str] = field(default_factory=list)  # personal pile of set-aside tiles (W-RES-4)
    # Mohawk's black warrior (W-TRB-3), an 8th warrior: {"at": "guard"|"outpost"|"long_house", "territory", "pa"}
    mohawk: dict | None = None
    ojibwa_used: bool = False  # the black Ojibwa marker's double placement was used this year (W-TRB-4)

    def copy(self) -> "PlayerState":
        return PlayerState(
            self.name, self.colour, self.home, self.tribe,
            [GridTile(g.tile, g.side) if g else None for g in self.grid], self.markers[:], self.fire, self.sages, self.reserved,
            dict(self.long_house), self.canoe_reserve, dict(self.resources), self.beavers, self.hand[:],
            self.played[:], self.progress[:], self.progress_used[:], [dict(t) for t in self.turtles],
            self.swap_tokens, self.flag, dict(self.tracks), self.mask_space, self.below[:], self.set_aside[:],
            dict(self.mohawk) if self.mohawk else None, self.ojibwa_used,
        )


@dataclass(slots=True)
class PendingAction:
    """An action of the activated tile (or of the tile the Sacred Fire activated) not yet resolved."""

    kind: str
    n: int
    source: str  # "tile" | "fire"


@dataclass(slots=True)
class Turn:
    """The player's turn in progress: what was placed, and which printed actions are still open.

    Actions are resolved top to bottom (W-TURN-1): an action move resolves the first open action of its kind
    at or after ``cursor`` and moves the cursor past it, so the ones skipped over are given up.
    """

    player: int
    placed: str | None = None  # None, "tile" or "reserve"
    slot: int | None = None
    pending: list[PendingAction] = field(default_factory=list)
    cursor: int = 0
    free_order: bool = False  # the L1 Ritual tile was flipped: open actions in any order (W-PRG-L1-3, W-TURN-2)
    bonus: bool = False  # Ojibwa's second placement in a row (W-TRB-4)
    done: list[str] = field(default_factory=list)  # action kinds resolved and "transfer"s, in order (W-XFER-4)

    def copy(self) -> "Turn":
        return Turn(self.player, self.placed, self.slot,
                    [PendingAction(p.kind, p.n, p.source) for p in self.pending], self.cursor, self.free_order, self.bonus,
                    self.done[:])


# Each game option: (field, rule ID, default, what True means). Defaults are the spec's (section 20).
OPTION_SPECS = (
    ("attack_on_entry_extra_step", "W-FIGHT-5", False, "an attack made while entering costs an extra step (reading B)"),
    ("smallpox_from_home_only", "W-ACT-10b", False, "smallpox takes the native from your Home only (002)"),
    ("tuscarora_hunter_survives", "W-TRB-10", False, "an attacked Tuscarora hunter survives; only the attacker is injured (000/002/003)"),
    ("recall_one_card", "W-PRG-L2-5", False, "the Recall tile returns only one played mask card (002)"),
    ("ritual_most_common_additional", "W-PRG-L2-3", False, "the Most-common tile scores the most common type in addition to the least (002)"),
    ("extra_exchange_no_draw", "W-PRG-L1-8", False, "with the Extra-exchange tile the smallpox card is never drawn (001/003, compulsory)"),
    ("alliance_flags_001", "W-PRG-L1-2", False, "flag taking as in 001: a player who holds a flag skips it; the other flag stays in the supply"),
    ("ties_win_empty", "W-PRG-L3-2", False, "'win ties' also wins territories where nobody has a guard"),
    ("take_back_basic_only", "W-RES-4", False, "only basic tiles can be taken back from your set-aside pile (002)"),
    ("transfer_between_actions", "W-XFER-1", True, "transfers are allowed between two actions of the same tile"),
    ("ojibwa_actions_only", "W-TRB-4", False, "both Ojibwa placements in a row must activate tiles (no turn-order reservation)"),
    ("discounts_combine", "W-PRG-4", True, "discount tiles of different levels may be combined on one purchase"),
    ("solo_turtles_immediate", "W-SOLO-13", False, "solo: level 3 and 4 turtles score when claimed, level 5 at the end"),
    ("ghost_switch_territory", "W-SOLO-10", True, "solo: the Ghost places in the other flag territory when its chosen one is full"),
)


@dataclass(slots=True)
class Options:
    """Game options: the readings the spec leaves open, each with its default (spec section 20; OPTION_SPECS)."""

    attack_on_entry_extra_step: bool = False
    smallpox_from_home_only: bool = False
    tuscarora_hunter_survives: bool = False
    recall_one_card: bool = False
    ritual_most_common_additional: bool = False
    extra_exchange_no_draw: bool = False
    alliance_flags_001: bool = False
    ties_win_empty: bool = False
    take_back_basic_only: bool = False
    transfer_between_actions: bool = True
    ojibwa_actions_only: bool = False
    discounts_combine: bool = True
    solo_turtles_immediate: bool = False
    ghost_switch_territory: bool = True

    def to_json(self) -> dict:
        return {name: getattr(self, name) for name, *_ in OPTION_SPECS}

    @staticmethod
    def from_json(d: dict) -> "Options":
        known = {name for name, *_ in OPTION_SPECS}
        return Options(**{k: bool(v) for k, v in d.items() if k in known})


def options_in_force(options: "Options") -> list[dict]:
    """Every game option with its rule ID, its value, its default and what it means (for the tablet)."""
    return [{"option": name, "rule": rule, "value": getattr(options, name), "default": default,
             "changed": getattr(options, name) != default, "when_true": meaning}
            for name, rule, default, meaning in OPTION_SPECS]


@dataclass(slots=True)
class SoloState:
    """The Ghost of the solo game (W-SOLO): its cards, disks and this year's progress through its actions."""

    difficulty: str  # easy | medium | hard (W-SOLO-1)
    ghost: int  # the Ghost's player index
    cards: list[str]  # the 3 Ghost card sides in play, left to right (W-SOLO-4)
    under: list[list[str | None]]  # mask cards lying under each Ghost card, oldest first (W-SOLO-8)
    year_card: str | None = None  # this year's mask card (the one placed last); None until revealed
    year_slot: int = 0  # the Ghost card above this year's mask card
    awaiting_card: bool = True  # the year's mask card is still to be revealed (W-SOLO-8)
    actions_done: int = 0  # Ghost actions taken this year (0..3)
    progress_level: int = 1  # Ghost disk #3 beside the price tokens (W-SOLO-10)
    advanced_disk: int = 0  # Ghost disk #5: index of the display tile above it (W-SOLO-11)
    mask_index: int = 0  # Ghost disk #4: index of its mask space (W-SOLO-6, W-SOLO-11)
    removed: list[str] = field(default_factory=list)  # progress and advanced tiles the Ghost removed from the game
    score_tracks: list[str] = field(default_factory=list)  # the 2 tracks of the Ghost's score disks (W-SOLO-5)

    def copy(self) -> "SoloState":
        return SoloState(self.difficulty, self.ghost, self.cards[:], [u[:] for u in self.under], self.year_card,
                         self.year_slot, self.awaiting_card, self.actions_done, self.progress_level,
                         self.advanced_disk, self.mask_index, self.removed[:], self.score_tracks[:])

    def to_json(self) -> dict:
        return {"difficulty": self.difficulty, "ghost": self.ghost, "cards": self.cards, "under": self.under,
                "year_card": self.year_card, "year_slot": self.year_slot, "awaiting_card": self.awaiting_card,
                "actions_done": self.actions_done, "progress_level": self.progress_level,
                "advanced_disk": self.advanced_disk, "mask_index": self.mask_index, "removed": self.removed,
                "score_tracks": self.score_tracks}

    @staticmethod
    def from_json(d: dict) -> "SoloState":
        return SoloState(d["difficulty"], d["ghost"], list(d["cards"]), [list(u) for u in d["under"]], d["year_card"],
                         d["year_slot"], d["awaiting_card"], d["actions_done"], d["progress_level"],
                         d["advanced_disk"], d["mask_index"], list(d.get("removed", [])), list(d.get("score_tracks", [])))


@dataclass(slots=True)
class State:
    players: list[PlayerState]
    pairs: tuple[tuple[str, str], tuple[str, str]]
    territories: dict[str, Territory]
    lakes: dict[str, list[int]]  # canoes per player on each lake
    year: int = 1
    phase: str = "actions"
    turn_order: list[int] = field(default_factory=list)
    current: int | None = None  # the player to decide next (actions or restore)
    turn: Turn | None = None
    turn_order_track: list[int] = field(default_factory=list)  # reservations this year, leftmost first (W-TO-1)
    restore_queue: list[int] = field(default_factory=list)  # players still to choose in W-RES-4
    progress_rows: dict[int, list[str]] = field(default_factory=dict)  # level -> face-up tiles
    display: list[str | None] = field(default_factory=list)  # the advanced tiles on display
    advanced_pile: list[str | None] = field(default_factory=list)  # current level's draw pile (top at end)
    advanced_pile_l2: list[str | None] = field(default_factory=list)  # level 2 pile waiting aside
    advanced_level: int = 1
    mask_deck: list[str | None] = field(default_factory=list)
    mask_discard: list[str | None] = field(default_factory=list)
    turtle_stacks: dict[str, list[dict | None]] = field(default_factory=dict)
    options: Options = field(default_factory=Options)
    flag_supply: list[str] = field(default_factory=lambda: ["english", "french"])  # flag tiles not taken (W-PRG-L1-2)
    progress_box: dict[int, list[str]] = field(default_factory=dict)  # progress tiles left in the box (W-SET-3; Oneida)
    solo: SoloState | None = None

    @property
    def n(self) -> int:
        return len(self.players)

    def copy(self) -> "State":
        return State(
            [p.copy() for p in self.players], self.pairs,
            {k: t.copy() for k, t in self.territories.items()}, {k: v[:] for k, v in self.lakes.items()},
            self.year, self.phase, self.turn_order[:], self.current, self.turn.copy() if self.turn else None,
            self.turn_order_track[:], self.restore_queue[:], {k: v[:] for k, v in self.progress_rows.items()},
            self.display[:], self.advanced_pile[:], self.advanced_pile_l2[:], self.advanced_level,
            self.mask_deck[:], self.mask_discard[:], {k: v[:] for k, v in self.turtle_stacks.items()},
            self.options, self.flag_supply[:], {k: v[:] for k, v in self.progress_box.items()},
            self.solo.copy() if self.solo else None,
        )

    # ---- derived counts --------------------------------------------------------------------------------
    def canoes_in_play(self, p: int) -> int:
        return sum(v[p] for v in self.lakes.values())

    def occupied_pas(self, p: int, native: str) -> int:
        """Productive areas holding one of p's ``native`` (a Home stack counts once; W-TUR-2)."""
        return sum(1 for t in self.territories.values() for pa in t.pas
                   if pa.owner == p and pa.native == native and pa.count > 0)

    def natives_on_map(self, p: int) -> dict[str, int]:
        count = dict.fromkeys(NATIVES, 0)
        for t in self.territories.values():
            count["warrior"] += t.guards[p]
            for pa in t.pas:
                if pa.owner == p and pa.count:
                    count[pa.native] += pa.count
        return count

    def home_counts(self, p: int) -> dict[str, int]:
        """Warriors standing in p's Home and the sizes of its two stacks (W-ACT-12 b)."""
        home = self.territories[self.players[p].home]
        counts = {"warrior": home.guards[p], "woman": 0, "hunter": 0}
        for pa in home.pas:
            if pa.owner == p and pa.native in ("woman", "hunter"):
                counts[pa.native] += pa.count
        return counts

    def is_ghost(self, p: int | None) -> bool:
        return self.solo is not None and p == self.solo.ghost

    def humans(self) -> list[int]:
        """The players who take turns with action tiles (everyone but the solo Ghost)."""
        return [i for i in range(len(self.players)) if not self.is_ghost(i)]

    def mohawk_guard_at(self, p: int, tid: str) -> bool:
        m = self.players[p].mohawk
        return m is not None and m["at"] == "guard" and m["territory"] == tid

    def mask_space_holder(self, space: str) -> int | None:
        for i, pl in enumerate(self.players):
            if pl.mask_space == space:
                return i
        return None

    # ---- JSON ------------------------------------------------------------------------------------------
    def to_json(self) -> dict:
        return {
            "format": "tablewatch.wendake.state/1",
            "year": self.year,
            "phase": self.phase,
            "turn_order": self.turn_order,
            "current": self.current,
            "turn": None if self.turn is None else {
                "player": self.turn.player, "placed": self.turn.placed,
                "slot": None if self.turn.slot is None else list(slot_of(self.turn.slot)),
                "pending": [{"kind": a.kind, "n": a.n, "source": a.source} for a in self.turn.pending],
                "cursor": self.turn.cursor, "free_order": self.turn.free_order, "bonus": self.turn.bonus,
                "done": self.turn.done,
            },
            "pairs": [list(p) for p in self.pairs],
            "options": self.options.to_json(),
            "map": {
                "territories": {
                    tid: {"home_of": t.home_of, "guards": t.guards,
                          "pas": [{"kind": pa.kind, **({"crop": pa.crop} if pa.crop else {}),
                                   "owner": pa.owner, "native": pa.native, "count": pa.count} for pa in t.pas]}
                    for tid, t in self.territories.items()
                },
                "lakes": self.lakes,
            },
            "players": [_player_json(p) for p in self.players],
            "mask_board": {
                "turn_order_track": self.turn_order_track,
                "deck": self.mask_deck,
                "discard": self.mask_discard,
                "turtle_stacks": self.turtle_stacks,
            },
            "restore_queue": self.restore_queue,
            "progress_rows": {str(k): v for k, v in self.progress_rows.items()},
            "advanced": {"level": self.advanced_level, "display": self.display, "pile": self.advanced_pile,
                         "pile_l2": self.advanced_pile_l2},
            "flag_supply": self.flag_supply,
            "progress_box": {str(k): v for k, v in self.progress_box.items()},
            "solo": self.solo.to_json() if self.solo else None,
        }

    @staticmethod
    def from_json(d: dict) -> "State":
        """Build a state from its JSON form. Validate first (``schema.validate_state``) for clear errors."""
        turn = None
        if d["turn"] is not None:
            t = d["turn"]
            turn = Turn(t["player"], t["placed"], None if t["slot"] is None else slot_index(t["slot"]),
                        [PendingAction(a["kind"], a["n"], a["source"]) for a in t["pending"]], t["cursor"],
                        t.get("free_order", False), t.get("bonus", False), list(t.get("done", [])))
        territories = {
            tid: Territory(tid, t["home_of"], list(t["guards"]),
                           [ProductiveArea(pa["kind"], pa.get("crop"), pa["owner"], pa["native"], pa["count"]) for pa in t["pas"]])
            for tid, t in d["map"]["territories"].items()
        }
        mb = d["mask_board"]
        adv = d["advanced"]
        return State(
            players=[_player_from_json(p) for p in d["players"]],
            pairs=tuple(tuple(p) for p in d["pairs"]),
            territories=territories,
            lakes={k: list(v) for k, v in d["map"]["lakes"].items()},
            year=d["year"], phase=d["phase"], turn_order=list(d["turn_order"]), current=d["current"], turn=turn,
            turn_order_track=list(mb["turn_order_track"]), restore_queue=list(d["restore_queue"]),
            progress_rows={int(k): list(v) for k, v in d["progress_rows"].items()},
            display=list(adv["display"]), advanced_pile=list(adv["pile"]), advanced_pile_l2=list(adv["pile_l2"]),
            advanced_level=adv["level"], mask_deck=list(mb["deck"]), mask_discard=list(mb["discard"]),
            turtle_stacks={k: list(v) for k, v in mb["turtle_stacks"].items()},
            options=Options.from_json(d.get("options", {})),
            flag_supply=list(d.get("flag_supply", ["english", "french"])),
            progress_box={int(k): list(v) for k, v in d.get("progress_box", {}).items()},
            solo=SoloState.from_json(d["solo"]) if d.get("solo") else None,
        )


def _player_json(p: PlayerState) -> dict:
    return {
        "name": p.name, "colour": p.colour, "home": p.home, "tribe": p.tribe,
        "grid": [[_cell_json(p.grid[r * 3 + c]) for c in range(3)] for r in range(3)],
        "action_markers": [list(slot_of(i)) for i in p.markers],
        "fire": None if p.fire is None else list(slot_of(p.fire)),
        "sages": p.sages, "reserved": p.reserved,
        "long_house": p.long_house, "canoe_reserve": p.canoe_reserve,
        "resources": p.resources, "beavers": p.beavers,
        "hand": p.hand, "played": p.played,
        "progress": p.progress, "progress_used": p.progress_used,
        "turtles": p.turtles, "swap_tokens": p.swap_tokens, "flag": p.flag,
        "tracks": p.tracks, "mask_space": p.mask_space,
        "below": p.below, "set_aside": p.set_aside,
        "mohawk": p.mohawk, "ojibwa_used": p.ojibwa_used,
    }


def _cell_json(g: GridTile | None) -> dict | None:
    """A grid slot; empty (null) only during the restore, between the slide and the new row 0 (W-RES-3/4)."""
    return None if g is None else {"tile": g.tile, "side": g.side}


def _player_from_json(d: dict) -> PlayerState:
    return PlayerState(
        name=d["name"], colour=d["colour"], home=d["home"], tribe=d["tribe"],
        grid=[GridTile(cell["tile"], cell["side"]) if cell else None for row in d["grid"] for cell in row],
        markers=[slot_index(s) for s in d["action_markers"]],
        fire=None if d["fire"] is None else slot_index(d["fire"]),
        sages=d["sages"], reserved=d["reserved"], long_house=dict(d["long_house"]),
        canoe_reserve=d["canoe_reserve"], resources=dict(d["resources"]), beavers=d["beavers"],
        hand=list(d["hand"]), played=list(d["played"]), progress=list(d["progress"]),
        progress_used=list(d["progress_used"]), turtles=[dict(t) for t in d["turtles"]],
        swap_tokens=d["swap_tokens"], flag=d["flag"], tracks=dict(d["tracks"]), mask_space=d["mask_space"],
        below=list(d["below"]), set_aside=list(d["set_aside"]),
        mohawk=dict(d["mohawk"]) if d.get("mohawk") else None, ojibwa_used=d.get("ojibwa_used", False),
    )
