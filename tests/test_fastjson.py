"""fastjson must agree with the json module on everything hooks read and write."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from brain.util import fastjson

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(values)
def test_round_trips_like_json(value):
    assert fastjson.dumps(value) == json.dumps(value, ensure_ascii=False)
    assert fastjson.loads(json.dumps(value)) == json.loads(json.dumps(value))
    assert fastjson.loads(fastjson.dumps(value).encode("utf-8")) == value


@pytest.mark.parametrize("bad", ["", "   ", "{", '{"a": 1} x', "[1,]", "nul", b"\xff\xfe", "{'a': 1}"])
def test_malformed_input_is_a_value_error(bad):
    with pytest.raises(ValueError):
        fastjson.loads(bad)


def test_whitespace_around_is_fine():
    assert fastjson.loads(' \n {"prompt": "hi"} \n') == {"prompt": "hi"}
