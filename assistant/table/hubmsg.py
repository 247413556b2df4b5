"""The hub's message schema ``tablewatch.hub/1``: topics, payload builders and the checker (docs/hub.md, Messages).

Owns what a table publishes to the MQTT broker and what a hub accepts from it, for both sides: the topic of each
message (``tablewatch/<event id>/<table slug>/...``), its JSON payload, whether the broker retains it, and
``check``, which takes any (topic, payload) a broker delivers and returns ``(kind, doc)`` or raises ``ValueError``
with a one-line reason. Pure stdlib: no network, no game (``summary`` reads the session's snapshot by its
documented keys).

    status      tablewatch/<event>/<table>/status                      retained  online / offline (the will)
    setup       tablewatch/<event>/<table>/game/<game id>/setup        retained  the log's games row
    event       tablewatch/<event>/<table>/game/<game id>/event/<seq>  -         one event of the log
    snapshot    tablewatch/<event>/<table>/snapshot                    retained  the game-neutral summary

All are published with QoS 1. ``seq`` is the table log's event seq: the hub applies an event once per
``(table, seq)``.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from typing import NamedTuple

SCHEMA = "tablewatch.hub/1"
ROOT = "tablewatch"  # the first level of every topic
DEFAULT_EVENT = "default"  # the event id when the organiser gives none
QOS = 1
MAX_SLUG = 64  # characters of a table or event slug
MAX_PAYLOAD = 4 * 1024 * 1024  # bytes: a look of the whole table is about 50 KB; more is not a Tablewatch message
MAX_DEPTH = 64  # JSON nesting, as assistant.jsonfile allows
KINDS = ("status", "setup", "event", "snapshot")
STATES = ("online", "offline")

_SLUG_OUT = re.compile(r"[^a-z0-9]+")
_SLUG = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_GAME_ID = re.compile(r"[A-Za-z0-9._-]{1,100}")
_SEQ = re.compile(r"[1-9][0-9]{0,17}")


class Message(NamedTuple):
    """One MQTT message to publish: topic, UTF-8 JSON payload, retain flag, QoS."""

    topic: str
    payload: bytes
    retain: bool
    qos: int = QOS


# ---- names in topics ---------------------------------------------------------------------------------------------
def _slug(text: str, what: str) -> str:
    if not isinstance(text, str):
        raise ValueError(f"the {what} must be text, not {type(text).__name__}")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = _SLUG_OUT.sub("-", ascii_text.lower()).strip("-")[:MAX_SLUG].strip("-")
    if not slug:
        raise ValueError(f"the {what} {text!r} has no letter or digit; give one such as 'Table 7'")
    return slug


def table_slug(name: str) -> str:
    """A table's name as it appears in topics: ``"Table 7"`` -> ``"table-7"`` (lower-case ASCII letters, digits and
    ``-``, at most ``MAX_SLUG``); ``ValueError`` for a name without a letter or digit."""
    return _slug(name, "table name")


def event_slug(event_id: str) -> str:
    """An organiser's event id as it appears in topics (the same rule as ``table_slug``)."""
    return _slug(event_id, "event id")


def _check_game_id(game_id) -> str:
    if not isinstance(game_id, str) or not _GAME_ID.fullmatch(game_id):
        raise ValueError(f"game id {game_id!r} is not 1-100 letters, digits, '.', '_' or '-'")
    return game_id


def prefix(event: str, table: str) -> str:
    """``tablewatch/<event>/<table>/`` for an event slug and a table slug (checked: no ``/``, ``+`` or ``#``)."""
    for part, what in ((event, "event id"), (table, "table slug")):
        if not isinstance(part, str) or not _SLUG.fullmatch(part) or len(part) > MAX_SLUG:
            raise ValueError(f"{what} {part!r} is not a slug: use hubmsg.table_slug / hubmsg.event_slug")
    return f"{ROOT}/{event}/{table}/"


def status_topic(event: str, table: str) -> str:
    return prefix(event, table) + "status"


def snapshot_topic(event: str, table: str) -> str:
    return prefix(event, table) + "snapshot"


def setup_topic(event: str, table: str, game_id: str) -> str:
    return prefix(event, table) + f"game/{_check_game_id(game_id)}/setup"


def event_topic(event: str, table: str, game_id: str, seq: int) -> str:
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
        raise ValueError(f"seq {seq!r} is not a positive integer")
    return prefix(event, table) + f"game/{_check_game_id(game_id)}/event/{seq}"


def subscription(event: str | None = None) -> str:
    """The topic filter a hub subscribes to: every table of ``event`` (an event slug), or of every event (None)."""
    if event is None:
        return f"{ROOT}/#"
    if not isinstance(event, str) or not _SLUG.fullmatch(event) or len(event) > MAX_SLUG:
        raise ValueError(f"event id {event!r} is not a slug: use hubmsg.event_slug")
    return f"{ROOT}/{event}/#"


