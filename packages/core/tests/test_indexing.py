"""Advanced indexing and the gather/scatter family against numpy references."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import indexing as I
from ember.core.testing import assert_close


def _arr(shape=(3, 4, 5)):
    return np.arange(np.prod(shape), dtype=np.float64).reshape(shape)


def _t(a):
    return E.tensor(a)


# --- getitem ---------------------------------------------------------------------------------
GET_KEYS = [
    ([0, 2],),
    ([[0, 1], [2, 2]],),
    (slice(None), [0, 3]),
    (slice(None), [0, 1], [1, 2]),
    ([0, 1], slice(None), [1, 2]),        # separated advanced indices move to the front
    (Ellipsis, [4, -1]),
    (None, [1], None),
    ([-1, -3],),
    (slice(1, None), [[0], [2]], slice(None, None, 2)),
    ([],),
]


@pytest.mark.parametrize("key", GET_KEYS, ids=str)
def test_getitem_int_arrays_match_numpy(key):
    a = _arr()
    assert_close(_t(a)[key], _t(a[key]))


def test_getitem_int_then_array_selects_first_like_pytorch():
    a = _arr()
    r = _t(a)[0, :, [0, 1]]
    assert r.shape == (4, 2)
    np.testing.assert_array_equal(r.numpy(), a[0][:, [0, 1]])


def test_getitem_bool_mask_and_mixed():
    a = _arr()
    m = a % 3 == 0
    assert_close(_t(a)[E.tensor(m)], _t(a[m]))
    m2 = a[0] > 7
    assert_close(_t(a)[:, E.tensor(m2)], _t(a[:, m2]))
    rows = np.array([True, False, True])
    assert_close(_t(a)[E.tensor(rows), 1:3], _t(a[rows, 1:3]))


def test_getitem_index_tensor_numpy_array_and_int32():
    a = _arr()
    idx = np.array([2, 0])
    assert_close(_t(a)[idx], _t(a[idx]))
    assert_close(_t(a)[E.tensor(idx, dtype=E.int32)], _t(a[idx]))
    assert_close(_t(a)[E.tensor(idx), E.tensor(1)], _t(a[idx, 1]))


def test_getitem_python_bool_adds_a_dim():
    x = E.arange(3)
    assert x[True].shape == (1, 3)
    assert x[False].shape == (0, 3)


def test_getitem_list_of_lists_is_a_tuple_like_pytorch():
    a = _arr((3, 4))
    with pytest.warns(UserWarning, match=r"^Using a non-tuple sequence for multidimensional indexing is deprecated"):
        assert_close(_t(a)[[[0, 1], [1, 2]]], _t(a[[0, 1], [1, 2]]))


def test_a_list_key_read_as_a_tuple_warns_from_the_line_pytorch_does(recwarn):
    """PyTorch 2.13 warns each time a list key is read as a tuple (a tensor, sequence or slice in it: its check's
    line 349; None or ...: 359), at the user's line; a list of ints is an index tensor and warns nothing."""
    import warnings

    x = E.arange(12).reshape(3, 4)
    for key, line, want in (([1, E.tensor(3)], 349, 7), ([1, slice(None)], 349, [4, 5, 6, 7]),
                            ([None, 1], 359, [[4, 5, 6, 7]]), ([1, ...], 359, [4, 5, 6, 7])):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert x[key].tolist() == want
        assert len(w) == 1 and w[0].filename == __file__, key
        assert str(w[0].message).endswith(f"python_variable_indexing.cpp:{line}.)"), key
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x[[0, 2]].shape == (2, 4)
        x[[0, 2]] = 0


def test_getitem_result_is_contiguous_like_pytorch():
    x = E.arange(24).reshape(2, 3, 4)
    r = x[:, [0, 1], [1, 2]]
    assert r.is_contiguous() and r.view(-1).tolist() == [1, 6, 13, 18]
    assert x.permute(2, 0, 1)[[0, 1]].is_contiguous()


def test_getitem_result_is_a_copy():
    x = E.arange(6)
    y = x[[0, 1]]
    y[0] = 100
    assert x[0].item() == 0


def test_getitem_out_of_range_raises_index_error_with_size():
    x = E.zeros(3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        x[[0, 5]]
    with pytest.raises(IndexError, match="index -5 is out of bounds for dimension 0 with size 4"):
        x[:, [-5]]  # PyTorch names the first index tensor "dimension 0", wherever it stands
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[3, [0]]


def test_getitem_errors():
    x = E.zeros(3, 4)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        x[E.tensor([0.0])]
    with pytest.raises(IndexError, match=r"only integers, slices .* are valid indices \(got float\)"):
        x[1.5]
    with pytest.raises(IndexError, match="shape of the mask"):
        x[E.tensor([True, False])]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0]]
    with pytest.raises(IndexError, match="could not be broadcast"):
        x[[0, 1], [0, 1, 2]]


def test_bare_int_index_of_a_0dim_tensor_in_pytorchs_words():
    s = E.tensor(3.0)
    item = re.escape("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                     "to convert a 0-dim tensor to a number")
    with pytest.raises(IndexError, match=f"^{item}$"):
        s[0]
    with pytest.raises(IndexError, match=f"^{item}$"):
        s[0] = 1.0
    with pytest.raises(IndexError, match="^index -1 is out of bounds for dimension 0 with size 0$"):
        s[-1]
    with pytest.raises(IndexError, match="^index 2 is out of bounds for dimension 0 with size 0$"):
        s[2] = 1.0
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 0$"):
        s[0,]  # a tuple key goes through PyTorch's general path
    assert s.item() == 3.0


def test_bare_slice_of_a_0dim_tensor_in_pytorchs_words():
    s = E.tensor(3.0)
    for key in (slice(None), slice(1, None), slice(None, None, 2)):
        with pytest.raises(IndexError, match=r"^slice\(\) cannot be applied to a 0-dim tensor\.$"):
            s[key]
        with pytest.raises(IndexError, match=r"^slice\(\) cannot be applied to a 0-dim tensor\.$"):
            s[key] = 1.0
    with pytest.raises(IndexError, match="^too many indices for tensor of dimension 0$"):
        s[:,]


@pytest.mark.parametrize("key, want", [
    ([1.5], [[3, 4, 5]]), ([-1.9], [[3, 4, 5]]), (([1.0], 0), [3]), ((0, [2.7, -1.2]), [2, 2]),
    ([True, 1.0], [[3, 4, 5], [3, 4, 5]]), (np.array([1.5]), [[3, 4, 5]]), (np.array([1], dtype=np.int8), [[3, 4, 5]]),
    ([np.uint64(1)], [[3, 4, 5]]), ([True, False], [[0, 1, 2]]),
])
def test_a_list_or_array_index_becomes_int64_as_pytorch_converts_it(key, want):
    assert E.arange(6).reshape(2, 3)[key].tolist() == want  # want: PyTorch 2.13's results


@pytest.mark.parametrize("key, err, msg", [
    ([np.float32(1.0)], TypeError, "'numpy.float32' object cannot be interpreted as an integer"),
    ([1j], TypeError, "'complex' object cannot be interpreted as an integer"),
    ([1e30], RuntimeError, "value cannot be converted to type int64 without overflow"),
    ([float("nan")], RuntimeError, "value cannot be converted to type int64 without overflow"),
    ([2**63], ValueError, "Overflow when unpacking long long"),
])
def test_a_list_index_refuses_what_pytorch_cannot_read_as_int64(key, err, msg):
    with pytest.raises(err, match=f"^{re.escape(msg)}$"):
        E.arange(6)[key]


# --- setitem ---------------------------------------------------------------------------------
@pytest.mark.parametrize("key", GET_KEYS[:9], ids=str)
def test_setitem_broadcasts_value_like_numpy(key):
    a = _arr()
    x = _t(a)
    shape = a[key].shape
    value = np.arange(shape[-1], dtype=np.float64) + 1000 if shape else 1000.0
    x[key] = _t(value)
    a[key] = value
    np.testing.assert_array_equal(x.numpy(), a)


def test_setitem_casts_scalar_and_mask_and_bumps_version():
    x = E.arange(6)
    v = x._version
    x[x > 2] = 7.9
    assert x.tolist() == [0, 1, 2, 7, 7, 7]
    assert x._version > v
    y = E.zeros(2, 3)
    y[[0, 1], [2, 0]] = E.tensor([1.0, 2.0])
    assert y.tolist() == [[0, 0, 1], [2, 0, 0]]


def test_setitem_through_a_strided_view_writes_the_base():
    base = E.zeros(4, 6)
    view = base[:, ::2]
    view[[1, 3], [0, 2]] = 5.0
    expect = np.zeros((4, 6))
    expect[1, 0] = expect[3, 4] = 5.0
    np.testing.assert_array_equal(base.numpy(), expect)


def test_setitem_value_shape_mismatch():
    x = E.zeros(3, 4)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[[0, 1]] = E.ones(3)


# --- index / index_put_ --------------------------------------------------------------------------
def test_index_put_accumulate_sums_repeated_indices():
    w = E.zeros(5, 3)
    idx = E.tensor([0, 1, 1, 4, 1])
    g = E.tensor(np.arange(15.0).reshape(5, 3), dtype=E.float32)
    w.index_put_((idx,), g, accumulate=True)
    ref = np.zeros((5, 3))
    np.add.at(ref, idx.numpy(), g.numpy())
    assert_close(w, E.tensor(ref, dtype=E.float32))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-6, 5), min_size=0, max_size=30), st.sampled_from(["float32", "float64", "int64",
                                                                                  "float16"]))
