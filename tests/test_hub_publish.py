"""A table publishes its game log to a real Mosquitto (issue 36): in order, through a broker restart, an offline
spell and a publisher ``kill -9``, with 0 lost and 0 double-applied events; the shipped broker config's ACL.

Every test starts its own broker (tests/mqtt_broker.py) and reads back with a plain paho subscriber that counts
what a hub would apply: each ``(table, seq)`` once.
"""

from __future__ import annotations

import functools
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from assistant.errors import UserError
from assistant.table import hubfollow, hubmsg
from assistant.table.session import GameSession
from tests.mqtt_broker import Broker, play
from tests.mqtt_broker import until as wait_until

ROOT = Path(__file__).resolve().parents[1]
until = functools.partial(wait_until, timeout=15.0)


class Reader:
    """A plain paho subscriber with a persistent session: every message as (topic, payload)."""

    def __init__(self, b: Broker, user=None, password=None, client_id="test-reader"):
        self.messages: list[tuple[str, bytes, bool]] = []
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.refused = None
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=False, protocol=mqtt.MQTTv311)
        if user:
            c.username_pw_set(user, password)
        c.reconnect_delay_set(1, 2)
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        c.connect_async(b.host, b.port, keepalive=10)
        c.loop_start()
        self.client = c

    def _on_connect(self, client, userdata, flags, reason, properties):
        if reason.is_failure:
            self.refused = str(reason)
            return
        client.subscribe(hubmsg.subscription(), qos=1)
        self.connected.set()

    def _on_message(self, client, userdata, msg):
        with self.lock:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))

    def kinds(self, kind: str) -> list[dict]:
        with self.lock:
            got = list(self.messages)
        return [doc for k, doc in (hubmsg.check(t, p) for t, p, _ in got) if k == kind]

    def seqs(self) -> list[int]:
        return [d["seq"] for d in self.kinds("event")]

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def logged_seqs(session: GameSession) -> list[int]:
    return [e["seq"] for e in session.log.events(session.game_id)]


def hub(b: Broker, name="Table 7", **kw) -> hubfollow.HubSettings:
    return hubfollow.settings(b.url, name, **kw)


@pytest.fixture
def broker(tmp_path):
    with Broker(tmp_path) as b:
        yield b


@pytest.fixture
def game(tmp_path):
    s = GameSession.create(tmp_path / "games.sqlite", players=["Ann", "Bob"], seed=3)
    yield s
    s.close()


def applied(seqs: list[int]) -> tuple[list[int], int]:
    """What a hub applies (each seq once, in seq order) and how many deliveries it ignored as duplicates."""
    return sorted(set(seqs)), len(seqs) - len(set(seqs))


def first_deliveries(seqs: list[int]) -> list[int]:
    """Each seq at its first delivery: the order a hub applies them in (a QoS 1 repeat comes later and is ignored)."""
    return list(dict.fromkeys(seqs))


def test_a_game_is_published_in_order_with_setup_status_and_snapshot(broker, game):
    from assistant.apps.hub_publish import Publisher

    rng = random.Random(1)
    play(game, 10, rng)  # before the publisher starts: sent too (the newest game is sent whole)
    reader = Reader(broker)
    until(reader.connected.is_set, what="the reader")
    lines = []
    pub = Publisher(game.log.path, hub(broker), on_message=lambda level, text: lines.append(text)).start()
    try:
        play(game, 20, rng)
        want = logged_seqs(game)
        until(lambda: reader.seqs() == want, what="every event")
        until(lambda: pub.status["acked"] == want[-1], what="the acknowledgements")
        until(lambda: any(d["last_seq"] == want[-1] for d in reader.kinds("snapshot")), what="the last snapshot")
    finally:
        pub.stop()
    assert reader.seqs() == want  # all, in order, once
    setups = reader.kinds("setup")
    assert setups and setups[0]["game_id"] == game.game_id and setups[0]["setup"]["players"] == ["Ann", "Bob"]
    states = [d["state"] for d in reader.kinds("status")]
    assert states[0] == "online" and states[-1] == "offline"
    snap = reader.kinds("snapshot")[-1]
    assert snap["summary"]["players"][0]["name"] == "Ann" and snap["summary"]["stage"].startswith("Year ")
    event = reader.kinds("event")[0]
    assert event["payload"] == game.log.events(game.game_id)[0]["payload"]
    assert any("publishing to mqtt://127.0.0.1" in t for t in lines)
    state = json.loads(pub.follower.state_path.read_text())
    assert state["acked"] == want[-1] and pub.follower.state_path.parent == Path(game.log.path).parent
    # the retained topics: a hub that subscribes later gets status, setup and snapshot at once
    late = Reader(broker, client_id="late-reader")
    until(lambda: len({t for t, _, r in late.messages if r}) >= 3, what="the retained messages")
    retained = {hubmsg.check(t, p)[0] for t, p, r in late.messages if r}
    assert retained == {"status", "setup", "snapshot"} and not late.kinds("event")
    late.close()
    reader.close()


