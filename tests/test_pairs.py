"""The shared "AxB" parser (assistant/pairs.py) behind --size and calibration patterns."""

import pytest

from assistant.errors import UserError
from assistant.pairs import parse_pair


def test_parse_pair_spellings_and_bounds():
    assert parse_pair("9x6", "pattern", "9x6", 2) == (9, 6)
    assert parse_pair(" 1280 X 960 ", "--size", "1280x960", 64, 8192) == (1280, 960)
    with pytest.raises(UserError, match="should look like 9x6"):
        parse_pair("nine", "pattern", "9x6", 2)
    with pytest.raises(UserError, match="at least 2"):
        parse_pair("1x6", "pattern", "9x6", 2)
    with pytest.raises(UserError, match="64..8192"):
        parse_pair("9000x100", "--size", "1280x960", 64, 8192)
