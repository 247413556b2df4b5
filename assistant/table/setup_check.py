"""The set-up check: the first settled look of a new game against the known start position.

Before the first move the rules engine knows exactly what the table shows (the game's expected readings of its
initial state), so that look tells how well the camera reads this table, kind by kind, before play starts. Owns
``check_setup`` (the comparison and the one line the players read) and ``agrees`` (a reading against the value
a state puts there, as each region kind is read). Pure Python; it knows no game: the expected readings, the region
kinds (``assistant.table.game.REGION_KINDS``) and the game's words for a difference come as data and callables.

A region kind reads well unless its misread regions are ``BAD_MISREADS`` or more, or one misread is at least
``BAD_SHARE`` of its regions. The misreads are then grouped by what should lie there (a piece class; "tile" for a
tile face; "empty" for a space that should hold nothing), and the worst group becomes the line: "your canoes read as
warriors standing: 3 of 4 canoe spaces misread". The evidence for both constants is in docs/adapt.md (the
familiar set's set-up looks).

Every region read otherwise than set up is a known misreading from the start (``Tracker.misread_at_setup``): the
same reading there again is no evidence, for a move or an alert, until the place reads right; the line names the
first of them, for players whose table is set up otherwise to put it right.

The kinds that read badly are **doubted** (``SetupCheck.doubted``, ``doubt``): their readings reach the tracker at
``DOUBTED_CONFIDENCE`` at most, under its alert bar, so a difference there is asked about (``NeedsConfirmation``)
and never called an illegal move. The set-up look measured that this table reads them wrong; a sure reading of
them is no evidence that the players broke a rule. A doubted kind is believed again once ``TRUSTED_AGAIN_LOOKS``
looks in a row, each explained with no alert open, read it well against the accepted position
(``kinds_read_well``): the first look may have come after play began, its differences moves, not misreads
(docs/tracker.md, Doubt). It is believed value by value: a reading of it is believed once the table has read that
value right in an explained look (``values_read_right``), and doubted until then (``doubt``'s ``believed``): a
face the set-up look did not show (a tile bought later) may be one this table misreads.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from assistant.table.events import SetupCheck
from assistant.table.observation import Observation, Reading, pile_agrees, split_key, split_reading_key

BAD_MISREADS = 2  # misread regions of one kind that make it read badly
BAD_SHARE = 0.25  # or a single misread that is this share of the kind's regions (a kind with few regions)
MAX_EXAMPLES = 6  # examples kept per region kind
IRREGULAR_PLURALS = {"woman": "women"}  # piece names whose plural is not the name and "s"
# the most a doubted kind's reading weighs: under every game's alert bar (``Tracker.sure_confidence``: 0.55 or more)
DOUBTED_CONFIDENCE = 0.5
TRUSTED_AGAIN_LOOKS = 3  # explained looks in a row that read a doubted kind well before it is believed again


def value_json(v):
    """A reading value in the JSON form of the harvested looks and events: a Pieces count as [[piece key, n], ...]."""
    return [[k, n] for k, n in v] if isinstance(v, tuple) else v


def agrees(kind: str, read, expected) -> bool:
    """Whether ``read`` shows what ``expected`` puts in a region of ``kind``: a pile agrees when it shows some of
    its pieces and nothing else (pieces may hide others), a stack when its one visible piece is of the class that
    lies there (which disk is on top is not known to the rules), every other kind when the values are equal."""
    if kind == "pile" and isinstance(read, tuple) and isinstance(expected, tuple):
        return pile_agrees(read, expected)
    if kind == "top-of-stack" and isinstance(read, tuple) and isinstance(expected, tuple):
        if not expected or not read:
            return not expected and not read
        return len(read) == 1 and read[0][1] == 1 and split_key(read[0][0])[0] in {split_key(k)[0] for k, _ in expected}
    return read == expected


def _classes(v) -> list[str]:
    return list(dict.fromkeys(split_key(k)[0] for k, _ in v)) if isinstance(v, tuple) else []


def _subject(key: str, expected) -> str:
    """What should lie in a region, in one word: its first piece class, "tile" for a tile face, else "empty"."""
    if split_reading_key(key)[2]:
        return "tile"
    return (_classes(expected) or ["empty"])[0]


def _name(cls: str, plural: bool = True) -> str:
    """A piece class in words: "warrior_standing" -> "warriors standing", "tribe_disk" -> "tribe disks". The noun
    is the first word when the words after it say how it lies (-ing, -ed), else the last."""
    words = cls.split("_")
    if not plural:
        return " ".join(words)
    i = 0 if len(words) > 1 and all(w.endswith(("ing", "ed")) for w in words[1:]) else len(words) - 1
    if words[i] in IRREGULAR_PLURALS:
        words[i] = IRREGULAR_PLURALS[words[i]]
    elif not words[i].endswith(("s", "sh")):
        words[i] += "s"
    return " ".join(words)


def _subject_line(subject: str, rows: list[tuple], checked: int) -> str:
    """One line a player understands for a subject that reads badly; ``rows``: its (key, expected, read)."""
    wrong: dict[str, int] = {}
    missing = 0
    for _, exp, read in rows:
        extra = [c for c in _classes(read) if c not in _classes(exp)]
        for c in extra:
            wrong[c] = wrong.get(c, 0) + 1
        if not extra:
            missing += 1
    n = len(rows)
    if subject == "tile":
        return f"your tiles read as other tiles or not at all: {n} of {checked} tile faces misread"
    if subject == "empty":
        seen = max(wrong, key=wrong.get) if wrong else "pieces"
        return f"your empty spaces read as holding {_name(seen)}: {n} of {checked} empty spaces misread"
    if wrong and max(wrong.values()) >= missing:
        other = max(wrong, key=wrong.get)
        return f"your {_name(subject)} read as {_name(other)}: {n} of {checked} {_name(subject, False)} spaces misread"
    return f"your {_name(subject)} are miscounted or not seen: {n} of {checked} {_name(subject, False)} spaces misread"


def reads_badly(checked: int, misread: int) -> bool:
    """Whether a region kind with ``misread`` of ``checked`` regions read otherwise than set up reads badly."""
    return misread >= BAD_MISREADS or (misread > 0 and misread >= BAD_SHARE * checked)


def kinds_read_well(expected: dict, readings: dict, kinds, kind_of: Callable[[str], str]) -> set[str]:
    """The region ``kinds`` that one look (``readings``: key -> value) reads well against the position the tracker
    accepted (``expected``), by the set-up check's rule; a kind with no region in the look is left out."""
    rows: dict[str, list[int]] = {}
    for key, read in readings.items():
        kind = kind_of(key)
        if kind in kinds and key in expected:
            row = rows.setdefault(kind, [0, 0])
            row[0] += 1
            row[1] += not agrees(kind, read, expected[key])
    return {k for k, (checked, misread) in rows.items() if not reads_badly(checked, misread)}


