"""Joining, splitting and rearranging ops against numpy references."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close


def _a(*shape, dtype=np.float32):
    return np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)


# --- cat / stack ------------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.data())
def test_cat_matches_concatenate(ndim, data):
    shape = data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim))
    dim = data.draw(st.integers(-ndim, ndim - 1))
    parts = []
    for n in data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=3)):
        s = list(shape)
        s[dim] = n
        parts.append(_a(*s))
    assert_close(E.cat([E.tensor(p) for p in parts], dim), E.tensor(np.concatenate(parts, dim)))


def test_cat_promotes_dtypes_and_skips_legacy_empty():
    r = E.cat([E.tensor([1, 2]), E.tensor([0.5])])
    assert r.dtype is E.float32 and r.tolist() == [1, 2, 0.5]
    assert E.cat([E.tensor([True]), E.tensor([2], dtype=E.uint8)]).dtype is E.uint8
    r = E.cat([E.zeros(0), E.ones(2, 3, dtype=E.float64)])
    assert r.shape == (2, 3) and r.dtype is E.float64
    assert E.cat([E.zeros(0, dtype=E.int64), E.zeros(0)]).dtype is E.float32


def test_cat_out_and_aliases():
    out = E.empty(0)
    E.cat([E.ones(2), E.zeros(1)], out=out)
    assert out.tolist() == [1, 1, 0]
    assert E.concat([E.ones(1), E.ones(1)]).shape == (2,)
    assert E.concatenate([E.ones(1, 2), E.ones(1, 2)], axis=1).shape == (1, 4)


def test_cat_errors_name_the_mismatch():
    with pytest.raises(RuntimeError, match="Expected size 3 but got size 2 for tensor number 1 in the list"):
        E.cat([E.zeros(2, 3), E.zeros(2, 2)], 0)
    with pytest.raises(RuntimeError, match="same number of dimensions: got 2 and 1"):
        E.cat([E.zeros(2, 3), E.zeros(3)])
    with pytest.raises(RuntimeError, match="zero-dimensional tensor \\(at position 1\\)"):
        E.cat([E.zeros(1), E.tensor(1.0)])
    with pytest.raises(ValueError, match="non-empty list"):
        E.cat([])
    with pytest.raises(TypeError, match=r"^cat\(\): argument 'tensors' \(position 1\) "
                                        r"must be tuple of Tensors, not Tensor$"):
        E.cat(E.zeros(2))
    with pytest.raises(TypeError, match=r"^concat\(\): argument 'tensors' \(position 1\) "
                                        r"must be tuple of Tensors, not int"):
        E.concat(5)
    with pytest.raises(TypeError, match=r"^expected Tensor as element 1 in argument 0, but got int$"):
        E.stack([E.zeros(2), 3])
    with pytest.raises(IndexError, match="Dimension out of range"):
        E.cat([E.zeros(2)], 1)


@pytest.mark.parametrize(("item", "name"), [(np.zeros(1), "numpy.ndarray"), (np.float64(1.0), "numpy.float64"),
                                          (E.Size([1]), "torch.Size"), (E.float32, "torch.dtype"), (None, "NoneType"),
                                          (np.ma.zeros(1), "MaskedArray")])
def test_a_non_tensor_item_is_named_by_pythons_tp_name(item, name):
    # PyTorch's parser prints the C type's tp_name: a C class with its module, a Python-defined class bare
    for op in (E.stack, E.cat):
        with pytest.raises(TypeError, match=rf"^expected Tensor as element 1 in argument 0, but got {name}$"):
            op([E.zeros(1), item])


def test_stack_and_friends():
    a, b = _a(2, 3), _a(2, 3) + 10
    for dim in (-3, 0, 1, 2):
        assert_close(E.stack([E.tensor(a), E.tensor(b)], dim), E.tensor(np.stack([a, b], dim)))
    with pytest.raises(RuntimeError, match=r"equal size, but got \[2, 3\] at entry 0 and \[3\] at entry 1"):
        E.stack([E.zeros(2, 3), E.zeros(3)])
    x, y = E.tensor([1, 2]), E.tensor([3, 4])
    assert E.hstack([x, y]).tolist() == [1, 2, 3, 4]
    assert E.vstack([x, y]).tolist() == [[1, 2], [3, 4]]
    assert E.hstack([E.ones(2, 1), E.zeros(2, 2)]).shape == (2, 3)
    assert E.dstack([x, y]).shape == (1, 2, 2)
    assert E.column_stack([x, y]).tolist() == [[1, 3], [2, 4]]
    assert E.atleast_2d(E.tensor(1.0)).shape == (1, 1)


# --- split / chunk ------------------------------------------------------------------------------
def test_split_int_and_sizes_are_views():
    x = E.arange(10)
    parts = x.split(4)
    assert [p.tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert all(p.untyped_storage() is x.untyped_storage() for p in parts)
    parts[1][0] = 100
    assert x[4].item() == 100
    m = E.arange(12).reshape(3, 4)
    a, b = E.split(m, [1, 3], dim=1)
    assert a.shape == (3, 1) and b.shape == (3, 3) and b.storage_offset() == 1
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 4"):
        m.split([1, 2], 1)


def test_split_by_a_tensor_takes_one_element_as_an_int_and_refuses_more():
    """Tensor.split takes int() of a one-element tensor; a longer tensor of sizes reaches split_with_sizes, whose
    parser wants a list (an MoE's `x.split(counts)` without .tolist())."""
    x = E.arange(10.0)
    assert [p.numel() for p in x.split(E.tensor(5))] == [5, 5]
    assert [p.numel() for p in E.split(x, E.tensor([10]))] == [10]
    for call, position in ((lambda: E.split(x, E.tensor([4, 6])), 2), (lambda: x.split(E.tensor([4, 6])), 2),
                           (lambda: x.split_with_sizes(E.tensor(5)), 1),
                           (lambda: E.split_with_sizes(x, E.tensor(5)), 2)):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == f"split_with_sizes(): argument 'split_sizes' (position {position}) must be tuple of " \
                               "ints, not Tensor"


def test_split_sizes_elements_are_read_as_pytorchs_int_list_parser():
    x = E.arange(10.0)
    assert [p.numel() for p in x.split([E.tensor(4), E.tensor([6])])] == [4, 6]
    assert [p.numel() for p in x.split([9, True])] == [9, 1]  # only the first element is checked for bool
    assert [p.numel() for p in x.split(split_size=[4, 6])] == [4, 6]
    head = "split_with_sizes(): argument 'split_sizes'"
    for sizes, message in (([4.0, 6], f"{head} (position 2) must be tuple of ints, but found element of type float "
                                      "at pos 0"),
                           ([True, 9], f"{head} (position 2) must be tuple of ints, but found element of type bool at "
                                       "pos 0"),
                           ((4, E.tensor(6.0)), f"{head} failed to unpack the object at pos 2 with error \"type must "
                                                "be tuple of ints,but got Tensor\"")):
        with pytest.raises(TypeError) as e:
            x.split(sizes)
        assert str(e.value) == message
    with pytest.raises(TypeError, match=r"^split_with_sizes\(\): argument 'dim' \(position 3\) must be int, not bool$"):
        x.split([3, 7], True)
    with pytest.raises(RuntimeError, match=r"^Expected scalar.isIntegral\( false\) to be true"):
        x.split([4, E.tensor(True)])
    assert [p.numel() for p in x.split((np.array(4), np.int32(6)))] == [4, 6]  # __index__ elements
    for sizes, kind in ((np.int64(5), "numpy.int64"), (np.array([4, 6]), "numpy.ndarray"), (range(2, 12, 8), "range")):
        with pytest.raises(TypeError) as e:
            E.split(x, sizes)
        assert str(e.value) == f"{head} (position 2) must be tuple of ints, not {kind}"


@pytest.mark.parametrize("n,chunks,sizes", [(10, 3, [4, 4, 2]), (6, 4, [2, 2, 2]), (5, 5, [1] * 5), (3, 5, [1, 1, 1])])
def test_chunk_sizes_match_pytorch(n, chunks, sizes):
    assert [c.numel() for c in E.arange(n).chunk(chunks)] == sizes


def test_chunk_errors_and_tensor_split():
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0"):
        E.arange(3).chunk(0)
    assert [t.tolist() for t in E.arange(7).tensor_split(3)] == [[0, 1, 2], [3, 4], [5, 6]]
    assert [t.tolist() for t in E.arange(7).tensor_split([1, 5])] == [[0], [1, 2, 3, 4], [5, 6]]
    assert [t.numel() for t in E.tensor_split(E.arange(3), [2, 1])] == [2, 0, 2]



def test_tensor_split_refuses_arguments_as_pytorchs_parser():
    overloads = (" * ({0}tuple of ints indices, int dim = 0)\n * ({0}Tensor tensor_indices_or_sections, int dim = 0)\n"
                 " * ({0}int sections, int dim = 0)\n")
    head = "tensor_split() received an invalid combination of arguments - got ({}), but expected one of:\n"
    x = E.arange(6.0)
    for arg, got in [(2.5, "float"), (True, "bool"), ([1.5], "list"), (None, "NoneType")]:
        with pytest.raises(TypeError) as info:
            E.tensor_split(x, arg)
        assert str(info.value) == head.format(f"Tensor, {got}") + overloads.format("Tensor input, ")
    with pytest.raises(TypeError) as info:
        x.tensor_split(2.5)
    assert str(info.value) == head.format("float") + overloads.format("")
    with pytest.raises(TypeError, match=r"argument 'indices' failed to unpack the object at pos 2 with error "
                                        r"\"type must be tuple of ints,but got float\"$"):
        E.tensor_split(x, (1, 2.0))
    with pytest.raises(RuntimeError, match="^tensor_split expected tensor_indices_or_sections to have dtype of long, "
                                           "but got Float$"):
        E.tensor_split(x, E.tensor(2.0))
    with pytest.raises(RuntimeError, match="to be a zero-dimensional or one-dimensional tensor, but got a tensor "
                                           "with 2 dims$"):
        E.tensor_split(x, E.tensor([[1]]))
    assert [t.numel() for t in E.tensor_split(x, [E.tensor(2), 4])] == [2, 2, 2]
    assert [t.numel() for t in E.tensor_split(x, [])] == [6]

# --- flip / roll / repeat -----------------------------------------------------------------------
def test_flip_roll_match_numpy():
    a = _a(2, 3, 4)
    x = E.tensor(a)
    assert_close(x.flip(0, 2), E.tensor(np.flip(a, (0, 2)).copy()))
    assert_close(E.flip(x, [1]), E.tensor(np.flip(a, 1).copy()))
    assert_close(E.fliplr(x), E.tensor(np.fliplr(a).copy()))
    assert_close(E.flipud(x), E.tensor(np.flipud(a).copy()))
    for shifts, dims in [(1, 0), (-2, 2), ((1, 5), (1, 2)), (3, None)]:
        assert_close(x.roll(shifts, dims), E.tensor(np.roll(a, shifts, dims)))
    with pytest.raises(RuntimeError, match="Input must be >= 2-d"):
        E.fliplr(E.zeros(3))
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.flip(0, -3)


def test_meshgrid_rejects_an_unknown_indexing_with_runtime_error():
    with pytest.raises(RuntimeError, match='^torch.meshgrid: indexing must be one of "xy" or "ij", but received: ab$'):
        E.meshgrid(E.arange(2), E.arange(3), indexing="ab")


def test_meshgrid_without_indexing_warns_once_with_pytorchs_suffix(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        E.meshgrid(E.arange(2), E.arange(3))
        E.meshgrid(E.arange(2), E.arange(3))
    assert [(str(x.message), x.filename) for x in w] == [
        ("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered "
         "internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)", __file__)]


def test_meshgrid_and_cartesian_prod_refusals_are_pytorchs():
    with pytest.raises(RuntimeError, match="^meshgrid expects a non-empty TensorList$"):
        E.meshgrid(indexing="ij")
    with pytest.raises(RuntimeError, match="^meshgrid expects all tensors to have the same dtype$"):
        E.meshgrid(E.ones(2, 2), E.arange(2), indexing="ij")  # checked before the dimensions
    with pytest.raises(RuntimeError, match=r"^Expect a 1D vector, but got shape \[2, 2\]$"):
        E.cartesian_prod(E.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^Expect a 1D vector, but got shape \[\]$"):
        E.cartesian_prod(E.ones(2), E.tensor(1.0))
    with pytest.raises(RuntimeError, match="same dtype"):
        E.cartesian_prod(E.ones(2), E.arange(2))


def test_flip_takes_dims_by_keyword():
    a = _a(2, 3, 4)
    x = E.tensor(a)
    assert_close(E.flip(x, dims=[-1]), E.tensor(np.flip(a, -1).copy()))
    assert_close(x.flip(dims=(0, 1)), E.tensor(np.flip(a, (0, 1)).copy()))
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dims"'):
        E.flip(x)
    with pytest.raises(TypeError, match="got multiple values for argument 'dims'"):
        x.flip(0, dims=[1])


def test_repeat_tile_repeat_interleave_match_numpy():
    a = _a(2, 3)
    x = E.tensor(a)
    assert_close(x.repeat(2, 1, 3), E.tensor(np.tile(a, (2, 1, 3))))
    r = x.repeat(1, 1)
    r[0, 0] = 99
    assert x[0, 0].item() == 0
    assert_close(E.tile(x, (2,)), E.tensor(np.tile(a, 2)))
    assert_close(x.repeat_interleave(2), E.tensor(np.repeat(a, 2)))
    assert_close(x.repeat_interleave(2, dim=1), E.tensor(np.repeat(a, 2, 1)))
    assert_close(E.repeat_interleave(x, E.tensor([1, 0]), dim=0), E.tensor(np.repeat(a, [1, 0], 0)))
    assert E.repeat_interleave(E.tensor([2, 1])).tolist() == [0, 0, 1]
    with pytest.raises(RuntimeError, match="can not be smaller than number of dimensions"):
        x.repeat(2)
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        x.repeat_interleave(E.tensor([1, 2, 3]), dim=0)


def test_repeat_interleave_counts_dtype():
    # the indices form keeps the counts' dtype; counts must be int32 or int64, as PyTorch's kernel
    r = E.repeat_interleave(E.tensor([2, 1], dtype=E.int32))
    assert r.dtype == E.int32 and r.tolist() == [0, 0, 1]
    for counts in (E.tensor([2, 1], dtype=E.uint8), E.tensor([2.0, 1.0]), E.tensor(2, dtype=E.int16)):
        name = {E.uint8: "Byte", E.float32: "Float", E.int16: "Short"}[counts.dtype]
        with pytest.raises(NotImplementedError, match=f'"repeat_interleave_cpu" not implemented for \'{name}\''):
            E.repeat_interleave(E.tensor([5.0, 6.0]), counts)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        E.repeat_interleave(E.tensor([True, False]))


def test_repeat_interleave_checks_output_size_as_pytorch():
    a, counts = E.arange(4), E.tensor([3, 0, 2, 1])
    assert E.repeat_interleave(a, counts, output_size=6).tolist() == [0, 0, 0, 2, 2, 3]
    for call in (lambda: E.repeat_interleave(a, counts, output_size=5),
                 lambda: a.repeat_interleave(counts, output_size=7),
                 lambda: E.repeat_interleave(counts, output_size=5),
                 lambda: E.repeat_interleave(a, E.tensor(2), output_size=3),
                 lambda: E.repeat_interleave(a.view(2, 2), E.tensor([1, 2]), dim=0, output_size=4)):
        with pytest.raises(RuntimeError, match="^allocated size does not match required size$"):
            call()
    with pytest.raises(RuntimeError, match=r"^repeat_interleave: Invalid output_size, expected 8 but got 5$"):
        E.repeat_interleave(a, 2, output_size=5)
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        E.repeat_interleave(a, counts, output_size=-1)


# --- triangles, diagonals, grids --------------------------------------------------------------
@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_triu(k):
    a = _a(2, 3, 4)
    assert_close(E.tril(E.tensor(a), k), E.tensor(np.tril(a, k)))
    assert_close(E.tensor(a).triu(k), E.tensor(np.triu(a, k)))
    x = E.tensor(a)
    x.tril_(k)
    assert_close(x, E.tensor(np.tril(a, k)))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        E.tril(E.zeros(3))


def test_diag_diag_embed_diagflat_trace():
    v = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    for k in (-1, 0, 2):
        assert_close(E.diag(E.tensor(v), k), E.tensor(np.diag(v, k)))
    m = _a(3, 4)
    assert_close(E.diag(E.tensor(m), 1), E.tensor(np.diag(m, 1).copy()))
    b = _a(2, 3)
    emb = E.diag_embed(E.tensor(b))
    assert emb.shape == (2, 3, 3)
    assert_close(emb[1], E.tensor(np.diag(b[1])))
    assert E.diag_embed(E.tensor(b), 1, 0, 2).shape == (4, 2, 4)
    assert_close(E.diagflat(E.tensor([[1.0, 2.0]])), E.tensor(np.diagflat([1.0, 2.0]).astype(np.float32)))
    assert E.trace(E.tensor(m)).item() == np.trace(m)
    assert E.trace(E.tensor([[1, 2], [3, 4]])).dtype is E.int64
    with pytest.raises(RuntimeError, match="expected a matrix"):
        E.trace(E.zeros(2, 2, 2))
    with pytest.raises(RuntimeError, match="Supports 1D or 2D"):
        E.diag(E.zeros(1, 1, 1))


def test_meshgrid_ij_xy_are_views_and_cartesian_prod(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())  # the indexing warning comes once per process
    x, y = E.tensor([1, 2, 3]), E.tensor([4, 5])
    gx, gy = E.meshgrid(x, y, indexing="ij")
    nx, ny = np.meshgrid([1, 2, 3], [4, 5], indexing="ij")
    assert gx.tolist() == nx.tolist() and gy.tolist() == ny.tolist()
    assert gx.untyped_storage() is x.untyped_storage()
    gx, gy = E.meshgrid([x, y], indexing="xy")
    nx, ny = np.meshgrid([1, 2, 3], [4, 5], indexing="xy")
    assert gx.tolist() == nx.tolist() and gy.tolist() == ny.tolist()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        E.meshgrid(x, y)
    assert any("indexing argument" in str(m.message) for m in w)
    assert E.cartesian_prod(x, y).tolist() == [[1, 4], [1, 5], [2, 4], [2, 5], [3, 4], [3, 5]]


def test_block_diag():
    r = E.block_diag(E.ones(1, 1), E.tensor([[2, 3]]), E.tensor(4))
    assert r.tolist() == [[1, 0, 0, 0], [0, 2, 3, 0], [0, 0, 0, 4]]
    assert r.dtype is E.float32


def test_where_one_and_three_arguments_and_method():
    c = E.tensor([[True, False], [False, True]])
    assert [t.tolist() for t in E.where(c)] == [[0, 1], [0, 1]]
    x = E.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert E.where(c, x, 0.0).tolist() == [[1, 0], [0, 4]]
    assert x.where(c, E.tensor(-1.0)).tolist() == [[1, -1], [-1, 4]]
    with pytest.raises(TypeError) as info:
        E.where(c, 1.0)
    assert str(info.value) == (
        "where() received an invalid combination of arguments - got (Tensor, float), but expected one of:\n"
        " * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor condition, Number self, Tensor other)\n * (Tensor condition, Tensor input, Number other)\n"
        " * (Tensor condition, Number self, Number other)\n")
    with pytest.raises(TypeError) as info:
        x.where(c)
    assert str(info.value) == ("where() received an invalid combination of arguments - got (Tensor), but expected "
                               "one of:\n * (Tensor condition, Tensor other)\n * (Tensor condition, Number other)\n")


@pytest.mark.parametrize("call", [lambda L, c, t: L.where(c, t), lambda L, c, t: L.where(c, None, t),
                                  lambda L, c, t: L.where(c, t, other=None), lambda L, c, t: L.where(c, input=t),
                                  lambda L, c, t: t.where(c), lambda L, c, t: t.where(c, t, t)])
def test_where_with_a_missing_or_none_operand_words_the_parser_error_as_pytorch(call):
    torch = pytest.importorskip("torch")

    def message(lib):
        with pytest.raises(TypeError) as info:
            call(lib, lib.tensor([True, False]), lib.ones(2))
        return str(info.value)

    assert message(E) == message(torch)


@pytest.mark.parametrize("args", [(np.array([True]),), (np.array([True]), "T", "T"), ([True], 1.0, 2.0),
                                  (True, "T", 0.0)])
def test_where_refuses_a_condition_that_is_not_a_tensor_as_pytorch(args):
    torch = pytest.importorskip("torch")

    def message(lib):
        with pytest.raises(TypeError) as info:
            lib.where(*[lib.ones(1) if a == "T" else a for a in args])
        return str(info.value)

    assert message(E) == message(torch)


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 5])
def test_rot90_matches_numpy(k):
    a = _a(2, 3, 4)
    assert_close(E.rot90(E.tensor(a), k, (1, 2)), E.tensor(np.rot90(a, k, (1, 2)).copy()))
    assert_close(E.tensor(a).rot90(k), E.tensor(np.rot90(a, k).copy()))


def test_rot90_errors():
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2"):
        E.rot90(E.zeros(2, 2), 1, [0])
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        E.rot90(E.zeros(2, 2), 1, [1, -1])


def test_hsplit_vsplit_dsplit():
    x = E.arange(16.0).reshape(2, 2, 4)
    assert [t.shape for t in E.hsplit(x, 2)] == [(2, 1, 4)] * 2
    assert [t.shape for t in x.vsplit([1])] == [(1, 2, 4), (1, 2, 4)]
    assert [t.shape for t in E.dsplit(x, [1, 3])] == [(2, 2, 1), (2, 2, 2), (2, 2, 1)]
    assert [t.tolist() for t in E.hsplit(E.arange(4), 2)] == [[0, 1], [2, 3]]
    with pytest.raises(RuntimeError, match="not divisible by the split_size 3"):
        E.dsplit(x, 3)
    with pytest.raises(RuntimeError, match="at least 2 dimension"):
        E.vsplit(E.arange(4), 2)


@pytest.mark.parametrize("row,col,offset", [(3, 3, 0), (4, 3, 1), (3, 5, -1), (0, 3, 0)])
def test_tril_triu_indices_match_numpy(row, col, offset):
    t = E.tril_indices(row, col, offset)
    assert t.dtype is E.int64 and t.shape[0] == 2
    assert t.tolist() == [list(v) for v in np.tril_indices(row, offset, col)]
    assert E.triu_indices(row, col, offset).tolist() == [list(v) for v in np.triu_indices(row, offset, col)]


def test_tril_triu_indices_refuse_negative_sizes_and_non_index_dtypes():
    with pytest.raises(RuntimeError, match="^row must be non-negative, got-1$"):  # PyTorch's words, no space
        E.tril_indices(-1, 3)
    with pytest.raises(RuntimeError, match="^col must be non-negative, got-2$"):
        E.triu_indices(2, -2)
    assert E.tril_indices(2, 2, dtype=E.int32).dtype is E.int32
    with pytest.raises(NotImplementedError, match="^\"triu_indices\" not implemented for 'Float'$"):
        E.triu_indices(2, 2, dtype=E.float32)


def test_take_along_dim_broadcasts_and_flattens():
    a = _a(3, 4)
    idx = np.argsort(a, axis=1)[:, ::-1].copy()
    assert_close(E.take_along_dim(E.tensor(a), E.tensor(idx), 1), E.tensor(np.take_along_axis(a, idx, 1)))
    assert E.take_along_dim(E.tensor(a), E.tensor([0, 11])).tolist() == [0, 11]
    r = E.take_along_dim(E.tensor(a), E.tensor([[0, 2]]), 1)  # (1, 2) indices broadcast over the 3 rows
    assert_close(r, E.tensor(a[:, [0, 2]]))
    r = E.tensor(a).take_along_dim(E.tensor([[1]]), dim=0)
    assert r.tolist() == [a[1].tolist()]


def test_take_along_dim_shapes_that_do_not_broadcast_raise_pytorchs_runtime_error():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(4\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 1$"):  # input (1, 4) against indices (1, 2)
        E.take_along_dim(E.zeros(3, 4), E.tensor([[0, 1]]), dim=0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.bool_])
@pytest.mark.parametrize("name,args", [("cat", (1,)), ("flip", ((0, 1),)), ("tril", (1,)), ("triu", (-1,)),
                                       ("trace", ())])
def test_registered_op_matches_its_declared_reference(name, args, dtype):
    op = E.get_op(name)
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    if name == "trace" and dtype is np.bool_:
        pytest.skip("PyTorch has no bool trace")
    if name == "cat":
        got, expected = op((E.tensor(a), E.tensor(a[:, :1])), *args), op.ref((a, a[:, :1]), *args)
    else:
        got, expected = op(E.tensor(a), *args), op.ref(a, *args)
    np.testing.assert_array_equal(got.numpy(), expected)


def test_combinations_match_itertools():
    import itertools

    x = E.tensor([1, 2, 3, 4])
    assert E.combinations(x).tolist() == [list(c) for c in itertools.combinations([1, 2, 3, 4], 2)]
    assert E.combinations(x, 3, with_replacement=True).tolist() == [
        list(c) for c in itertools.combinations_with_replacement([1, 2, 3, 4], 3)]
    assert E.combinations(E.tensor([1.0]), 2).shape == (0, 2)
    for wr in (False, True):  # r=0: PyTorch's empty 1-D tensor of the input's dtype
        r0 = E.combinations(x, r=0, with_replacement=wr)
        assert r0.shape == (0,) and r0.dtype is E.int64
    with pytest.raises(RuntimeError, match="Expect a 1D vector"):
        E.combinations(E.zeros(2, 2))


def test_select_slice_diagonal_scatter_are_out_of_place():
    x = E.zeros(3, 4)
    r = E.select_scatter(x, E.ones(4), 0, 1)
    assert r[1].tolist() == [1] * 4 and x.sum().item() == 0
    r = x.slice_scatter(E.ones(3, 2), 1, 0, 4, 2)
    assert r.tolist() == [[1, 0, 1, 0]] * 3
    r = E.diagonal_scatter(x, E.tensor([1.0, 2.0, 3.0]), 1)
    assert r.tolist() == [[0, 1, 0, 0], [0, 0, 2, 0], [0, 0, 0, 3]]
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice"):
        E.select_scatter(x, E.ones(3), 0, 0)


def test_repeat_with_a_negative_count_reports_the_result_size_as_pytorch():
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -4: \[-4, 3\]$"):
        E.tile(E.ones(2, 3), (-2, 1))
    assert E.empty(2, 0).repeat(1, -2).shape == (2, 0)  # an empty dim repeated -2 times is empty, not an error


def test_torch_level_functions_take_numpys_axis_and_keepdims():
    x = E.tensor([[3.0, 4.0], [6.0, 8.0]])
    assert E.linalg.norm(x, axis=1).tolist() == [5.0, 10.0]
    assert E.linalg.vector_norm(x, axis=0, keepdims=True).shape == (1, 2)
    a, b = E.eye(3), E.eye(3).roll(1, 0)
    assert E.linalg.cross(a, b, axis=0).tolist() == E.linalg.cross(a, b, dim=0).tolist()
    assert E.repeat_interleave(x, 2, axis=0).shape == (4, 2)
    assert E.trapezoid(x, axis=0).tolist() == [4.5, 6.0]
    assert E.std_mean(x, axis=1)[1].tolist() == [3.5, 7.0]
    assert E.fft.fft(x, axis=0).shape == (2, 2)
    assert_close(E.softmax(x, axis=1), E.softmax(x, dim=1))


def test_cat_refuses_an_out_of_a_dtype_the_inputs_cannot_be_cast_to():
    with pytest.raises(TypeError, match="torch.cat\\(\\): input types can't be cast to the desired output type Int"):
        E.cat([E.ones(2), E.ones(1)], out=E.empty(3, dtype=E.int32))
    out = E.empty(3, dtype=E.float64)
    assert E.cat([E.ones(2), E.ones(1)], out=out) is out and out.tolist() == [1.0, 1.0, 1.0]


def test_split_with_sizes_names_the_dim_as_given_and_atleast_3d_unsqueezes():
    with pytest.raises(RuntimeError, match="size at dimension -1\\), but got split_sizes=\\[1, 3\\]"):
        E.zeros(2, 3).split([1, 3], -1)
    col = E.arange(24).reshape(2, 3, 4)[0, :, 0]  # stride 4
    assert E.atleast_3d(col).stride() == (12, 4, 1)


def test_float_and_bool_counts_and_dims_are_refused_as_pytorch():
    """A float or bool where PyTorch's parser wants an int (topk's k, chunk's chunks and dim, flip's dims) is its
    TypeError, not a silent truncation (`x.topk(1.0)` computed); numpy ints count as ints."""
    import re

    x = E.ones(2, 3)
    for call, message in ((lambda: x.topk(1.0), "topk(): argument 'k' (position 1) must be int, not float"),
                          (lambda: x.topk(True), "topk(): argument 'k' (position 1) must be int, not bool"),
                          (lambda: x.chunk(2.0), "chunk(): argument 'chunks' (position 1) must be int, not float"),
                          (lambda: x.chunk(2, 1.0), "chunk(): argument 'dim' (position 2) must be int, not float"),
                          (lambda: x.flip(0.0), "flip(): argument 'dims' (position 1) must be tuple of ints, not "
                                                "float"),
                          (lambda: x.flip([0.0]), "flip(): argument 'dims' (position 1) must be tuple of ints, but "
                                                  "found element of type float at pos 0")):
        with pytest.raises(TypeError, match="^" + re.escape(message) + "$"):
            call()
    assert x.topk(np.int64(2)).values.shape == (2, 2) and len(x.chunk(np.int64(3), 1)) == 3
    assert x.flip((np.int64(1), 0)).shape == (2, 3)


@pytest.mark.parametrize("shifts, dims, message", [
    ([], [], "`shifts` required"), ((), None, "`shifts` required"), ([], [0], "`shifts` required"),
    ([1, 2], None, "shifts and dimensions must align. shifts: 2, dims:0"),
    ([1, 2], [], "shifts and dimensions must align. shifts: 2, dims:0"),
])
def test_roll_refuses_as_pytorch(shifts, dims, message):
    with pytest.raises(RuntimeError, match=f"^{message.replace('.', '[.]')}$"):
        E.roll(E.ones(2, 2), shifts, dims)


def test_roll_with_empty_dims_rolls_the_flat_tensor():
    x = E.tensor(_a(2, 3))
    assert E.roll(x, [1], []).tolist() == np.roll(_a(2, 3), 1).tolist()  # PyTorch 2.13: as dims=None


def test_cat_and_its_aliases_refuse_a_non_int_dim_in_pytorchs_words():
    """PyTorch's parser names the call (`concat()`, `concatenate()`), positions a positional dim and not a keyword
    one, and takes numpy's `axis=` and its own `dim=` for concatenate."""
    a, b = E.ones(2), E.zeros(2)
    cases = [
        (lambda: E.cat((a, b), 0.0), "cat(): argument 'dim' (position 2) must be int, not float"),
        (lambda: E.cat((a, b), dim=0.0), "cat(): argument 'dim' must be int, not float"),
        (lambda: E.cat((a, b), True), "cat(): argument 'dim' (position 2) must be int, not bool"),
        (lambda: E.concat((a, b), 0.0), "concat(): argument 'dim' (position 2) must be int, not float"),
        (lambda: E.concatenate((a, b), axis=0.0), "concatenate(): argument 'dim' must be int, not float"),
        (lambda: E.cat((a, b), 0, a), "cat() takes from 1 to 2 positional arguments but 3 were given"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
    assert E.concatenate((a, b), dim=0).tolist() == E.concatenate((a, b), axis=0).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_where_of_a_str_or_list_operand_raises_pytorchs_parser_error():
    c, x = E.tensor([True, False]), E.tensor([1.0, 2.0])
    with pytest.raises(TypeError) as info:
        E.where(c, x, "x")
    assert str(info.value) == (
        "where() received an invalid combination of arguments - got (Tensor, Tensor, str), but expected one of:\n"
        " * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor condition, Number self, Tensor other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !Tensor!, !str!)\n"
        " * (Tensor condition, Tensor input, Number other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, Tensor, !str!)\n"
        " * (Tensor condition, Number self, Number other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !Tensor!, !str!)\n")
    with pytest.raises(TypeError) as info:
        c.where(x, [1])
    assert str(info.value) == (
        "where() received an invalid combination of arguments - got (Tensor, list), but expected one of:\n"
        " * (Tensor condition, Tensor other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !list of [int]!)\n"
        " * (Tensor condition, Number other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !list of [int]!)\n")
    assert E.where(c, True, x).tolist() == [1.0, 2.0]  # a bool is a Number


@pytest.mark.parametrize("tensors, name", [("ab", "str"), (b"ab", "bytes")])
def test_cat_of_a_string_is_pytorchs_parser_error_not_an_element_error(tensors, name):
    with pytest.raises(TypeError, match=rf"^cat\(\): argument 'tensors' \(position 1\) must be tuple of Tensors, "
                                        rf"not {name}$"):
        E.cat(tensors)


def test_cat_and_stack_check_the_sequence_before_the_dim_as_pytorchs_parser():
    # PyTorch's parser reads its arguments in order: `torch.cat(t, t)` names 'tensors', not the tensor given as dim
    t = E.ones(2, 3)
    for op in ("cat", "stack"):
        with pytest.raises(TypeError, match=rf"^{op}\(\): argument 'tensors' \(position 1\) must be tuple of Tensors, "
                                            "not Tensor$"):
            getattr(E, op)(t, t)
        with pytest.raises(TypeError, match=rf"^{op}\(\): argument 'tensors' \(position 1\) must be tuple of Tensors, "
                                            "not int$"):
            getattr(E, op)(5)
    assert E.cat((t, t), 1).shape == (2, 6) and E.stack([t, t]).shape == (2, 2, 3)