# ---- payloads ----------------------------------------------------------------------------------------------------
def encode(doc: dict) -> bytes:
    """A payload as sent: compact JSON, keys sorted, UTF-8 (``allow_nan`` off: JSON has no NaN)."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def status(event: str, name: str, state: str, since: float) -> Message:
    """The table's ``status`` (retained): ``online`` when it connects; the same with ``offline`` is its MQTT will."""
    if state not in STATES:
        raise ValueError(f"status {state!r} is not one of {', '.join(STATES)}")
    table = table_slug(name)
    doc = {"schema": SCHEMA, "table": table, "name": name, "state": state, "since": float(since)}
    return Message(status_topic(event, table), encode(doc), True)


def setup(event: str, name: str, game_id: str, game: str, title: str | None, created: float, setup_doc: dict) -> Message:
    """A game's set-up (retained), from the log's games row: its registry name, title, creation time and setup JSON."""
    table = table_slug(name)
    doc = {
        "schema": SCHEMA,
        "table": table,
        "name": name,
        "game_id": game_id,
        "game": game,
        "title": title,
        "created": float(created),
        "setup": setup_doc,
    }
    return Message(setup_topic(event, table, game_id), encode(doc), True)


def event(event_id: str, name: str, game_id: str, seq: int, t: float, kind: str, payload: dict) -> Message:
    """One event of the table's log (not retained), under its log ``seq``."""
    table = table_slug(name)
    doc = {"schema": SCHEMA, "table": table, "game_id": game_id, "seq": seq, "t": float(t), "kind": kind, "payload": payload}
    return Message(event_topic(event_id, table, game_id, seq), encode(doc), False)


def snapshot(event: str, name: str, game_id: str | None, game: str | None, last_seq: int, t: float, summary_doc: dict) -> Message:
    """The table's latest snapshot (retained): the game it plays and ``summary`` of it after event ``last_seq``."""
    table = table_slug(name)
    doc = {
        "schema": SCHEMA,
        "table": table,
        "name": name,
        "game_id": game_id,
        "game": game,
        "last_seq": last_seq,
        "t": float(t),
        "summary": summary_doc,
    }
    return Message(snapshot_topic(event, table), encode(doc), True)


def summary(snap: dict) -> dict:
    """The game-neutral summary of a session snapshot (``tablewatch.snapshot/1``, assistant.table.session):
    ``{"players": [{"name", "colour", "score"}], "stage", "turn", "alerts", "over", "winners"}``.

    Read by documented keys, never by game: a player's ``score`` (else ``projected_total``, else ``total``; the
    final total once ``results`` gives it), the snapshot's ``stage`` (else ``Year <year> of <years>``), whose turn
    (``current_name``), each open alert's text in the players' words (``tablet.message``, else ``message``)."""
    results = snap.get("results") or {}
    finals = {p.get("name"): p.get("total") for p in results.get("players") or [] if isinstance(p, dict)}
    players = []
    for p in snap.get("players") or []:
        if not isinstance(p, dict):
            continue
        score = next((p[k] for k in ("score", "projected_total", "total") if _number(p.get(k))), None)
        if _number(finals.get(p.get("name"))):
            score = finals[p.get("name")]
        players.append({"name": str(p.get("name", "")), "colour": p.get("colour"), "score": score})
    stage = snap.get("stage")
    if not isinstance(stage, str):
        stage = f"Year {snap['year']} of {snap['years']}" if _number(snap.get("year")) and _number(snap.get("years")) else None
    over = bool(snap.get("finished"))
    winners = results.get("winners")
    if not isinstance(winners, list):
        winners = [results["winner"]] if isinstance(results.get("winner"), str) else []
    alerts = []
    for a in snap.get("alerts") or []:
        words = (a.get("tablet") or {}).get("message") if isinstance(a.get("tablet"), dict) else None
        text = words or a.get("message") or a.get("kind") or "alert"
        rule = a.get("rule")
        alerts.append(f"{rule}: {text}" if rule and rule not in str(text) else str(text))
    turn = snap.get("current_name")
    return {
        "players": players,
        "stage": stage,
        "turn": turn if isinstance(turn, str) and not over else None,
        "alerts": alerts,
        "over": over,
        "winners": [str(w) for w in winners],
    }


