"""``tablewatch bench hub``: many tables through a real local Mosquitto into the hub, measured end to end.

Recorded games are made first (``--games``, default 8): full Wendake games of 2 to 4 players played with random
legal moves, each move timed as at a real table (``--move-s``, default 20 s on average, 0.5x to 1.5x). Then:

- a Mosquitto (Debian's ``mosquitto``) on a free loopback port, with persistence, as hardware/mosquitto ships it;
- the hub, ``tablewatch hub`` as its own process (``--archive`` in the work folder);
- ``--tables`` (default 50) table processes, each a game log of its own followed by the tables' publisher
  (assistant.apps.hub_publish, as ``tablewatch live --hub`` runs it). Each replays recorded games one after the
  other at ``--speed`` (default 10x): at each move's time the move is entered (a ``Correction`` in its log) and a
  perfect look of the table after it is logged (an ``Observation``, a look's real size);
- one reader of the hub page's live stream (``/events``), as a browser reads it.

After ``--seconds`` (default 60) the tables stop (their publishers wait for the broker's last acknowledgements) and
the hub is given up to ``--drain-s`` to archive the rest (each event's table, seq, log time and latency are kept in
``stream.json`` in the work folder). Reported: events the tables logged and how many the hub's
archive lacks (dropped: must be 0), events the stream carried twice (double-counted: 0) or never; the latency from
an event's time in its table's log to its arrival on the page's stream (p50, p95, max); the hub's CPU (% of one
core over the run) and peak memory; the tables' and the broker's CPU for comparison. Target: p95 <= 500 ms at 50
tables on 2 cores, 0 dropped.

``--restart-broker``: the broker is stopped (SIGTERM: it saves its sessions and queued messages) half-way through
and started again ``--outage-s`` later. ``--kill-table``: one table process is killed (SIGKILL) a third of the way
through and started again 2 s later; it resumes its game from its log and its publisher from its acknowledged seq.
Both must still give 0 dropped; the latency is given apart for events logged outside the disturbance.

The table processes are this module run as ``python -m assistant.apps.bench_hub table ...``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from assistant.apps.bench_web import sse_messages
from assistant.apps.hub_publish import Publisher
from assistant.errors import UserError
from assistant.table import hubfollow
from assistant.table.eventlog import as_stored
from assistant.table.observation import Observation, Reading
from assistant.table.session import GameSession

PIN = "468024"
NAMES = ["Ann", "Bob", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jo", "Kim", "Lea", "Max", "Nia", "Oli", "Pam"]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * (len(s) - 1)))))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- recorded games ----------------------------------------------------------------------------------------------
def record_games(out: Path, count: int, move_s: float, seed: int = 1) -> list[Path]:
    """``count`` full games played with random legal moves, each move with its time at a real table."""
    paths = []
    rng = random.Random(seed)
    for i in range(count):
        players = rng.sample(NAMES, 2 + i % 3)
        with tempfile.TemporaryDirectory() as tmp:
            s = GameSession.create(Path(tmp) / "rec.sqlite", players=players, seed=100 + i)
            g, moves, t = s.game, [], 0.0
            while not g.is_over(s.state) and len(moves) < 2000:
                move = g.move_to_json(g.random_move(s.state, rng))
                s.correct([move])
                t += move_s * rng.uniform(0.5, 1.5)
                moves.append([round(t, 2), move])
            s.close()
        path = out / f"recorded-{i}.json"
        path.write_text(json.dumps({"players": players, "seed": 100 + i, "moves": moves}), encoding="utf-8")
        paths.append(path)
    return paths


# ---- one table (its own process) ---------------------------------------------------------------------------------
def look(session: GameSession, frame: int) -> dict:
    """A perfect camera's look of the table now, as the log stores an observation."""
    readings = {k: Reading(v, 0.99) for k, v in session.game.expected_readings(session.state).items()}
    return as_stored(Observation(frame=frame, t=time.time(), readings=readings).to_json())


