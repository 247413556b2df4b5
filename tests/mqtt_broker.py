"""A real Eclipse Mosquitto for the hub tests: one broker process on a free loopback port, no mock.

    with Broker(tmp_path) as b:                       # anonymous clients allowed
        b.url                                        # "mqtt://127.0.0.1:<port>"
        b.stop(); b.start(); b.restart()             # same port, same persistence folder (sessions, retained)
    Broker(tmp_path, users={"table-7": "pw", "hub": "pw2"}, acl=ACL_TEXT)   # passwords and an ACL: no anonymous
    Broker(tmp_path, config=TEXT)                     # a whole config of one's own (hardware/mosquitto/mosquitto.conf),
                                                      # "{port}" and "{dir}" substituted

A test module's fixture is ``with Broker(tmp_path) as b: yield b``. ``require_mosquitto()`` skips a test when Debian's
``mosquitto`` is not installed, but only outside CI: with ``CI`` set (``.ci/run`` installs it) a missing broker
fails the test, so the hub tests cannot pass by not running. The broker's log is ``<dir>/mosquitto.log``; a broker
that does not start fails with its tail.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

MOSQUITTO = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto", "/opt/homebrew/sbin/mosquitto")
START_S = 10.0


def mosquitto_path() -> str | None:
    """The ``mosquitto`` binary, or None."""
    found = next((p for p in MOSQUITTO if os.access(p, os.X_OK)), None)
    return found or shutil.which("mosquitto")


def require_mosquitto() -> str:
    """The ``mosquitto`` binary; a skip saying how to install it when missing, a failure when ``CI`` is set."""
    path = mosquitto_path()
    if path is None:
        why = "Eclipse Mosquitto is not installed (Debian: sudo apt-get install mosquitto)"
        if os.environ.get("CI"):
            pytest.fail(f"{why}; CI must run the hub tests against a real broker (.ci/run installs it)")
        pytest.skip(why)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_passwords(path: Path, users: dict[str, str]) -> None:
    """A Mosquitto password file for ``users`` ({name: password}), made with ``mosquitto_passwd -b``."""
    tool = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    path.write_text("", encoding="utf-8")
    path.chmod(0o600)
    for name, password in users.items():
        subprocess.run([tool, "-b", str(path), name, password], check=True, capture_output=True, timeout=30)


class Broker:
    """One Mosquitto process on ``127.0.0.1:<port>`` with a generated config in ``dir``."""

    def __init__(
        self,
        tmp_path,
        users: dict[str, str] | None = None,
        acl: str | None = None,
        config: str | None = None,
        port: int | None = None,
    ):
        self.binary = require_mosquitto()
        self.dir = Path(tmp_path) / f"mosquitto-{id(self):x}"
        (self.dir / "data").mkdir(parents=True)
        self.port = port or free_port()
        self.host = "127.0.0.1"
        self.proc: subprocess.Popen | None = None
        self.conf = self.dir / "mosquitto.conf"
        self.log = self.dir / "mosquitto.log"
        if users:
            make_passwords(self.dir / "passwords", users)
        if acl is not None:
            (self.dir / "acl").write_text(acl, encoding="utf-8")
            (self.dir / "acl").chmod(0o600)
        self.conf.write_text(self._config(users, acl, config), encoding="utf-8")

    def _config(self, users, acl, config) -> str:
        own = "user root\n" if os.geteuid() == 0 else ""  # else root's mosquitto drops to a user who cannot write here
        if config is not None:
            text = config.replace("{port}", str(self.port)).replace("{dir}", str(self.dir))
            return own + text + f"\nlog_dest file {self.log}\n"
        lines = [
            own.strip(),
            f"listener {self.port} {self.host}",
            f"allow_anonymous {'false' if users else 'true'}",
            "persistence true",
            f"persistence_location {self.dir / 'data'}/",
            "autosave_interval 1",
            "max_queued_messages 0",
            "max_inflight_messages 0",
            "set_tcp_nodelay true",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        if users:
            lines.append(f"password_file {self.dir / 'passwords'}")
        if acl is not None:
            lines.append(f"acl_file {self.dir / 'acl'}")
        return "\n".join(x for x in lines if x) + "\n"

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> "Broker":
        if self.running:
            return self
        with open(self.dir / "stderr.log", "ab") as err:  # a file, not a pipe: a full pipe would stop the broker
            self.proc = subprocess.Popen(
                [self.binary, "-c", str(self.conf)], stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
            )
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start ({self.proc.returncode}): {self._tail()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop(kill=True)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} within {START_S:g} s: {self._tail()}")

    def _tail(self) -> str:
        stderr = self.dir / "stderr.log"
        err = stderr.read_text(encoding="utf-8", errors="replace") if stderr.is_file() else ""
        log = self.log.read_text(encoding="utf-8", errors="replace") if self.log.is_file() else ""
        return " | ".join((err + log).strip().splitlines()[-6:]) or "no output"

    def stop(self, kill: bool = False) -> None:
        """Stop the broker: SIGTERM (it saves its persistence file) or, with ``kill``, SIGKILL."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def restart(self) -> "Broker":
        self.stop()
        return self.start()

    def __enter__(self) -> "Broker":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def until(cond, timeout: float = 20.0, what: str = "condition", poll: float = 0.02) -> None:
    """Wait for ``cond()`` to hold, or fail saying what was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def play(session, moves: int, rng) -> None:
    """``moves`` legal moves entered as corrections ("this is what happened"): each one event in the table's log."""
    g = session.game
    for _ in range(moves):
        if g.is_over(session.state):
            return
        session.correct([g.move_to_json(g.random_move(session.state, rng))])
