"""The hub's message schema tablewatch.hub/1 (assistant.table.hubmsg): slugs, topics, builders and the checker."""

from __future__ import annotations

import json

import pytest

from assistant.table import hubmsg
from assistant.table.session import GameSession


def test_table_slug():
    assert hubmsg.table_slug("Table 7") == "table-7"
    assert hubmsg.table_slug("  Café  Nord / #2+ ") == "cafe-nord-2"
    assert hubmsg.table_slug("x" * 200) == "x" * hubmsg.MAX_SLUG
    for bad in ("", "  ", "+#/", "日本"):
        with pytest.raises(ValueError, match="no letter or digit"):
            hubmsg.table_slug(bad)
    with pytest.raises(ValueError):
        hubmsg.table_slug(7)


def test_topics():
    assert hubmsg.status_topic("default", "table-7") == "tablewatch/default/table-7/status"
    assert hubmsg.snapshot_topic("night-1", "t1") == "tablewatch/night-1/t1/snapshot"
    assert hubmsg.setup_topic("default", "t1", "g-1") == "tablewatch/default/t1/game/g-1/setup"
    assert hubmsg.event_topic("default", "t1", "g-1", 42) == "tablewatch/default/t1/game/g-1/event/42"
    assert hubmsg.subscription() == "tablewatch/#"
    assert hubmsg.subscription("night-1") == "tablewatch/night-1/#"
    for bad in (("default", "Table 7"), ("a/b", "t"), ("default", "+"), ("default", "#")):
        with pytest.raises(ValueError, match="not a slug"):
            hubmsg.prefix(*bad)
    with pytest.raises(ValueError):
        hubmsg.event_topic("default", "t1", "g/1", 1)
    with pytest.raises(ValueError):
        hubmsg.event_topic("default", "t1", "g-1", 0)


def _messages():
    summ = {
        "players": [{"name": "Ann", "colour": "red", "score": 4}],
        "stage": "Year 1 of 7",
        "turn": "Ann",
        "alerts": [],
        "over": False,
        "winners": [],
    }
    return [
        hubmsg.status("default", "Table 7", "online", 1.5),
        hubmsg.setup("default", "Table 7", "g-1", "wendake", "Ann vs Bob", 2.0, {"players": ["Ann", "Bob"]}),
        hubmsg.event("default", "Table 7", "g-1", 3, 2.5, "MoveRecognized", {"moves": []}),
        hubmsg.snapshot("default", "Table 7", "g-1", "wendake", 3, 2.6, summ),
    ]


def test_built_messages_pass_the_check():
    kinds = []
    for m in _messages():
        kind, doc = hubmsg.check(m.topic, m.payload)
        kinds.append(kind)
        assert doc["schema"] == hubmsg.SCHEMA and doc["table"] == "table-7"
        assert m.qos == 1
        assert m.retain == (kind != "event")
    assert kinds == ["status", "setup", "event", "snapshot"]
    assert hubmsg.check(*_messages()[2][:2])[1]["seq"] == 3
    assert hubmsg.topic_names(_messages()[0].topic) == ("default", "table-7")


def _swap(msg, **changes):
    doc = json.loads(msg.payload)
    for k, v in changes.items():
        if v is KeyError:
            doc.pop(k)
        else:
            doc[k] = v
    return json.dumps(doc).encode()


@pytest.mark.parametrize(
    "topic, payload, reason",
    [
        ("other/default/t/status", b"{}", "is not tablewatch/<event>/<table>"),
        ("tablewatch/default/t", b"{}", "is not tablewatch/<event>/<table>"),
        ("tablewatch/Default/t/status", b"{}", "is not a slug"),
        ("tablewatch/default/t/score", b"{}", "is not a tablewatch.hub/1 topic"),
        ("tablewatch/default/t/game/g-1/event/007", b"{}", "is not a positive integer"),
        ("tablewatch/default/t/game/g-1/event/0", b"{}", "is not a positive integer"),
        ("tablewatch/default/table-7/status", b"\xff\xfe", "not UTF-8"),
        ("tablewatch/default/table-7/status", b"{", "not JSON"),
        ("tablewatch/default/table-7/status", b"[1]", "not an object"),
        ("tablewatch/default/table-7/status", b'{"since": NaN}', "not JSON"),
        ("tablewatch/default/table-7/status", b'{"a":' + b"[" * 100 + b"]" * 100 + b"}", "nests more than"),
    ],
)
def test_check_refuses_bad_topics_and_payloads(topic, payload, reason):
    with pytest.raises(ValueError, match=reason):
        hubmsg.check(topic, payload)


def test_check_refuses_bad_fields():
    status, setup, event, snap = _messages()
    cases = [
        (status, {"schema": "tablewatch.hub/2"}, "schema"),
        (status, {"table": "table-8"}, "the topic's table"),
        (status, {"state": "asleep"}, "online or offline"),
        (status, {"since": KeyError}, "'since' is missing"),
        (setup, {"game_id": "g-2"}, "the topic's game id"),
        (setup, {"setup": []}, "an object"),
        (event, {"seq": 4}, "the topic's seq 3"),
        (event, {"seq": True}, "the topic's seq 3"),
        (event, {"kind": ""}, "'kind'"),
        (event, {"payload": "x"}, "an object"),
        (snap, {"last_seq": -1}, "a seq"),
        (snap, {"summary": {"players": [{"name": 3}]}}, "players"),
        (snap, {"summary": {**json.loads(snap.payload)["summary"], "over": "no"}}, "true or false"),
    ]
    for msg, change, reason in cases:
        with pytest.raises(ValueError, match=reason) as info:
            hubmsg.check(msg.topic, _swap(msg, **change))
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="over"):
        hubmsg.check(status.topic, b" " * (hubmsg.MAX_PAYLOAD + 1))


def test_summary_of_a_real_session(tmp_path):
    s = GameSession.create(tmp_path / "g.sqlite", players=["Ann", "Bob"], seed=3)
    summ = hubmsg.summary(s.snapshot())
    assert [p["name"] for p in summ["players"]] == ["Ann", "Bob"]
    assert all(isinstance(p["score"], int) for p in summ["players"])
    assert summ["stage"] == "Year 1 of 7" and summ["turn"] in ("Ann", "Bob")
    assert summ["over"] is False and summ["winners"] == [] and summ["alerts"] == []
    msg = hubmsg.snapshot("default", "Table 7", s.game_id, "wendake", s.last_seq, 1.0, summ)
    assert hubmsg.check(msg.topic, msg.payload)[0] == "snapshot"
    s.close()


def test_summary_of_a_finished_game_and_alerts():
    snap = {
        "players": [
            {"name": "Ann", "colour": "red", "projected_total": 10},
            {"name": "Bob", "colour": "blue", "projected_total": 12},
        ],
        "year": 7,
        "years": 7,
        "current_name": "Ann",
        "finished": True,
        "results": {"winner": "Bob", "players": [{"name": "Ann", "total": 11}, {"name": "Bob", "total": 14}]},
        "alerts": [{"kind": "IllegalMove", "rule": "W-LINE-2", "message": "m", "tablet": {"message": "Put it back"}}],
    }
    summ = hubmsg.summary(snap)
    assert [p["score"] for p in summ["players"]] == [11, 14]
    assert summ["over"] and summ["turn"] is None and summ["winners"] == ["Bob"]
    assert summ["alerts"] == ["W-LINE-2: Put it back"]
    assert hubmsg.summary({"stage": "Half journey", "players": []})["stage"] == "Half journey"