def table_main(argv: list[str]) -> int:
    """Replay recorded games into a game log at ``--speed``, with the tables' publisher following it."""
    p = argparse.ArgumentParser(prog="bench_hub table")
    p.add_argument("--db", required=True)
    p.add_argument("--broker", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--recordings", nargs="+", required=True)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--speed", type=float, default=10.0)
    p.add_argument("--delay", type=float, default=0.0)
    a = p.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    recs = [json.loads(Path(r).read_text(encoding="utf-8")) for r in a.recordings]
    session, index, done = _resume(a.db, len(recs))
    if session is None:
        index = a.first % len(recs)
        session = _new_game(a.db, recs[index], index)
    current = {"s": session}
    pub = Publisher(
        a.db,
        hubfollow.settings(a.broker, a.name),
        on_message=lambda level, text: None,
        snapshot_of=lambda gid: current["s"].snapshot() if gid == current["s"].game_id else None,
    ).start()
    stop.wait(a.delay)
    frame = 0
    try:
        while not stop.is_set():
            rec = recs[index]
            start = time.monotonic() - (rec["moves"][done - 1][0] / a.speed if done else 0.0)
            for t, move in rec["moves"][done:]:
                if stop.wait(max(0.0, start + t / a.speed - time.monotonic())):
                    break
                try:
                    session.correct([move])
                except UserError:
                    break  # a recording this version cannot replay: on to the next game
                frame += 1
                session.log.append(session.game_id, "Observation", look(session, frame))
                pub.wake()
            if stop.is_set():
                break
            index, done = (index + 1) % len(recs), 0
            session.close()
            session = current["s"] = _new_game(a.db, recs[index], index)
        # stopped: every event logged goes out before the publisher stops (a table that stops for good does the same
        # when it next starts; here the benchmark waits, so that what the hub lacks afterwards is lost)
        last = session.last_seq
        deadline = time.monotonic() + 60
        while pub.status["acked"] < last and time.monotonic() < deadline:
            pub.wake()
            time.sleep(0.05)
    finally:
        pub.stop()
        session.close()
    return 0


def _new_game(db: str, rec: dict, index: int) -> GameSession:
    return GameSession.create(db, players=rec["players"], seed=rec["seed"], title=f"recorded {index}")


def _resume(db: str, count: int) -> tuple[GameSession | None, int, int]:
    """After a kill: the newest game, which recording it plays and how many of its moves are in the log."""
    if not Path(db).is_file():
        return None, 0, 0
    session = GameSession.resume(db, rerun=False)
    title = next((g["title"] for g in session.log.games() if g["id"] == session.game_id), "") or ""
    index = int(title.rsplit(" ", 1)[-1]) % count if title.startswith("recorded ") else 0
    done = sum(1 for e in session.log.events(session.game_id) if e["kind"] == "Correction")
    return session, index, done


# ---- the reader of the page's stream -----------------------------------------------------------------------------
class StreamReader(threading.Thread):
    """Reads the hub page's ``/events``: for each archived event, when it reached the page (reconnects with
    ``Last-Event-ID`` if the stream breaks)."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port = port
        self.seen: dict[tuple, float] = {}  # (table, seq) -> latency s
        self.t_of: dict[tuple, float] = {}  # (table, seq) -> the event's time in its table's log
        self.twice = 0
        self.views = 0
        self.last_id: str | None = None
        self.stop = threading.Event()
        self.connected = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._read()
            except (OSError, http.client.HTTPException, ValueError):
                self.stop.wait(0.2)

    def _read(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Accept": "text/event-stream"} | ({"Last-Event-ID": self.last_id} if self.last_id else {})
        conn.request("GET", "/events", headers=headers)
        resp = conn.getresponse()
        if resp.status != 200:
            raise http.client.HTTPException(f"stream refused: {resp.status}")
        self.connected.set()
        for event, ident, data in sse_messages(resp):
            now = time.time()
            if event == "game" and data:
                d = json.loads(data)
                if d.get("type") == "event":
                    key = (d["event"], d["table"], d["seq"])
                    if key in self.seen:
                        self.twice += 1
                    else:
                        self.seen[key] = now - float(d["t"])
                        self.t_of[key] = float(d["t"])
            elif event == "view":
                self.views += 1
            if ident:
                self.last_id = ident
            if self.stop.is_set():
                return


# ---- processes -----------------------------------------------------------------------------------------------------
def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def memory_mb(pid: int, key: str = "VmHWM") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


class Mosquitto:
    """A local broker with persistence (sessions and queued messages survive a restart)."""

    def __init__(self, folder: Path):
        binary = next((p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)
        self.binary = binary or shutil.which("mosquitto")
        if self.binary is None:
            raise UserError("the hub benchmark needs Eclipse Mosquitto: sudo apt-get install mosquitto")
        self.port = free_port()
        (folder / "broker").mkdir(parents=True, exist_ok=True)
        self.conf = folder / "mosquitto.conf"
        lines = [
            "user root" if os.geteuid() == 0 else "",
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous true",
            "persistence true",
            f"persistence_location {folder / 'broker'}/",
            "autosave_interval 10",
            "max_queued_messages 0",
            "set_tcp_nodelay true",
            f"log_dest file {folder / 'mosquitto.log'}",
            "log_type error",
            "log_type warning",
        ]
        self.conf.write_text("\n".join(x for x in lines if x) + "\n", encoding="utf-8")
        self.proc: subprocess.Popen | None = None
        self.cpu = 0.0

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port, 10, "mosquitto")

    def stop(self) -> None:
        if self.proc is not None:
            self.cpu += cpu_s(self.proc.pid)
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=20)
            self.proc = None


def _wait_port(port: int, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise UserError(f"{what} did not listen on port {port} within {timeout:g} s")


def _archived(path: Path) -> dict[str, set[int]]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        out: dict[str, set[int]] = {}
        for tbl, seq in db.execute("SELECT tbl, seq FROM events"):
            out.setdefault(tbl, set()).add(seq)
        return out


def _logged(db: Path) -> tuple[set[int], int]:
    """The seqs a table's log holds after its first game started, and their observation bytes."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as c:
        rows = c.execute("SELECT seq, kind, length(payload) FROM events").fetchall()
    return {r[0] for r in rows}, sum(r[2] for r in rows if r[1] == "Observation")