def test_broker_restart_mid_run_loses_nothing(broker, game):
    from assistant.apps.hub_publish import Publisher

    rng = random.Random(2)
    reader = Reader(broker)
    until(reader.connected.is_set, what="the reader")
    pub = Publisher(game.log.path, hub(broker)).start()

    def table():  # the game goes on while the broker restarts
        for _ in range(150):
            play(game, 1, rng)
            time.sleep(0.01)

    t = threading.Thread(target=table)
    t.start()
    try:
        until(lambda: len(reader.seqs()) >= 20, what="the first events")
        broker.restart()
        t.join()
        want = logged_seqs(game)
        until(lambda: set(reader.seqs()) >= set(want), timeout=40, what="every event")
    finally:
        t.join()
        pub.stop()
    got, ignored = applied(reader.seqs())
    assert got == want  # 0 lost, each applied once
    print(f"broker restart: {len(want)} events, {ignored} deliveries repeated by QoS 1 and ignored")
    reader.close()


def test_table_offline_for_a_while_sends_the_rest_when_back(broker, game):
    from assistant.apps.hub_publish import Publisher

    rng = random.Random(3)
    reader = Reader(broker)
    until(reader.connected.is_set, what="the reader")
    lines = []
    pub = Publisher(game.log.path, hub(broker), on_message=lambda level, text: lines.append(text)).start()
    try:
        play(game, 10, rng)
        until(lambda: pub.status["acked"] == logged_seqs(game)[-1], what="the first acknowledgements")
        before = logged_seqs(game)[-1]
        broker.stop()
        until(lambda: not pub.status["connected"], what="the publisher to notice")
        t0 = time.monotonic()
        play(game, 30, rng)  # the game goes on, at full speed, with no broker
        assert time.monotonic() - t0 < 5.0
        assert pub.status["message"] and "the game goes on" in lines[-1]
        broker.start()
        want = logged_seqs(game)
        until(lambda: set(reader.seqs()) >= set(want), timeout=40, what="the events played offline")
    finally:
        pub.stop()
    # in order, none lost; the broker may deliver again what the reader had not acknowledged when it stopped (QoS 1
    # with a persistent session), and a hub ignores such a repeat; nothing played offline comes twice
    seqs = reader.seqs()
    assert first_deliveries(seqs) == want
    repeated = {s for s in seqs if seqs.count(s) > 1}
    assert all(s <= before for s in repeated), f"events played offline came twice: {sorted(repeated)}"
    reader.close()


