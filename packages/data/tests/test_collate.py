"""default_collate and default_convert on every element type PyTorch's handle."""

from __future__ import annotations

from collections import OrderedDict, namedtuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.data import default_collate, default_convert

Point = namedtuple("Point", ["x", "y"])


def test_tensors_are_stacked_along_a_new_first_dimension():
    a = E.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = E.tensor([[5.0, 6.0], [7.0, 8.0]])
    out = default_collate([a, b.t()])
    assert out.shape == (2, 2, 2) and out.dtype == E.float32
    np.testing.assert_array_equal(out.numpy(), np.stack([a.numpy(), b.numpy().T]))
    assert not out.is_shared()  # only worker processes collate into shared memory


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=0, max_size=3), st.integers(1, 5),
       st.sampled_from([np.float32, np.float64, np.int64, np.uint8]))
def test_stacking_matches_numpy(shape, n, np_dtype):
    rng = np.random.default_rng(len(shape) * 10 + n)
    arrays = [np.asarray(rng.standard_normal(shape) * 10).astype(np_dtype) for _ in range(n)]
    out = default_collate([E.tensor(a) for a in arrays])
    np.testing.assert_array_equal(out.numpy(), np.stack(arrays))
    out = default_collate(arrays)
    assert out.dtype.np == np.dtype(np_dtype)
    np.testing.assert_array_equal(out.numpy(), np.stack(arrays))


def test_mixed_dtypes_promote():
    out = default_collate([E.tensor([1, 2]), E.tensor([0.5, 1.5])])
    assert out.dtype == E.float32 and out.tolist() == [[1.0, 2.0], [0.5, 1.5]]


def test_tensors_of_different_shapes_raise():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 "
                                           r"and \[3\] at entry 1"):
        default_collate([E.zeros(2), E.zeros(3)])


def test_python_numbers_become_float64_and_int64_tensors():
    f = default_collate([0.5, 1.5])
    i = default_collate([1, 2, 3])
    b = default_collate([True, False])
    assert f.dtype == E.float64 and f.tolist() == [0.5, 1.5]
    assert i.dtype == E.int64 and i.tolist() == [1, 2, 3]
    assert b.dtype == E.bool and b.tolist() == [True, False]


def test_numpy_scalars_keep_their_dtype():
    out = default_collate([np.float32(1.5), np.float32(2.5)])
    assert out.dtype == E.float32 and out.tolist() == [1.5, 2.5]
    out = default_collate([np.array(3, np.int32), np.array(4, np.int32)])
    assert out.dtype == E.int32 and out.tolist() == [3, 4]


def test_strings_and_bytes_stay_lists():
    assert default_collate(["a", "b"]) == ["a", "b"]
    assert default_collate([b"a", b"b"]) == [b"a", b"b"]


def test_numpy_string_arrays_raise_type_error():
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                        "lists; found <U1"):
        default_collate([np.array(["a"]), np.array(["b"])])


def test_numpy_arrays_with_negative_strides_raise_as_pytorch():
    with pytest.raises(ValueError, match=r"^At least one stride in the given numpy array is negative"):
        default_collate([np.arange(3), np.arange(3)[::-1]])
    flipped = [np.ascontiguousarray(np.arange(3)[::-1]), np.arange(3)]
    assert default_collate(flipped).tolist() == [[2, 1, 0], [0, 1, 2]]


def test_numpy_arrays_torch_cannot_convert_raise_as_tensors_errors():
    with pytest.raises(ValueError, match=r"^given numpy array has byte order different from the native byte order"):
        default_collate([np.zeros(2, ">f4"), np.zeros(2, ">f4")])
    with pytest.raises(TypeError, match=r"^can't convert np\.ndarray of type numpy\.longdouble\."):
        default_collate([np.zeros(2, np.longdouble)] * 2)


def test_unknown_types_raise_type_error():
    with pytest.raises(TypeError, match="found <class 'object'>"):
        default_collate([object(), object()])


def test_nested_structures():
    batch = [{"img": np.zeros((2,), np.float32), "meta": (1, "x"), "p": Point(1.0, [2, 3])},
             {"img": np.ones((2,), np.float32), "meta": (2, "y"), "p": Point(2.0, [4, 5])}]
    out = default_collate(batch)
    assert set(out) == {"img", "meta", "p"}
    assert out["img"].tolist() == [[0.0, 0.0], [1.0, 1.0]]
    meta = out["meta"]
    assert isinstance(meta, list) and meta[0].tolist() == [1, 2] and meta[1] == ("x", "y")  # as PyTorch
    p = out["p"]
    assert isinstance(p, Point) and p.x.dtype == E.float64 and p.x.tolist() == [1.0, 2.0]
    assert isinstance(p.y, list) and [t.tolist() for t in p.y] == [[2, 4], [3, 5]]


def test_mapping_type_is_kept():
    out = default_collate([OrderedDict(a=1, b=2), OrderedDict(a=3, b=4)])
    assert type(out) is OrderedDict and list(out) == ["a", "b"] and out["b"].tolist() == [2, 4]


def test_sequences_of_unequal_length_raise():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])


def test_default_convert_converts_numpy_and_keeps_containers():
    out = default_convert({"a": np.arange(3), "b": (np.float64(2.0), "s"), "c": [1, 2], "d": Point(np.zeros(1), 3)})
    assert out["a"].dtype == E.int64 and out["a"].tolist() == [0, 1, 2]
    assert isinstance(out["b"], list) and out["b"][0].dtype == E.float64 and out["b"][1] == "s"
    assert out["c"] == [1, 2]
    assert isinstance(out["d"], Point) and out["d"].x.tolist() == [0.0] and out["d"].y == 3
    strings = np.array(["a", "b"])
    assert default_convert(strings) is strings
    t = E.zeros(2)
    assert default_convert(t) is t


def test_collate_fn_map_extends_default_collate_for_a_user_type():
    """`collate` with a copy of `default_collate_fn_map` plus a user type, imported from PyTorch's private path."""
    import importlib

    mod = importlib.import_module("ember.data._utils.collate")
    assert mod is importlib.import_module("ember.data.collate")

    class Box:
        def __init__(self, v):
            self.v = v

    def collate_box(batch, *, collate_fn_map=None):
        return E.tensor([b.v for b in batch]) * 10

    fn_map = {**mod.default_collate_fn_map, Box: collate_box}
    out = mod.collate([{"b": Box(1), "t": (2, "x")}, {"b": Box(3), "t": (4, "y")}], collate_fn_map=fn_map)
    assert out["b"].tolist() == [10, 30]
    assert out["t"][0].tolist() == [2, 4] and out["t"][1] == ("x", "y")
    with pytest.raises(TypeError, match="found <class"):
        mod.collate([Box(1), Box(2)], collate_fn_map=mod.default_collate_fn_map)
    with pytest.raises(TypeError, match="found <U1"):
        mod.collate_numpy_array_fn([np.array(["a"]), np.array(["b"])])


def test_collating_a_tensor_with_a_non_tensor_is_pytorchs_type_error():
    with pytest.raises(TypeError, match=r"^expected Tensor as element 1 in argument 0, but got numpy.int64$"):
        default_collate([E.tensor(1), np.int64(2)])
    with pytest.raises(TypeError, match=r"but got list$"):
        default_collate([E.tensor(1), [2]])
