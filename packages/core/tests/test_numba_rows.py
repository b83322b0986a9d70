"""The Numba pass for a matrix and a row vector (bias adds) and mm's outer-product path give numpy's bits."""

import numpy as np
import pytest

import ember.core as ec
from ember.core.ops import numba_rows


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, ref", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply)])
def test_row_broadcast_bits_equal_numpy(dtype, name, ref):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32, 48)).astype(dtype)  # above the passes' size threshold
    b = rng.standard_normal(48).astype(dtype)
    x[0, 0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    b[:4] = [1.0, -np.inf, np.nan, 0.0]
    op = getattr(ec, name)
    r = op(ec.from_numpy(x), ec.from_numpy(b)).numpy()
    with np.errstate(all="ignore"):
        expected = ref(x, b)
    assert r.shape == expected.shape and r.flags.c_contiguous
    assert np.array_equal(r.view(f"u{r.itemsize}"), expected.view(f"u{r.itemsize}"))


def test_row_broadcast_declines_what_it_cannot_do():
    x = np.ones((64, 128), np.float32)
    assert numba_rows.row_broadcast("add", x, np.ones(128, np.float64)) is None  # mixed dtypes
    assert numba_rows.row_broadcast("add", x.T, np.ones(64, np.float32)) is None  # not row-major
    assert numba_rows.row_broadcast("add", x[:2], np.ones(128, np.float32)) is None  # too small to pay
    assert numba_rows.row_broadcast("add", np.ones((32, 128), np.float32), np.ones(128, np.float32)) is None
    assert numba_rows.row_broadcast("add", x.astype(np.int64), np.ones(128, np.int64)) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_inner_dimension_one_is_the_outer_product(dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((100, 1)).astype(dtype)
    b = rng.standard_normal((1, 30)).astype(dtype)
    r = ec.mm(ec.from_numpy(a), ec.from_numpy(b)).numpy()
    assert r.dtype == dtype and r.shape == (100, 30)
    np.testing.assert_array_equal(r, (a.astype(np.float64) * b.astype(np.float64)).astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mm_outer_product_pass_bits_equal_numpy(dtype):
    # 1024 x 1 @ 1 x 64 (NCF's last layer's input gradient) runs the Numba pass: numpy's products, bit for bit,
    # -0.0, NaN and inf included, also with the row a transposed view
    rng = np.random.default_rng(2)
    a = rng.standard_normal((1024, 1)).astype(dtype)
    b = rng.standard_normal((1, 64)).astype(dtype)
    a[:3, 0] = [-0.0, np.inf, np.nan]
    b[0, :3] = [0.0, -np.inf, 2.0]
    with np.errstate(all="ignore"):
        expected = np.multiply(a, b)
    for bt in (ec.from_numpy(b), ec.from_numpy(np.ascontiguousarray(b.T)).t()):
        r = ec.mm(ec.from_numpy(a), bt).numpy()
        assert r.dtype == dtype and r.shape == (1024, 64) and r.flags.c_contiguous
        assert np.array_equal(r.view(f"u{r.itemsize}"), expected.view(f"u{r.itemsize}"))
    assert numba_rows.outer(a[:, 0], b[0].astype(np.float64 if dtype == np.float32 else np.float32)) is None
    assert numba_rows.outer(a[:10, 0], b[0]) is None  # too small to pay


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, dims", [((1024, 64), 0), ((16, 64, 48), (0, 1)), ((8192, 2), 0), ((512, 1), 0),
                                         ((128, 8, 16), 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_over_leading_dims_bits_equal_numpy(dtype, shape, dims, keepdim):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal(shape) * rng.uniform(0.1, 1e4, shape)).astype(dtype)
    x.reshape(x.shape[0], -1)[:, 0] = -0.0  # numpy sums from its identity: a column of -0.0 gives +0.0
    x.reshape(-1)[5] = np.nan
    r = ec.sum(ec.from_numpy(x), dims, keepdim=keepdim).numpy()
    axes = dims if isinstance(dims, tuple) else (dims,)
    expected = np.add.reduce(x, axes, dtype, keepdims=keepdim)
    assert r.shape == expected.shape and r.dtype == expected.dtype
    assert np.array_equal(r.view(f"u{r.itemsize}"), expected.view(f"u{r.itemsize}"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, perm", [((16, 64, 128), (1, 0, 2)), ((4, 8, 16, 32), (2, 0, 1, 3))])
def test_sum_over_transposed_leading_dims_bits_equal_numpy(dtype, shape, perm):
    # seq-first attention's bias gradients: a (T, B, E) view of (B, T, E) rows summed over (T, B); numpy reduces
    # in memory order, as the pass does over the rows in stride order
    rng = np.random.default_rng(3)
    base = (rng.standard_normal(shape) * rng.uniform(0.1, 1e4, shape)).astype(dtype)
    x = base.transpose(perm)
    dims = tuple(range(x.ndim - 1))
    r = ec.sum(ec.from_numpy(base).permute(*perm), dims).numpy()
    expected = np.add.reduce(x, dims, dtype)
    assert np.array_equal(r.view(f"u{r.itemsize}"), expected.view(f"u{r.itemsize}"))
    assert numba_rows.leading_sum(x, len(dims)) is not None
    assert numba_rows.leading_sum(x[::-1], len(dims)) is None  # a reversed dim: no stride order is row-major

@pytest.mark.parametrize("keepdim", [False, True])
def test_all_and_any_over_bool_rows_match_numpy(keepdim):
    # attention's fully masked rows: (scores == -inf).all(-1, keepdim=True) on 4096 rows of 64
    rng = np.random.default_rng(4)
    a = rng.random((16, 4, 64, 64)) < 0.98
    a[0, 0, :5] = True
    a[1, 1, :7] = False
    for fn, op in ((np.all, "all"), (np.any, "any")):
        got = getattr(ec.from_numpy(a), op)(-1, keepdim=keepdim)
        want = fn(a, axis=-1, keepdims=keepdim)
        assert got.dtype == ec.bool and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
        assert numba_rows.last_dim_all_any(a, op == "all", keepdim) is not None  # the row pass answered


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bmm_by_small_transposed_matrices_lays_them_out_row_major(dtype, monkeypatch):
    # attention's Q K^T: the (B*H, E, S) right operand is a transposed view of seq-first (S, B*H, E) rows
    from ember.core.ops import linalg

    rng = np.random.default_rng(5)
    q = rng.standard_normal((64, 64, 32)).astype(dtype).transpose(1, 0, 2)
    k = rng.standard_normal((64, 64, 32)).astype(dtype)
    kt = k.transpose(1, 2, 0)
    copy = numba_rows.row_major_batch(kt)
    assert copy.flags.c_contiguous and np.array_equal(copy, kt)
    assert numba_rows.row_major_batch(k) is None  # row-major already
    calls = []
    monkeypatch.setattr(numba_rows, "row_major_batch", lambda x: calls.append(x.shape) or copy)
    got = ec.bmm(ec.from_numpy(q), ec.from_numpy(kt)).numpy()
    assert calls == [(64, 32, 64)]
    want = np.matmul(q.astype(np.float64), kt.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-4)
    big = rng.standard_normal((4, 128, 128)).astype(dtype)
    ec.bmm(ec.from_numpy(big), ec.from_numpy(big).transpose(1, 2))  # 128^3 a product: BLAS takes the view
    assert calls == [(64, 32, 64)]
    assert linalg._SMALL_GEMM == 64 ** 3


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1024, 256), (1000, 250), (250, 1000), (7, 5)])
def test_transposed_lays_out_a_matrix_transpose_row_major(dtype, shape):
    # whole 16 x 16 tiles, and edge rows and columns (250 and 1000 are no multiples of 16); small: numpy's copy
    x = np.random.default_rng(7).standard_normal(shape).astype(dtype)
    got = numba_rows.transposed(x)
    assert got.flags.c_contiguous and got.dtype == dtype and not np.shares_memory(got, x)
    np.testing.assert_array_equal(got, x.T)
    np.testing.assert_array_equal(numba_rows.transposed(x[::2]), x[::2].T)  # a strided input