def values_read_right(expected: dict, readings: dict, kinds, kind_of: Callable[[str], str]) -> dict[str, set]:
    """{kind: the values one look (``readings``: key -> value) reads right} for the region ``kinds``, against the
    position the tracker accepted (``expected``); values as ``hashable`` makes them."""
    out: dict[str, set] = {}
    for key, read in readings.items():
        kind = kind_of(key)
        if kind in kinds and key in expected and agrees(kind, read, expected[key]):
            out.setdefault(kind, set()).add(hashable(read))
    return out


def hashable(value):
    """``value`` with its lists as tuples, to be kept in a set."""
    return tuple(hashable(v) for v in value) if isinstance(value, (list, tuple)) else value


def doubt(observation: Observation, kinds, kind_of: Callable[[str], str], believed: dict | None = None) -> Observation:
    """``observation`` with the readings of region ``kinds`` (``kind_of(key)``) at ``DOUBTED_CONFIDENCE`` at most,
    and those of the kinds in ``believed`` ({kind: values read right}) whose value was not read right yet; the same
    object when it has none."""
    kinds, believed = set(kinds), believed or {}
    capped = {
        k: Reading(r.value, DOUBTED_CONFIDENCE, r.others)
        for k, r in observation.readings.items()
        if r.confidence > DOUBTED_CONFIDENCE
        and (kind_of(k) in kinds or (kind_of(k) in believed and hashable(r.value) not in believed[kind_of(k)]))
    }
    return replace(observation, readings={**observation.readings, **capped}) if capped else observation


