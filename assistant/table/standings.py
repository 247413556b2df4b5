"""Standings: the players' ranking across the games and rounds of one event, under the organiser's scoring rule.

Owns the rule and its tie-breaks, which games count and in which round, and the ranking; the hub's page shows it
(docs/hub.md, *Standings*). Game-neutral and pure: a game's result is its final summary (``hubmsg.summary``: the
players' scores and the winners the game named, its own tie-breaks applied), nothing else.

Rules (``Settings.rule``), per game, summed over the games a player played:

- ``wins``: 1 for the game's only winner, 0.5 for each winner of a shared win, 0 otherwise;
- ``points``: the player's final score (0 when the game gives none);
- ``places``: tournament points by place: ``place_points`` (``4,2,1,0``: first, second, ...; places past the list
  score 0), by default the number of players beaten (``n-1, ..., 0`` for ``n`` players). Winners take the first
  place; the others follow by score; players tied share the mean of the places they span.

Tie-breaks (``Settings.tie_breaks``), applied in the organiser's order to players still level: ``points``,
``wins``, ``places`` (the totals above) and ``h2h`` (head-to-head: among the players still level only, in the games
where at least two of them met, 1 for each of the others a player finished ahead of, 0.5 for each one level with
them). Players level after every tie-break share a rank (1, 2, 2, 4).

Players are matched by name across tables: case and spaces around or between words do not matter (``"ann  "`` is
``"Ann"``; accents do); the first spelling seen is shown. A game counts once it is over and the organiser has not left it out;
its round is the organiser's number, else its start time's slot: ``1 + (start - first start) // round_minutes``,
counted from the event's first game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assistant.errors import UserError

RULES = ("wins", "points", "places")
TIE_BREAKS = ("points", "wins", "places", "h2h")
DEFAULT_RULE = "wins"
DEFAULT_TIE_BREAKS = ("points", "h2h")
DEFAULT_ROUND_MINUTES = 120
_TOTAL = {"wins": "wins", "points": "points", "places": "places"}


@dataclass(frozen=True)
class Settings:
    """The organiser's choice: the rule, the tie-breaks in order, the round slot and the place points."""

    rule: str = DEFAULT_RULE
    tie_breaks: tuple[str, ...] = DEFAULT_TIE_BREAKS
    round_minutes: int = DEFAULT_ROUND_MINUTES
    place_points: tuple[float, ...] | None = None

    def __post_init__(self):
        if self.rule not in RULES:
            raise UserError(f"scoring rule {self.rule!r} is not one of {', '.join(RULES)}.")
        bad = [t for t in self.tie_breaks if t not in TIE_BREAKS]
        if bad:
            raise UserError(f"tie-break {bad[0]!r} is not one of {', '.join(TIE_BREAKS)}.")
        if len(set(self.tie_breaks)) != len(self.tie_breaks):
            raise UserError("each tie-break may be given once.")
        if (
            isinstance(self.round_minutes, bool)
            or not isinstance(self.round_minutes, int)
            or not 1 <= self.round_minutes <= 10080
        ):
            raise UserError(f"round length {self.round_minutes!r} is not a number of minutes from 1 to 10080.")
        if self.place_points is not None:
            pts = self.place_points
            if (
                not pts
                or len(pts) > 100
                or any(isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1000 for p in pts)
            ):
                raise UserError("place points are 1 to 100 numbers from 0 to 1000, first place first, e.g. 4,2,1,0.")

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "tie_breaks": list(self.tie_breaks),
            "round_minutes": self.round_minutes,
            "place_points": list(self.place_points) if self.place_points is not None else None,
        }

    @classmethod
    def from_json(cls, doc) -> "Settings":
        """Settings from stored or sent JSON; missing keys take their defaults; ``UserError`` for bad ones."""
        if not isinstance(doc, dict):
            return cls()
        tb = doc.get("tie_breaks", DEFAULT_TIE_BREAKS)
        if isinstance(tb, str):
            tb = [t.strip() for t in tb.split(",") if t.strip()]
        pp = doc.get("place_points")
        if isinstance(pp, str):
            pp = parse_place_points(pp)
        if not isinstance(tb, (list, tuple)) or (pp is not None and not isinstance(pp, (list, tuple))):
            raise UserError("tie-breaks and place points are lists.")
        return cls(
            doc.get("rule", DEFAULT_RULE),
            tuple(tb),
            doc.get("round_minutes", DEFAULT_ROUND_MINUTES),
            tuple(pp) if pp is not None else None,
        )


def parse_place_points(text: str) -> tuple[float, ...] | None:
    """``"4,2,1,0"`` -> (4, 2, 1, 0); empty -> None (players beaten); ``UserError`` otherwise."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        values = tuple(float(x) if "." in x else int(x) for x in (p.strip() for p in text.split(",")))
    except ValueError:
        raise UserError(f"place points {text[:40]!r} are not numbers separated by commas, e.g. 4,2,1,0.") from None
    Settings(place_points=values)
    return values


def player_key(name: str) -> str:
    """How a player's name is matched across tables."""
    return " ".join(str(name).split()).casefold()


@dataclass
class Result:
    """One finished game as the standings see it: where, its round, the players' final scores, the winners."""

    table: str
    game_id: str
    round: int
    start: float | None
    scores: list[tuple[str, float | None]]
    winners: list[str]
    places: dict[str, float] = field(default_factory=dict)  # player key -> place (1 = first; shared: the same)

    def __post_init__(self):
        self.places = _places(self.scores, self.winners)


