"""torch.utils._pytree: flattening order, specs (their printed form), rebuilding, the map/all/any family,
registered nodes and key paths, as PyTorch 2.13 gives them."""

import collections
import dataclasses

import pytest

import ember.torch as torch
from ember.torch.utils import _pytree as pt

P = collections.namedtuple("P", "u v")


def sample():
    return {"b": [1, (2, None)], "a": torch.ones(1), "c": collections.OrderedDict(x=3), "d": P(4, 5),
            "e": collections.deque([6]), "f": collections.defaultdict(int, {"k": 7})}


def test_flatten_order_spec_and_round_trip():
    leaves, spec = pt.tree_flatten(sample())
    assert leaves[:3] == [1, 2, None] and leaves[4:] == [3, 4, 5, 6, 7]  # insertion order; None is a leaf
    assert spec.num_leaves == 9 and spec.type is dict and spec.context == ["b", "a", "c", "d", "e", "f"]
    assert repr(pt.tree_structure([1, (2, 3)])) == "TreeSpec(list, None, [*,\n  TreeSpec(tuple, None, [*,\n    *])])"
    assert repr(pt.tree_structure(P(1, 2))) == f"TreeSpec(namedtuple, {P!r}, [*,\n  *])"
    back = pt.tree_unflatten(leaves, spec)
    assert back["d"] == P(4, 5) and isinstance(back["f"], collections.defaultdict) and back["b"] == [1, (2, None)]
    assert spec == pt.tree_structure(sample()) and spec != pt.tree_structure([1])
    with pytest.raises(ValueError, match="`leaves` has length 1 but the spec refers to a pytree that holds 9 items"):
        pt.tree_unflatten([1], spec)


def test_map_family():
    assert pt.tree_map(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    with pytest.raises(ValueError, match="Node arity mismatch; expected 2, but got 1."):
        pt.tree_map(lambda a, b: a, [1, 2], [1])
    assert pt.tree_map_only(int, lambda x: -x, [1, "a", 2.0]) == [-1, "a", 2.0]
    assert pt.tree_all(lambda x: x > 0, [1, 2]) and pt.tree_any(lambda x: x > 1, (1, 2))
    assert pt.tree_all_only(int, lambda x: x > 0, [1, "a"]) and not pt.tree_any_only(str, lambda x: x == "b", ["a"])
    xs = [torch.zeros(2)]
    assert pt.tree_map_(lambda a: a.add_(1), xs) is xs and xs[0].tolist() == [1.0, 1.0]
    assert pt.tree_leaves([1, [2]], is_leaf=lambda x: isinstance(x, list) and len(x) == 1) == [1, [2]]


def test_registered_node_and_key_paths():
    @dataclasses.dataclass
    class Pair:
        x: object
        y: object

    pt.register_pytree_node(Pair, lambda p: ([p.x, p.y], None), lambda xs, c: Pair(*xs),
                            flatten_with_keys_fn=lambda p: ([(pt.GetAttrKey("x"), p.x), (pt.GetAttrKey("y"), p.y)],
                                                            None))
    try:
        assert pt.tree_map(lambda v: v + 1, [Pair(1, 2)]) == [Pair(2, 3)]
        pairs, _ = pt.tree_flatten_with_path({"a": [Pair(1, 2)], "b": P(3, 4)})
        assert [(pt.keystr(k), v) for k, v in pairs] == [("['a'][0].x", 1), ("['a'][0].y", 2), ("['b'].u", 3),
                                                        ("['b'].v", 4)]
        assert pt.key_get({"a": [Pair(1, 2)]}, pairs[1][0]) == 2
        with pytest.raises(ValueError, match="already registered"):
            pt.register_pytree_node(Pair, lambda p: ([], None), lambda xs, c: None)
    finally:
        del pt.SUPPORTED_NODES[Pair]


@pytest.mark.torch
def test_specs_print_as_pytorchs():
    real = pytest.importorskip("torch.utils._pytree")
    for tree in (sample(), [1, (2, [3, {"z": 4}])], P(1, (2,))):
        assert repr(pt.tree_structure(tree)) == repr(real.tree_structure(tree))
        assert pt.tree_leaves(tree) == real.tree_leaves(tree)


def test_tree_map_matches_dicts_by_key_and_names_each_mismatch():
    # dicts built in another order, or of another standard dict type, line up by key as PyTorch's
    assert pt.tree_map(lambda a, b: (a, b), {"a": 1, "b": 2}, {"b": 3, "a": 4}) == {"a": (1, 4), "b": (2, 3)}
    od = collections.OrderedDict([("b", 5), ("a", 6)])
    assert pt.tree_map(lambda a, b: a + b, {"a": 1, "b": 2}, od) == {"a": 7, "b": 7}
    assert pt.tree_map(lambda a, b: a + b, collections.deque([1, 2], maxlen=3), collections.deque([3, 4])) == \
        collections.deque([4, 6], maxlen=3)
    with pytest.raises(ValueError, match=r"^Node keys mismatch; missing key\(s\): \{'a'\}; extra key\(s\): "
                                         r"\{'b'\}\.$"):
        pt.tree_map(lambda a, b: a, {"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match=r"^Node type mismatch; expected <class 'list'>, but got <class 'tuple'>\.$"):
        pt.tree_map(lambda a, b: a, [1], (1,))
    with pytest.raises(ValueError, match=r"^Node arity mismatch; expected 2, but got 1\.$"):
        pt.tree_map(lambda a, b: a, [1, 2], [1])

    @dataclasses.dataclass
    class Box:
        v: int

    pt.register_pytree_node(Box, lambda b: ([b.v], None), lambda xs, c: Box(xs[0]))
    with pytest.raises(ValueError, match=r"^Type mismatch; expected <class '.*Box'>, but got <class 'dict'>\.$"):
        pt.tree_map(lambda a, b: a, Box(1), {"v": 1})


def test_return_types_are_registered_structseqs():
    """PyTorch registers each `torch.return_types` class: children its fields, no context, position keys."""
    r = torch.max(torch.tensor([[1.0, 3.0], [2.0, 0.0]]), 0)
    leaves, spec = pt.tree_flatten(r)
    assert [t.tolist() for t in leaves] == [[2.0, 3.0], [1, 0]]
    assert repr(spec) == "TreeSpec(max, None, [*,\n  *])"
    assert type(pt.tree_map(lambda t: t * 2, r)) is type(r) and pt.tree_unflatten(leaves, spec).indices is leaves[1]
    assert [k for k, _ in pt.tree_flatten_with_path(r)[0]] == [(pt.SequenceKey(0),), (pt.SequenceKey(1),)]
    assert pt.is_structseq(r) and pt.is_structseq_class(type(r)) and pt.is_structseq_instance(r)
    assert not pt.is_structseq((1, 2)) and not pt.is_structseq(P(1, 2))