def check_setup(
    expected: dict,
    readings: dict,
    kind_of: Callable[[str], str],
    words: Callable[[str, object, object], str] | None = None,
    unread=(),
) -> SetupCheck:
    """The set-up check of one look. ``expected``: the start position's readings (key -> value), ``readings``:
    what the look read (key -> value; keys missing from ``expected`` are left out), ``kind_of``: a reading key's
    region kind (``Game.region_kind``), ``words(key, expected, read)``: the game's words for one difference, when
    it has some; ``unread``: the boards the look did not read."""
    by_kind: dict[str, dict] = {}
    subjects: dict[str, list] = {}  # subject -> [checked, [(key, expected, read) misread]]
    misread_keys: list[str] = []
    for key in sorted(k for k in readings if k in expected):
        exp, read = expected[key], readings[key]
        kind = kind_of(key)
        row = by_kind.setdefault(kind, {"checked": 0, "misread": 0, "examples": []})
        row["checked"] += 1
        subj = subjects.setdefault(_subject(key, exp), [0, []])
        subj[0] += 1
        if agrees(kind, read, exp):
            continue
        row["misread"] += 1
        subj[1].append((key, exp, read))
        misread_keys.append(key)
        if len(row["examples"]) < MAX_EXAMPLES:
            board, region, tile = split_reading_key(key)
            text = words(key, exp, read) if words is not None else None
            row["examples"].append(
                {
                    "key": key,
                    "board": board,
                    "region": region + ("#tile" if tile else ""),
                    "expected": value_json(exp),
                    "read": value_json(read),
                    "text": text or f"{board} {region}: set up {value_json(exp)}, read {value_json(read)}",
                }
            )
    bad_kinds = {k for k, r in by_kind.items() if reads_badly(r["checked"], r["misread"])}
    problems = []
    for subject, (checked, rows) in subjects.items():
        if not rows or not any(kind_of(k) in bad_kinds for k, _, _ in rows):
            continue
        keys = [k for k, _, _ in rows]
        problems.append(
            {
                "subject": subject,
                "checked": checked,
                "misread": len(rows),
                "text": _subject_line(subject, rows, checked),
                "boards": sorted({split_reading_key(k)[0] for k in keys}),
                "keys": keys,
            }
        )
    problems.sort(key=lambda p: (-p["misread"] / p["checked"], -p["misread"], p["subject"]))
    checked = sum(r["checked"] for r in by_kind.values())
    misread = len(misread_keys)
    if problems:
        text = (
            problems[0]["text"]
            + (f" (and {len(problems) - 1} more kind{'s' if len(problems) > 2 else ''})" if len(problems) > 1 else "")
            + ". Learning this table can fix it; until then, Tablewatch asks about moves there instead of alerting."
        )
    elif checked and misread:
        first = next(e["text"] for r in by_kind.values() for e in r["examples"] if e["key"] == misread_keys[0])
        more = f" and {misread - 1} more" if misread > 1 else ""
        it, reads = ("it", "it reads") if misread == 1 else ("them", "they read")
        text = (
            f"the set-up reads well: {checked - misread} of {checked} regions as set up; read otherwise: {first}{more}. "
            f"If the table is set up right, Tablewatch takes {it} as misread until {reads} right."
        )
    elif checked:
        text = f"the set-up reads well: {checked - misread} of {checked} regions as set up."
    else:
        text = "the set-up could not be checked: no region of the start position was read."
    return SetupCheck(
        ok=not problems,
        text=text,
        checked=checked,
        misread=misread,
        by_kind=by_kind,
        problems=problems,
        boards=sorted({split_reading_key(k)[0] for k in misread_keys}),
        regions=misread_keys,
        offer_adapt=bool(problems),
        unread=sorted(unread),
        doubted=sorted(bad_kinds),
    )
