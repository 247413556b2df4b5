"""Iwari, the second game: its map model and built-in maps (``maps``), its scoring (``scoring``), the scoring
calculator (``tally``), its rules engine and everything the table core needs of it (``game`` and beside it).
Pure Python, like every game package; the spec is ``shared/rules/iwari.md`` (rule IDs ``I-...``)."""
