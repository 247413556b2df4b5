"""Where Tablewatch keeps its files: ONE rule, used by every command that reads or writes the game log.

The data folder (PIN, layouts, setup choices, ``camera.json``, the game log) is ``--data-dir``, else
``$TABLEWATCH_DATA_DIR``, else ``~/.tablewatch``. The game log is ``--db``, else ``DATA_DIR/games.sqlite`` when
``--data-dir`` is given, else ``$TABLEWATCH_DB`` (kept from older versions), else ``DATA_DIR/games.sqlite``.
An option on the command line always wins over an environment variable. ``live``, ``serve``, the setup wizard's
new game, the Raspberry Pi service (``--data-dir /var/lib/tablewatch``), ``games``, ``export`` and ``demo``
all resolve the log with ``db_path``, so ``tablewatch export latest`` finds the game ``live`` wrote when given the
same ``--data-dir`` (or the same environment). Nothing is ever moved between folders: ``older_log`` only names a
log an older version's default may hold, for a message. Pure Python, no project imports.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_DATA_DIR = "TABLEWATCH_DATA_DIR"
ENV_DB = "TABLEWATCH_DB"
DEFAULT_DATA_DIR = "~/.tablewatch"
DB_NAME = "games.sqlite"
# where ``tablewatch games`` and ``export`` looked before one rule existed (nothing wrote there by default)
OLDER_DEFAULT_DB = "~/.local/share/tablewatch/games.sqlite"

DATA_DIR_HELP = f"the data folder: PIN, layouts, setup, camera.json, games (default: ${ENV_DATA_DIR}, else {DEFAULT_DATA_DIR})"
DB_HELP = f"the game log (default: DATA_DIR/{DB_NAME}; ${ENV_DB} when no --data-dir is given)"


def data_dir(given: str | os.PathLike | None = None) -> Path:
    """``given`` (``--data-dir``), else ``$TABLEWATCH_DATA_DIR``, else ``~/.tablewatch``."""
    return Path(given or os.environ.get(ENV_DATA_DIR) or DEFAULT_DATA_DIR).expanduser()


def db_path(db: str | os.PathLike | None = None, data_dir_given: str | os.PathLike | None = None) -> Path:
    """The game log: ``--db``, else ``DATA_DIR/games.sqlite`` for a given ``--data-dir``, else ``$TABLEWATCH_DB``,
    else ``DATA_DIR/games.sqlite`` (``data_dir``)."""
    if db:
        return Path(db).expanduser()
    if not data_dir_given and os.environ.get(ENV_DB):
        return Path(os.environ[ENV_DB]).expanduser()
    return data_dir(data_dir_given) / DB_NAME


def add_options(parser, data_dir_option: bool = True) -> None:
    """Add ``--data-dir`` and ``--db`` (defaults None: ``data_dir`` / ``db_path`` resolve them)."""
    if data_dir_option:
        parser.add_argument("--data-dir", default=None, help=DATA_DIR_HELP)
    parser.add_argument("--db", default=None, help=DB_HELP)


def older_log(db: Path) -> Path | None:
    """A log at the older default of ``games``/``export`` when ``db`` is not there: named in messages, never moved."""
    old = Path(OLDER_DEFAULT_DB).expanduser()
    return old if not Path(db).exists() and old.is_file() and old != Path(db) else None