# ---- the checker -------------------------------------------------------------------------------------------------
def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _deeper_than(value, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        if children and depth > limit:
            return True
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _parse(payload) -> dict:
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        raise ValueError(f"payload is {type(payload).__name__}, not bytes")
    payload = bytes(payload)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes is over {MAX_PAYLOAD}")
    try:
        doc = json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise ValueError(f"payload is not UTF-8 (byte {exc.start})") from None
    except RecursionError:
        raise ValueError(f"payload JSON nests more than {MAX_DEPTH} deep") from None
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, a number of too many digits
        raise ValueError(f"payload is not JSON ({str(exc).splitlines()[0][:120]})") from None
    if not isinstance(doc, dict):
        raise ValueError(f"payload is a JSON {type(doc).__name__}, not an object")
    if _deeper_than(doc, MAX_DEPTH):
        raise ValueError(f"payload JSON nests more than {MAX_DEPTH} deep")
    return doc


def _want(doc: dict, key: str, test, what: str) -> None:
    if key not in doc:
        raise ValueError(f"{key!r} is missing")
    if not test(doc[key]):
        raise ValueError(f"{key!r} is {json.dumps(doc[key])[:60]}, not {what}")


def _text(v) -> bool:
    return isinstance(v, str)


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _topic_parts(topic) -> tuple[str, str, list[str]]:
    if not isinstance(topic, str):
        raise ValueError(f"topic is {type(topic).__name__}, not text")
    parts = topic.split("/")
    if len(parts) < 4 or parts[0] != ROOT:
        raise ValueError(f"topic {topic[:120]!r} is not {ROOT}/<event>/<table>/...")
    for part, what in ((parts[1], "event id"), (parts[2], "table")):
        if not _SLUG.fullmatch(part) or len(part) > MAX_SLUG:
            raise ValueError(f"topic {topic[:120]!r}: {what} {part[:40]!r} is not a slug")
    return parts[1], parts[2], parts[3:]


def _kind_of(topic: str, rest: list[str]) -> tuple[str, str | None, int | None]:
    if rest == ["status"]:
        return "status", None, None
    if rest == ["snapshot"]:
        return "snapshot", None, None
    if len(rest) == 3 and rest[0] == "game" and rest[2] == "setup" and _GAME_ID.fullmatch(rest[1]):
        return "setup", rest[1], None
    if len(rest) == 4 and rest[0] == "game" and rest[2] == "event" and _GAME_ID.fullmatch(rest[1]):
        if not _SEQ.fullmatch(rest[3]):
            raise ValueError(f"topic {topic[:120]!r}: seq {rest[3][:20]!r} is not a positive integer")
        return "event", rest[1], int(rest[3])
    raise ValueError(f"topic {topic[:120]!r} is not a {SCHEMA} topic (status, snapshot, game/<id>/setup, game/<id>/event/<seq>)")


def _check_summary(s) -> None:
    if not isinstance(s, dict):
        raise ValueError("'summary' is not an object")
    _want(
        s,
        "players",
        lambda v: (
            isinstance(v, list)
            and all(
                isinstance(p, dict)
                and _text(p.get("name"))
                and (p.get("colour") is None or _text(p.get("colour")))
                and (p.get("score") is None or _number(p.get("score")))
                for p in v
            )
        ),
        "a list of {name, colour, score}",
    )
    _want(s, "stage", lambda v: v is None or _text(v), "text or null")
    _want(s, "turn", lambda v: v is None or _text(v), "text or null")
    _want(s, "alerts", lambda v: isinstance(v, list) and all(_text(a) for a in v), "a list of texts")
    _want(s, "over", lambda v: isinstance(v, bool), "true or false")
    _want(s, "winners", lambda v: isinstance(v, list) and all(_text(w) for w in v), "a list of names")


def check(topic, payload) -> tuple[str, dict]:
    """``(kind, doc)`` for a message of schema ``tablewatch.hub/1`` (kind: status, setup, event, snapshot; ``doc``
    the parsed payload, whose ``table`` matches the topic's); ``ValueError`` with a one-line reason otherwise."""
    event_id, table, rest = _topic_parts(topic)
    kind, game_id, seq = _kind_of(topic, rest)
    try:
        doc = _parse(payload)
        if doc.get("schema") != SCHEMA:
            raise ValueError(f"schema {json.dumps(doc.get('schema'))[:40]} is not {SCHEMA!r}")
        _want(doc, "table", lambda v: v == table, f"the topic's table {table!r}")
        if kind == "status":
            _want(doc, "name", _text, "text")
            _want(doc, "state", lambda v: v in STATES, " or ".join(STATES))
            _want(doc, "since", _number, "a time")
        elif kind == "setup":
            _want(doc, "name", _text, "text")
            _want(doc, "game_id", lambda v: v == game_id, f"the topic's game id {game_id!r}")
            _want(doc, "game", _text, "text")
            _want(doc, "title", lambda v: v is None or _text(v), "text or null")
            _want(doc, "created", _number, "a time")
            _want(doc, "setup", lambda v: isinstance(v, dict), "an object")
        elif kind == "event":
            _want(doc, "game_id", lambda v: v == game_id, f"the topic's game id {game_id!r}")
            _want(doc, "seq", lambda v: _int(v) and v == seq, f"the topic's seq {seq}")
            _want(doc, "t", _number, "a time")
            _want(doc, "kind", lambda v: _text(v) and bool(v), "text")
            _want(doc, "payload", lambda v: isinstance(v, dict), "an object")
        else:
            _want(doc, "name", _text, "text")
            _want(doc, "game_id", lambda v: v is None or (_text(v) and bool(_GAME_ID.fullmatch(v))), "a game id or null")
            _want(doc, "game", lambda v: v is None or _text(v), "text or null")
            _want(doc, "last_seq", lambda v: _int(v) and v >= 0, "a seq")
            _want(doc, "t", _number, "a time")
            _check_summary(doc.get("summary"))
    except ValueError as exc:
        raise ValueError(f"{kind} message on {topic[:120]}: {exc}") from None
    return kind, doc


def topic_names(topic: str) -> tuple[str, str]:
    """``(event slug, table slug)`` of a checked topic."""
    event_id, table, _ = _topic_parts(topic)
    return event_id, table