def test_index_put_accumulate_property(indices, dt):
    dtype = getattr(E, dt)
    x = E.ones(6, 2, dtype=dtype)
    vals = np.arange(len(indices) * 2).reshape(len(indices), 2) % 7
    x.index_put_((E.tensor(indices, dtype=E.int64),), E.tensor(vals, dtype=dtype), accumulate=True)
    ref = np.ones((6, 2))
    np.add.at(ref, np.array(indices, dtype=np.int64), vals)
    np.testing.assert_allclose(x.numpy().astype(np.float64), ref)


def test_index_put_accumulate_on_non_contiguous_target_and_multi_index():
    base = E.zeros(4, 3)
    t = base.t()                                    # (3, 4), strides (1, 3)
    t.index_put_((E.tensor([0, 0, 2]), E.tensor([1, 1, 3])), E.tensor([1.0, 2.0, 5.0]), accumulate=True)
    ref = np.zeros((3, 4))
    np.add.at(ref, (np.array([0, 0, 2]), np.array([1, 1, 3])), [1.0, 2.0, 5.0])
    np.testing.assert_array_equal(base.numpy(), ref.T)


def test_index_put_bool_accumulate_is_logical_or():
    x = E.zeros(3, dtype=E.bool)
    x.index_put_((E.tensor([0, 0]),), E.tensor([True, True]), accumulate=True)
    assert x.tolist() == [True, False, False]


def test_index_put_out_of_place_and_mask():
    x = E.zeros(4)
    y = x.index_put((E.tensor([True, False, True, False]),), E.tensor(3.0))
    assert y.tolist() == [3, 0, 3, 0] and x.tolist() == [0, 0, 0, 0]


def test_index_primitive_with_none_entries():
    a = _arr()
    r = I._index(_t(a), (None, E.tensor([0, 2])))
    assert_close(r, _t(a[:, [0, 2]]))


# --- gather / scatter --------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2), st.integers(1, 4), st.data())
def test_gather_matches_take_along_axis(dim, n, data):
    a = _arr((3, 4, 5))
    shape = list(a.shape)
    shape[dim] = n
    idx = np.array(data.draw(st.lists(st.integers(0, a.shape[dim] - 1), min_size=int(np.prod(shape)),
                                      max_size=int(np.prod(shape))))).reshape(shape)
    assert_close(E.gather(_t(a), dim, E.tensor(idx)), _t(np.take_along_axis(a, idx, dim)))


