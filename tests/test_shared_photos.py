"""The real-photo tests find the shared folder relative to the repository (or ``TABLEWATCH_SHARED``), say why
when they skip, and fail in CI instead of skipping (tests/conftest_vision.py). Each case runs pytest on a small
test file in a fresh process, with the repository's own pytest settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROBE = '''
from conftest_vision import real

def test_needs_a_photo():
    assert real("aruco-sheet", "aruco.jpg").name == "aruco.jpg"
'''


def run_probe(tmp_path: Path, probe: str = PROBE, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_probe.py").write_text(probe)
    full = {k: v for k, v in os.environ.items() if k not in ("CI", "TABLEWATCH_SHARED", "PYTEST_ADDOPTS")}
    full.update(env, PYTHONPATH=str(REPO / "tests"))
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-c", str(REPO / "pyproject.toml"),
                           "--rootdir", str(tmp_path), str(tmp_path / "test_probe.py")],
                          cwd=tmp_path, env=full, capture_output=True, text=True, timeout=120)


def test_a_missing_shared_folder_skips_with_its_reason_in_the_default_run(tmp_path):
    r = run_probe(tmp_path, TABLEWATCH_SHARED=str(tmp_path / "nowhere"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 skipped" in r.stdout
    assert "SKIPPED" in r.stdout and f"{tmp_path / 'nowhere'}" in r.stdout and "TABLEWATCH_SHARED" in r.stdout


def test_a_missing_shared_folder_fails_in_ci(tmp_path):
    r = run_probe(tmp_path, TABLEWATCH_SHARED=str(tmp_path / "nowhere"), CI="true")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "1 failed" in r.stdout and "CI must run the real-photo tests" in r.stdout


def test_the_shared_folder_can_be_anywhere(tmp_path):
    photo = tmp_path / "elsewhere" / "data" / "real" / "aruco-sheet" / "aruco.jpg"
    photo.parent.mkdir(parents=True)
    photo.write_bytes(b"not the real one")
    probe = PROBE.replace('.name == "aruco.jpg"', '.read_bytes() == b"not the real one"')
    r = run_probe(tmp_path, probe, TABLEWATCH_SHARED=str(tmp_path / "elsewhere"), CI="true")
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
