"""A small tmpfs the test mounts itself (tests run as root here and in CI): a full disk, a read-only disk."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str = "16m"):
    """Mount a ``size`` tmpfs on ``folder`` (made here) for the ``with`` block; skip the test, saying why, where
    mounting is impossible."""
    folder.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({r.stderr.strip() or r.returncode}): run as root with mount rights")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)