def _publisher_process(db: Path, url: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "assistant.apps.hub_publish", "--db", str(db), "--hub", url, "--table", "Table 7"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_publisher_kill_9_resumes_after_the_acknowledged_seq(broker, game):
    rng = random.Random(4)
    reader = Reader(broker)
    until(reader.connected.is_set, what="the reader")
    key = hub(broker).key
    state = key.state_path(game.log.path)
    proc = _publisher_process(game.log.path, broker.url)
    try:
        play(game, 30, rng)

        def acked_now() -> int:
            try:
                return json.loads(state.read_text())["acked"]
            except (OSError, ValueError, KeyError):
                return 0

        until(lambda: acked_now() >= logged_seqs(game)[-1], what="the acknowledged seq on disk")
        play(game, 20, rng)  # killed while these go out
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        acked = acked_now()
        assert acked >= 30
        seen_before = list(reader.seqs())
        play(game, 20, rng)  # the table plays on while no publisher runs
        proc = _publisher_process(game.log.path, broker.url)
        want = logged_seqs(game)
        until(lambda: set(reader.seqs()) >= set(want), timeout=30, what="every event after the restart")
    finally:
        proc.send_signal(signal.SIGTERM)  # as a service manager stops it (assistant.apps.stopping)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    got, ignored = applied(reader.seqs())
    assert got == want  # 0 lost, 0 double-applied
    again = [s for s in reader.seqs()[len(seen_before) :] if s in seen_before]
    assert all(s > acked for s in again), "only events never acknowledged may be sent again"
    print(
        f"kill -9: acknowledged {acked} at the kill, {len(again)} events sent again (never acknowledged), "
        f"{ignored} ignored in all"
    )
    reader.close()


# ---- the shipped broker configuration: passwords and the ACL ------------------------------------------------------
def _shipped_config(tmp_path) -> tuple[str, str]:
    conf = (ROOT / "hardware/mosquitto/mosquitto.conf").read_text(encoding="utf-8")
    acl = (ROOT / "hardware/mosquitto/acl").read_text(encoding="utf-8")
    return conf, acl


def test_shipped_config_keeps_each_table_to_its_own_topics(tmp_path):
    conf, acl = _shipped_config(tmp_path)
    users = {"table-7": "pw7", "table-8": "pw8", "hub": "pwhub"}
    # the organiser's paths and port become the test's (the text is otherwise exactly the shipped one)
    conf = (
        conf.replace("listener 1883", "listener {port} 127.0.0.1")
        .replace("/etc/mosquitto/tablewatch/passwords", "{dir}/passwords")
        .replace("/etc/mosquitto/tablewatch/acl", "{dir}/acl")
        .replace("/var/lib/mosquitto/", "{dir}/data/")
    )
    assert "{port}" in conf and "{dir}/passwords" in conf and "{dir}/acl" in conf
    b = Broker(tmp_path, users=users, acl=acl, config=conf)
    with b:
        hub_reader = Reader(b, user="hub", password="pwhub", client_id="hub-reader")
        until(hub_reader.connected.is_set, what="the hub user")
        # table-7 publishes its own topic and, wrongly, one of table-8's
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t7", protocol=mqtt.MQTTv311)
        c.username_pw_set("table-7", "pw7")
        c.connect(b.host, b.port)
        c.loop_start()
        until(c.is_connected, what="table-7 to connect")
        own = hubmsg.status("default", "Table 7", "online", 1.0)
        forged = hubmsg.status("default", "Table 8", "offline", 1.0)
        c.publish(own.topic, own.payload, qos=1).wait_for_publish(5)
        c.publish(forged.topic, forged.payload, qos=1)  # Mosquitto 2.0 drops it (and the connection)
        until(lambda: any(t == own.topic for t, _, _ in hub_reader.messages), what="table-7's own message")
        time.sleep(0.5)
        assert [t for t, _, _ in hub_reader.messages] == [own.topic]  # table-8's topic stayed untouched
        c.disconnect()
        c.loop_stop()
        # a table cannot read the others either; an anonymous client and a wrong password cannot connect
        for user, password in ((None, None), ("table-7", "wrong")):
            r = Reader(b, user=user, password=password, client_id=f"intruder-{user}")
            until(lambda r=r: r.refused is not None, what="the refusal")
            assert not r.connected.is_set()
            r.close()
        hub_reader.close()


def test_a_refused_password_is_one_line_and_the_game_goes_on(tmp_path, game):
    from assistant.apps.hub_publish import Publisher

    b = Broker(tmp_path, users={"table-7": "right"}, acl="user table-7\ntopic write tablewatch/+/%u/#\n")
    pw = tmp_path / "pw"
    pw.write_text("wrong\n")
    with b:
        lines = []
        pub = Publisher(
            game.log.path, hub(b, user="table-7", password_file=str(pw)), on_message=lambda level, text: lines.append(text)
        ).start()
        try:
            until(lambda: pub.status["message"] is not None, what="the refusal")
            play(game, 3, random.Random(5))
            assert not pub.status["connected"] and pub.status["acked"] == 0
        finally:
            pub.stop()
        assert len(lines) == 1 and "refused" in lines[0] and "--hub-user" in lines[0] and "\n" not in lines[0]


def test_an_unreachable_broker_is_one_line(tmp_path, game):
    from assistant.apps.hub_publish import Publisher
    from tests.mqtt_broker import free_port

    lines = []
    settings = hubfollow.settings(f"mqtt://127.0.0.1:{free_port()}", "Table 7")
    pub = Publisher(game.log.path, settings, on_message=lambda level, text: lines.append(text)).start()
    try:
        until(lambda: pub.status["message"] is not None, what="the failure")
        play(game, 2, random.Random(6))
    finally:
        pub.stop()
    assert lines and "cannot reach" in lines[0] and "the game goes on" in lines[0]


@pytest.mark.parametrize(
    "url, name, reason",
    [
        ("", "T", "no hub broker given"),
        ("localhost:1883", "T", "has no scheme"),
        ("http://h:1883", "T", "is not mqtt or mqtts"),
        ("mqtt://:1883", "T", "names no host"),
        ("mqtt://h:99999", "T", "is not a URL"),
        ("mqtt://u:p@h", "T", "--hub-user"),
        ("mqtt://h/x", "T", "has a path"),
        ("mqtt://h", "", "needs the table's name"),
        ("mqtt://h", "+#", "no letter or digit"),
    ],
)
def test_bad_hub_settings_are_one_line(url, name, reason):
    with pytest.raises(UserError, match=reason) as info:
        hubfollow.settings(url, name)
    assert "\n" not in str(info.value)


def test_settings_defaults_and_files(tmp_path):
    s = hubfollow.settings("mqtts://hub.example", "Table 7")
    assert (s.broker.port, s.tls, s.event) == (8883, True, "default")
    assert hubfollow.settings("mqtt://h", "T").broker.port == 1883
    with pytest.raises(UserError, match="not found"):
        hubfollow.settings("mqtt://h", "T", user="u", password_file=str(tmp_path / "missing"))
    with pytest.raises(UserError, match="CA certificate"):
        hubfollow.settings("mqtt://h", "T", ca=str(tmp_path / "ca.pem"))
    (tmp_path / "pw").write_text("")
    with pytest.raises(UserError, match="empty"):
        hubfollow.settings("mqtt://h", "T", user="u", password_file=str(tmp_path / "pw"))


def test_publish_command_refuses_bad_input(tmp_path):
    env = {**os.environ, "TABLEWATCH_DATA_DIR": str(tmp_path)}
    r = subprocess.run(
        [sys.executable, "-m", "assistant.apps.hub_publish", "--hub", "mqtt://h", "--table", "T"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "no game log" in r.stderr and "Traceback" not in r.stderr


# ---- the tablet's Setup: the hub field, and live's HubLink following it ---------------------------------------
def test_setup_hub_field_is_saved_and_followed(tmp_path, game):
    from assistant.apps.hub_publish import HubLink
    from web import security
    from web.app import create_app

    pin = "482193"
    security.PinStore(tmp_path / "pin.json").set_pin(pin)
    data = tmp_path / "data"
    app = create_app(game, {"PIN_FILE": str(tmp_path / "pin.json"), "DATA_DIR": str(data), "TESTING": True})
    c = app.test_client()
    assert "Hub (many tables)" in c.get("/setup").get_data(as_text=True)
    t = c.get("/api/whoami").get_json()["csrf_token"]
    h = {"X-CSRF-Token": t}
    body = {"url": "mqtt://127.0.0.1:1", "table": "Table 7", "event": "", "user": "table-7", "password": "s3cret"}
    assert c.post("/api/setup/hub", json=body, headers=h).status_code == 403  # the PIN first, like every change
    assert c.post("/api/unlock", json={"pin": pin}, headers=h).status_code == 200
    r = c.post("/api/setup/hub", json={**body, "url": "localhost:1883"}, headers=h)
    assert r.status_code == 400 and "has no scheme" in r.get_json()["error"]
    assert not (data / "setup.json").is_file() or "hub" not in json.loads((data / "setup.json").read_text())

    b = Broker(
        tmp_path,
        users={"table-7": "s3cret", "hub": "h"},
        acl="user hub\ntopic read tablewatch/#\npattern write tablewatch/+/%u/#\n",
    )
    with b:
        r = c.post("/api/setup/hub", json={**body, "url": b.url}, headers=h)
        assert r.status_code == 200 and r.get_json()["topic"] == "tablewatch/default/table-7/"
        saved = json.loads((data / "setup.json").read_text())["hub"]
        assert saved == {"url": b.url, "table": "Table 7", "event": "default", "user": "table-7"}
        assert "s3cret" not in (data / "setup.json").read_text()
        assert ((data / hubfollow.PASSWORD_FILE).stat().st_mode & 0o777) == 0o600
        # saved again without a password: the saved one is kept
        assert c.post("/api/setup/hub", json={**body, "url": b.url, "password": ""}, headers=h).status_code == 200
        reader = Reader(b, user="hub", password="h")
        until(reader.connected.is_set, what="the hub user")
        link = HubLink(game.log.path, data, poll_s=0.2).start()
        try:
            play(game, 5, random.Random(7))
            until(lambda: set(reader.seqs()) >= set(logged_seqs(game)), what="the game through Setup's hub")
            assert c.post("/api/setup/hub", json={**body, "url": ""}, headers=h).get_json() == {"ok": True, "hub": None}
            until(lambda: link.publisher is None, what="publishing to stop")
            assert not (data / hubfollow.PASSWORD_FILE).exists()
        finally:
            link.stop()
        assert reader.kinds("status")[-1]["state"] == "offline"
        reader.close()


# ---- the follower alone (no broker) --------------------------------------------------------------------------------
def test_follower_starts_at_the_newest_game_and_resumes_at_the_acknowledged_seq(tmp_path):
    from assistant.table.eventlog import EventLog

    log = EventLog(tmp_path / "games.sqlite")
    log.create_game("g-old", "wendake", {"players": ["A"]}, "old")
    old = [log.append("g-old", "Note", {"i": i}) for i in range(3)]
    log.create_game("g-new", "wendake", {"players": ["B"]}, "new")
    new = [log.append("g-new", "Note", {"i": i}) for i in range(4)]
    key = hubfollow.HubKey("127.0.0.1:1883", "default", "Table 7")
    f = hubfollow.Follower(log.path, key)
    assert f.acked == old[-1]  # a table joining a hub sends its newest game, not the ones before
    batch = f.next(limit=3)
    assert [(k, v) for _, k, v in batch] == [("setup", "g-new"), ("event", new[0]), ("event", new[1]), ("event", new[2])]
    assert hubmsg.check(batch[0][0].topic, batch[0][0].payload)[1]["setup"] == {"players": ["B"]}
    f.acknowledged(new[1])
    f.acknowledged(setup_of="g-new")
    assert f.save() and f.state_path.name.startswith("games.sqlite.hub-")
    f.close()
    again = hubfollow.Follower(log.path, key)  # a new process: from the acknowledged seq, the setup not again
    assert again.cursor == new[1]
    assert [(k, v) for _, k, v in again.next()] == [("event", new[2]), ("event", new[3])]
    assert again.next() == []
    again.close()
    other = hubfollow.Follower(log.path, hubfollow.HubKey("127.0.0.1:1883", "night-2", "Table 7"))
    assert other.acked == old[-1] and other.state_path != again.state_path  # one acknowledged seq per hub
    other.close()
    again.state_path.write_text("{broken")
    with pytest.raises(UserError, match="not valid JSON") as info:
        hubfollow.Follower(log.path, key)
    assert "\n" not in str(info.value)
    log.close()


def test_a_missing_broker_skips_only_outside_ci(monkeypatch):
    from tests import mqtt_broker

    monkeypatch.setattr(mqtt_broker, "mosquitto_path", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install mosquitto"):
        mqtt_broker.require_mosquitto()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the hub tests"):
        mqtt_broker.require_mosquitto()