# ---- the run -------------------------------------------------------------------------------------------------------
def run(
    tables: int = 50,
    speed: float = 10.0,
    seconds: float = 60.0,
    move_s: float = 20.0,
    games: int = 8,
    restart_broker: bool = False,
    kill_table: bool = False,
    outage_s: float = 3.0,
    drain_s: float = 120.0,
    folder: str | None = None,
    out=sys.stdout,
) -> dict:
    work = Path(folder or tempfile.mkdtemp(prefix="tablewatch-bench-hub-"))
    work.mkdir(parents=True, exist_ok=True)
    say = lambda text: print(text, file=out, flush=True)  # noqa: E731
    t0 = time.monotonic()
    recs = record_games(work, games, move_s)
    say(f"recorded {games} games in {time.monotonic() - t0:.1f} s ({work})")
    broker = Mosquitto(work)
    broker.start()
    port = free_port()
    env = dict(os.environ, TABLEWATCH_DATA_DIR=str(work / "data"), PYTHONUNBUFFERED="1")
    with open(work / "hub.log", "w") as hub_log:
        hub = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "assistant.apps.cli",
                "hub",
                "--broker",
                broker.url,
                "--archive",
                str(work / "archive.sqlite"),
                "--pin",
                PIN,
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--client-id",
                "bench-hub",
            ],
            env=env,
            stdout=hub_log,
            stderr=hub_log,
        )
    procs: dict[str, subprocess.Popen] = {}
    reader = StreamReader(port)
    try:
        _wait_port(port, 30, "the hub")
        reader.start()
        reader.connected.wait(10)
        rng = random.Random(7)

        def table_cmd(i: int) -> list[str]:
            return [
                sys.executable,
                "-m",
                "assistant.apps.bench_hub",
                "table",
                "--db",
                str(work / f"table-{i + 1}.sqlite"),
                "--broker",
                broker.url,
                "--name",
                f"Table {i + 1}",
                "--recordings",
                *map(str, recs),
                "--first",
                str(i),
                "--speed",
                str(speed),
                "--delay",
                f"{rng.uniform(0, move_s / speed):.2f}",
            ]

        logs = work / "tables"
        logs.mkdir(exist_ok=True)

        def start_table(i: int) -> subprocess.Popen:
            with open(logs / f"table-{i + 1}.log", "a") as fh:
                return subprocess.Popen(table_cmd(i), env=env, stdout=fh, stderr=fh)

        for i in range(tables):
            procs[f"table-{i + 1}"] = start_table(i)
        cpu_hub0 = cpu_s(hub.pid)
        start = time.time()
        say(f"{tables} tables started; running {seconds:g} s at {speed:g}x (a move every {move_s:g} s at a real table)")
        kill = outage = None  # (when it happened, when it was started again)
        table_cpu = 0.0
        plan = []
        if kill_table:
            plan.append((seconds / 3, "kill"))
        if restart_broker:
            plan.append((seconds / 2, "broker"))
        for at, what in sorted(plan):
            time.sleep(max(0.0, start + at - time.time()))
            if what == "kill":
                victim = procs["table-1"]
                table_cpu += cpu_s(victim.pid)
                victim.send_signal(signal.SIGKILL)
                victim.wait()
                t_kill = time.time()
                time.sleep(2.0)
                procs["table-1"] = start_table(0)
                kill = (t_kill, time.time())
                say(f"killed Table 1 (kill -9) at {t_kill - start:.1f} s, started again 2 s later")
            else:
                t_down = time.time()
                broker.stop()
                time.sleep(outage_s)
                broker.start()
                outage = (t_down, time.time())
                say(f"restarted the broker at {t_down - start:.1f} s (down {outage_s:g} s)")
        time.sleep(max(0.0, start + seconds - time.time()))
        for p in procs.values():
            table_cpu += cpu_s(p.pid)
            p.send_signal(signal.SIGTERM)
        for p in procs.values():
            p.wait(timeout=60)
        stopped = time.time()
        logged = {name: _logged(work / f"{name}.sqlite") for name in procs}
        want = {name: seqs for name, (seqs, _) in logged.items()}
        total = sum(len(s) for s in want.values())
        deadline = time.monotonic() + drain_s
        while time.monotonic() < deadline:
            got = _archived(work / "archive.sqlite")
            if all(want[n] <= got.get(n, set()) for n in want) and len(reader.seen) >= total:
                break
            time.sleep(0.5)
        drained = time.time() - stopped
        cpu_hub = cpu_s(hub.pid) - cpu_hub0
        run_s = time.time() - start
        hub_mb = memory_mb(hub.pid)
        got = _archived(work / "archive.sqlite")
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        reader.stop.set()
        if hub.poll() is None:
            hub.send_signal(signal.SIGTERM)
            try:
                hub.wait(timeout=20)
            except subprocess.TimeoutExpired:
                hub.kill()
        broker.stop()
        broker_cpu = broker.cpu
    dropped = sum(len(want[n] - got.get(n, set())) for n in want)
    on_stream = {(t, s) for _, t, s in reader.seen}
    never = sum(1 for n in want for s in want[n] if (n, s) not in on_stream)
    lat = [v * 1000 for v in reader.seen.values()]
    (work / "stream.json").write_text(json.dumps([[k[1], k[2], reader.t_of[k], v] for k, v in reader.seen.items()]) + "\n")
    notes = []
    windows: dict[str, tuple[float, float]] = {}  # table -> the log times its events were held up by the outage
    if outage is not None:  # per table: from the stop to its first event logged after the restart that came in 1 s
        t_down, t_up = outage
        for name in want:
            mine = sorted((reader.t_of[k], v) for k, v in reader.seen.items() if k[1] == name and reader.t_of[k] >= t_down - 1.0)
            back = next((t for t, v in mine if t >= t_up and v < 1.0), float("inf"))
            windows[name] = (t_down - 1.0, back)
        hit = [k for k in reader.seen if windows[k[1]][0] <= reader.t_of[k] < windows[k[1]][1]]
        caught = max((reader.t_of[k] + reader.seen[k] for k in hit), default=t_up) - t_up
        notes.append(
            f"broker down {t_up - t_down:.1f} s: {len(hit)} events logged meanwhile or before the tables were back, "
            f"at most {max((reader.seen[k] for k in hit), default=0):.1f} s late; all on the page {caught:.1f} s "
            "after the broker was back"
        )
    if kill is not None:
        t1 = [k for k in reader.seen if k[1] == "table-1" and kill[0] - 1.0 <= reader.t_of[k] <= kill[1] + 10.0]
        notes.append(
            f"Table 1 killed: {len(t1)} of its events logged around it, at most "
            f"{max((reader.seen[k] for k in t1), default=0):.1f} s late"
        )

    def calm(key) -> bool:
        t = reader.t_of[key]
        in_outage = key[1] in windows and windows[key[1]][0] <= t < windows[key[1]][1]
        in_kill = kill is not None and key[1] == "table-1" and kill[0] - 1.0 <= t <= kill[1] + 10.0
        return not (in_outage or in_kill)

    lat_calm = [v * 1000 for k, v in reader.seen.items() if calm(k)]
    obs_mb = sum(b for _, b in logged.values()) / 1e6
    result = {
        "tables": tables,
        "speed": speed,
        "seconds": seconds,
        "move_s": move_s,
        "events": total,
        "dropped": dropped,
        "twice_on_stream": reader.twice,
        "never_on_stream": never,
        "drain_s": round(drained, 1),
        "p50_ms": round(percentile(lat, 50), 1),
        "p95_ms": round(percentile(lat, 95), 1),
        "max_ms": round(max(lat, default=0), 1),
        "p50_calm_ms": round(percentile(lat_calm, 50), 1),
        "p95_calm_ms": round(percentile(lat_calm, 95), 1),
        "disturbances": notes,
        "calm_events": len(lat_calm),
        "hub_cpu_pct": round(100 * cpu_hub / run_s, 1),
        "hub_peak_mb": round(hub_mb, 1),
        "tables_cpu_pct": round(100 * table_cpu / run_s, 1),
        "broker_cpu_pct": round(100 * broker_cpu / run_s, 1),
        "events_per_s": round(total / seconds, 1),
        "observation_mb": round(obs_mb, 1),
        "page_views": reader.views,
        "load_avg": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
        "folder": str(work),
    }
    say(
        f"events: {total} logged by {tables} tables ({result['events_per_s']}/s, looks {obs_mb:.1f} MB); "
        f"dropped {dropped}; twice on the page's stream {reader.twice}; never on it {never}; drained in {drained:.1f} s"
    )
    say(
        f"latency table log -> hub page stream: p50 {result['p50_ms']} ms, p95 {result['p95_ms']} ms, max {result['max_ms']} ms "
        f"(n={len(lat)})"
        + (
            f"; outside the disturbances p50 {result['p50_calm_ms']} ms, p95 {result['p95_calm_ms']} ms (n={len(lat_calm)})"
            if notes
            else ""
        )
    )
    for note in notes:
        say(note)
    say(
        f"hub: CPU {result['hub_cpu_pct']} % of one core, peak memory {result['hub_peak_mb']} MB; tables' CPU "
        f"{result['tables_cpu_pct']} %, broker {result['broker_cpu_pct']} %; {result['cores']} cores, load {result['load_avg']}"
    )
    return result