def test_gather_smaller_index_and_errors():
    x = E.tensor([[1, 2, 3], [4, 5, 6]])
    assert E.gather(x, 1, E.tensor([[2], [0]])).tolist() == [[3], [4]]
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        E.gather(x, 1, E.tensor([[3]]))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds"):  # PyTorch's type for gather
        E.gather(x, 1, E.tensor([[3]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64"):
        E.gather(x, 1, E.tensor([[0.0]]))
    assert E.gather(x, 1, E.tensor([[1]], dtype=E.int32)).tolist() == [[2]]
    with pytest.raises(RuntimeError, match="Size does not match at dimension 0"):
        E.gather(x, 1, E.zeros(3, 1, dtype=E.int64))


def test_scatter_src_value_and_reduce():
    src = E.arange(1, 11).reshape(2, 5).float()
    idx = E.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    out = E.zeros(3, 5).scatter_(0, idx, src)
    assert out.tolist() == [[1, 7, 8, 4, 5], [0, 2, 0, 9, 0], [6, 0, 3, 0, 10]]
    r = E.full((2, 4), 2.0).scatter(1, E.tensor([[2], [3]]), value=1.5, reduce="add")
    assert r.tolist() == [[2, 2, 3.5, 2], [2, 2, 2, 3.5]]
    r = E.full((2, 4), 2.0).scatter(1, E.tensor([[2, 2], [3, 3]]), src, reduce="multiply")
    assert r.tolist() == [[2, 2, 4, 2], [2, 2, 2, 84]]


def test_zero_dim_index_into_1d_tensor_is_one_element():
    # The quickstart's one-hot: zeros(10).scatter_(0, tensor(y), value=1); PyTorch takes a 0-dim index as (1,).
    assert E.zeros(5).scatter_(0, E.tensor(3), value=1).tolist() == [0, 0, 0, 1, 0]
    assert E.zeros(4).scatter(0, E.tensor(2), E.tensor([7.0, 8.0])).tolist() == [0, 0, 7, 0]
    assert E.zeros(4).scatter_add(0, E.tensor(1), E.tensor([7.0, 8.0])).tolist() == [0, 7, 0, 0]
    g = E.arange(5.0).gather(0, E.tensor(2))
    assert g.shape == () and g.item() == 2.0


def test_scatter_and_index_add_require_matching_dtypes():
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        E.zeros(3).scatter_(0, E.tensor([0]), E.tensor([1]))
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        E.zeros(3).index_add_(0, E.tensor([0]), E.tensor([1]))


def test_scatter_add_accumulates_repeats():
    idx = np.array([0, 1, 0, 1, 2, 1])
    src = np.arange(1.0, 7.0)
    ref = np.zeros(4)
    np.add.at(ref, idx, src)
    assert_close(E.zeros(4, dtype=E.float64).scatter_add(0, E.tensor(idx), E.tensor(src)), E.tensor(ref))


@pytest.mark.parametrize("reduce,include_self,expect", [
    ("sum", True, [13, 16, 3, 4]), ("sum", False, [12, 14, 3, 4]), ("prod", True, [35, 96, 3, 4]),
    ("amax", False, [7, 8, 3, 4]), ("amin", True, [1, 2, 3, 4]), ("mean", True, [13 / 3, 16 / 3, 3, 4]),
    ("mean", False, [6, 7, 3, 4]), ("max", False, [7, 8, 3, 4]), ("min", True, [1, 2, 3, 4]),
])
def test_scatter_reduce_modes(reduce, include_self, expect):
    x = E.tensor([1.0, 2, 3, 4], dtype=E.float64)
    r = x.scatter_reduce(0, E.tensor([0, 1, 0, 1]), E.tensor([5.0, 6, 7, 8], dtype=E.float64), reduce,
                         include_self=include_self)
    np.testing.assert_allclose(r.numpy(), expect)


# --- index_* -----------------------------------------------------------------------------------
def test_index_select_add_copy_fill():
    a = _arr((3, 4))
    x = _t(a)
    idx = E.tensor([2, 0, 2])
    assert_close(x.index_select(1, idx), _t(a[:, [2, 0, 2]]))
    ref = a.copy()
    np.add.at(ref, (slice(None), [2, 0, 2]), 2 * np.ones((3, 3)))
    assert_close(x.index_add(1, idx, E.ones(3, 3, dtype=E.float64), alpha=2), _t(ref))
    y = x.clone()
    y.index_copy_(0, E.tensor([1]), E.full((1, 4), -1.0, dtype=E.float64))
    assert y[1].tolist() == [-1] * 4
    z = x.index_fill(1, E.tensor([0, 3]), 9)
    assert z[:, 0].tolist() == [9] * 3 and z[:, 3].tolist() == [9] * 3 and z[:, 1].tolist() == a[:, 1].tolist()


def test_index_add_inplace_bumps_version_and_writes_view():
    base = E.zeros(3, 4)
    v = base._version
    base.t().index_add_(0, E.tensor([1, 1]), E.ones(2, 3))
    assert base[:, 1].tolist() == [2, 2, 2]
    assert base._version > v


def test_index_select_and_index_add_out_of_range_raise_pytorch_text():
    with pytest.raises(IndexError, match="^index out of range in self$"):
        E.zeros(3).index_select(0, E.tensor([3]))
    for bad in (5, -1):
        with pytest.raises(IndexError, match="^index out of range in self$"):
            E.zeros(3).index_add_(0, E.tensor([bad]), E.ones(1))
    with pytest.raises(RuntimeError, match="^index 5 is out of bounds for dimension 1 with size 2$"):
        E.zeros(3, 2).index_add_(1, E.tensor([5]), E.ones(3, 1))
    # only the scatter_add path (2-D or more, an int64 index, alpha 1) names the index; an int32 index or another
    # alpha takes the slice loop's IndexError
    with pytest.raises(IndexError, match="^index out of range in self$"):
        E.zeros(3, 2).index_add_(1, E.tensor([5], dtype=E.int32), E.ones(3, 1))
    with pytest.raises(IndexError, match="^index out of range in self$"):
        E.zeros(3, 2).index_add_(0, E.tensor([-4]), E.ones(1, 2), alpha=2)
    assert E.zeros(3, 2).index_add_(0, E.tensor([2], dtype=E.int32), E.ones(1, 2), alpha=2).tolist() == \
        [[0, 0], [0, 0], [2, 2]]


# --- masks / nonzero / take / put / one_hot -------------------------------------------------------
def test_masked_fill_broadcast_and_tensor_value():
    x = E.arange(6).reshape(2, 3)
    m = E.tensor([True, False, True])
    assert x.masked_fill(m, -1).tolist() == [[-1, 1, -1], [-1, 4, -1]]
    assert x.masked_fill(m, E.tensor(7)).tolist() == [[7, 1, 7], [7, 4, 7]]
    y = x.float()
    y.masked_fill_(y > 3, float("-inf"))
    assert y.tolist() == [[0, 1, 2], [3, float("-inf"), float("-inf")]]
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype long "
                                           "int$"):
        x.masked_fill(E.tensor([1, 0, 1]), 0)
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        x.masked_fill(m, E.tensor([1]))


def test_masked_select_and_scatter():
    a = _arr((2, 3))
    m = a > 2
    assert_close(E.masked_select(_t(a), E.tensor(m)), _t(a[m]))
    x = E.zeros(2, 3)
    x.masked_scatter_(E.tensor(m), E.tensor([1.0, 2, 3, 4]))
    assert x.tolist() == [[0, 0, 0], [1, 2, 3]]


def test_nonzero_argwhere_where():
    a = np.array([[0, 1, 0], [2, 0, 3]])
    assert E.nonzero(E.tensor(a)).tolist() == np.argwhere(a).tolist()
    rows, cols = E.tensor(a).nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1, 1] and cols.tolist() == [1, 0, 2]
    assert E.argwhere(E.tensor(a)).dtype is E.int64
    assert [t.tolist() for t in E.where(E.tensor(a) > 0)] == [[0, 1, 1], [1, 0, 2]]
    assert E.tensor(5).nonzero().shape == (1, 0)


def test_take_and_put():
    x = E.tensor([[4, 3, 5], [6, 7, 8]])
    assert E.take(x, E.tensor([0, 2, -1])).tolist() == [4, 5, 8]
    assert E.take(x.t(), E.tensor([1])).tolist() == [6]
    with pytest.raises(IndexError, match="out of range: tried to access index 6 on a tensor of 6 elements"):
        E.take(x, E.tensor([6]))
    y = x.clone()
    y.put_(E.tensor([1, 1, 5]), E.tensor([1, 2, 3]), accumulate=True)
    assert y.tolist() == [[4, 6, 5], [6, 7, 11]]


def test_one_hot():
    assert I.one_hot(E.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert I.one_hot(E.tensor([[1]]), 4).shape == (1, 1, 4)
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        I.one_hot(E.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="non-negative"):
        I.one_hot(E.tensor([-1]))
    with pytest.raises(RuntimeError, match="LongTensor"):
        I.one_hot(E.tensor([1.0]))


def test_one_hot_takes_num_classes_as_pytorchs_int():
    """num_classes is parsed as an int first: a float, a bool or a tensor with dimensions is PyTorch's TypeError
    (even before the index dtype's check); an integer 0-dim tensor is an int."""
    for bad, kind in ((3.0, "float"), (True, "bool"), (E.tensor([3]), "Tensor"), (E.tensor(3.0), "Tensor")):
        with pytest.raises(TypeError, match=re.escape(f"one_hot(): argument 'num_classes' (position 2) must be int, "
                                                      f"not {kind}")):
            I.one_hot(E.tensor([1.0]), bad)
    assert I.one_hot(E.tensor([1]), E.tensor(3)).tolist() == [[0, 1, 0]]


@pytest.mark.parametrize("num_classes", [-1, 0])
def test_one_hot_of_an_empty_tensor_needs_a_positive_class_count(num_classes):
    empty = E.tensor([], dtype=E.int64)
    with pytest.raises(RuntimeError, match="^Can not infer total number of classes from empty tensor.$"):
        I.one_hot(empty, num_classes)
    assert I.one_hot(empty, 3).shape == (0, 3)


@st.composite
def _mixed_keys(draw):
    """A shape and a key mixing slices, int lists (one shared length), None and maybe one Ellipsis."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    n_idx = draw(st.integers(1, 3))
    kinds = [draw(st.sampled_from(["slice", "list", "full"])) for _ in shape]
    kinds[draw(st.integers(0, len(shape) - 1))] = "list"
    items = []
    for n, kind in zip(shape, kinds):
        if draw(st.booleans()) and draw(st.booleans()):
            items.append(None)
        if kind == "list":
            items.append(draw(st.lists(st.integers(-n, n - 1), min_size=n_idx, max_size=n_idx)))
        elif kind == "slice":
            items.append(slice(draw(st.integers(-n, n)), None, draw(st.integers(1, 3))))
        else:
            items.append(slice(None))
    if draw(st.booleans()):
        i = draw(st.integers(0, len(items)))
        j = draw(st.integers(i, len(items)))
        items[i:j] = [Ellipsis]
    return shape, tuple(items)


@settings(max_examples=25, deadline=None)
@given(_mixed_keys())
def test_mixed_advanced_get_and_set_match_numpy(shape_key):
    shape, key = shape_key
    lists = [i for i, k in enumerate(key) if isinstance(k, list)]
    # numpy (not PyTorch) counts an Ellipsis that expands to nothing as separating advanced indices
    assume(not lists or not any(k is Ellipsis and lists[0] < i < lists[-1] for i, k in enumerate(key)))
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    try:
        expected = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            E.tensor(a)[key]
        return
    x = E.tensor(a)
    r = x[key]
    assert r.shape == expected.shape
    np.testing.assert_array_equal(r.numpy(), expected)
    value = -np.arange(expected.shape[-1], dtype=np.float64) - 1 if expected.ndim else -1.0
    x[key] = E.tensor(value)
    a[key] = value
    np.testing.assert_array_equal(x.numpy(), a)


REGISTRY_CASES = [
    ("index", lambda a: (a, (None, np.array([2, 0]))), lambda t, i: (t, (None, E.tensor(i[1])))),
    ("gather", lambda a: (a, 1, np.array([[0, 3], [1, 1], [2, 0]])), lambda t, d, i: (t, d, E.tensor(i))),
    ("index_select", lambda a: (a, 1, np.array([3, 0, 3])), lambda t, d, i: (t, d, E.tensor(i))),
    ("take", lambda a: (a, np.array([[0, -1], [5, 2]])), lambda t, i: (t, E.tensor(i))),
    ("masked_select", lambda a: (a, a[0] > 1), lambda t, m: (t, E.as_tensor(m))),
    ("nonzero", lambda a: (a > 4,), lambda m: (E.as_tensor(m),)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32])
@pytest.mark.parametrize("name,make,convert", REGISTRY_CASES, ids=[c[0] for c in REGISTRY_CASES])
def test_registered_op_matches_its_declared_reference(name, make, convert, dtype):
    op = E.get_op(name)
    a = np.arange(12).reshape(3, 4).astype(dtype)
    args = make(a)
    expected = op.ref(*args)
    got = op(*convert(E.tensor(args[0]), *args[1:]))
    np.testing.assert_array_equal(got.numpy(), expected)
    assert got.numpy().dtype == np.asarray(expected).dtype or name == "nonzero"


@pytest.mark.parametrize("call", [
    lambda x: x.index_put_((E.tensor([0, 5]),), E.tensor([1.0, 2.0]), accumulate=True),
    lambda x: x.scatter_(0, E.tensor([1, 3]), E.tensor([1.0, 2.0])),
    lambda x: x.scatter_add_(0, E.tensor([-1]), E.tensor([1.0])),
    lambda x: x.index_add_(0, E.tensor([2, 3]), E.ones(2)),
    lambda x: x.put_(E.tensor([0, 3]), E.ones(2)),
])
def test_out_of_range_indices_fail_before_any_write(call):
    x = E.zeros(3)
    v = x._version
    with pytest.raises(IndexError):
        call(x)
    assert x.tolist() == [0, 0, 0] and x._version == v


def test_out_variants_and_strided_inplace_scatter():
    x = E.arange(6.0).reshape(2, 3)
    out = E.empty(0)
    assert E.gather(x, 1, E.tensor([[2], [0]]), out=out) is out and out.tolist() == [[2], [3]]
    out = E.empty(0)
    E.index_select(x, 0, E.tensor([1]), out=out)
    assert out.tolist() == [[3, 4, 5]]
    out = E.empty(0)
    E.masked_select(x, x > 3, out=out)
    assert out.tolist() == [4, 5]
    out = E.empty(0)
    E.scatter(x, 1, E.tensor([[0], [0]]), -1.0, out=out)
    assert out.tolist() == [[-1, 1, 2], [-1, 4, 5]] and x[0, 0].item() == 0
    base = E.zeros(3, 2)
    base.t().scatter_(1, E.tensor([[2], [0]]), E.tensor([[7.0], [8.0]]))
    assert base.tolist() == [[0, 8], [0, 0], [7, 0]]


@st.composite
def _torch_keys(draw):
    """Keys mixing ints, slices, int lists, 2-D index arrays, bool masks, None and Ellipsis."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    n_idx = draw(st.integers(1, 3))
    items = []
    for n in shape:
        if draw(st.booleans()) and draw(st.booleans()):
            items.append(None)
        kind = draw(st.sampled_from(["slice", "list", "full", "int", "mask", "column"]))
        ints = st.lists(st.integers(-n, n - 1), min_size=n_idx, max_size=n_idx)
        if kind == "list":
            items.append(draw(ints))
        elif kind == "column":
            items.append(np.array(draw(ints)).reshape(n_idx, 1))
        elif kind == "slice":
            items.append(slice(draw(st.integers(-n, n)), None, draw(st.integers(1, 3))))
        elif kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "mask":
            items.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        else:
            items.append(slice(None))
    if draw(st.booleans()):
        i = draw(st.integers(0, len(items)))
        items[i:draw(st.integers(i, len(items)))] = [Ellipsis]
    return shape, tuple(items)


@pytest.mark.torch
@settings(max_examples=25, deadline=None)
@given(_torch_keys())
def test_get_and_set_match_pytorch(shape_key):
    torch = pytest.importorskip("torch")
    shape, key = shape_key
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)

    def conv(mod):
        return tuple(mod.from_numpy(k) if isinstance(k, np.ndarray) else k for k in key)

    try:
        expected = torch.from_numpy(a.copy())[conv(torch)]
    except IndexError:
        with pytest.raises(IndexError):
            E.from_numpy(a.copy())[conv(E)]
        return
    got = E.from_numpy(a.copy())[conv(E)]
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    value = -np.arange(expected.shape[-1], dtype=np.float64) - 1 if expected.ndim else np.array(-1.0)
    t, x = torch.from_numpy(a.copy()), E.from_numpy(a.copy())
    t[conv(torch)] = torch.from_numpy(value)
    x[conv(E)] = E.from_numpy(value)
    np.testing.assert_array_equal(x.numpy(), t.numpy())


# --- index_put_ and x[idx] = v: the value's dtype ---------------------------------------------
_PUT_MISMATCH = ("Index put requires the source and destination dtypes match, got Float for the destination and "
                 "Double for the source.")


def _set(x, key, v):
    x[key] = v
    return x


def _f64(M, v):
    return M.tensor(v, dtype=M.float64)


# Each case writes a float64 value into M.zeros(2) (float32); M is ember.core or torch.
DTYPE_MISMATCH_PUTS = {  # PyTorch refuses a value tensor of another dtype on the advanced-index path
    "index_put_": lambda M: M.zeros(2).index_put_((M.tensor([0]),), _f64(M, [1.0])),
    "index_put": lambda M: M.zeros(2).index_put((M.tensor([0]),), _f64(M, [1.0])),
    "index_put_ 0-dim value": lambda M: M.zeros(2).index_put_((M.tensor([0]),), _f64(M, 1.0)),
    "index_put_ accumulate into a mask":
        lambda M: M.zeros(2).index_put_((M.tensor([True, False]),), _f64(M, [1.0]), accumulate=True),
    "x[int tensor]": lambda M: _set(M.zeros(2), M.tensor([0]), _f64(M, [1.0])),
    "x[list]": lambda M: _set(M.zeros(2), [0], _f64(M, [1.0])),
    "x[ndarray]": lambda M: _set(M.zeros(2), np.array([0]), _f64(M, [1.0])),
    "x[0-dim bool tensor]": lambda M: _set(M.zeros(2), M.tensor(True), _f64(M, 1.0)),
    "x[(True,)]": lambda M: _set(M.zeros(2), (True,), _f64(M, 1.0)),
    "x[mask] = two values": lambda M: _set(M.zeros(2), M.tensor([True, True]), _f64(M, [1.0, 2.0])),
    "x[mask, mask]": lambda M: _set(M.zeros(2, 2), (M.tensor([True, True]),) * 2, _f64(M, 1.0)),
}

CASTING_PUTS = {  # basic indexing copies with a cast; one value into a single mask is a cast masked_fill_
    "x[idx] = number": (lambda M: _set(M.zeros(2), M.tensor([0]), 1.0), [1.0, 0.0]),
    "x[0]": (lambda M: _set(M.zeros(2), 0, _f64(M, 1.0)), [1.0, 0.0]),
    "x[0:1]": (lambda M: _set(M.zeros(2), slice(0, 1), _f64(M, [1.0])), [1.0, 0.0]),
    "x[True]": (lambda M: _set(M.zeros(2), True, _f64(M, [1.0])), [1.0, 1.0]),
    "x[False]": (lambda M: _set(M.zeros(2), False, _f64(M, [1.0, 2.0, 3.0])), [0.0, 0.0]),
    "x[mask] = one value": (lambda M: _set(M.zeros(2), M.tensor([True, False]), _f64(M, [[1.0]])), [1.0, 0.0]),
    "x[bool list]": (lambda M: _set(M.zeros(2), [True, False], _f64(M, 1.0)), [1.0, 0.0]),
    "index_put_ mask": (lambda M: M.zeros(2).index_put_((M.tensor([True, False]),), _f64(M, [[1.0]])), [1.0, 0.0]),
    "index_put_ 0-dim mask": (lambda M: M.zeros(2).index_put_((M.tensor(True),), _f64(M, [1.0])), [1.0, 1.0]),
}


@pytest.mark.parametrize("name", list(DTYPE_MISMATCH_PUTS))
def test_index_put_refuses_a_value_of_another_dtype(name):
    with pytest.raises(RuntimeError) as e:
        DTYPE_MISMATCH_PUTS[name](E)
    assert str(e.value) == _PUT_MISMATCH


def test_index_put_names_both_dtypes():
    with pytest.raises(RuntimeError, match="got Long for the destination and Float for the source"):
        E.zeros(2, dtype=E.int64).index_put_((E.tensor([0]),), E.tensor([1.0]))
    with pytest.raises(RuntimeError, match="got Int for the destination and Bool for the source"):
        E.zeros(2, dtype=E.int32)[E.tensor([0])] = E.tensor([True])


@pytest.mark.parametrize("name", list(CASTING_PUTS))
def test_index_put_casts_where_pytorch_does(name):
    put, expect = CASTING_PUTS[name]
    x = put(E)
    assert x.dtype == E.float32 and x.tolist() == expect


def test_setitem_mask_after_a_basic_index_casts_one_value():
    x = E.zeros(2, 2, dtype=E.int64)
    x[E.tensor([True, True]), 0] = E.tensor([1.5], dtype=E.float64)
    assert x.tolist() == [[1, 0], [1, 0]]


@pytest.mark.torch
@pytest.mark.parametrize("name", list(DTYPE_MISMATCH_PUTS) + list(CASTING_PUTS))
def test_index_put_dtype_rule_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    put = DTYPE_MISMATCH_PUTS[name] if name in DTYPE_MISMATCH_PUTS else CASTING_PUTS[name][0]
    outcomes = []
    for M in (E, torch):
        try:
            outcomes.append(put(M).tolist())
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


# PyTorch's setitem takes a tensor or a Python number (numpy integers, np.float64 and np.complex128 count as
# numbers); any other value, a list or a numpy array included, is refused whatever the index
SETITEM_KEYS = {"tensor index": lambda: E.tensor([0]), "int": lambda: 0, "slice": lambda: slice(0, 2),
                "list index": lambda: [0, 1], "mask": lambda: E.tensor([True, False, True]), "ellipsis": lambda: ...}
SETITEM_REFUSED = {"list": ([1.0], "list"), "tuple": ((1.0,), "tuple"), "ndarray": (np.array([1.0]), "numpy.ndarray"),
                   "0-d ndarray": (np.array(1.0), "numpy.ndarray"), "np.float32": (np.float32(2.0), "numpy.float32"),
                   "np.bool_": (np.bool_(True), "numpy.bool"), "None": (None, "NoneType"), "str": ("a", "str")}


@pytest.mark.parametrize("key", list(SETITEM_KEYS))
@pytest.mark.parametrize("value", list(SETITEM_REFUSED))
def test_setitem_refuses_values_other_than_tensors_and_numbers(key, value):
    v, name = SETITEM_REFUSED[value]
    x = E.zeros(3)
    with pytest.raises(TypeError, match=f"^can't assign a {name} to a torch.FloatTensor$"):
        x[SETITEM_KEYS[key]()] = v
    assert x.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(TypeError, match="^can't assign a list to a torch.LongTensor$"):
        E.zeros(3, dtype=E.int64)[SETITEM_KEYS[key]()] = [1]


@pytest.mark.parametrize("value", [1, 1.0, True, np.int32(1), np.uint8(1), np.float64(1.0), np.complex128(1.0),
                                   E.tensor(1.0), E.tensor([1.0])])
def test_setitem_takes_tensors_and_numbers(value):
    x = E.zeros(3)
    x[E.tensor([0, 2])] = value
    assert x.tolist() == [1.0, 0.0, 1.0]


@pytest.mark.torch
@pytest.mark.parametrize("key", list(SETITEM_KEYS))
@pytest.mark.parametrize("value", list(SETITEM_REFUSED))
def test_setitem_value_types_match_pytorch(key, value):
    torch = pytest.importorskip("torch")
    outcomes = []
    for M in (E, torch):
        k = SETITEM_KEYS[key]()
        k = torch.tensor(k.tolist()) if M is torch and isinstance(k, E.Tensor) else k
        try:
            M.zeros(3)[k] = SETITEM_REFUSED[value][0]
            outcomes.append(None)
        except TypeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


# a uint8 mask: PyTorch reads and puts through it as a bool mask with a deprecation warning, but its
# masked_fill_ path (one value, one mask) takes bool masks only
BYTE_MASK_FILLS = {
    "x[m] = 1.0": lambda M, m: M.zeros(3).__setitem__(m, 1.0),
    "x[m] = 1": lambda M, m: M.zeros(3).__setitem__(m, 1),
    "x[m] = 0-d tensor": lambda M, m: M.zeros(3).__setitem__(m, M.tensor(2.0)),
    "x[m] = one-element tensor": lambda M, m: M.zeros(3).__setitem__(m, M.tensor([2.0])),
    "x[m2] = 1.0": lambda M, m: M.zeros(3, 1).__setitem__(m, 1.0),
    "x[m, 0] = 1.0": lambda M, m: M.zeros(3, 2).__setitem__((m, 0), 1.0),
    "x[0, m] = 1.0": lambda M, m: M.zeros(2, 3).__setitem__((0, m), 1.0),
    "index_put_": lambda M, m: M.zeros(3).index_put_((m,), M.tensor(1.0)),
}
UINT8_WARNING = (r"^indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                 r"\(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.\)$")


@pytest.mark.parametrize("name", list(BYTE_MASK_FILLS))
def test_byte_mask_fill_raises_masked_fill_error(name):
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype "
                                           "unsigned char$"):
        BYTE_MASK_FILLS[name](E, E.tensor([1, 0, 1], dtype=E.uint8))


def test_byte_mask_reads_and_puts_of_many_values_warn():
    m = E.tensor([1, 0, 1], dtype=E.uint8)
    with pytest.warns(UserWarning, match=UINT8_WARNING):
        assert E.arange(3.0)[m].tolist() == [0.0, 2.0]
    with pytest.warns(UserWarning, match=UINT8_WARNING):
        assert E.arange(3.0)[m, None].tolist() == [[0.0], [2.0]]
    x = E.zeros(3)
    with pytest.warns(UserWarning, match=UINT8_WARNING):
        x[m] = E.tensor([2.0, 3.0])
    assert x.tolist() == [2.0, 0.0, 3.0]
    with pytest.warns(UserWarning, match=UINT8_WARNING):
        assert E.zeros(3).index_put_((m,), E.tensor([1.0, 2.0])).tolist() == [1.0, 0.0, 2.0]


def test_a_byte_mask_with_too_many_dims_raises_before_its_deprecation_warning():
    """PyTorch counts the indexed dims first: a 2-D byte mask on a 1-D tensor is refused without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(IndexError, match="^too many indices for tensor of dimension 1$"):
            E.arange(9)[E.ones(3, 3, dtype=E.uint8)]
    with pytest.warns(UserWarning, match=UINT8_WARNING), pytest.raises(IndexError, match="shape of the mask"):
        E.arange(9)[E.ones(4, dtype=E.uint8)]


def test_mask_ops_name_a_wrong_mask_dtype_as_pytorch():
    m = E.tensor([1, 0, 1], dtype=E.uint8)
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype "
                                           "unsigned char$"):
        E.zeros(3).masked_fill(m, 1.0)
    with pytest.raises(RuntimeError, match="^masked_select: expected BoolTensor for mask$"):
        E.zeros(3).masked_select(m)
    with pytest.warns(UserWarning, match=r"^masked_scatter_ received a mask with dtype torch.uint8.* \(Triggered "
                                         r"internally at .*/TensorAdvancedIndexing.cpp:3130.\)$"), \
            pytest.raises(RuntimeError, match="^masked_scatter_ only supports boolean masks, but got mask with dtype "
                                              "Byte$"):
        E.zeros(3).masked_scatter(m, E.ones(3))


@pytest.mark.torch
@pytest.mark.parametrize("name", list(BYTE_MASK_FILLS))
def test_byte_mask_fill_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    outcomes = []
    for M in (E, torch):
        try:
            BYTE_MASK_FILLS[name](M, M.tensor([1, 0, 1], dtype=M.uint8))
            outcomes.append(None)
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


def test_a_2d_index_is_refused_in_each_ops_own_words():
    with pytest.raises(IndexError, match="^index_select\\(\\): Index is supposed to be a vector$"):
        E.zeros(3).index_select(0, E.tensor([[0]]))
    with pytest.raises(IndexError, match="^index_add_\\(\\): Index is supposed to be a vector, but got dim: 2 with "
                                         "type: Long and size: \\[1, 1\\]$"):
        E.zeros(3).index_add(0, E.tensor([[0]]), E.ones(1, 1))


def test_scatter_reduce_argument_and_index_reduce_warn_once_as_pytorch(monkeypatch):
    import warnings

    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    x, i = E.zeros(2, 3), E.zeros(2, 3, dtype=E.int64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.scatter_(1, i, 2.0, reduce="add")  # a number src: no warning
        x.scatter_(1, i, E.ones(2, 3), reduce="multiply")
        E.scatter(x, 1, i, E.ones(2, 3), reduce="add")  # once a process
        x.index_reduce_(0, E.tensor([0]), E.ones(1, 3), "prod")
        x.index_reduce(0, E.tensor([0]), E.ones(1, 3), "amax")
    assert [(w.category, str(w.message), w.filename) for w in caught] == [
        (UserWarning, "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
                      "future PyTorch release. Use torch.scatter_reduce instead for more reduction options. (Triggered "
                      "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:225.)",
         __file__),
        (UserWarning, "index_reduce() is in beta and the API may change at any time. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:1523.)", __file__)]


@pytest.mark.parametrize("dtype, name", [(E.bool, "Bool"), (E.complex64, "ComplexFloat"),
                                         (E.complex128, "ComplexDouble")])
@pytest.mark.parametrize("include_self, kernel", [(True, "index_func_"),
                                                  (False, "index_reduce_func_exclude_input_init")])
def test_index_reduce_refuses_bool_and_complex_as_pytorchs_cpu_kernels(dtype, name, include_self, kernel):
    x = E.ones(3, dtype=dtype)
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{name}'$"):
        x.index_reduce(0, E.tensor([0, 2]), E.ones(2, dtype=dtype), "prod", include_self=include_self)


@pytest.mark.parametrize(("shape", "dim", "idx", "err", "msg"), [
    ((2, 3), 1, [0, 7, 5], RuntimeError, "INDICES element is out of DATA bounds, id=7 axis_dim=3"),
    ((2, 3), -1, [-4], RuntimeError, "INDICES element is out of DATA bounds, id=-4 axis_dim=3"),
    ((2, 3, 4), 1, [3], RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    ((2, 3, 0), 0, [4], RuntimeError, "INDICES element is out of DATA bounds, id=4 axis_dim=2"),
    ((2, 0, 3), 1, [0], RuntimeError, "index_select(): self indexing axis dim should be positive"),
    ((2, 3), 0, [0, 5], IndexError, "index out of range in self"),
    ((2, 3, 4), 2, [9], IndexError, "index out of range in self"),
    ((3,), 0, [7], IndexError, "index out of range in self"),
])
def test_index_select_out_of_range_errors_follow_pytorchs_cpu_paths(shape, dim, idx, err, msg):
    # PyTorch's dim-1 batch-gather path and its empty-tensor check raise RuntimeError naming the index
    x = E.ones(*shape)
    with pytest.raises(err, match="^" + re.escape(msg) + "$"):
        x.index_select(dim, E.tensor(idx))
    with pytest.raises(err, match="^" + re.escape(msg) + "$"):
        E.index_select(x.transpose(0, 0), dim, E.tensor(idx, dtype=E.int32))


@pytest.mark.parametrize(("key", "dim", "size"), [
    ((0, 9), 1, 5), ((0, slice(None), 9), 2, 7), ((None, 0, 9), 2, 5), ((Ellipsis, 9), 1, 7),
    ((0, Ellipsis, 9), 2, 7), ((None, None, 1, 9), 3, 5), ((0, E.tensor([1]), 9), 2, 7), ((E.tensor([0]), 9), 1, 5)])
def test_int_index_out_of_range_names_its_position_in_the_key(key, dim, size):
    # PyTorch reports the index item's position in the key as "dimension", for reads and writes alike
    x = E.ones(2, 5, 7)
    msg = f"^index 9 is out of bounds for dimension {dim} with size {size}$"
    with pytest.raises(IndexError, match=msg):
        x[key]
    with pytest.raises(IndexError, match=msg):
        x[key] = 1.0


def test_reshape_of_nothing_with_an_inferred_dim_is_ambiguous():
    with pytest.raises(RuntimeError, match=re.escape("cannot reshape tensor of 0 elements into shape [-1, 0] because "
                                                     "the unspecified dimension size -1 can be any value and is "
                                                     "ambiguous")):
        E.ones(0, 3).reshape(-1, 0)
    assert E.ones(0, 3).reshape(2, -1).shape == (2, 0) and E.ones(0).view(-1).shape == (0,)


def test_advanced_index_out_of_bounds_names_its_ordinal_among_the_index_tensors():
    x = E.zeros(2, 3, 4)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[:, [0, 3]]
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 4"):
        x[[0], :, [9]]
    with pytest.raises(IndexError, match="index 9 is out of bounds for dimension 1 with size 4"):
        x[:, [0], [9]] = 1.0


def test_scatter_reduce_refuses_complex_extrema_and_bool_mean():
    i = E.tensor([[0, 1]])
    z = E.zeros(2, 3, dtype=E.complex64)
    with pytest.raises(NotImplementedError,
                       match="\"scatter_gather_tensor_cpu_reduce_amax\" not implemented for 'ComplexFloat'"):
        z.scatter_reduce(1, i, E.ones(1, 2, dtype=E.complex64), "amax")
    b = E.zeros(2, 3, dtype=E.bool)
    with pytest.raises(NotImplementedError,
                       match="\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"):
        b.scatter_reduce(1, i, E.ones(1, 2, dtype=E.bool), "mean")
    assert z.scatter_reduce(1, i, E.ones(1, 2, dtype=E.complex64), "sum").dtype is E.complex64
    with pytest.raises(RuntimeError, match="^scatter\\(\\): Expected self.dtype to be equal to src.dtype$"):
        E.zeros(2, 3).scatter(1, i, E.ones(1, 2, dtype=E.int64))


@pytest.mark.parametrize("key, name", [(np.bool_(True), "numpy.bool"), (np.bool_(False), "numpy.bool"),
                                       ((0, np.bool_(True)), "numpy.bool"), (np.float64(1.0), "numpy.float64"),
                                       (np.float32(1.0), "numpy.float32"), (1.5, "float")])
def test_numpy_bool_and_float_scalars_are_refused_as_indices_as_pytorch(key, name):
    """A gym `done` flag is a numpy bool: PyTorch refuses it as an index (a Python bool adds a dim of 1 or 0)."""
    x = E.arange(6.0).view(2, 3)
    message = rf"^only integers, slices \(`:`\), ellipsis \(`...`\), None and long or byte Variables are valid " \
              rf"indices \(got {name}\)$"
    with pytest.raises(IndexError, match=message):
        x[key]
    with pytest.raises(IndexError, match=message):
        x[key] = -1.0
    assert x.sum().item() == 15.0
    assert x[True].shape == (1, 2, 3) and x[[np.bool_(True), np.bool_(False)]].shape == (1, 3)


def _layouts(a: np.ndarray, dtype) -> list:
    """`a` as tensors of `dtype` laid out row-major, transposed, and as a view whose dims before the last do not
    merge (the offset path's case for a scatter along the last dim)."""
    b = a.astype(dtype.np)
    stepped = E.zeros((a.shape[0], 2 * a.shape[1], a.shape[2]), dtype=dtype)[:, :a.shape[1], :]
    stepped.copy_(E.tensor(b))
    return [("row-major", E.tensor(b)), ("transposed", E.tensor(b.transpose(2, 1, 0).copy()).permute(2, 1, 0)),
            ("unmergeable", stepped)]


def _scatter_ref(a, d, idx, src, op, include_self=True):
    """A loop over the index in order: what every scatter must leave (repeated indices included)."""
    out, count = a.copy(), np.zeros(a.shape, np.int64)
    for pos in np.ndindex(*idx.shape):
        at = list(pos)
        at[d] = idx[pos]
        at = tuple(at)
        first = count[at] == 0 and not include_self
        v = src[pos]
        out[at] = v if op == "set" or first else out[at] + v if op in ("add", "mean") else max(out[at], v)
        count[at] += 1
    if op == "mean":
        hit = count > 0
        out[hit] = out[hit] / (count[hit] + include_self)
    return out


@pytest.mark.parametrize("dtype", [E.float32, E.int64, E.float16])
@pytest.mark.parametrize("d", [0, 1, 2])
def test_dim_indexing_through_views_matches_an_index_loop(d, dtype):
    """NOTE [ Indexing through (outer, dim, inner) views ]: gather, scatter_, scatter_add_, scatter_reduce_ (amax
    without self, mean) and index_add_/index_copy_ on every layout, with repeated indices, against index loops."""
    rng = np.random.default_rng(d)
    a = rng.integers(-4, 5, (3, 4, 5)).astype(np.float64)
    ishape = tuple(3 if k == d else n - 1 for k, n in enumerate(a.shape))
    cut = tuple(slice(None) if k == d else slice(0, n) for k, n in enumerate(ishape))
    rep = rng.integers(0, a.shape[d], ishape)  # repeats along d
    uniq = np.take(np.argsort(rng.random(a[cut].shape), axis=d), range(3), axis=d)  # none: scatter_'s order is free
    src = rng.integers(-4, 5, ishape).astype(np.float64)
    rows = np.array([1, 0, 1])
    rsrc = rng.integers(-4, 5, tuple(3 if k == d else n for k, n in enumerate(a.shape))).astype(np.float64)
    ts, trs = E.tensor(src.astype(dtype.np)), E.tensor(rsrc.astype(dtype.np))
    for n in range(3):  # a fresh view for each call, written in place: a clone would be row-major
        def fresh():
            return _layouts(a, dtype)[n][1]

        name = _layouts(a, dtype)[n][0]
        assert np.array_equal(E.gather(fresh(), d, E.tensor(rep)).double().numpy(), np.take_along_axis(a[cut], rep, d))
        for op, idx, call in [
                ("set", uniq, lambda x, i: x.scatter_(d, i, ts)), ("add", rep, lambda x, i: x.scatter_add_(d, i, ts)),
                ("max", rep, lambda x, i: x.scatter_reduce_(d, i, ts, "amax", include_self=False)),
                ("mean", rep, lambda x, i: x.scatter_reduce_(d, i, ts, "mean"))]:
            want = _scatter_ref(a, d, idx, src, op, include_self=op != "max")
            want = np.floor(want) if dtype is E.int64 else want  # an integer mean floors, as PyTorch's
            t = fresh()
            call(t, E.tensor(idx))
            assert np.allclose(t.double().numpy(), want, atol=1e-2), (name, op)
        want = a.copy()
        np.add.at(want, (slice(None),) * d + (rows,), rsrc)
        t = fresh()
        t.index_add_(d, E.tensor(rows), trs)
        assert np.array_equal(t.double().numpy(), want), name
        want = a.copy()
        want[(slice(None),) * d + (rows[1:],)] = np.take(rsrc, [1, 2], axis=d)
        t = fresh()
        t.index_copy_(d, E.tensor(rows[1:]), E.tensor(np.take(rsrc, [1, 2], axis=d).astype(dtype.np)))
        assert np.array_equal(t.double().numpy(), want), name


def test_scatter_reduce_mean_of_complex_divides_as_pytorch():
    """A complex mean divides (PyTorch: [[0.5, 0.5, 0]] here); only integers floor."""
    z = E.zeros(2, 3, dtype=E.complex64).scatter_reduce(1, E.tensor([[0, 1]]), E.ones(1, 2, dtype=E.complex64), "mean")
    assert np.array_equal(z.numpy(), np.array([[0.5, 0.5, 0], [0, 0, 0]], np.complex64))


@pytest.mark.parametrize("key, shape, first", [
    ((Ellipsis, 0, Ellipsis), (2, 3), [0.0, 4.0, 8.0]), ((0, Ellipsis, Ellipsis), (3, 4), [0.0, 1.0, 2.0]),
    ((Ellipsis, None, Ellipsis), (2, 3, 4, 1), [0.0, 1.0, 2.0]), ((1, Ellipsis, 0, Ellipsis), (3,), [12.0, 16.0, 20.0]),
    ((Ellipsis, slice(1, None), Ellipsis), (2, 3, 3), [1.0, 2.0, 3.0]),
    ((Ellipsis, E.tensor([0, 1]), Ellipsis), (2, 3, 2), [0.0, 1.0, 4.0])])
def test_several_ellipses_index_as_pytorch_2_13(key, shape, first):
    # PyTorch 2.13's answers: each ellipsis moves on by the dims the other items leave, so a second one ends past
    # the last dim
    x = E.arange(24.0).reshape(2, 3, 4)
    r = x[key]
    assert tuple(r.shape) == shape and r.flatten()[:3].tolist() == first
    y = x.clone()
    y[key] = -1
    assert (y == -1).sum().item() == r.numel()


@pytest.mark.parametrize("key, message", [
    ((Ellipsis, 0, Ellipsis, 1), "index 1 is out of bounds for dimension 3 with size 0"),
    ((Ellipsis, Ellipsis, 0), "index 0 is out of bounds for dimension 2 with size 0"),
    ((Ellipsis, 0, Ellipsis, slice(1, None)),
     re.escape("Dimension out of range (expected to be in range of [-2, 1], but got 2)"))])
def test_an_index_past_the_last_dim_after_two_ellipses_raises_pytorchs_index_error(key, message):
    with pytest.raises(IndexError, match=message):
        E.arange(24.0).reshape(2, 3, 4)[key]


def test_scatter_kernels_are_module_level_so_numbas_disk_cache_serves_them():
    # a kernel closing over another jitted function never matched Numba's cache index in a new process
    from ember.core.ops._index_kernels import scatter3

    for kernel in scatter3():
        assert kernel.py_func.__closure__ is None
        assert kernel.py_func.__module__ == "ember.core.ops._scatter_kernels"


def test_several_ellipses_each_skip_the_dims_the_rest_leave_as_pytorch():
    a = _arr((2, 3, 4))
    x = _t(a)
    np.testing.assert_array_equal(x[..., 0, ...].numpy(), a[..., 0])  # the first Ellipsis takes every free dim
    np.testing.assert_array_equal(x[0, ..., ...].numpy(), a[0])
    assert x[None, ..., None, ...].shape == (1, 2, 3, 4, 1)
    np.testing.assert_array_equal(x[..., 1:, ...].numpy(), a[..., 1:])
    with pytest.raises(IndexError, match="^index 1 is out of bounds for dimension 3 with size 0$"):
        x[..., 0, ..., 1]  # PyTorch's words: the second Ellipsis moved past the last dim
    y = x.clone()
    y[..., 0, ...] = -1.0
    b = a.copy()
    b[..., 0] = -1.0
    np.testing.assert_array_equal(y.numpy(), b)


@pytest.mark.parametrize("call, msg", [
    (lambda z: z.index_put_(E.tensor([0]), E.tensor(1.0)),
     "index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not Tensor"),
    (lambda z: z.index_put(None, E.tensor(1.0)),
     "index_put(): argument 'indices' (position 1) must be tuple of Tensors, not NoneType"),
    (lambda z: z.index_put_((0,), E.tensor(1.0)), "expected Tensor as element 0 in argument 0, but got int"),
    (lambda z: z.index_put_(([0],), E.tensor(1.0)), "expected Tensor as element 0 in argument 0, but got list"),
    (lambda z: z.index_put_((E.tensor([0]),), 1.0),
     "index_put_(): argument 'values' (position 2) must be Tensor, not float"),
    (lambda z: E.index_put(z, E.tensor([0]), E.tensor(1.0)),  # the function forms count `input` too
     "index_put(): argument 'indices' (position 2) must be tuple of Tensors, not Tensor"),
    (lambda z: E.index_put_(z, (E.tensor([0]),), 1), "index_put_(): argument 'values' (position 3) must be Tensor, "
                                                     "not int"),
    (lambda z: E.index_put(z, [1], E.tensor(1.0)), "expected Tensor as element 0 in argument 1, but got int"),
])
def test_index_put_refuses_what_pytorchs_argument_parser_refuses(call, msg):
    with pytest.raises(TypeError, match=f"^{re.escape(msg)}$"):
        call(E.zeros(3))
    assert E.zeros(3).index_put_([E.tensor([1])], E.tensor(2.0)).tolist() == [0.0, 2.0, 0.0]  # a list is fine


def test_a_0dim_uint8_index_is_a_mask_as_pytorch_reads_it():
    x = E.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        assert x[E.tensor(1, dtype=E.uint8)].shape == (1, 3, 4)  # a 0-dim int8/int32 index selects instead
        assert x[E.tensor(0, dtype=E.uint8)].shape == (0, 3, 4)
        assert x[1, E.tensor(1, dtype=E.uint8)].shape == (1, 4)
    assert x[E.tensor(1, dtype=E.int8)].shape == (4,)


def test_a_list_or_array_of_floats_indexes_as_int64_but_a_float_tensor_does_not():
    """PyTorch turns index data other than bytes and bools into an int64 tensor (floats truncate)."""
    x = E.arange(10) * 10
    assert x[[1.0, 2.0]].tolist() == [10, 20]
    assert x[np.array([1.5, 2.0], dtype=np.float32)].tolist() == [10, 20]
    assert x.view(2, 5)[np.array([1.0]), np.array([2.0])].tolist() == [70]
    y = E.zeros(4)
    y[[0.0, 3.0]] = 1.0
    assert y.tolist() == [1.0, 0.0, 0.0, 1.0]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool tensors"):
        x[E.tensor([1.0])]


def test_index_add_truncates_a_float_alpha_for_an_integer_tensor():
    idx = E.tensor([0, 0])
    for alpha, want in [(1.9, 3), (-1.5, -3), (0.5, 0), (2, 6)]:  # PyTorch's alpha.to<int64_t>()
        got = E.zeros(3, dtype=E.int64).index_add(0, idx, E.tensor([1, 2]), alpha=alpha)
        assert got.tolist() == [want, 0, 0], alpha
    assert E.zeros(2).index_add(0, idx, E.tensor([1.0, 2.0]), alpha=1.5).tolist() == [4.5, 0.0]


def _half_writes(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, n), (rng.random(n) * 10).astype(np.float16)


def _stepwise_sum(idx, vals):
    ref = np.zeros(4, np.float16)
    for i, v in zip(idx, vals, strict=True):
        ref[i] = ref[i] + v  # numpy's float16 add rounds after each step, as PyTorch's half loops
    return ref


def test_accumulating_index_put_and_put_round_half_after_every_write():
    idx, vals = _half_writes()
    ref = _stepwise_sum(idx, vals)
    once = np.zeros(4, np.float32)
    np.add.at(once, idx, vals.astype(np.float32))
    assert not np.array_equal(ref, once.astype(np.float16))  # the data tells the two roundings apart
    i, v = E.tensor(idx), E.tensor(vals)
    assert np.array_equal(E.zeros(4, dtype=E.float16).index_put_((i,), v, accumulate=True).numpy(), ref)
    assert np.array_equal(E.zeros(4, dtype=E.float16).put_(i, v, accumulate=True).numpy(), ref)
    assert np.array_equal(E.zeros(4, dtype=E.float16).index_add_(0, i, v).numpy(), ref)


def test_scatter_add_and_2d_index_add_of_half_round_once_as_pytorch():
    idx, vals = _half_writes()
    once = np.zeros(4, np.float32)
    np.add.at(once, idx, vals.astype(np.float32))
    i, v = E.tensor(idx), E.tensor(vals)
    assert np.array_equal(E.zeros(4, dtype=E.float16).scatter_add_(0, i, v).numpy(), once.astype(np.float16))
    rows = E.zeros(4, 1, dtype=E.float16).index_add_(0, i, v[:, None])
    assert np.array_equal(rows.numpy()[:, 0], once.astype(np.float16))


def test_stepwise_bfloat16_accumulation_keeps_small_addends_lost():
    # 256 + 1 rounds back to 256 in bfloat16 (8 significant bits) at every step; one float32 sum would give 260
    x = E.zeros(1, dtype=E.bfloat16).index_put_((E.zeros(5, dtype=E.int64),), E.tensor([256.0, 1, 1, 1, 1],
                                                dtype=E.bfloat16), accumulate=True)
    assert x.float().tolist() == [256.0]


def test_index_result_of_a_non_row_major_tensor_is_laid_out_as_pytorchs():
    # PyTorch 2.13's strides (TensorIterator over the restrided source and the broadcast indices); values as numpy's
    x = E.arange(24.0).reshape(2, 3, 4)
    xt, xp = x.transpose(0, 2), x.permute(2, 0, 1)
    xc = E.arange(480.0).reshape(2, 4, 3, 4, 5).contiguous(memory_format=E.channels_last_3d)
    cases = [(lambda: xp[:, [0, 1]], (1, 4, 8)), (lambda: xt[[0, 1]], (6, 1, 3)), (lambda: xt[:, :, [1]], (1, 4, 1)),
             (lambda: xt[:, E.tensor([[0, 1], [1, 0]])], (1, 8, 4, 16)),
             (lambda: xt[:, E.tensor([[0, 1], [1, 0]]).t()], (1, 4, 8, 16)),
             (lambda: xc[:, :, [0, 2]], (160, 1, 20, 40, 4)), (lambda: xc[..., [1, 2, 4]], (144, 3, 48, 12, 1)),
             (lambda: x[[0, 1], :, [0, 1]], (3, 1))]
    for index, strides in cases:
        r = index()
        assert r.stride() == strides
        assert r.contiguous().tolist() == r.numpy().tolist()
    np.testing.assert_array_equal(xt[:, :, [1]].numpy(), np.arange(24.0).reshape(2, 3, 4).transpose(2, 1, 0)[:, :, [1]])


@pytest.mark.parametrize("shape, dim, alpha, stepwise", [
    ((2, 6, 3), 1, 1, True),   # a middle dim: PyTorch's add loop, a rounding per slice
    ((6, 3), 0, 0.3, True),    # alpha != 1: the add loop, source * alpha rounded to the dtype first
    ((6, 3), 0, 1, False),     # alpha 1 along the first or last dim: scatter_add, one rounding
    ((2, 3, 6), 2, 1, False),
])
def test_half_index_add_rounds_as_pytorchs_paths(shape, dim, alpha, stepwise):
    """PyTorch 2.13 measured: which 16-bit index_add_ sums round after every slice."""
    rng = np.random.default_rng(5)
    x = (rng.random(shape) * 10).astype(np.float16)
    sshape = list(shape)
    sshape[dim] = 40
    src = (rng.random(sshape) * 3).astype(np.float16)
    idx = rng.integers(0, shape[dim], 40)
    vals = np.moveaxis(src * np.float16(alpha), dim, 0)  # half times half: rounded to half, as PyTorch's mul
    work = np.moveaxis(x.copy(), dim, 0)
    once = work.astype(np.float32)
    for i, k in enumerate(idx):
        work[k] = (work[k].astype(np.float32) + vals[i].astype(np.float32)).astype(np.float16)
        once[k] += vals[i].astype(np.float32)
    want = np.moveaxis(work if stepwise else once.astype(np.float16), 0, dim)
    got = E.tensor(x).index_add_(dim, E.tensor(idx), E.tensor(src), alpha=alpha).numpy()
    assert np.array_equal(got, want)
    assert not np.array_equal(np.moveaxis(work, 0, dim), np.moveaxis(once.astype(np.float16), 0, dim))


_X = E.tensor([[1.0, 2.0], [3.0, 4.0]])
_OUT_DTYPE_CASES = [
    (lambda o: E.gather(_X, 1, E.tensor([[1], [0]]), out=o),
     "Expected out tensor to have dtype float, but got {} instead"),
    (lambda o: E.scatter_add(_X, 1, E.tensor([[1], [0]]), _X, out=o),
     "Expected out tensor to have dtype float, but got {} instead"),
    (lambda o: E.scatter_reduce(_X, 1, E.tensor([[1], [0]]), _X, "amax", out=o),
     "Expected out tensor to have dtype float, but got {} instead"),
    (lambda o: E.take_along_dim(_X, E.tensor([[1], [0]]), 1, out=o),
     "Expected out tensor to have dtype float, but got {} instead"),
    (lambda o: E.index_add(_X, 0, E.tensor([1]), _X[:1], out=o),
     "Expected out tensor to have dtype float, but got {} instead"),
    (lambda o: E.index_copy(_X, 0, E.tensor([1]), _X[:1], out=o),
     "Expected out tensor to have dtype float, but got {} instead"),
    (lambda o: E.index_select(_X, 0, E.tensor([1]), out=o),
     "index_select(): self and result must have the same scalar type"),
    (lambda o: E.masked_select(_X, _X > 2, out=o), "masked_select(): self and result must have the same scalar type"),
]


@pytest.mark.parametrize("call,message", _OUT_DTYPE_CASES)
@pytest.mark.parametrize("dt,cname", [(E.float64, "double"), (E.int64, "long int")])
def test_out_of_another_dtype_is_refused_as_pytorch_structured_kernels_do(call, message, dt, cname):
    """A cast-able out= is still refused (PyTorch's structured set_output): float64 used to take the result."""
    with pytest.raises(RuntimeError, match=re.escape(message.format(cname))):
        call(E.empty(0, dtype=dt))


def test_out_dtype_is_checked_before_the_index_values():
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float, but got long int"):
        E.gather(_X, 1, E.tensor([[9]]), out=E.empty(1, 1, dtype=E.int64))


def test_take_and_nonzero_out_dtype_messages():
    with pytest.raises(RuntimeError, match=re.escape("take(): self and out expected to have the same dtype, but got "
                                                     "self.dtype = Float and out.dtype = Double")):
        E.take(_X, E.tensor([0]), out=E.empty(1, dtype=E.float64))
    with pytest.raises(RuntimeError, match="nonzero: Expected out tensor to have scalar type Long but got scalar "
                                           "typeInt$"):
        E.nonzero(_X, out=E.empty(0, dtype=E.int32))
    o = E.empty(2, 1)
    assert E.gather(_X, 1, E.tensor([[1], [0]]), out=o) is o and o.tolist() == [[2.0], [3.0]]


@pytest.mark.parametrize("call,message", [
    (lambda: _X.gather(1.0, E.tensor([[0]])), "gather(): argument 'dim' (position 1) must be int, not float"),
    (lambda: E.gather(_X, 1.0, E.tensor([[0]])), "gather(): argument 'dim' (position 2) must be int, not float"),
    (lambda: _X.gather(1, index=[[0]]), "gather(): argument 'index' must be Tensor, not list"),
    (lambda: _X.gather(1, E.tensor([[0]]), sparse_grad=1), "gather(): argument 'sparse_grad' must be bool, not int"),
    (lambda: E.take_along_dim(_X, [[0]]), "take_along_dim(): argument 'indices' (position 2) must be Tensor, not list"),
    (lambda: _X.scatter_add(1, [[0]], _X), "scatter_add(): argument 'index' (position 2) must be Tensor, not list"),
    (lambda: _X.scatter_reduce(0, E.tensor([[0]]), _X, 1),
     "scatter_reduce(): argument 'reduce' (position 4) must be str, not int"),
])
def test_gather_scatter_arguments_of_the_wrong_type_get_the_parsers_type_error(call, message):
    with pytest.raises(TypeError, match=re.escape(message) + "$"):
        call()
