"""The hub (issue 36): its archive, standings, page and MQTT subscriber, against a real Mosquitto
(tests/mqtt_broker.py) and the tables' own publisher (assistant.apps.hub_publish).

What a table publishes reaches the archive whole; a broker restart, a table offline for a while, a hub restart
(stopped, or ``kill -9`` mid-stream) and duplicate or out-of-order deliveries give 0 lost and 0 double-counted
events; the standings by each rule and tie-break; the page is read-only without the organiser's PIN; bad input is
one line and exit code 2.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from assistant.apps.cli import main as tablewatch
from assistant.apps.hub_publish import Publisher
from assistant.apps.hub_serve import Subscriber
from assistant.errors import UserError
from assistant.table import hubfollow, hubmsg
from assistant.table.hubarchive import HubArchive
from assistant.table.session import GameSession
from assistant.table.standings import Settings, standings
from tests.mqtt_broker import Broker, free_port, play, until

ROOT = Path(__file__).resolve().parents[1]
PIN = "246813"


def log_events(session: GameSession) -> list[dict]:
    return session.log.events(session.game_id)


def table_of(archive: HubArchive, slug: str = "table-7") -> dict:
    return next((t for t in archive.tables() if t["table"] == slug), {"events": 0, "state": None, "snapshot": None})


def has_all(archive: HubArchive, session: GameSession, slug: str = "table-7") -> bool:
    t = table_of(archive, slug)
    snap = t["snapshot"]
    return t["events"] == len(log_events(session)) and snap is not None and snap["last_seq"] == session.last_seq


def archived_seqs(archive: HubArchive, slug: str = "table-7") -> list[int]:
    return [e["seq"] for e in archive.events("default", slug)]


@pytest.fixture
def broker(tmp_path):
    with Broker(tmp_path) as b:
        yield b


@pytest.fixture
def game(tmp_path):
    s = GameSession.create(tmp_path / "games.sqlite", players=["Ann", "Bob"], seed=3)
    yield s
    s.close()


def publisher(b: Broker, session: GameSession, name: str = "Table 7") -> Publisher:
    return Publisher(
        session.log.path,
        hubfollow.settings(b.url, name),
        snapshot_of=lambda gid: session.snapshot(),
        on_message=lambda level, text: None,
    ).start()


def subscriber(b: Broker, archive: HubArchive, **kw) -> Subscriber:
    return Subscriber(archive, hubfollow.parse_broker(b.url), on_message=lambda level, text: None, **kw).start(wait_s=5)


# ---- through a real broker ---------------------------------------------------------------------------------------
def test_the_hub_archives_what_a_table_publishes(broker, game, tmp_path):
    archive = HubArchive(tmp_path / "hub.sqlite")
    sub = subscriber(broker, archive)
    pub = publisher(broker, game)
    play(game, 25, random.Random(1))
    pub.wake()
    until(lambda: has_all(archive, game), what="the table's events and newest snapshot at the hub")
    got = archive.events("default", "table-7")
    assert [(e["seq"], e["kind"], e["payload"], e["game_id"]) for e in got] == [
        (e["seq"], e["kind"], e["payload"], game.game_id) for e in log_events(game)
    ]
    t = table_of(archive)
    assert (t["name"], t["state"], t["missing"]) == ("Table 7", "online", 0)
    assert t["snapshot"]["summary"] == hubmsg.summary(game.snapshot())
    g = archive.game("default", "table-7", game.game_id)
    assert g["players"] == ["Ann", "Bob"] and g["game"] == "wendake"
    export = archive.export("default", "table-7", game.game_id)
    assert export["setup"] == game.log.setup(game.game_id) and len(export["events"]) == 25 and export["missing"] == []
    pub.stop()
    until(lambda: table_of(archive)["state"] == "offline", what="the table's offline status")
    assert sub.state()["state"] == "connected" and sub.counts["rejected"] == 0
    sub.stop()


def test_broker_restart_and_a_table_offline_lose_nothing_and_count_nothing_twice(broker, game, tmp_path):
    archive = HubArchive(tmp_path / "hub.sqlite")
    sub = subscriber(broker, archive)
    pub = publisher(broker, game)
    rng = random.Random(2)
    play(game, 20, rng)
    broker.restart()  # mid-run: some events are in flight, some still in the log
    play(game, 20, rng)
    pub.wake()
    until(lambda: has_all(archive, game), what="every event after the broker restart")
    pub.stop()
    until(lambda: table_of(archive)["state"] == "offline", what="the table offline")
    since = table_of(archive)["since"]
    play(game, 15, rng)  # played while the table is away from the hub
    assert table_of(archive)["events"] == 40
    pub = publisher(broker, game)
    until(lambda: has_all(archive, game) and table_of(archive)["state"] == "online", what="the offline spell sent")
    assert archived_seqs(archive) == [e["seq"] for e in log_events(game)]
    assert table_of(archive)["missing"] == 0 and table_of(archive)["since"] > since
    assert sum(1 for _, c in archive.changes_since(0) if c["type"] == "event") == 55  # each event applied once
    pub.stop()
    sub.stop()


def _hub_process(b: Broker, archive: Path, tmp_path: Path) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "assistant.apps.cli",
        "hub",
        "--broker",
        b.url,
        "--archive",
        str(archive),
        "--pin",
        PIN,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--client-id",
        "test-hub",
    ]
    env = dict(os.environ, TABLEWATCH_DATA_DIR=str(tmp_path / "data"))
    with open(tmp_path / "hub.log", "a") as log:
        return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=log)


def _archived_count(path: Path) -> int:
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_hub_killed_mid_stream_and_restarted_loses_nothing(broker, game, tmp_path):
    path = tmp_path / "hub.sqlite"
    hub = _hub_process(broker, path, tmp_path)
    try:
        log = tmp_path / "hub.log"
        until(lambda: "following" in log.read_text(), what="the hub subscribed (its persistent session exists from here on)")
        pub = publisher(broker, game)
        rng = random.Random(3)
        for _ in range(12):
            play(game, 10, rng)
            pub.wake()
            time.sleep(0.05)
        until(lambda: _archived_count(path) >= 30, what="the hub archiving")
        hub.send_signal(signal.SIGKILL)  # mid-stream: messages received, some applied, some acknowledged
        hub.wait(timeout=10)
        play(game, 20, rng)  # the table goes on while the hub is down: the broker queues for the hub
        pub.wake()
        until(lambda: pub.status["acked"] == game.last_seq, what="the broker holding every event")
        hub = _hub_process(broker, path, tmp_path)
        until(lambda: _archived_count(path) == len(log_events(game)), what="every event after the hub restart")
    finally:
        hub.send_signal(signal.SIGTERM)  # as a service manager stops it (SIGINT may be ignored: assistant.apps.stopping)
        hub.wait(timeout=10)
    pub.stop()
    archive = HubArchive(path)
    assert archived_seqs(archive) == [e["seq"] for e in log_events(game)]
    assert table_of(archive)["missing"] == 0


def test_duplicate_and_out_of_order_deliveries_are_applied_once(broker, tmp_path):
    archive = HubArchive(tmp_path / "hub.sqlite")
    sub = subscriber(broker, archive)
    raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="raw-table", protocol=mqtt.MQTTv311)
    raw.connect(broker.host, broker.port)
    raw.loop_start()
    msgs = [hubmsg.event("default", "Table 3", "g1", seq, 1000.0 + seq, "Correction", {"n": seq}) for seq in range(1, 31)]
    order = msgs + msgs[::3]  # every third one twice
    random.Random(4).shuffle(order)
    summary = {
        "players": [{"name": "Ann", "colour": "red", "score": 9}],
        "stage": None,
        "turn": None,
        "alerts": [],
        "over": False,
        "winners": [],
    }
    newer = hubmsg.snapshot("default", "Table 3", "g1", "wendake", 30, 2000.0, summary)
    older = hubmsg.snapshot("default", "Table 3", "g1", "wendake", 12, 1500.0, summary | {"players": []})
    bad = hubmsg.Message("tablewatch/default/table-3/game/g1/event/7", b'{"schema": "other/1"}', False)
    for m in order + [newer, older, bad]:
        raw.publish(m.topic, m.payload, qos=1, retain=m.retain).wait_for_publish(5)
    until(lambda: sub.counts["received"] >= len(order) + 3, what="every delivery at the hub")
    assert archived_seqs(archive, "table-3") == list(range(1, 31))
    assert [e["payload"] for e in archive.events("default", "table-3")] == [{"n": s} for s in range(1, 31)]
    assert sub.counts["duplicates"] == 10 and sub.counts["rejected"] == 1 and sub.counts["stale"] == 1
    assert table_of(archive, "table-3")["snapshot"]["last_seq"] == 30  # the older snapshot came last and lost
    raw.loop_stop()
    raw.disconnect()
    sub.stop()


def _certificates(folder: Path) -> None:
    """A CA and a server certificate for 127.0.0.1 signed by it (openssl, EC keys: fast)."""

    def ssl(*args, **kw):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60, **kw)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    ssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Tablewatch test CA")
    ssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.txt").write_text("subjectAltName=IP:127.0.0.1\n")
    ssl(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.txt",
    )


@pytest.mark.skipif(not shutil.which("openssl"), reason="openssl is not installed (it makes the test certificates)")
def test_tables_and_hub_over_tls_with_the_organisers_ca(tmp_path, game):
    conf = (
        "listener {port} 127.0.0.1\nallow_anonymous true\ncafile {dir}/ca.crt\ncertfile {dir}/server.crt\n"
        "keyfile {dir}/server.key\npersistence false\n"
    )
    b = Broker(tmp_path, config=conf)
    _certificates(b.dir)
    with b:
        url, ca = f"mqtts://127.0.0.1:{b.port}", str(b.dir / "ca.crt")
        archive = HubArchive(tmp_path / "hub.sqlite")
        sub = Subscriber(archive, hubfollow.parse_broker(url), ca=ca, on_message=lambda level, text: None).start(wait_s=5)
        pub = Publisher(
            game.log.path,
            hubfollow.settings(url, "Table 7", ca=ca),
            snapshot_of=lambda gid: game.snapshot(),
            on_message=lambda level, text: None,
        ).start()
        play(game, 10, random.Random(6))
        pub.wake()
        until(lambda: has_all(archive, game), what="the table's events over TLS")
        assert sub.state()["state"] == "connected"
        pub.stop()
        sub.stop()


# ---- the archive alone -------------------------------------------------------------------------------------------
def _summary(scores: dict, over=False, winners=(), turn=None) -> dict:
    return {
        "players": [{"name": n, "colour": None, "score": s} for n, s in scores.items()],
        "stage": "Year 2 of 7",
        "turn": turn,
        "alerts": [],
        "over": over,
        "winners": list(winners),
    }


def test_the_archive_reopens_as_it_was_and_keeps_numbering(tmp_path):
    a = HubArchive(tmp_path / "hub.sqlite")
    done = a.apply(
        [
            (m.topic, m.payload)
            for m in [
                hubmsg.status("cafe", "Table 1", "online", 100.0),
                hubmsg.setup("cafe", "Table 1", "g1", "wendake", "Friday", 90.0, {"players": ["Ann", "Bob"]}),
                hubmsg.event("cafe", "Table 1", "g1", 5, 101.0, "Correction", {}),
                hubmsg.event("cafe", "Table 1", "g1", 7, 102.0, "Correction", {}),
                hubmsg.snapshot("cafe", "Table 1", "g1", "wendake", 7, 103.0, _summary({"Ann": 3, "Bob": 4}, turn="Ann")),
            ]
        ]
    )
    assert [c["type"] for _, c in done.changes] == ["status", "setup", "event", "event", "snapshot"]
    a.set_game("cafe", "table-1", "g1", round=2, counted=False)
    before = (a.tables(), a.games(), a.last_n)
    a.close()
    b = HubArchive(tmp_path / "hub.sqlite")
    assert (b.tables(), b.games(), b.last_n) == before
    assert b.tables()[0]["missing"] == 1 and b.missing("cafe", "table-1") == [6]
    again = b.apply(
        [
            (
                hubmsg.event("cafe", "Table 1", "g1", 6, 101.5, "Correction", {}).topic,
                hubmsg.event("cafe", "Table 1", "g1", 6, 101.5, "Correction", {}).payload,
            )
        ]
    )
    assert again.changes[0][0] == before[2] + 1 and b.tables()[0]["missing"] == 0


def test_a_status_will_older_than_the_online_one_is_dated_when_it_came(tmp_path):
    a = HubArchive(tmp_path / "hub.sqlite", clock=lambda: 500.0)
    a.apply(
        [
            (m.topic, m.payload)
            for m in [hubmsg.status("default", "T", "online", 300.0), hubmsg.status("default", "T", "offline", 200.0)]
        ]
    )
    t = a.tables()[0]
    assert (t["state"], t["since"]) == ("offline", 500.0)


@pytest.mark.parametrize("content", [b"not a database at all, just text" * 40, "folder", "other-sqlite"])
def test_an_archive_that_cannot_be_used_is_one_line(tmp_path, content):
    path = tmp_path / "hub.sqlite"
    if content == "folder":
        path.mkdir()
    elif content == "other-sqlite":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE games (id TEXT)")
    else:
        path.write_bytes(content)
    with pytest.raises(UserError) as exc:
        HubArchive(path)
    assert "\n" not in str(exc.value) and str(path) in str(exc.value)


# ---- standings ---------------------------------------------------------------------------------------------------
def _game(table, gid, created, scores, winners=None, over=True, round=None, counted=True) -> dict:
    winners = winners if winners is not None else [max(scores, key=scores.get)]
    return {
        "event": "default",
        "table": table,
        "game_id": gid,
        "created": created,
        "round": round,
        "counted": counted,
        "snapshot": {"summary": _summary(scores, over=over, winners=winners)},
    }


EVENING = [
    _game("table-1", "a", 0, {"Ann": 40, "Bob": 35, "Cy": 20}),
    _game("table-2", "b", 60, {"Dee": 30, "Eve": 30}, winners=["Dee", "Eve"]),  # a shared win
    _game("table-1", "c", 7300, {"ann ": 10, "Dee": 50}),  # round 2 by start time; "ann " is Ann
    _game("table-2", "d", 7400, {"Bob": 44, "Eve": 22, "Cy": 22}),
    _game("table-3", "e", 7400, {"Bob": 99, "Zed": 1}, over=False),  # in play: not counted yet
    _game("table-3", "f", 100, {"Zed": 100, "Cy": 0}, counted=False),  # left out by the organiser
]


def _table(rule: str, **kw) -> list[tuple]:
    rows, rounds = standings(EVENING, Settings(rule=rule, **kw))
    assert rounds == [1, 2]
    return [(r.rank, r.name, r.value) for r in rows]


def test_standings_by_wins_points_and_places():
    assert _table("wins", tie_breaks=("points",)) == [
        (1, "Dee", 1.5),
        (2, "Bob", 1.0),
        (3, "Ann", 1.0),
        (4, "Eve", 0.5),
        (5, "Cy", 0.0),
    ]
    assert _table("points") == [(1, "Dee", 80.0), (2, "Bob", 79.0), (3, "Eve", 52.0), (4, "Ann", 50.0), (5, "Cy", 42.0)]
    assert _table("places") == [  # players beaten; a shared place shares the mean of its places' points
        (1, "Bob", 3.0),
        (2, "Ann", 2.0),
        (3, "Dee", 1.5),
        (4, "Eve", 1.0),
        (5, "Cy", 0.5),
    ]
    by = {r.name: r for r in standings(EVENING, Settings(rule="places", place_points=(4, 2, 1, 0)))[0]}
    assert (by["Bob"].places, by["Cy"].places, by["Eve"].by_round) == (6.0, 2.5, {1: 3.0, 2: 1.5})
    assert by["Ann"].games == 2 and by["Ann"].by_round == {1: 4.0, 2: 2.0}


def test_tie_breaks_in_the_organisers_order():
    # Bob and Ann both have one win; by points Bob (79) is ahead of Ann (50); by head-to-head Ann beat Bob at table 1
    wins_then_points = _table("wins", tie_breaks=("points",))
    wins_then_h2h = _table("wins", tie_breaks=("h2h", "points"))
    assert wins_then_points[1:3] == [(2, "Bob", 1.0), (3, "Ann", 1.0)]
    assert wins_then_h2h[1:3] == [(2, "Ann", 1.0), (3, "Bob", 1.0)]
    shared = _table("wins", tie_breaks=())  # level after every tie-break: the same rank
    assert shared[1:3] == [(2, "Ann", 1.0), (2, "Bob", 1.0)]


def test_rounds_set_by_the_organiser_win_over_start_time():
    games = [dict(g) for g in EVENING]
    games[2] = dict(games[2], round=1)
    rows, rounds = standings(games, Settings(rule="points", round_minutes=240))
    ann = next(r for r in rows if r.name == "Ann")
    assert rounds == [1] and ann.by_round == {1: 50.0}
    with pytest.raises(UserError):
        Settings(rule="fastest")
    with pytest.raises(UserError):
        Settings(tie_breaks=("h2h", "h2h"))


# ---- the page ----------------------------------------------------------------------------------------------------
@pytest.fixture
def page(tmp_path):
    from web.hubpage import create_hub_app
    from web.security import PinStore

    PinStore(tmp_path / "pin.json").set_pin(PIN)
    archive = HubArchive(tmp_path / "hub.sqlite")
    archive.apply(
        [
            (m.topic, m.payload)
            for m in [
                hubmsg.status("default", "Table 1", "online", 100.0),
                hubmsg.setup("default", "Table 1", "g1", "wendake", None, 90.0, {"players": ["Ann", "Bob"]}),
                hubmsg.event("default", "Table 1", "g1", 1, 101.0, "Correction", {"moves": []}),
                hubmsg.snapshot(
                    "default", "Table 1", "g1", "wendake", 1, 103.0, _summary({"Ann": 3, "Bob": 4}, over=True, winners=["Bob"])
                ),
                hubmsg.status("default", "Table 2", "offline", 150.0),
                hubmsg.snapshot(
                    "default",
                    "Table 4",
                    "g4",
                    "wendake",
                    9,
                    160.0,
                    _summary({"Cy": 2}, turn="Cy") | {"alerts": ["W-LINE-2: Put the red action marker back."]},
                ),
            ]
        ]
    )
    app = create_hub_app(archive, {"PIN_FILE": str(tmp_path / "pin.json"), "EVENT": "default"})
    client = app.test_client()
    client.get("/")
    token = client.get("/api/whoami").get_json()["csrf_token"]
    return client, token, archive


def test_the_page_is_read_only_without_the_pin(page):
    client, token, archive = page
    html = client.get("/").get_data(as_text=True)
    assert 'data-table="table-1"' in html and 'data-state="offline"' in html and 'data-standings="default"' in html
    assert "W-LINE-2: Put the red action marker back." in html and "Year 2 of 7" in html and "data-turn>Cy<" in html
    r = client.post("/api/standings", json={"rule": "points"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 403 and r.get_json()["need"] == "pin"
    r = client.post("/api/standings", data={"rule": "points", "csrf_token": token})
    assert r.status_code == 303 and "PIN" in client.get("/").get_data(as_text=True)
    assert client.post("/api/standings", json={"rule": "points"}).status_code == 403  # no CSRF token
    assert "default" not in archive.settings
    assert client.post("/api/unlock", json={"pin": PIN}, headers={"X-CSRF-Token": token}).status_code == 200
    r = client.post("/api/standings", json={"rule": "points", "tie_breaks": ["h2h"]}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and archive.settings["default"]["rule"] == "points"
    r = client.post("/api/game", json={"table": "table-1", "game_id": "g1", "round": "3"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and archive.game("default", "table-1", "g1")["round"] == 3
    r = client.post("/api/standings", json={"rule": "fastest"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 400 and "\n" not in r.get_json()["error"]
    hub = client.get("/api/hub").get_json()["events"][0]
    assert [(s["name"], s["value"]) for s in hub["standings"]] == [("Bob", 4.0), ("Ann", 3.0)]


def test_a_hub_with_nothing_yet_says_how_a_table_joins(tmp_path):
    from web.hubpage import create_hub_app
    from web.security import PinStore

    PinStore(tmp_path / "pin.json").set_pin(PIN)
    app = create_hub_app(HubArchive(tmp_path / "hub.sqlite"), {"PIN_FILE": str(tmp_path / "pin.json")})
    html = app.test_client().get("/").get_data(as_text=True)
    assert "No table has reported yet" in html and "--hub mqtt://" in html and "No finished game yet" in html


def test_each_games_export_is_its_archived_events(page):
    client, _, archive = page
    r = client.get("/export/default/table-1/g1.json")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    doc = json.loads(r.get_data())
    assert doc == json.loads(json.dumps(archive.export("default", "table-1", "g1")))
    assert doc["format"] == "tablewatch.hub-export/1" and [e["seq"] for e in doc["events"]] == [1]
    for url in ("/export/default/table-1/nope.json", "/export/NOT_A_SLUG/table-1/g1.json", "/game/default/table-9/g1"):
        r = client.get(url)
        assert r.status_code == 404 and "\n" not in r.get_json()["error"]


# ---- the command ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, says",
    [
        (["--broker", "http://x:1883"], "scheme"),
        (["--broker", "mqtt://u:pw@x:1883"], "--user"),
        (["--broker", "mqtt://127.0.0.1:1883", "--archive", "{tmp}"], "folder"),
        (["--broker", "mqtt://127.0.0.1:1883", "--password-file", "{tmp}/nope"], "not found"),
        (["--broker", "mqtt://127.0.0.1:1883", "--event", "!!"], "--event"),
        (
            [
                "--broker",
                "mqtt://127.0.0.1:1883",
                "--archive",
                "{tmp}/a.sqlite",
                "--standings",
                "places",
                "--place-points",
                "4,x",
            ],
            "place points",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, says):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert tablewatch(["hub", *argv, "--pin", PIN]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and says in err and "Traceback" not in err


def test_a_refused_hub_is_one_line(tmp_path, capsys):
    with Broker(tmp_path, users={"hub": "right"}) as b:
        pw = tmp_path / "pw"
        pw.write_text("wrong\n")
        code = tablewatch(
            [
                "hub",
                "--broker",
                b.url,
                "--user",
                "hub",
                "--password-file",
                str(pw),
                "--pin",
                PIN,
                "--archive",
                str(tmp_path / "a.sqlite"),
                "--port",
                str(free_port()),
                "--host",
                "127.0.0.1",
            ]
        )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "refused" in err[-1] and "--password-file" in err[-1]