def main(argv: list[str]) -> int:
    if argv[:1] == ["table"]:
        return table_main(argv[1:])
    p = argparse.ArgumentParser(prog="tablewatch bench hub", description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50, help="simulated tables, each its own process (default 50)")
    p.add_argument("--speed", type=float, default=10.0, help="replay speed over a real table's pace (default 10)")
    p.add_argument("--seconds", type=float, default=60.0, help="how long the tables play (default 60)")
    p.add_argument("--move-s", type=float, default=20.0, help="seconds between moves at a real table, on average (default 20)")
    p.add_argument("--games", type=int, default=8, help="recorded games to replay (default 8)")
    p.add_argument("--restart-broker", action="store_true", help="restart the broker half-way through")
    p.add_argument("--outage-s", type=float, default=3.0, help="how long the broker stays down (default 3)")
    p.add_argument("--kill-table", action="store_true", help="kill -9 one table a third of the way through, then start it again")
    p.add_argument("--drain-s", type=float, default=120.0, help="at most this long for the hub to archive the rest (default 120)")
    p.add_argument("--folder", help="work folder (default: a new temporary one, kept for a look afterwards)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON line at the end")
    a = p.parse_args(argv)
    if a.tables < 1 or a.speed <= 0 or a.seconds <= 0 or a.move_s <= 0 or a.games < 1:
        raise UserError("--tables, --games, --speed, --seconds and --move-s must be positive.")
    result = run(a.tables, a.speed, a.seconds, a.move_s, a.games, a.restart_broker, a.kill_table, a.outage_s, a.drain_s, a.folder)
    if a.json:
        print(json.dumps(result))
    return 0 if result["dropped"] == 0 and result["twice_on_stream"] == 0 else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