def _places(scores: list[tuple[str, float | None]], winners: list[str]) -> dict[str, float]:
    won = {player_key(w) for w in winners}
    if not won:  # the game named no winner: the best score wins
        known = [s for _, s in scores if s is not None]
        top = max(known) if known else None
        won = {player_key(n) for n, s in scores if top is not None and s == top}

    def order(item):
        name, score = item
        return (0 if player_key(name) in won else 1, -(score if score is not None else float("-inf")))

    ranked = sorted(scores, key=order)
    places, i = {}, 0
    while i < len(ranked):
        j = i
        while j + 1 < len(ranked) and order(ranked[j + 1]) == order(ranked[i]):
            j += 1
        for name, _ in ranked[i : j + 1]:
            places[player_key(name)] = i + 1
        i = j + 1
    return places


def results(games: list[dict], settings: Settings) -> list[Result]:
    """The counted results of ``games`` (the hub archive's ``games()`` of one event), rounds assigned."""
    starts = [g["created"] for g in games if g.get("created") is not None]
    first = min(starts) if starts else None
    out = []
    for g in games:
        summary = (g.get("snapshot") or {}).get("summary") or {}
        if not summary.get("over") or not g.get("counted", True):
            continue
        rnd = g.get("round")
        if rnd is None:
            start = g.get("created")
            rnd = 1 + int((start - first) // (settings.round_minutes * 60)) if start is not None and first is not None else 1
        scores = [(p["name"], p.get("score")) for p in summary.get("players") or [] if p.get("name")]
        out.append(Result(g["table"], g["game_id"], int(rnd), g.get("created"), scores, list(summary.get("winners") or [])))
    return out


def _game_values(r: Result, settings: Settings) -> dict[str, dict[str, float]]:
    """{player key: {"wins", "points", "places"}} of one game."""
    n = len(r.scores)
    table = list(settings.place_points) if settings.place_points is not None else list(range(n - 1, -1, -1))
    first_places = [p for p in r.places.values() if p == 1]
    shared = len(first_places) > 1
    out: dict[str, dict[str, float]] = {}
    for name, score in r.scores:
        key = player_key(name)
        place = int(r.places[key])
        span = sum(1 for p in r.places.values() if p == place)
        pts = [table[k] if k < len(table) else 0 for k in range(place - 1, place - 1 + span)]
        v = out.setdefault(key, {"wins": 0.0, "points": 0.0, "places": 0.0})
        v["wins"] += (0.5 if shared else 1.0) if place == 1 else 0.0
        v["points"] += float(score) if score is not None else 0.0
        v["places"] += sum(pts) / len(pts)
    return out


@dataclass
class Row:
    """One player's line: rank (shared ranks repeat), name, games, the three totals, the rule's value per round."""

    rank: int
    name: str
    games: int
    wins: float
    points: float
    places: float
    value: float
    by_round: dict[int, float]
    shared: bool = False


def standings(games: list[dict], settings: Settings) -> tuple[list[Row], list[int]]:
    """The rows, best first, and the rounds played (sorted), for ``games`` (one event's) under ``settings``."""
    res = results(games, settings)
    names: dict[str, str] = {}
    totals: dict[str, dict[str, float]] = {}
    count: dict[str, int] = {}
    by_round: dict[str, dict[int, float]] = {}
    for r in res:
        for key, v in _game_values(r, settings).items():
            names.setdefault(key, next(n.strip() for n, _ in r.scores if player_key(n) == key))
            t = totals.setdefault(key, {"wins": 0.0, "points": 0.0, "places": 0.0})
            for k in t:
                t[k] += v[k]
            count[key] = count.get(key, 0) + 1
            rounds = by_round.setdefault(key, {})
            rounds[r.round] = rounds.get(r.round, 0.0) + v[_TOTAL[settings.rule]]
    criteria = [settings.rule] + [t for t in settings.tie_breaks if t != settings.rule]
    groups = _order(sorted(totals, key=lambda k: names[k].casefold()), criteria, totals, res)
    rows, rank = [], 1
    for group in groups:
        for key in group:
            t = totals[key]
            rows.append(
                Row(
                    rank,
                    names[key],
                    count[key],
                    t["wins"],
                    t["points"],
                    t["places"],
                    t[settings.rule],
                    dict(sorted(by_round[key].items())),
                    shared=len(group) > 1,
                )
            )
        rank += len(group)
    return rows, sorted({r.round for r in res})


def _order(keys: list[str], criteria: list[str], totals: dict, res: list[Result]) -> list[list[str]]:
    """``keys`` split into groups, best first, by the first criterion, then each group by the next ones."""
    if len(keys) <= 1 or not criteria:
        return [keys] if keys else []
    crit, rest = criteria[0], criteria[1:]
    value = _h2h(keys, res) if crit == "h2h" else {k: totals[k][crit] for k in keys}
    out = []
    for v in sorted({value[k] for k in keys}, reverse=True):
        out += _order([k for k in keys if value[k] == v], rest, totals, res)
    return out


def _h2h(keys: list[str], res: list[Result]) -> dict[str, float]:
    """Head-to-head among ``keys``: per player, the others of them finished ahead of (1) or level with (0.5)."""
    group = set(keys)
    out = {k: 0.0 for k in keys}
    for r in res:
        met = [k for k in r.places if k in group]
        for a in met:
            for b in met:
                if a != b:
                    out[a] += 1.0 if r.places[a] < r.places[b] else 0.5 if r.places[a] == r.places[b] else 0.0
    return out
