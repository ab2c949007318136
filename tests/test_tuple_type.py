"""brain/util/tuple_type: the hot path's named tuples behave as collections.namedtuple's do where rlm-mem uses them."""
import pickle
from collections import namedtuple

import pytest

from brain.context.project import Place, ProjectInfo
from brain.util.tuple_type import tuple_type

Pair = tuple_type("Pair", "left right")
Reference = namedtuple("Reference", "left right")


def test_fields_by_name_and_position_and_as_a_tuple():
    pair = Pair(1, right=2)
    assert (pair.left, pair.right) == (1, 2) == (pair[0], pair[1])
    left, right = pair
    assert (left, right) == (1, 2)
    assert pair == (1, 2) == Reference(1, 2) and hash(pair) == hash((1, 2))
    assert Pair._fields == Reference._fields and repr(pair) == "Pair(left=1, right=2)"
    assert isinstance(pair, tuple) and not hasattr(pair, "__dict__")


@pytest.mark.parametrize("args, kwargs", [((1,), {}), ((1, 2, 3), {}), ((1,), {"left": 2}), ((), {"left": 1}),
                                          ((1,), {"right": 2, "other": 3})])
def test_a_wrong_set_of_fields_is_a_type_error(args, kwargs):
    with pytest.raises(TypeError):
        Pair(*args, **kwargs)
    with pytest.raises(TypeError):
        Reference(*args, **kwargs)


def test_the_hot_path_types_pickle_by_their_module():
    info = ProjectInfo("id", "name", "/root", "config")
    assert ProjectInfo.__module__ == "brain.context.project"
    assert pickle.loads(pickle.dumps(info)) == info and type(pickle.loads(pickle.dumps(info))) is ProjectInfo
    assert Place("a", "b", "c").common == "c"
