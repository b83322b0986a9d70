"""embedding/embedding_bag against float64 loop references; their weight gradients (Numba
scatter-adds) against central differences; max_norm renormalization and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import embedding as M


def T(a):
    return E.from_numpy(np.array(a))


def check_vjp(f, x, g, vjp, eps=1e-6, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(3):
        v = rng.standard_normal(x.shape)
        jv = (f(x + eps * v) - f(x - eps * v)) / (2 * eps)
        assert np.isclose(np.sum(vjp * v), np.sum(g * jv), rtol=1e-6, atol=1e-7)


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 6), st.integers(1, 4), st.lists(st.integers(0, 5), min_size=1, max_size=12),
       st.sampled_from([None, 0, 2, -1]), st.booleans())
def test_embedding_gathers_rows_and_scatters_gradients(v, d, idx, padding_idx, freq):
    idx = np.array([i % v for i in idx]).reshape(-1, 1) if len(idx) % 2 else np.array([i % v for i in idx])
    if padding_idx is not None and padding_idx >= v:
        return
    w = np.random.default_rng(0).standard_normal((v, d))
    got = E.embedding(T(idx), T(w), padding_idx=padding_idx, scale_grad_by_freq=freq)
    np.testing.assert_array_equal(got.numpy(), w[idx])
    g = np.random.default_rng(1).standard_normal(idx.shape + (d,))
    pad = -1 if padding_idx is None else padding_idx % v
    gw = M.embedding_backward(T(g), T(idx), v, pad, freq).numpy()
    want = np.zeros((v, d))
    counts = np.bincount(idx.reshape(-1), minlength=v)
    for k, row in zip(idx.reshape(-1), g.reshape(-1, d)):
        if k != pad:
            want[k] += row / (counts[k] if freq else 1)
    np.testing.assert_allclose(gw, want, rtol=1e-12, atol=1e-12)
    if not freq and padding_idx is None:
        check_vjp(lambda ww: ww[idx], w, g, gw)


def test_embedding_max_norm_renormalizes_referenced_rows_in_place():
    w = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    wt = T(w)
    v = wt._version
    out = E.embedding(E.tensor([0, 1]), wt, max_norm=1.0)
    np.testing.assert_allclose(np.linalg.norm(out.numpy(), axis=1), [1.0, 0.5], rtol=1e-6)
    np.testing.assert_array_equal(wt.numpy()[2], [6.0, 8.0])
    assert wt._version > v


def test_embedding_renorm_selects_rows_as_pytorch_negative_from_the_end():
    """PyTorch picks the rows with select(): -1 is the last row, and an index outside [-rows, rows) raises
    select()'s IndexError (the smallest bad one) before embedding's own "index out of range in self"."""
    w = T([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    M.embedding_renorm_(w, E.tensor([-1]), 1.0, 2.0)
    np.testing.assert_allclose(np.linalg.norm(w.numpy(), axis=1), [5.0, 0.5, 1.0], rtol=1e-6)
    with pytest.raises(IndexError, match=r"^select\(\): index -5 out of range for tensor of size \[3, 2\] at "
                                         r"dimension 0$"):
        E.embedding(E.tensor([7, -5, 1]), w, max_norm=1.0)
    with pytest.raises(IndexError, match=r"^index out of range in self$"):
        E.embedding(E.tensor([-1]), w, max_norm=1.0)


def test_embedding_renorm_rescales_the_sorted_rows_before_the_first_bad_index():
    """PyTorch's CPU loop walks the sorted unique indices: the rows before the first bad one are rescaled, then
    select() raises; the rows after it keep their values."""
    w = T(np.arange(24.0).reshape(6, 4))
    with pytest.raises(IndexError, match=r"^select\(\): index 7 out of range for tensor of size \[6, 4\]"):
        M.embedding_renorm_(w, E.tensor([3, 1, 7, 0, 9]), 1.0, 2.0)
    norms = np.linalg.norm(np.arange(24.0).reshape(6, 4), axis=1)
    np.testing.assert_allclose(np.linalg.norm(w.numpy(), axis=1), [1.0, 1.0, norms[2], 1.0, norms[4], norms[5]],
                               rtol=1e-6)


def test_embedding_renorm_scale_uses_the_row_norm_in_the_weights_dtype():
    """PyTorch reads each row's norm out of a tensor of the weight's dtype: float32 sqrt(2) = 1.4142135381698608,
    so a float32 row of ones scales by 1 / (that + 1e-7), 0.7071067690849304 in float32 (PyTorch 2.13's number);
    a float64 norm would give 0.7071067094802856."""
    w = E.ones(3, 2)
    M.embedding_renorm_(w, E.tensor([0, 1]), 1.0, 2.0)
    assert w.tolist() == [[0.7071067690849304] * 2, [0.7071067690849304] * 2, [1.0, 1.0]]
    w64 = E.ones(1, 2, dtype=E.float64)
    M.embedding_renorm_(w64, E.tensor([0]), 1.0, 2.0)
    assert w64.tolist() == [[1.0 / (2.0 ** 0.5 + 1e-7)] * 2]


def ref_bag(w, idx, offsets, mode, psw=None, padding_idx=None, include_last=False):
    ends = list(offsets[1:]) + ([] if include_last else [len(idx)])
    starts = offsets[:-1] if include_last else offsets
    rows = []
    for s, e in zip(starts, ends):
        sel = [k for k in range(s, e) if idx[k] != padding_idx]
        vals = np.array([w[idx[k]] * (1 if psw is None else psw[k]) for k in sel]).reshape(len(sel), w.shape[1])
        if not sel:
            rows.append(np.zeros(w.shape[1]))
        else:
            rows.append({"sum": vals.sum(0), "mean": vals.mean(0), "max": vals.max(0)}[mode])
    return np.array(rows)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["sum", "mean", "max"]), st.lists(st.integers(0, 4), min_size=1, max_size=10),
       st.lists(st.integers(0, 10), min_size=1, max_size=4), st.booleans(), st.sampled_from([None, 1]))
def test_embedding_bag_matches_reference_and_backward(mode, idx, cuts, weighted, padding_idx):
    idx = np.array(idx)
    offsets = np.array(sorted({0, *(c % len(idx) for c in cuts)}), dtype=np.int64)
    w = np.random.default_rng(2).standard_normal((5, 3))
    psw = np.random.default_rng(3).random(len(idx)) + 0.5 if weighted and mode == "sum" else None
    got = E.embedding_bag(T(idx), T(w), T(offsets), mode=mode, per_sample_weights=None if psw is None else T(psw),
                          padding_idx=padding_idx)
    want = ref_bag(w, idx, offsets, mode, psw, padding_idx)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    out, bag_size, max_idx = M.embedding_bag_op(T(w), T(idx), T(offsets), mode, None if psw is None else T(psw),
                                                False, -1 if padding_idx is None else padding_idx)
    g = np.random.default_rng(4).standard_normal(want.shape)
    gw = M.embedding_bag_backward(T(g), T(idx), T(offsets), bag_size, max_idx, 5, mode,
                                  None if psw is None else T(psw), False,
                                  -1 if padding_idx is None else padding_idx).numpy()
    check_vjp(lambda ww: ref_bag(ww, idx, offsets, mode, psw, padding_idx), w, g, gw)


def test_embedding_bag_2d_input_and_include_last_offset():
    w = np.random.default_rng(5).standard_normal((6, 2))
    idx = np.array([[0, 2, 5], [1, 1, 4]])
    np.testing.assert_allclose(E.embedding_bag(T(idx), T(w)).numpy(), w[idx].mean(1), rtol=1e-12)
    flat, offs = np.array([0, 2, 5, 1]), np.array([0, 1, 4])
    got = E.embedding_bag(T(flat), T(w), T(offs), mode="sum", include_last_offset=True)
    np.testing.assert_allclose(got.numpy(), [w[0], w[2] + w[5] + w[1]], rtol=1e-12)


def test_embedding_errors_use_pytorchs_messages():
    w = E.zeros(4, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        E.embedding(E.tensor([4]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        E.embedding(E.tensor([-1]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        E.embedding(E.tensor([1]), w, padding_idx=4)
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        E.embedding(E.tensor([1.0]), w)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        E.embedding_bag(E.tensor([1, 2]), w)
    with pytest.raises(ValueError, match="^if input is 2D, then offsets has to be None, as input is treated is a "
                                         "mini-batch of fixed length sequences. However, found offsets of type "
                                         "<class 'torch.Tensor'>$"):
        E.embedding_bag(E.tensor([[1, 2]]), w, E.tensor([0]))
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        E.embedding_bag(E.tensor([[1, 2]]), w, per_sample_weights=E.ones(1, 2))
    with pytest.raises(RuntimeError, match=r"Index 0 of input takes value 7 which is not in the valid range \[0, 4\)"):
        E.embedding_bag(E.tensor([7, 1, 0]), w, E.tensor([0, 1]))


def test_embedding_bag_checks_in_pytorchs_order_with_its_type_names():
    w = E.zeros(4, 2)
    with pytest.raises(ValueError, match="^weight has to be a 2D Tensor, but got Tensor of dimension 1$"):
        E.embedding_bag(E.tensor([[1]]), E.zeros(4))
    with pytest.raises(RuntimeError, match="^'weight' must be 2-D$"):  # embedding: before the indices' dtype
        E.embedding(E.tensor([1.0]), E.zeros(4))
    with pytest.raises(ValueError, match="^mode has to be one of sum, mean or max$"):
        E.embedding_bag(E.tensor([1]), w, E.tensor([0]), mode="min")
    with pytest.raises(ValueError, match=r"^embedding_bag: If per_sample_weights \((torch|ember)\.Size\(\[3\]\)\) "
                                         r"is not None, then it must have the same shape as the input"):
        E.embedding_bag(E.tensor([1, 2]), w, E.tensor([0]), mode="sum", per_sample_weights=E.ones(3))
    # indices and offsets are promoted together: float offsets fail as 'indices', bool indices become int64
    with pytest.raises(RuntimeError, match="'indices' .* but got torch.FloatTensor instead"):
        E.embedding_bag(E.tensor([1]), w, E.tensor([0.0]))
    assert E.embedding_bag(E.tensor([True]), E.ones(4, 2), E.tensor([0])).tolist() == [[1.0, 1.0]]
    with pytest.raises(RuntimeError, match="but got CPUBoolType instead"):
        E.embedding(E.tensor([True]), w)
    with pytest.raises(RuntimeError, match="'weight' to have one of the following scalar types: Half, BFloat16, "
                                           "Float, Double; but got torch.LongTensor instead"):
        E.embedding_bag(E.tensor([1]), E.zeros(4, 2, dtype=E.int64), E.tensor([0]))
    with pytest.raises(RuntimeError, match="but type torch.DoubleTensor does not equal torch.FloatTensor"):
        E.embedding_bag(E.tensor([1]), w.double(), E.tensor([0]), mode="sum", per_sample_weights=E.ones(1))


def test_torch_embedding_argument_order_weight_first():
    w = np.random.default_rng(6).standard_normal((4, 2))
    np.testing.assert_array_equal(E.embedding(T(w), E.tensor([3, 0])).numpy(), w[[3, 0]])
    np.testing.assert_array_equal(E.embedding(T(w), E.tensor([3, 0]), -1).numpy(), w[[3, 0]])


def test_backward_primitives_validate_indices_before_the_scatter():
    with pytest.raises(IndexError, match="index out of range in self"):
        M.embedding_backward(E.ones(2, 3), E.tensor([0, 5]), 4, -1)
    with pytest.raises(RuntimeError, match="offsets must be non-decreasing"):
        M.embedding_bag_op(E.ones(4, 2), E.tensor([0, 1]), E.tensor([0, 3]), "sum", None, False, -1)


def test_embedding_of_an_empty_table_raises_pytorchs_index_select_error():
    # PyTorch refuses to index an empty table before it reads an index; no indices at all is an empty result
    for idx in (E.tensor([0]), E.tensor(0), E.tensor([-1])):
        with pytest.raises(RuntimeError, match=r"^index_select\(\): self indexing axis dim should be positive$"):
            E.embedding(idx, E.zeros(0, 3))
    assert tuple(E.embedding(E.tensor([], dtype=E.int64), E.zeros(0, 3)).shape) == (0, 3)
    with pytest.raises(IndexError, match="index out of range in self"):
        E.embedding(E.tensor([3]), E.zeros(3, 2))


def test_padding_idx_edges_are_pytorchs():
    # F.embedding's checks (PyTorch's explicit assert: 0 is never checked, so an empty table takes it), its
    # argument parser's type check, aten's raw padding_idx (weight first) and embedding_bag's RuntimeError
    empty = E.tensor([], dtype=E.int64)
    assert tuple(E.embedding(empty, E.zeros(0, 3), padding_idx=0).shape) == (0, 3)
    with pytest.raises(RuntimeError, match=r"^index_select\(\): self indexing axis dim should be positive$"):
        E.embedding(E.tensor([0]), E.zeros(0, 3), padding_idx=0)
    for table, pad in ((E.zeros(0, 3), -1), (E.zeros(4, 3), 4), (E.zeros(4, 3), -5)):
        with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
            E.embedding(E.tensor([0]), table, padding_idx=pad)
    for pad, name in ((1.5, "float"), (True, "bool")):
        with pytest.raises(TypeError, match=f"^embedding\\(\\): argument 'padding_idx' \\(position 3\\) must be int, "
                                            f"not {name}$"):
            E.embedding(E.tensor([0]), E.zeros(4, 3), padding_idx=pad)
    assert E.embedding(E.tensor([3]), E.ones(4, 3), padding_idx=-1).tolist() == [[1.0, 1.0, 1.0]]
    # torch.embedding(weight, indices, padding_idx): any int, compared with the indices as given
    assert tuple(E.embedding(E.zeros(4, 3), E.tensor([1]), 7).shape) == (1, 3)
    with pytest.raises(TypeError, match=r"^embedding\(\): argument 'padding_idx' must be int, not float$"):
        E.embedding(E.zeros(4, 3), E.tensor([1]), 1.5)
    g = M.embedding_backward(E.ones(2, 3), E.tensor([1, 3]), 4, -3)  # -3 is no row: both gradients kept
    assert g.tolist() == [[0.0] * 3, [1.0] * 3, [0.0] * 3, [1.0] * 3]
    assert M.embedding_backward(E.ones(2, 3), E.tensor([1, 3]), 4, 1).tolist()[1] == [0.0] * 3
    assert tuple(M.embedding_backward(E.ones(0, 3), empty, 0, 0).shape) == (0, 3)
    for table, pad, lo, hi in ((E.zeros(4, 3), 4, 4, 3), (E.zeros(4, 3), -5, 4, 3), (E.zeros(0, 3), 0, 0, -1)):
        with pytest.raises(RuntimeError, match=f"^padding_idx must be within the number of embeddings, -{lo} through "
                                               f"{hi}, but got {pad}$"):
            E.embedding_bag(empty, table, E.tensor([0]), padding_idx=pad)
    with pytest.raises(TypeError, match=r"^embedding_bag\(\): argument 'padding_idx' \(position 9\) must be int, "
                                        r"not float$"):
        E.embedding_bag(E.tensor([1]), E.zeros(4, 3), E.tensor([0]), padding_idx=1.5)
    assert E.embedding_bag(E.tensor([1, 0]), E.ones(4, 3), E.tensor([0]), mode="sum", padding_idx=-4).tolist() == \
        [[1.0, 1.0, 1.0]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_embedding_backward_reads_a_narrowed_gradient_in_place(dtype):
    # the gradient of an embedding concatenated with another: a `narrow` of the cat's gradient, rows strided
    rng = np.random.default_rng(3)
    full = rng.standard_normal((7, 10)).astype(dtype)
    idx = np.array([4, 0, 4, 2, 5, 0, 3])
    g = E.from_numpy(full).narrow(1, 6, 4)
    got = M.embedding_backward(g, T(idx), 6, 2).numpy()
    want = np.zeros((6, 4), np.float32 if dtype == np.float16 else dtype)
    for k, r in enumerate(idx):
        if r != 2:
            want[r] += full[k, 6:].astype(want.dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want.astype(dtype))
    bad = E.from_numpy(np.array([1, 6, 0]))
    with pytest.raises(IndexError, match="index out of range in self"):
        M.embedding_backward(E.from_numpy(full[:3]).narrow(1, 0, 4), bad, 6, -1)


@pytest.mark.parametrize("threads, message", [
    (1, "^Index 2 of input takes value 7 which is not in the valid range \\[0, 4\\)$"),
    (2, "^Index 1 of input takes value 7 which is not in the valid range \\[0, 4\\)$"),  # bag 1's chunk, shifted
])
def test_embedding_bag_bad_index_is_reported_as_pytorchs_fbgemm_chunks_do(monkeypatch, threads, message):
    """PyTorch 2.13's words for [0, 1, 7] in bags [0] and [1, 7] of a float32 table: its FBGEMM path reports per
    parallel chunk of bags, reading the chunk's indices at absolute positions from the chunk's start."""
    from ember.core import parallel

    monkeypatch.setattr(parallel, "get_num_threads", lambda: threads)
    w = E.zeros(4, 2)
    with pytest.raises(RuntimeError, match=message):
        E.embedding_bag(E.tensor([0, 1, 7]), w, E.tensor([0, 1]), mode="sum")
    if threads == 2:  # bag 1 starts at 2 in a chunk of 1 index: its `i < index_size` check fails first
        with pytest.raises(RuntimeError, match="^Expected i < index_size to be true, but got false.  \\(Could this"):
            E.embedding_bag(E.tensor([0, 1, 7]), w, E.tensor([0, 2]), mode="mean")


def test_embedding_bag_bad_index_off_the_fast_path_names_the_value():
    """max mode, float64 rows, a padding_idx or a strided table take ATen's plain loop and its message."""
    msg = "^embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {}$"
    w = E.zeros(4, 2)
    with pytest.raises(RuntimeError, match=msg.format(-3)):
        E.embedding_bag(E.tensor([0, -3, 7]), w, E.tensor([0, 2]), mode="max")
    with pytest.raises(RuntimeError, match=msg.format(7)):
        E.embedding_bag(E.tensor([0, 1, 7]), w.double(), E.tensor([0, 2]), mode="sum")
    with pytest.raises(RuntimeError, match=msg.format(7)):
        E.embedding_bag(E.tensor([0, 1, 7]), w, E.tensor([0, 2]), mode="sum", padding_idx=2)
    with pytest.raises(RuntimeError, match=msg.format(7)):
        E.embedding_bag(E.tensor([0, 1, 7]), E.zeros(2, 4).t(), E.tensor([0, 2]), mode="sum")


def test_embedding_bag_ignores_indices_past_the_last_bag():
    """include_last_offset bags may end before the indices do; PyTorch's fast path never reads the rest."""
    out = E.embedding_bag(E.tensor([0, 1, 7]), E.ones(4, 2), E.tensor([0, 1, 2]), mode="sum", include_last_offset=True)
    assert out.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_embedding_bag_non_tensor_operands_fail_as_pytorchs_python_function():
    w = E.zeros(4, 2)
    with pytest.raises(AttributeError, match="^'list' object has no attribute 'dtype'$"):
        E.embedding_bag(E.tensor([1]), [[1.0]], E.tensor([0]))
    with pytest.raises(AttributeError, match="^'list' object has no attribute 'dim'$"):
        E.embedding_bag([1, 2], w, E.tensor([0]))
    with pytest.raises(TypeError, match=r"^embedding\(\): argument 'indices' \(position 2\) must be Tensor, not list$"):
        E.embedding(w, [1])  # torch.embedding(weight, indices)


def test_embedding_bag_of_zero_length_rows_raises_pytorchs_arange_error():
    w = E.tensor([[1.0, 2.0], [3.0, 4.0]])
    for mode in ("sum", "mean", "max"):
        with pytest.raises(RuntimeError, match="^step must be nonzero$"):
            M.embedding_bag(E.zeros((2, 0), dtype=E.int64), w, mode=mode)


def test_decreasing_offsets_are_refused_in_the_words_of_pytorchs_kernel():
    """FBGEMM's path (float32 rows, sum or mean, no padding_idx) fails its `i < index_size` check (or, with
    include_last_offset, the last-offset check first); ember's own words on the other paths."""
    w, idx, off = E.ones(6, 3), E.tensor([1, 2, 3]), E.tensor([0, 2, 1])
    with pytest.raises(RuntimeError, match=r"^Expected i < index_size to be true, but got false\."):
        E.embedding_bag(idx, w, off, mode="mean")
    with pytest.raises(RuntimeError, match="^Your input appears to be incorrect: the last offset value should be"):
        E.embedding_bag(idx, w, off, include_last_offset=True)
    with pytest.raises(RuntimeError, match="offsets must be non-decreasing"):
        E.embedding_bag(idx, w.double(), off)


def test_half_embedding_backward_rounds_after_every_row_and_skips_padding():
    rng = np.random.default_rng(1)
    idx = rng.integers(0, 3, 200)
    g = (rng.random((200, 2)) * 10).astype(np.float16)
    ref = np.zeros((3, 2), np.float16)
    for i, row in zip(idx, g, strict=True):
        if i != 2:  # the padding row gets no gradient
            ref[i] = ref[i] + row  # float16 adds round each step, as PyTorch's CPU loop
    got = M.embedding_backward(E.tensor(g), E.tensor(idx), 3, 2).numpy()
    assert got.dtype == np.float16 and np.array_equal(got, ref)
    once = np.zeros((3, 2), np.float32)
    np.add.at(once, idx, g.astype(np.float32))
    assert not np.array_equal(once[:2].astype(np.float16), ref[:2])  # rounding once would differ


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_embedding_backward_by_freq_adds_each_scaled_row_in_the_dtype(dtype):
    """PyTorch's loop is `grad_weight[k].add_(grad[i], alpha=1 / count[k])` on the 16-bit tensor: the scale and
    the product are rounded to the dtype, then the sum after every row."""
    dt = getattr(E, dtype).np
    rng = np.random.default_rng(2)
    idx = rng.integers(0, 4, 90)
    g = (rng.standard_normal((90, 3)) * 3).astype(dt)
    counts = np.bincount(idx, minlength=4)
    ref = np.zeros((4, 3), dt)
    for i, row in zip(idx, g, strict=True):
        if i != 1:
            scaled = (row.astype(np.float32) * np.float32(np.asarray(1.0 / counts[i]).astype(dt))).astype(dt)
            ref[i] = (ref[i].astype(np.float32) + scaled.astype(np.float32)).astype(dt)
    got = M.embedding_backward(E.from_numpy(g), E.tensor(idx), 4, 1, True)._np()
    assert got.dtype == dt and np.array_equal(got, ref)
    once = np.zeros((4, 3), np.float32)
    np.add.at(once, idx, g.astype(np.float32) / counts[idx][:, None])
    assert not np.array_equal(once.astype(dt)[[0, 2, 3]], ref[[0, 2, 3]])  # rounding once would differ


@pytest.mark.parametrize("dtype, mode, out, grad", [
    # FBGEMM's fast path sums the short last bag to offsets[-1], a mean divides by its size to the end
    ("float32", "mean", [[1.0, 2.0], [2.5, 3.0]], [0.5] * 2 + [0.25] * 4),
    ("float32", "max", [[2.0, 3.0], [10.0, 11.0]], [0, 1, 0, 0, 0, 1]),
    ("float64", "sum", [[2.0, 4.0], [28.0, 32.0]], [1.0] * 6),  # the plain loop runs it to the end in every mode
    ("float64", "mean", [[1.0, 2.0], [7.0, 8.0]], [0.5] * 2 + [0.25] * 4),
])
def test_include_last_offset_short_of_the_indices_sizes_the_last_bag_as_pytorchs_cpu_kernels(dtype, mode, out, grad):
    """PyTorch 2.13's numbers for offsets [0, 2, 4] over six indices with include_last_offset=True."""
    w = E.arange(12.0).reshape(6, 2).to(getattr(E, dtype))
    idx, off = E.arange(6), E.tensor([0, 2, 4])
    got, bag_size, max_idx = M.embedding_bag_op(w, idx, off, mode, None, True, -1)
    assert got.tolist() == out
    g = M.embedding_bag_backward(E.ones(2, 2, dtype=w.dtype), idx, off, bag_size, max_idx, 6, mode, None, True, -1)
    assert g.tolist() == [[v, v] for v in grad]


def test_embedding_bag_16bit_mean_divides_the_rounded_sum():
    # PyTorch rounds the float32 sum to half first: 2.19482421875 -> 2.1953125, then /3 -> 0.73193359375
    w = E.tensor([[0.468017578125], [1.2587890625]], dtype=E.float16)
    assert E.embedding_bag(E.tensor([0, 0, 1]), w, E.tensor([0]), mode="mean").tolist() == [[0.73193359375]]


def test_embedding_bag_bfloat16_fast_path_rounds_ties_up():
    # 1 + 2**-8 is a tie between bfloat16 neighbours: FBGEMM's path rounds it up, the padding_idx path to even
    w = E.tensor([[1.0], [2.0 ** -8], [0.0]], dtype=E.bfloat16)
    idx, off = E.tensor([0, 1]), E.tensor([0])
    assert E.embedding_bag(idx, w, off, mode="sum").tolist() == [[1.0078125]]
    assert E.embedding_bag(idx, w, off, mode="sum", padding_idx=2).tolist() == [[1.0]]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_half_embedding_bag_backward_rounds_after_every_row(mode):
    # three one-element bags on row 0: 1 + 2**-11 is a tie that float16 rounds to even (1.0) at each add, where a
    # float32 sum rounded once gives 1 + 2**-10 (PyTorch 2.13 gives [[1.0], [0.0]])
    idx, off = E.tensor([0, 0, 0]), E.tensor([0, 1, 2])
    out, bag_size, max_idx = M.embedding_bag_op(E.zeros(2, 1, dtype=E.float16), idx, off, mode, None, False, -1)
    g = E.tensor([[1.0], [2.0 ** -11], [2.0 ** -11]], dtype=E.float16)
    gw = M.embedding_bag_backward(g, idx, off, bag_size, max_idx, 2, mode, None, False, -1)
    assert gw.dtype == E.float16 and gw.tolist() == [[1.0], [0.0]]


def test_half_embedding_bag_backward_rounds_each_scaled_row():
    # a mean bag of two scales its row by 0.5 in float16; per-sample weights scale each index's row
    idx, off = E.tensor([1, 1, 0]), E.tensor([0, 2])
    g = E.tensor([[0.3], [0.7]], dtype=E.float16)
    _, bag_size, max_idx = M.embedding_bag_op(E.zeros(2, 1, dtype=E.float16), idx, off, "mean", None, False, -1)
    gw = M.embedding_bag_backward(g, idx, off, bag_size, max_idx, 2, "mean", None, False, -1)
    half = np.float16(np.float16(0.3) * np.float16(0.5))
    assert gw.tolist() == [[float(np.float16(0.7))], [float(np.float16(half + half))]]
    psw = E.tensor([0.1, 0.2, 3.0], dtype=E.float16)
    gw = M.embedding_bag_backward(g, idx, off, bag_size, max_idx, 2, "sum", psw, False, -1)
    p = [np.float16(np.float16(0.3) * np.float16(w)) for w in (0.1, 0.2)]
    assert gw.tolist() == [[float(np.float16(np.float16(0.7) * np.float16(3.0)))], [float(np.float16(p[0] + p[1]))]]
