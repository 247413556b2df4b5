"""Iwari's edition data: every component fact and engine reading, loaded from ``data/edition.json``.

No component fact lives in code. Each fact carries its provenance: ``rulebook`` with the rule ID, ``inferred``
with the reason, or ``unknown`` with a note that the value is a stand-in the owner of the box should check
(I-NIT-1..13). An owner corrects facts by copying the file, changing what differs in their box, and pointing
``TABLEWATCH_IWARI_EDITION`` at the copy (or putting it as ``iwari-edition.json`` in the folder
``TABLEWATCH_EDITION_DIR`` names, beside Wendake's files): each fact found there replaces its bundled twin whole,
the others keep their bundled value. ``provenance_report`` lists every fact that is not from the rulebook.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from assistant.errors import UserError
from assistant.iwari.maps import COLOURS
from assistant.jsonfile import read_json

DATA_FILE = Path(__file__).with_name("data") / "edition.json"
OVERRIDE_NAME = "iwari-edition.json"
SOURCES = ("rulebook", "inferred", "unknown")
READINGS = ("A", "B")  # the two readings of I-TURN-5 and I-TURN-6
MISSIONS = ("tents", "territories", "settlement", "totems", "majorities")  # expedition missions (I-EXP, I-NIT-10)
FEATS = ("union", "discovery", "honour", "respect")  # I-COMP-3


class Edition:
    """All facts of one copy of Iwari, as loaded (the module docstring); ``raw`` keeps the JSON with provenance."""

    def __init__(self, raw: dict, origin: dict[str, str]):
        self.raw = raw
        self.origin = origin  # fact -> the file it came from
        cards = raw["cards"]["value"]
        if sorted(cards) != sorted(COLOURS) or not all(_count(n) for n in cards.values()):
            raise UserError(f"edition cards: give a whole number of cards for each colour {', '.join(COLOURS)} (I-COMP-1).")
        self.cards = {c: cards[c] for c in COLOURS}
        self.removal = {int(k): v for k, v in raw["removal"]["value"].items()}
        self.removal[5] = raw["removal_5"]["value"]
        counts = list(raw["player_counts"]["value"]) + ([5] if raw["five_players"]["value"] else [])
        self.player_counts = tuple(sorted(set(counts)))
        for n in self.player_counts:
            if n not in self.removal or not _count(self.removal[n]) or any(self.removal[n] > k for k in cards.values()):
                raise UserError(
                    f"edition removal: {n} players need a card removal per colour between 0 and the colour's count (I-COMP-2)."
                )
        pieces, third = raw["pieces"]["value"], raw["third_tribe_pieces"]["value"]
        self.tents, self.totems = pieces["tents"], pieces["totems"]
        self.third_tents, self.third_totems = third["tents"], third["totems"]
        if not all(_count(n) and n > 0 for n in (self.tents, self.totems, self.third_tents, self.third_totems)):
            raise UserError("edition pieces: tents and totems per tribe must be whole numbers above 0 (I-NIT-2).")
        self.colours = tuple(raw["tribe_colours"]["value"])
        if len(set(self.colours)) != len(self.colours) or len(self.colours) < max(self.player_counts):
            raise UserError(f"edition tribe_colours: give at least {max(self.player_counts)} different colours, one per tribe.")
        if 2 in self.player_counts and len(self.colours) < 3:
            raise UserError("edition tribe_colours: a 2-player game needs a third colour for the third tribe (I-2P-1).")
        self.hand_size = raw["hand_size"]["value"]
        self.display_size = raw["display"]["size"]
        if not (_count(self.hand_size) and self.hand_size > 0 and _count(self.display_size)):
            raise UserError("edition hand_size / display.size: whole numbers, the hand above 0 (I-NIT-3, I-NIT-4).")
        for fact, value, allowed in (
            ("display.refill", raw["display"]["refill"], ("at_once",)),
            ("discard.played", raw["discard"]["played"], ("play_area",)),
            ("half_journey.moment", raw["half_journey"]["moment"], ("last_card_drawn",)),
            ("third_tribe.move", raw["third_tribe"]["move"], ("optional",)),
        ):
            if value not in allowed:
                raise UserError(f"edition {fact}: the engine supports {', '.join(allowed)} only, got {value!r}.")
        self.totem_cap = raw["totem_cap"]["value"]
        self.pair = raw["pair"]["value"]
        if self.totem_cap not in READINGS or self.pair not in READINGS:
            raise UserError('edition totem_cap / pair: the reading is "A" or "B" (I-TURN-5, I-TURN-6).')
        tt = raw["third_tribe"]
        self.third_can_win = bool(tt["can_win"])
        self.third_tents_out_ends = bool(tt["tents_out_ends"])
        self.third_earns_feats = bool(tt["earns_feats"])
        self.third_scores_expeditions = bool(tt["scores_expeditions"])
        self.feats = dict(raw["feats"]["value"])
        if sorted(self.feats) != sorted(FEATS) or not all(_count(n) for n in self.feats.values()):
            raise UserError(f"edition feats: give a whole number for each of {', '.join(FEATS)} (I-COMP-3).")
        self.feat_mountains = bool(raw["feat_rules"]["mountains_earn"])
        self.expeditions = tuple(_expedition(c, i) for i, c in enumerate(raw["expeditions"]["cards"]))

    def cards_for(self, players: int) -> dict[str, int]:
        """The cards in play with ``players`` players, per colour, after the removal (I-COMP-2)."""
        if players not in self.player_counts:
            raise UserError(f"Iwari is played by {_counts(self.player_counts)} players, not {players} (I-NIT-1).")
        return {c: n - self.removal[players] for c, n in self.cards.items()}


def _count(n) -> bool:
    return type(n) is int and n >= 0


def _counts(ns) -> str:
    ns = list(ns)
    return ", ".join(str(n) for n in ns[:-1]) + f" or {ns[-1]}" if len(ns) > 1 else str(ns[0])


def _expedition(card, i: int) -> dict:
    where = f"edition expeditions.cards[{i}]"
    if not isinstance(card, dict) or not isinstance(card.get("id"), str):
        raise UserError(f'{where}: an expedition card is {{"id", "mission": {{"kind", "n"}}, "points": [first, second]}}.')
    mission, points = card.get("mission"), card.get("points")
    if not isinstance(mission, dict) or mission.get("kind") not in MISSIONS or not _count(mission.get("n")):
        raise UserError(f"{where}.mission: kind is one of {', '.join(MISSIONS)} and n a whole number (I-EXP-1).")
    if not (isinstance(points, list) and len(points) == 2 and all(_count(p) for p in points)):
        raise UserError(f"{where}.points: [first circle, second circle], two whole numbers (I-EXP-1).")
    return {"id": card["id"], "mission": {"kind": mission["kind"], "n": mission["n"]}, "points": list(points)}


def _override_path(override: str | None) -> Path | None:
    if override:
        return Path(override)
    path = os.environ.get("TABLEWATCH_IWARI_EDITION")
    if path:
        return Path(path)
    folder = os.environ.get("TABLEWATCH_EDITION_DIR")
    if folder and (Path(folder) / OVERRIDE_NAME).is_file():
        return Path(folder) / OVERRIDE_NAME
    return None


def load_edition(override: str | None = None) -> Edition:
    """The bundled facts, each replaced by its twin in the owner's file when there is one (``override``, else
    $TABLEWATCH_IWARI_EDITION, else ``iwari-edition.json`` in $TABLEWATCH_EDITION_DIR). Loaded once per file."""
    path = _override_path(override)
    return _load(None if path is None else str(path))


@lru_cache(maxsize=8)
def _load(override: str | None) -> Edition:
    raw = read_json(DATA_FILE)
    origin = dict.fromkeys(raw, str(DATA_FILE))
    if override is not None:
        path = Path(override)
        own = read_json(path, missing=f"Iwari edition file {path} not found; fix the path or unset TABLEWATCH_IWARI_EDITION.")
        if not isinstance(own, dict):
            raise UserError(f"{path}: an Iwari edition file is an object of facts, as in {DATA_FILE}.")
        unknown = sorted(set(own) - set(raw))
        if unknown:
            raise UserError(f"{path}: unknown fact {unknown[0]!r}; the facts are {', '.join(k for k in raw if k != 'about')}.")
        for key, value in own.items():
            if key != "about" and (not isinstance(value, dict) or value.get("source") not in SOURCES):
                raise UserError(f'{path}: fact {key!r} needs its provenance, "source": one of {", ".join(SOURCES)}.')
            raw[key] = value
            origin[key] = str(path)
    try:
        return Edition(raw, origin)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserError(
            f"Iwari edition data is incomplete or malformed ({type(exc).__name__}: {exc}); compare your file "
            f"with the bundled {DATA_FILE}."
        ) from None


def provenance_report(edition: Edition) -> list[dict]:
    """Every fact whose source is not the rulebook: {fact, file, source, rule, why, value}."""
    out = []
    for key, node in edition.raw.items():
        if not isinstance(node, dict) or node.get("source") in (None, "rulebook"):
            continue
        value = node.get("value", {k: v for k, v in node.items() if k not in ("source", "rule", "note", "reason", "choices")})
        out.append(
            {
                "fact": key,
                "file": edition.origin.get(key),
                "source": node["source"],
                "rule": node.get("rule"),
                "why": node.get("reason") or node.get("note") or "",
                "value": value,
            }
        )
    return out
