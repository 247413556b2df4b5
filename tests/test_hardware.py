"""The Raspberry Pi kit: the systemd unit parses and runs a real `tablewatch live` with valid options, restarts
always, and agrees with install.sh; install.sh is valid bash."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

HW = Path(__file__).resolve().parents[1] / "hardware"
UNIT = HW / "tablewatch.service"
INSTALL = HW / "install.sh"


def unit() -> configparser.ConfigParser:
    cp = configparser.ConfigParser(interpolation=None, strict=True, delimiters=("=",))
    cp.optionxform = str  # systemd keys are case-sensitive
    cp.read_string(UNIT.read_text(encoding="utf-8"))
    return cp


def exec_start(extra: str = "") -> list[str]:
    line = unit()["Service"]["ExecStart"]
    return shlex.split(line.replace("$TABLEWATCH_ARGS", extra))


def test_unit_has_its_sections_and_restarts_always():
    u = unit()
    assert {"Unit", "Service", "Install"} <= set(u.sections())
    s = u["Service"]
    assert s["Restart"] == "always" and float(s["RestartSec"]) > 0
    assert u["Unit"]["StartLimitIntervalSec"] == "0"  # never gives up restarting
    assert u["Install"]["WantedBy"] == "multi-user.target"  # starts at boot (after a power cut)
    assert "video" in s["SupplementaryGroups"].split()


@pytest.mark.parametrize("extra", ["", "--source usb:0 --size 1920x1080 --port 80 --layout wendake-map-4p"])
def test_exec_start_is_a_real_live_command_with_valid_options(extra):
    from assistant.apps.cli import build_parser

    argv = exec_start(extra)
    assert argv[0] == "/opt/tablewatch/venv/bin/tablewatch"
    args = build_parser().parse_args(argv[1:])  # argparse exits (SystemExit) on an unknown option or bad value
    assert args.command == "live" and callable(args.func)
    assert Path(args.data_dir) == Path(unit()["Service"]["WorkingDirectory"]) == Path("/var/lib") / unit()["Service"]["StateDirectory"]
    assert args.host == "0.0.0.0" and 0 < args.port < 65536
    if extra:
        assert args.source == "usb:0" and args.port == 80 and args.layout == ["wendake-map-4p"]


def test_a_bad_option_in_the_unit_would_be_caught():
    from assistant.apps.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(exec_start("--no-such-option")[1:])


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_systemd_accepts_the_unit(tmp_path):
    exe = shutil.which("tablewatch")
    if exe is None:
        pytest.skip("tablewatch is not on PATH")
    text = UNIT.read_text(encoding="utf-8").replace("/opt/tablewatch/venv/bin/tablewatch", exe)
    (tmp_path / "tablewatch.service").write_text(text, encoding="utf-8")
    r = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "tablewatch.service")], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr


def test_install_script_is_valid_bash_and_matches_the_unit():
    r = subprocess.run(["bash", "-n", str(INSTALL)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = INSTALL.read_text(encoding="utf-8")
    venv = Path(exec_start()[0]).parents[1]
    assert f"PREFIX={venv.parent}" in text and 'VENV="$PREFIX/venv"' in text
    assert "--system-site-packages" in text and "python3-picamera2" in text
    assert f"DATA={unit()['Service']['WorkingDirectory']}" in text
    assert f"SERVICE_USER={unit()['Service']['User']}" in text
    assert "hardware/tablewatch.service" in text


def test_install_script_refuses_bad_options_without_touching_anything():
    r = subprocess.run(["bash", str(INSTALL), "--bogus"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "unknown option --bogus" in r.stderr
