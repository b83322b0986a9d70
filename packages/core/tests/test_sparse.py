"""Sparse COO/CSR tensors of ember.core: values against scipy.sparse and numpy, PyTorch's errors."""

import re

import numpy as np
import pytest
import scipy.sparse as sp

import ember.core as ec
from ember.core.sparse import SparseTensor, _beta_message, sparse_coo_tensor, sparse_csc_tensor, sparse_csr_tensor
from ember.core.sparse_ops import hspmm, smm, sparse_mm, sparse_sum, sspaddmm

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]  # (0, 2) twice: uncoalesced
VAL = [3.0, 4.0, 5.0, 1.0]


def _coo(dtype=ec.float64):
    return sparse_coo_tensor(IDX, ec.tensor(VAL, dtype=dtype), (2, 3))


def _scipy():
    return sp.coo_matrix((VAL, (IDX[0], IDX[1])), shape=(2, 3))


def test_to_dense_sums_duplicates_like_scipy():
    np.testing.assert_array_equal(_coo().to_dense().numpy(), _scipy().toarray())


def test_coalesce_sorts_and_sums():
    s = _coo()
    assert not s.is_coalesced()
    c = s.coalesce()
    assert c.is_coalesced()
    ref = _scipy().tocsr().tocoo()
    np.testing.assert_array_equal(c.indices().numpy(), np.stack([ref.row, ref.col]))
    np.testing.assert_array_equal(c.values().numpy(), ref.data)


def test_metadata():
    s = _coo()
    assert s.layout is ec.sparse_coo and s.is_sparse and not s.is_sparse_csr
    assert isinstance(s, ec.Tensor)
    assert (s.sparse_dim(), s.dense_dim(), s._nnz()) == (2, 0, 4)
    assert tuple(s.shape) == (2, 3) and s.dtype is ec.float64 and str(s.device) == "cpu"


def test_every_pytorch_layout_is_named_and_distinct():
    # code compares t.layout with torch.sparse_csc/bsr/bsc even where no tensor has them
    names = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc"]
    layouts = [getattr(ec, n) for n in names]
    assert [repr(x) for x in layouts] == [f"ember.{n}" for n in names] and len(set(map(id, layouts))) == 6
    assert _coo().to_sparse_csr().layout is ec.sparse_csr and ec.eye(2).layout not in layouts[1:]


def test_size_inferred_from_indices_and_values():
    s = sparse_coo_tensor([[0, 3]], ec.ones(2, 5))
    assert tuple(s.shape) == (4, 5) and s.dense_dim() == 1


@pytest.mark.parametrize("size, message", [
    ((2, 2), "size is inconsistent with indices: for dim 1, size is 2 but found index 2"),
    ((2,), "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 1, sparse_dim = 2, dense_dim = 0"),
])
def test_construction_errors(size, message):
    with pytest.raises(RuntimeError) as e:
        sparse_coo_tensor(IDX, VAL, size)
    assert str(e.value) == message


def test_size_rank_is_checked_before_the_indices_rank_as_pytorch():
    with pytest.raises(RuntimeError) as e:  # 1-D indices: sparse_dim is their length
        sparse_coo_tensor([0, 1], [1.0, 2.0], (3,))
    assert str(e.value) == "'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = 1, sparse_dim = 2, " \
                           "dense_dim = 0"
    with pytest.raises(RuntimeError, match=r"indices must be sparse_dim x nnz, but got: \[2\]"):
        sparse_coo_tensor([0, 1], [1.0, 2.0])


def test_negative_index_and_nnz_mismatch():
    with pytest.raises(RuntimeError, match="found negative index -1 for dim 0"):
        sparse_coo_tensor([[-1], [0]], [1.0], (2, 2))
    with pytest.raises(RuntimeError, match="indices and values must have same nnz, but got nnz from indices: 4, "
                                           "nnz from values: 2"):
        sparse_coo_tensor(IDX, VAL[:2], (2, 3))


def test_indices_values_refuse_uncoalesced():
    with pytest.raises(RuntimeError, match=r"Cannot get indices on an uncoalesced tensor, please call \.coalesce\(\) "
                                           "first"):
        _coo().indices()
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        _coo().values()
    assert _coo()._indices().shape == (2, 4)


def test_repr_like_pytorch():
    s = sparse_coo_tensor([[0, 1], [1, 0]], ec.tensor([1.0, 2.0]), (2, 2))
    assert repr(s) == ("tensor(indices=tensor([[0, 1],\n"
                       "                       [1, 0]]),\n"
                       "       values=tensor([1., 2.]),\n"
                       f"       size=(2, 2), nnz=2, layout={ec.sparse_coo!r})")


def test_repr_wraps_parts_to_the_width_left_after_their_prefix():
    """PyTorch fits each part's rows to the line width minus its `indices=tensor(` / `values=tensor(` column."""
    s = sparse_coo_tensor([list(range(16)), [0] * 16], ec.arange(16, dtype=ec.float32) / 7, (16, 1))
    assert repr(s) == (
        "tensor(indices=tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13,\n"
        "                        14, 15],\n"
        "                       [ 0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,\n"
        "                         0,  0]]),\n"
        "       values=tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571,\n"
        "                      1.0000, 1.1429, 1.2857, 1.4286, 1.5714, 1.7143, 1.8571,\n"
        "                      2.0000, 2.1429]),\n"
        f"       size=(16, 1), nnz=16, layout={ec.sparse_coo!r})")


def test_repr_suffix_line_may_fill_the_width_exactly():
    """The line that starts with `size=` counts from its indent, as PyTorch's: 80 columns still fit."""
    s = sparse_coo_tensor([[1], [2], [3]], ec.tensor([1.5], dtype=ec.float64), (1000, 100, 10))
    last = repr(s).splitlines()[-1]
    assert last == f"       size=(1000, 100, 10), nnz=1, dtype={ec.float64!r}, layout={ec.sparse_coo!r})"
    assert len(last) == 81


def test_dense_to_sparse_round_trip():
    a = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    s = ec.tensor(a).to_sparse()
    assert s.is_coalesced() and s._nnz() == 3
    np.testing.assert_array_equal(s.to_dense().numpy(), a)
    rows = ec.tensor(a).to_sparse(1)
    assert rows.sparse_dim() == 1 and rows.dense_dim() == 1 and rows._nnz() == 2
    np.testing.assert_array_equal(rows.to_dense().numpy(), a)


def test_transpose_swaps_sparse_dims():
    np.testing.assert_array_equal(_coo().t().to_dense().numpy(), _scipy().toarray().T)
    assert not _coo().coalesce().t().is_coalesced()


def test_conjugate_transposes_keep_the_sparse_layout():
    z = np.array([[0, 2j, 0], [3, 0, 1 - 1j]])
    coo = ec.tensor(z).to_sparse()
    for t in (coo.mH, coo.H, coo.adjoint(), ec.adjoint(coo)):
        assert isinstance(t, SparseTensor) and t.layout is ec.sparse_coo
        np.testing.assert_array_equal(t.to_dense().numpy(), z.conj().T)
    for t in (coo.conj(), ec.conj(coo), coo.conj_physical(), ec.conj_physical(coo)):
        assert t.layout is ec.sparse_coo and not t.is_conj()
        np.testing.assert_array_equal(t.to_dense().numpy(), z.conj())
    csr = ec.tensor(z).to_sparse_csr()
    assert csr.mH.layout is ec.sparse_csc and ec.conj(csr).layout is ec.sparse_csr  # as PyTorch's
    np.testing.assert_array_equal(csr.mH.to_dense().numpy(), z.conj().T)
    real = _coo()
    assert real.conj() is real and real.mH.layout is ec.sparse_coo
    with pytest.raises(RuntimeError, match=r"^tensor.H is only supported on matrices \(2-D tensors\). Got 3-D tensor. "
                                           r"For batches of matrices, consider using tensor.mH$"):
        ec.zeros(2, 2, 2).to_sparse().H
    with pytest.raises(RuntimeError, match=r"^tensor.mH is only supported on matrices or batches of matrices. Got "
                                           r"1-D tensor.$"):
        ec.zeros(3).to_sparse().mH


def test_function_forms_of_transposes_run_the_sparse_tensors_own():
    d = _scipy().toarray()
    s = _coo()
    for t in (ec.transpose(s, 0, 1), ec.t(s), ec.permute(s, (1, 0)), ec.swapaxes(s, 0, 1), s.swapdims(0, 1)):
        assert isinstance(t, SparseTensor) and t.layout is ec.sparse_coo
        np.testing.assert_array_equal(t.to_dense().numpy(), d.T)
    assert ec.transpose(s.to_sparse_csr(), 0, 1).layout is ec.sparse_csc


def test_compressed_sums_over_dims_follow_pytorchs_csr_reduction():
    d = np.array([[0.0, 2, 0, 0], [0, 0, 0, 0], [0, 4, 5, 0]])
    csr = ec.tensor(d).to_sparse_csr()
    rows = csr.sum(1, keepdim=True)  # one entry per row that stores any: the empty row stays empty
    assert rows.layout is ec.sparse_csr and rows.shape == (3, 1)
    assert rows.crow_indices().tolist() == [0, 1, 1, 2] and rows.values().tolist() == [2.0, 9.0]
    cols = csr.sum(0, keepdim=True)
    assert cols.col_indices().tolist() == [1, 2] and cols.values().tolist() == [6.0, 5.0]
    total = ec.tensor([[1.0, -1.0]]).to_sparse_csr().sum((), keepdim=True)  # a zero total is still stored
    assert total.shape == (1, 1) and total.crow_indices().tolist() == [0, 1] and total.values().tolist() == [0.0]
    assert csr.to(ec.int32).sum(0, keepdim=True).dtype is ec.int64
    assert csr.sum().item() == 11.0 and csr.sum(dtype=ec.float64).dtype is ec.float64
    with pytest.raises(RuntimeError, match="^reduction operations on CSR tensors with keepdim=False is unsupported$"):
        csr.sum(0)
    with pytest.raises(RuntimeError, match="^Currently the only compressed sparse format supported for "
                                           "sum.dim_IntList is CSR, but got layout SparseCsc$"):
        ec.tensor(d).to_sparse_csc().sum(0, keepdim=True)
    with pytest.raises(RuntimeError, match="^coalesce expected sparse coordinate tensor layout but got SparseCsr$"):
        sparse_sum(csr)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::_indices' with arguments from the "
                                                  "'SparseCsrCPU' backend"):
        sparse_sum(csr, 0)


def test_csr_times_dense_or_sparse_keeps_the_csr_pattern():
    d = np.array([[0.0, 2, 0, 1], [3, 0, 0, 0], [0, 4, 5, 0]])
    csr = ec.tensor(d).to_sparse_csr()
    w = np.arange(12.0).reshape(3, 4)
    for got in (csr * ec.tensor(w), ec.tensor(w) * csr, csr.mul(ec.tensor(w))):
        assert got.layout is ec.sparse_csr and got.col_indices().tolist() == csr.col_indices().tolist()
        np.testing.assert_array_equal(got.to_dense().numpy(), d * w)
    for other in (csr, csr.to_sparse_coo(), ec.tensor(d).to_sparse_csc()):
        got = csr * other
        assert got.layout is ec.sparse_csr
        np.testing.assert_array_equal(got.to_dense().numpy(), d * d)
    with pytest.raises(RuntimeError, match=r"^sparse_mask\(\): operands have incompatible sizes; self has size "
                                           r"\[3, 1\] but mask has size \[3, 4\]$"):
        csr * ec.ones(3, 1)
    with pytest.raises(RuntimeError, match="^Expected result Tensor to be of format CSR$"):
        ec.tensor(d).to_sparse_csc() * ec.tensor(w)


def test_arithmetic_against_dense():
    d = _scipy().toarray()
    s = _coo()
    np.testing.assert_array_equal((s * 2).to_dense().numpy(), d * 2)
    np.testing.assert_array_equal((2 * s).to_dense().numpy(), d * 2)
    np.testing.assert_array_equal((s / 4).to_dense().numpy(), d / 4)
    np.testing.assert_array_equal((-s).to_dense().numpy(), -d)
    np.testing.assert_array_equal((s + s).to_dense().numpy(), 2 * d)
    np.testing.assert_array_equal((s - s * 3).to_dense().numpy(), -2 * d)
    other = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal((s * ec.tensor(other)).to_dense().numpy(), d * other)
    assert isinstance(s * ec.tensor(other), SparseTensor)
    np.testing.assert_array_equal((ec.tensor(other) + s).numpy(), other + d)
    np.testing.assert_array_equal((s * s).to_dense().numpy(), d * d)
    for shape in [(2, 1), (3,), (1, 3), (1, 1)]:  # broadcast operands: read in place, never expanded to (2, 3)
        b = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape)
        np.testing.assert_array_equal((s * ec.tensor(b)).to_dense().numpy(), d * b)
    hybrid = ec.tensor(np.arange(24.0).reshape(2, 3, 4)).to_sparse(1)
    np.testing.assert_array_equal((hybrid * ec.tensor(np.arange(4.0))).to_dense().numpy(),
                                  np.arange(24.0).reshape(2, 3, 4) * np.arange(4.0))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(4\) must match the size of tensor b \(3\) at "
                                           "non-singleton dimension 1"):
        s * ec.ones(4)


def test_add_sparse_dense_refused_like_pytorch():
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported. Use add\(dense, sparse\) "
                                           "instead."):
        _coo() + ec.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"^add: expected sizes of 'self' and 'other' to match, but \[2, 3\] != "
                                           r"\[3, 3\]$"):
        _coo() + sparse_coo_tensor([[0], [0]], [1.0], (3, 3))
    with pytest.raises(RuntimeError, match=r"^add: expected 'self' and 'other' to have same size, but self has size "
                                           r"\[3, 3\] while other has size \[2, 3\] \(FYI: dense-sparse addition does "
                                           r"not currently support broadcasting\)$"):
        ec.ones(3, 3).add_(_coo())


def test_dense_inplace_and_out_with_sparse_operand():
    d = _scipy().toarray()
    np.testing.assert_array_equal(ec.ones(2, 3, dtype=ec.float64).add_(_coo()).numpy(), 1 + d)
    np.testing.assert_array_equal(ec.ones(2, 3, dtype=ec.float64).sub_(_coo(), alpha=0.5).numpy(), 1 - d / 2)
    np.testing.assert_array_equal(ec.full((2, 3), 2.0).add_(_coo()).numpy(), 2 + d)  # float64 into float32
    np.testing.assert_array_equal(ec.full((2, 3), 3.0, dtype=ec.float64).mul_(_coo()).numpy(), 3 * d)
    out = ec.empty(2, 3, dtype=ec.float64)
    assert ec.add(ec.ones(2, 3, dtype=ec.float64), _coo(), out=out) is out
    np.testing.assert_array_equal(out.numpy(), 1 + d)
    with pytest.raises(RuntimeError, match="^Can't convert result type Double to output Long in add operation$"):
        ec.ones(2, 3, dtype=ec.int64).add_(_coo())
    with pytest.raises(RuntimeError, match=r"^add: expected 'self' and 'other' to have same size, but self has size "
                                           r"\[3\] while other has size \[2, 3\]"):
        ec.ones(3, dtype=ec.float64) + _coo()


def _divisor_message(shape):
    return rf"^Sparse division requires a scalar or zero-dim dense tensor divisor \(got shape \{shape} for divisor\)$"


def test_sparse_division_takes_scalar_divisors_only_as_pytorch():
    s, d = _coo(), ec.ones(2, 3, dtype=ec.float64)
    for call, shape in ((lambda: s / ec.ones(3, dtype=ec.float64), [3]), (lambda: s / s, [2, 3]),
                        (lambda: d / s, [2, 3]), (lambda: ec.div(d, s), [2, 3]), (lambda: s.div_(s), [2, 3])):
        with pytest.raises(RuntimeError, match=_divisor_message(shape)):
            call()
    np.testing.assert_array_equal((s / ec.tensor(2.0, dtype=ec.float64)).to_dense().numpy(),
                                  _scipy().toarray() / 2)


def test_layout_errors_in_pytorch_words():
    s = _coo()
    hybrid = sparse_coo_tensor([[0]], ec.ones(1, 2), (2, 2))
    with pytest.raises(RuntimeError, match=r"^t\(\) expects a tensor with <= 2 sparse and 0 dense dimensions, but "
                                           "got 1 sparse and 1 dense dimensions$"):
        hybrid.t()
    with pytest.raises(RuntimeError, match="^sparse transpose: transposed dimensions must be sparse Got sparse_dim: 1, "
                                           "d0: 0, d1: 1$"):
        hybrid.transpose(0, -1)
    with pytest.raises(RuntimeError, match=r"^sparse_binary_op_intersection_cpu\(\): expects sparse inputs with "
                                           "equal dimensionality"):
        s * sparse_coo_tensor([[0], [0]], [1.0], (3, 3))
    with pytest.raises(RuntimeError, match="^col_indices expected sparse row compressed tensor layout but got Sparse$"):
        s.col_indices()


def test_sum():
    d = _scipy().toarray()
    assert sparse_sum(_coo()).item() == d.sum()
    r = sparse_sum(_coo(), 1)
    assert isinstance(r, SparseTensor)
    np.testing.assert_array_equal(r.to_dense().numpy(), d.sum(1))
    np.testing.assert_array_equal(sparse_sum(_coo(), (0, 1)).numpy(), d.sum())


@pytest.mark.parametrize("dtype", [ec.float32, ec.float64])
def test_mm_against_scipy(dtype):
    rng = np.random.default_rng(0)
    m = sp.random(40, 30, density=0.1, random_state=1, format="coo")
    x = rng.standard_normal((30, 7))
    s = sparse_coo_tensor(np.stack([m.row, m.col]), ec.tensor(m.data, dtype=dtype), m.shape)
    tol = 1e-5 if dtype is ec.float32 else 1e-12
    ref = m @ x
    np.testing.assert_allclose(sparse_mm(s, ec.tensor(x, dtype=dtype)).numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose((s @ ec.tensor(x, dtype=dtype)).numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(ec.mm(s, ec.tensor(x, dtype=dtype)).numpy(), ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(ec.matmul(s, ec.tensor(x[:, 0], dtype=dtype)).numpy(), ref[:, 0], rtol=tol, atol=tol)
    np.testing.assert_allclose((ec.tensor(x.T, dtype=dtype) @ s.t()).numpy(), ref.T, rtol=tol, atol=tol)
    b = rng.standard_normal((40, 7))
    np.testing.assert_allclose(ec.addmm(ec.tensor(b, dtype=dtype), s, ec.tensor(x, dtype=dtype), beta=2, alpha=3)
                               .numpy(), 2 * b + 3 * ref, rtol=tol * 10, atol=tol * 10)


def test_mm_errors():
    # PyTorch's words: a COO product is addmm naming its dense argument, a CSR one says mat1 and mat2, mv its own
    for product in (sparse_mm, ec.mm, ec.matmul, lambda a, b: a @ b):
        with pytest.raises(RuntimeError) as e:
            product(_coo(), ec.ones(2, 2, dtype=ec.float64))
        assert str(e.value) == "addmm: Argument #3 (dense): Expected dim 0 size 3, got 2"
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x2\)"):
        sparse_mm(_coo().to_sparse_csr(), ec.ones(2, 2, dtype=ec.float64))
    for product in (ec.mv, ec.matmul):
        with pytest.raises(RuntimeError) as e:
            product(_coo(), ec.ones(2, dtype=ec.float64))
        assert str(e.value) == "mv: expected self.size(-1) == vec.size(-1)"
    np.testing.assert_allclose(ec.mv(_coo(), ec.ones(3, dtype=ec.float64)).numpy(), _scipy() @ np.ones(3))
    # the sparse kernels' dtype check: "expected scalar type <sparse> but found <dense>", mm and mv alike
    for product, dense, name in ((sparse_mm, ec.ones(3, 2), "Float"), (ec.mv, ec.ones(3), "Float"),
                                 (ec.matmul, ec.ones(3, 2, dtype=ec.int64), "Long"),
                                 (ec.matmul, ec.ones(3, dtype=ec.int32), "Int")):
        with pytest.raises(RuntimeError) as e:
            product(_coo(), dense)
        assert str(e.value) == f"expected scalar type Double but found {name}"


def test_csr_against_scipy():
    m = sp.random(6, 5, density=0.4, random_state=3, format="csr")
    s = sparse_csr_tensor(m.indptr.astype(np.int64), m.indices.astype(np.int64), ec.tensor(m.data), m.shape)
    assert s.layout is ec.sparse_csr and s.is_sparse_csr
    np.testing.assert_array_equal(s.to_dense().numpy(), m.toarray())
    np.testing.assert_array_equal(s.crow_indices().numpy(), m.indptr)
    x = np.arange(10.0).reshape(5, 2)
    np.testing.assert_allclose((s @ ec.tensor(x)).numpy(), m @ x)
    back = ec.tensor(m.toarray()).to_sparse_csr()
    np.testing.assert_array_equal(back.col_indices().numpy(), m.indices)
    np.testing.assert_array_equal(s.to_sparse().to_dense().numpy(), m.toarray())


def test_csc_against_scipy():
    m = sp.random(5, 6, density=0.4, random_state=4, format="csc")
    s = sparse_csc_tensor(m.indptr.astype(np.int64), m.indices.astype(np.int64), ec.tensor(m.data), m.shape)
    assert s.layout is ec.sparse_csc and not s.is_sparse and not s.is_sparse_csr and s.sparse_dim() == 2
    np.testing.assert_array_equal(s.to_dense().numpy(), m.toarray())
    np.testing.assert_array_equal(s.ccol_indices().numpy(), m.indptr)
    np.testing.assert_array_equal(s.row_indices().numpy(), m.indices)
    x = np.arange(12.0).reshape(6, 2)
    np.testing.assert_allclose((s @ ec.tensor(x)).numpy(), m @ x)
    np.testing.assert_allclose((ec.tensor(x.T) @ s.t()).numpy(), x.T @ m.T.toarray())
    back = ec.tensor(m.toarray()).to_sparse_csc()
    np.testing.assert_array_equal(back.ccol_indices().numpy(), m.indptr)
    np.testing.assert_array_equal(back.values().numpy(), m.data)
    csr = s.to_sparse_csr()
    assert csr.layout is ec.sparse_csr
    np.testing.assert_array_equal(csr.crow_indices().numpy(), m.tocsr().indptr)
    np.testing.assert_array_equal(csr.to_sparse_csc().row_indices().numpy(), m.indices)
    t = csr.t()  # CSR^T is CSC over the same parts, as PyTorch's
    assert t.layout is ec.sparse_csc and tuple(t.shape) == (6, 5)
    np.testing.assert_array_equal(t.to_dense().numpy(), m.T.toarray())
    coo = s.to_sparse()
    assert coo.layout is ec.sparse_coo and not coo.is_coalesced()
    np.testing.assert_array_equal(coo.to_dense().numpy(), m.toarray())


def test_csc_invariants_and_layout_errors():
    with pytest.raises(RuntimeError, match=r"^`ccol_indices\[..., -1\] == nnz` is not satisfied.$"):
        sparse_csc_tensor([0, 1, 4], [0, 1, 2], [1.0, 2.0, 3.0], (3, 2))
    with pytest.raises(RuntimeError, match=r"^`crow_indices\[..., 0\] == 0` is not satisfied.$"):  # checked first
        sparse_csr_tensor([1, 5], [0, 1], [1.0, 2.0], (1, 3))
    with pytest.raises(RuntimeError, match="^`0 <= row_indices < nrows` is not satisfied.$"):
        sparse_csc_tensor([0, 1, 3], [0, 1, 5], [1.0, 2.0, 3.0], (3, 2))
    with pytest.raises(RuntimeError, match=r"^ccol_indices.shape\[-1\] must be equal to the number of columns \+ 1 "
                                           r"\(=3\), but got 4$"):
        sparse_csc_tensor([0, 1, 3, 3], [0, 1, 2], [1.0, 2.0, 3.0], (3, 2))
    s = ec.tensor(np.eye(2)).to_sparse_csc()
    for call, msg in ((s.crow_indices, "crow_indices expected sparse row compressed tensor layout but got SparseCsc"),
                      (s.indices, "indices expected sparse coordinate tensor layout but got SparseCsc"),
                      (s.stride, "Sparse CSC tensors do not have strides"),
                      (lambda: s / 2, "unsupported tensor layout: SparseCsc"),
                      (ec.ones(2).row_indices, "row_indices expected sparse column compressed tensor layout but "
                                               "got Strided"),
                      (ec.tensor(np.eye(2)).to_sparse().ccol_indices, "ccol_indices expected sparse column "
                                                                       "compressed tensor layout but got Sparse")):
        with pytest.raises(RuntimeError, match=f"^{msg}$"):
            call()


def test_csr_invariants():
    with pytest.raises(RuntimeError, match=r"`crow_indices\[..., -1\] == nnz` is not satisfied."):
        sparse_csr_tensor([0, 1, 4], [2, 0, 2], [3.0, 4.0, 5.0], (2, 3))
    with pytest.raises(RuntimeError, match="`0 <= col_indices < ncols` is not satisfied."):
        sparse_csr_tensor([0, 1, 3], [2, 0, 3], [3.0, 4.0, 5.0], (2, 3))


def test_csr_division_refused_as_pytorch_multiplication_kept():
    s = ec.tensor(np.eye(2)).to_sparse_csr()
    for call in (lambda: s / 4, lambda: s.div(4), lambda: s.div_(2), lambda: ec.div(s, 2)):
        with pytest.raises(RuntimeError, match="^unsupported tensor layout: SparseCsr$"):
            call()
    np.testing.assert_array_equal((s * 0.25).to_dense().numpy(), np.eye(2) / 4)


def test_softmax_of_dense_and_addmm_into_sparse_refused_as_pytorch():
    from ember.core.sparse_ops import sparse_addmm, sparse_log_softmax, sparse_softmax

    for fn, name in ((sparse_softmax, "softmax"), (sparse_log_softmax, "log_softmax")):
        with pytest.raises(NotImplementedError, match=f"^Could not run 'aten::_sparse_{name}' with arguments from the "
                                                      "'CPU' backend. "):
            fn(ec.ones(2, 3), 1)
        for compressed in (ec.eye(2).to_sparse_csr(), ec.eye(2).to_sparse_csc()):
            with pytest.raises(NotImplementedError, match=f"^Could not run 'aten::_sparse_{name}' with arguments from "
                                                          "the 'SparseCsrCPU' backend. "):
                fn(compressed, 1)
    with pytest.raises(RuntimeError, match="^addmm_sparse_dense: expected strided result tensor, got tensor with "
                                           "layout Sparse$"):
        sparse_addmm(_coo(), _coo(), ec.ones(3, 3, dtype=ec.float64))


def test_function_forms_of_zero_preserving_ops_answer_sparse():
    s = sparse_coo_tensor(IDX, ec.tensor([-3.0, 4.0, -5.0, 1.0], dtype=ec.float64), (2, 3))
    d = sp.coo_matrix(([-3.0, 4.0, -5.0, 1.0], (IDX[0], IDX[1])), shape=(2, 3)).toarray()
    for fn, ref in ((ec.abs, np.abs(d)), (ec.neg, -d), (ec.relu, np.maximum(d, 0)), (ec.sin, np.sin(d))):
        r = fn(s)
        assert isinstance(r, SparseTensor) and r.layout is ec.sparse_coo
        np.testing.assert_allclose(r.to_dense().numpy(), ref)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::exp' with arguments from the 'SparseCPU'"):
        ec.exp(s)  # not zero-preserving: still refused


def test_cat_and_stack_of_coo_tensors():
    a, b = _coo(), sparse_coo_tensor([[1], [0]], ec.tensor([7.0], dtype=ec.float64), (2, 3))
    d = np.concatenate([_scipy().toarray(), [[0, 0, 0], [7, 0, 0]]])
    r = ec.cat([a, b])
    assert isinstance(r, SparseTensor) and tuple(r.shape) == (4, 3) and not r.is_coalesced()
    np.testing.assert_array_equal(r.to_dense().numpy(), d)
    np.testing.assert_array_equal(r._indices().numpy()[:, :4], np.array(IDX))  # the inputs' order, shifted after
    np.testing.assert_array_equal(ec.cat([a, b], 1).to_dense().numpy(),
                                  np.concatenate([_scipy().toarray(), d[2:]], 1))
    np.testing.assert_array_equal(ec.stack([a, b], 1).to_dense().numpy(), np.stack([d[:2], d[2:]], 1))
    with pytest.raises(RuntimeError, match="^Concatenating sparse tensors, but a dense tensor was found at position "
                                           "1.$"):
        ec.cat([a, ec.ones(2, 3, dtype=ec.float64)])
    with pytest.raises(RuntimeError, match=r"^All tensors must have the same shape: \[2, 3\] \(except in the "
                                           r"concatenating dimension\), but found shape: \[2, 4\] at position 1.$"):
        ec.cat([a, sparse_coo_tensor([[0], [0]], [1.0], (2, 4))])


def test_sparse_mask_keeps_the_masks_indices():
    d = ec.tensor(np.arange(6.0).reshape(2, 3))
    m = d.sparse_mask(_coo())  # uncoalesced: each index, duplicates included, reads the dense entry
    np.testing.assert_array_equal(m._indices().numpy(), np.array(IDX))
    np.testing.assert_array_equal(m._values().numpy(), np.arange(6.0).reshape(2, 3)[IDX[0], IDX[1]])
    assert not m.is_coalesced() and d.sparse_mask(_coo().coalesce()).is_coalesced()
    with pytest.raises(RuntimeError, match=r"^sparse_mask\(\): operands have incompatible sizes; self has size "
                                           r"\[3, 3\] but mask has size \[2, 3\]$"):
        ec.ones(3, 3).sparse_mask(_coo())


def test_select_narrow_copy_unsqueeze_and_inplace_unary():
    s = _coo()  # (0, 2) twice
    d = _scipy().toarray()
    r = s.select(1, 2)
    assert isinstance(r, SparseTensor) and not r.is_coalesced()
    assert s.coalesce().narrow_copy(0, 0, 2).is_coalesced() and not s.coalesce().unsqueeze(0).is_coalesced()
    np.testing.assert_array_equal(r.to_dense().numpy(), d[:, 2])
    np.testing.assert_array_equal(s.narrow_copy(1, 1, 2).to_dense().numpy(), d[:, 1:3])
    np.testing.assert_array_equal(s.unsqueeze(1).to_dense().numpy(), d[:, None, :])
    hybrid = ec.tensor(np.arange(6.0).reshape(3, 2)).to_sparse(1)
    np.testing.assert_array_equal(hybrid.unsqueeze(2).to_dense().numpy(), np.arange(6.0).reshape(3, 2, 1))
    np.testing.assert_array_equal(hybrid.select(0, 1).numpy(), [2.0, 3.0])  # no sparse dim left: dense
    with pytest.raises(RuntimeError, match=r"^Invalid range to narrow. range\(start, start\+length\) must be a "
                                           r"subset of range\(0, 3\).$"):
        s.narrow_copy(1, 2, 5)
    np.testing.assert_array_equal(s.clone().neg_().to_dense().numpy(), -d)
    with pytest.raises(RuntimeError, match="^abs_ requires coalesced input$"):
        s.clone().abs_()
    np.testing.assert_array_equal((-s).coalesce().abs_().to_dense().numpy(), d)
    with pytest.raises(RuntimeError, match="^dtype argument is not supported by sparse_to_dense$"):
        s.to_dense(ec.float32)


def test_softmax_over_stored_elements():
    from ember.core.sparse_ops import sparse_log_softmax, sparse_softmax

    d = np.where(_scipy().toarray() != 0, _scipy().toarray(), -np.inf)
    ref = np.exp(d - d.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(sparse_softmax(_coo(), 1).to_dense().numpy(), ref)
    got = sparse_log_softmax(_coo(), 1).to_dense().numpy()
    np.testing.assert_allclose(got[ref > 0], np.log(ref[ref > 0]))


@pytest.mark.parametrize("call, op", [(lambda s: ec.exp(s), "exp"), (lambda s: ec.ones(2, 3).copy_(s), "copy_"),
                                      (lambda s: s.view(6), "view"), (lambda s: s[0:], "as_strided"),
                                      (lambda s: ec.maximum(ec.ones(2, 3), s), "maximum"),
                                      (lambda s: s.item(), "item"), (lambda s: s.max(), "max"),
                                      (lambda s: ec.min(s), "min"), (lambda s: s.amax(), "amax"),
                                      (lambda s: s.max(1), "max.dim"), (lambda s: s.min(dim=0), "min.dim")])
def test_dense_ops_refuse_sparse_with_op_and_layout(call, op):
    with pytest.raises(NotImplementedError, match=f"Could not run 'aten::{re.escape(op)}' with arguments from the "
                                                  "'SparseCPU' backend.*sparse_coo"):
        call(_coo())


def test_numpy_and_reshape_refused_like_pytorch():
    with pytest.raises(TypeError, match=r"can't convert Sparse layout tensor to numpy. Use Tensor.to_dense\(\) first."):
        _coo().numpy()
    with pytest.raises(RuntimeError, match="reshape is not implemented for sparse tensors"):
        _coo().reshape(6)


def test_permute_and_T():
    d = _scipy().toarray()
    np.testing.assert_array_equal(_coo().T.to_dense().numpy(), d.T)
    np.testing.assert_array_equal(_coo().permute(1, 0).to_dense().numpy(), d.T)
    hybrid = ec.tensor(np.arange(24.0).reshape(2, 3, 4)).to_sparse(2)
    np.testing.assert_array_equal(hybrid.permute(1, 0, 2).to_dense().numpy(), np.arange(24.0).reshape(2, 3, 4)
                                  .transpose(1, 0, 2))
    with pytest.raises(RuntimeError, match="transpositions between sparse and dense dimensions are not allowed"):
        hybrid.permute(2, 0, 1)


def test_dense_op_error_names_the_op():
    with pytest.raises(NotImplementedError, match="Could not run 'aten::exp'"):
        ec.exp(_coo())


def test_dense_mm_path_unchanged_for_dense_errors():
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        ec.mm(ec.ones(2, 3), ec.ones(2, 2))


def test_clone_detach_to():
    s = _coo()
    c = s.clone()
    assert c._indices() is not s._indices()
    np.testing.assert_array_equal(c.to_dense().numpy(), s.to_dense().numpy())
    f = s.to(ec.float32)
    assert f.dtype is ec.float32 and f.layout is ec.sparse_coo
    assert s.cpu() is s


def test_copy_takes_the_source_pattern():
    s = _coo()
    dst = sparse_coo_tensor([[0], [0]], ec.tensor([9.0], dtype=ec.float64), (2, 3))
    dst @ ec.ones(3, 1, dtype=ec.float64)  # builds and caches dst's pattern, which copy_ must drop
    dst.copy_(s.to(ec.float32))
    assert dst.dtype is ec.float64
    np.testing.assert_array_equal(dst.to_dense().numpy(), s.to_dense().numpy())
    np.testing.assert_array_equal((dst @ ec.ones(3, 1, dtype=ec.float64)).numpy(),
                                  s.to_dense().numpy().sum(1, keepdims=True))


def test_copy_resizes_a_growing_coo_and_refuses_a_shrinking_one():
    grown = _coo().copy_(sparse_coo_tensor([[2], [3]], ec.tensor([7.0], dtype=ec.float64), (3, 4)))
    assert grown.shape == (3, 4) and grown.to_dense().numpy()[2, 3] == 7.0 and grown._nnz() == 1
    with pytest.raises(RuntimeError, match=re.escape("shrinking the size of sparse dimensions (from [2, 3] to [1, 3]) "
                                                     "on a non-empty sparse tensor is not supported.\nYou could")):
        _coo().copy_(sparse_coo_tensor([[0], [0]], ec.tensor([1.0], dtype=ec.float64), (1, 3)))
    empty = sparse_coo_tensor(ec.zeros((2, 0), dtype=ec.int64), ec.zeros(0, dtype=ec.float64), (5, 5))
    np.testing.assert_array_equal(empty.copy_(_coo()).to_dense().numpy(), _scipy().toarray())


def test_indices_are_copied_so_later_writes_cannot_escape_the_check():
    i = ec.tensor([[0, 1], [1, 0]])
    s = sparse_coo_tensor(i, ec.tensor([1.0, 2.0], dtype=ec.float64), (2, 2))
    i.fill_(100)  # out of range now, had the tensor kept the caller's memory
    np.testing.assert_array_equal(s.to_dense().numpy(), [[0.0, 1.0], [2.0, 0.0]])
    np.testing.assert_array_equal((s @ ec.ones(2, 1, dtype=ec.float64)).numpy(), [[1.0], [2.0]])


def test_product_rechecks_indices_written_through_indices():
    s = _coo().coalesce()
    s @ ec.ones(3, 1, dtype=ec.float64)  # the pattern is built and kept
    s._indices()[1, 0] = 7  # past the 3 columns: the kept pattern is stale and the new one must not be read
    with pytest.raises(RuntimeError, match="size is inconsistent with indices: for dim 1, size is 3 but found index 7"):
        s @ ec.ones(3, 1, dtype=ec.float64)


def test_is_coalesced_claim_is_checked():
    with pytest.raises(RuntimeError, match="cannot set is_coalesced to true if indices correspond to uncoalesced COO "
                                           "tensor"):
        sparse_coo_tensor([[1, 0], [0, 0]], [1.0, 2.0], (2, 2), is_coalesced=True)
    s = sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2), is_coalesced=True)
    assert s.is_coalesced()


def test_strides_like_pytorch():
    assert _coo().stride() == (0, 0) and _coo().stride(1) == 0
    with pytest.raises(RuntimeError, match="Sparse CSR tensors do not have strides"):
        _coo().to_sparse_csr().stride()
    with pytest.raises(RuntimeError, match="Cannot access data pointer of Tensor that doesn't have storage"):
        _coo().data_ptr()


def test_function_forms_of_add_sub_mul_div_take_a_sparse_operand_as_the_operators():
    s = sparse_coo_tensor([[0, 2, 0]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2))
    d = ec.arange(6.0).reshape(3, 2)
    sd, dd = np.array([[6.0, 8.0], [0.0, 0.0], [3.0, 4.0]]), np.arange(6.0).reshape(3, 2)
    cases = [(ec.mul(s, d), sd * dd, True), (ec.mul(d, s), sd * dd, True), (ec.mul(s, 3), sd * 3, True),
             (ec.add(d, s), dd + sd, False), (ec.add(d, s, alpha=2), dd + 2 * sd, False),
             (ec.add(s, s, alpha=2), 3 * sd, True), (ec.sub(d, s), dd - sd, False), (ec.sub(s, s), 0 * sd, True),
             (ec.div(s, 2.0), sd / 2, True)]
    for got, want, sparse in cases:
        assert got.is_sparse == sparse
        np.testing.assert_array_equal((got.to_dense() if sparse else got).numpy(), want)
    with pytest.raises(RuntimeError, match=r"^add\(sparse, dense\) is not supported. Use add\(dense, sparse\) "
                                           r"instead.$"):
        ec.add(s, d)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::exp' with arguments from the 'SparseCPU'"):
        ec.exp(s)


def test_in_place_arithmetic_keeps_the_tensor_and_merges_as_add():
    a = sparse_coo_tensor([[2, 0]], [1.0, 2.0], (4,))
    same = a
    a += sparse_coo_tensor([[1, 2]], [5.0, 7.0], (4,))
    assert a is same and not a.is_coalesced()
    assert a._indices().tolist() == [[1, 2, 0]]  # PyTorch's merge: 2 and 2 meet, 0 follows
    np.testing.assert_array_equal(a._values().numpy(), [5.0, 8.0, 2.0])
    a *= 2
    a -= sparse_coo_tensor([[3]], [1.0], (4,))
    a /= 4
    assert a is same
    np.testing.assert_array_equal(a.to_dense().numpy(), [1.0, 2.5, 4.0, -0.25])
    a.zero_()
    assert a is same and a._nnz() == 0 and a.is_coalesced() and tuple(a._indices().shape) == (1, 0)


def test_a_dense_op_on_a_sparse_tensor_prints_as_pytorchs_not_implemented_error():
    s = sparse_coo_tensor(ec.tensor([[0, 1]]), ec.tensor([1.0, 2.0]), (3,))
    with pytest.raises(NotImplementedError) as info:
        ec.exp(s)
    assert type(info.value).__name__ == "NotImplementedError"
    assert repr(info.value).startswith("NotImplementedError(\"Could not run 'aten::")


def test_index_select_in_pytorchs_order_with_its_errors():
    """PyTorch's sparse index_select: matches of index[0] in storage order, then index[1]'s; uncoalesced."""
    i = [[2, 0, 1, 0, 2], [0, 1, 2, 2, 1]]
    s = sparse_coo_tensor(i, ec.tensor([1.0, 2.0, 3.0, 4.0, 5.0]), (3, 3))
    o = s.index_select(0, ec.tensor([2, 0, -1]))
    assert o.shape == (3, 3) and not o.is_coalesced()
    assert o._indices().tolist() == [[0, 0, 1, 1, 2, 2], [0, 1, 1, 2, 0, 1]]
    assert o._values().tolist() == [1.0, 5.0, 2.0, 4.0, 1.0, 5.0]
    one = ec.index_select(s, 1, ec.tensor([0]))
    assert one.shape == (3, 1) and one.is_coalesced() and one._indices().tolist() == [[2], [0]]
    np.testing.assert_array_equal(o.to_dense().numpy(), s.to_dense().numpy()[[2, 0, 2]])
    h = sparse_coo_tensor(i, ec.arange(10.0).view(5, 2), (3, 3, 2))
    hd = h.index_select(2, ec.tensor([1]))
    assert hd.shape == (3, 3, 1) and hd._values().flatten().tolist() == [1.0, 3.0, 5.0, 7.0, 9.0]
    with pytest.raises(IndexError, match=r"^index_select\(\): index contains 3 that is out of range for tensor of "
                                         r"size \[3, 3\] at dimension 0$"):
        s.index_select(0, ec.tensor([3]))
    with pytest.raises(IndexError, match=r"argument index must be 1-D strided \(non-sparse\) long-tensor"):
        s.index_select(0, ec.tensor([0], dtype=ec.int32))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        s.index_select(2, ec.tensor([0]))
    with pytest.raises(NotImplementedError, match="'aten::index_select' with arguments from the 'SparseCsrCPU'"):
        s.to_sparse_csr().index_select(0, ec.tensor([0]))


def test_integer_and_bool_casts_and_type_names():
    s = sparse_coo_tensor([[0, 1], [1, 0]], ec.tensor([1.5, -2.0]), (2, 2))
    assert s.type() == "torch.sparse.FloatTensor" and s.double().type() == "torch.sparse.DoubleTensor"
    for conv, dt in (("long", ec.int64), ("int", ec.int32), ("short", ec.int16), ("char", ec.int8),
                     ("byte", ec.uint8), ("bool", ec.bool), ("bfloat16", ec.bfloat16)):
        out = getattr(s, conv)()
        assert out.is_sparse and out.dtype is dt and out._indices().tolist() == [[0, 1], [1, 0]]
    assert s.long().type() == "torch.sparse.LongTensor" and s.long()._values().tolist() == [1, -2]
    assert s.type(ec.float64).dtype is ec.float64
    with pytest.raises(RuntimeError, match="^Unimplemented backend SparseCsrCPU$"):
        s.to_sparse_csr().type()


def test_sparse_times_sparse_is_coalesced_sparse_against_scipy():
    rng = np.random.default_rng(4)
    a = sp.random(6, 5, density=0.4, random_state=1, format="coo")
    b = sp.random(5, 4, density=0.4, random_state=2, format="coo")
    sa = sparse_coo_tensor([a.row.tolist(), a.col.tolist()], ec.tensor(a.data), (6, 5))
    sb = sparse_coo_tensor([b.row.tolist(), b.col.tolist()], ec.tensor(b.data), (5, 4))
    out = sparse_mm(sa, sb)
    assert out.is_sparse and out.is_coalesced() and out.shape == (6, 4)
    np.testing.assert_allclose(out.to_dense().numpy(), (a @ b).toarray(), rtol=1e-12)
    assert (sa @ sa.t()).shape == (6, 6) and rng is not None
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(6x5 and 6x5\)$"):
        sparse_mm(sa, sa)
    with pytest.raises(RuntimeError, match="^mat1 dtype Double does not match mat2 dtype Float$"):
        sparse_mm(sa, sb.to(ec.float32))


def test_compressed_times_compressed_is_csr_with_columns_in_first_touch_order():
    """PyTorch's CSR @ CSR keeps each row's columns in the order its products first reach them (unsorted)."""
    d = np.array([[0.0, 2.0, 0.0, 1.0], [3.0, 0.0, 0.0, 0.0], [0.0, 0.0, 4.0, 5.0]])
    a, b = ec.tensor(d).to_sparse_csr(), ec.tensor(np.ascontiguousarray(d.T)).to_sparse_csr()
    for left, right in ((a, b), (a, b.to_sparse_csc()), (a.to_sparse_csc(), b)):
        out = left @ right
        assert out.layout is ec.sparse_csr
        assert out.crow_indices().tolist() == [0, 2, 3, 5] and out.col_indices().tolist() == [0, 2, 1, 2, 0]
        np.testing.assert_allclose(out.to_dense().numpy(), d @ d.T)
    rng = np.random.default_rng(0)
    x, y = rng.random((6, 7)) * (rng.random((6, 7)) < 0.4), rng.random((7, 8)) * (rng.random((7, 8)) < 0.4)
    out = sparse_mm(ec.tensor(x).to_sparse_csr(), ec.tensor(y).to_sparse_csr())
    crow, col = out.crow_indices().tolist(), out.col_indices().tolist()
    for i in range(6):
        first = list(dict.fromkeys(k for j in np.flatnonzero(x[i]) for k in np.flatnonzero(y[j])))
        assert col[crow[i]:crow[i + 1]] == first
    np.testing.assert_allclose(out.to_dense().numpy(), x @ y, rtol=1e-12)


def test_coo_times_compressed_has_no_kernel_named_by_the_added_layout():
    coo, csr = ec.eye(2).to_sparse(), ec.eye(2).to_sparse_csr()
    with pytest.raises(RuntimeError, match=r"^addmm: computation on CPU is not implemented for Sparse \+ Sparse @ "
                                           r"SparseCsr$"):
        coo @ csr
    with pytest.raises(RuntimeError, match=r"for SparseCsr \+ Sparse @ SparseCsr$"):
        sparse_mm(coo, csr)  # torch.sparse.mm adds to a zero of mat2's layout
    with pytest.raises(RuntimeError, match=r"for SparseCsc \+ SparseCsr @ SparseCsc$"):
        sparse_mm(csr, csr.to_sparse_csc())
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Float$"):
        csr @ csr.to(ec.float64)  # the compressed kernel's words; COO's name mat1 and mat2


def test_dsmm_is_mm_and_hsmm_is_hspmm():
    from ember.core.sparse_ops import dsmm, hsmm

    s, d = ec.eye(3, 4).to_sparse(), ec.arange(8.0).view(4, 2)
    np.testing.assert_array_equal(dsmm(s, d).numpy(), np.eye(3, 4) @ np.arange(8.0).reshape(4, 2))
    np.testing.assert_array_equal(dsmm(d.t(), d).numpy(), d.t().numpy() @ d.numpy())
    assert hsmm(s, d).sparse_dim() == 1 and hsmm(s, d)._values().tolist() == hspmm(s, d)._values().tolist()
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'mat2' \(position 2\) must be Tensor, not int$"):
        dsmm(s, 3)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-1, 0\], but got "
                                         r"1\)$"):
        ec.mm(s, ec.ones(4))  # torch.mm takes no vector, a sparse mat1's neither


def test_int32_compressed_indices_stay_int32_through_compressed_ops():
    """PyTorch keeps a CSR/CSC tensor's int32 indices through its compressed ops; sparse_mask and sampled_addmm
    write int64 ones, a COO conversion int64, other index dtypes become int64."""
    i32 = ec.int32
    c = sparse_csr_tensor(ec.tensor([0, 1, 3], dtype=i32), ec.tensor([2, 0, 1], dtype=i32), ec.tensor([1.0, 2, 3]),
                          (2, 3))
    assert c.crow_indices().dtype is i32 and c.col_indices().dtype is i32
    for out in (c * 2, c + c, -c, c.clone(), c.double(), c.sum(dim=1, keepdim=True), c.to_sparse_csc().to_sparse_csr()):
        assert out.crow_indices().dtype is i32 and out.col_indices().dtype is i32
    assert c.to_sparse_csc().ccol_indices().dtype is i32 and c.t().row_indices().dtype is i32
    assert (c * ec.ones(2, 3)).crow_indices().dtype is ec.int64 and c.to_sparse_coo().indices().dtype is ec.int64
    np.testing.assert_array_equal((c @ ec.ones(3, 1)).numpy().ravel(), [1.0, 5.0])
    csc = sparse_csc_tensor(ec.tensor([0, 1, 2, 3], dtype=i32), ec.tensor([1, 1, 0], dtype=i32), ec.tensor([1.0, 2, 3]),
                            (2, 3))
    assert csc.row_indices().dtype is i32
    mixed = sparse_csr_tensor(ec.tensor([0, 1, 3], dtype=i32), ec.tensor([2, 0, 1]), ec.tensor([1.0, 2, 3]), (2, 3))
    assert mixed.crow_indices().dtype is ec.int64


def test_sparse_compressed_tensor_builds_by_layout_and_refuses_others_in_pytorchs_words():
    from ember.core.sparse import sparse_compressed_tensor

    ptr, idx, v = [0, 1, 3], [2, 0, 1], ec.tensor([1.0, 2.0, 3.0])
    csr = sparse_compressed_tensor(ptr, idx, v, (2, 3), layout=ec.sparse_csr)
    csc = sparse_compressed_tensor(ptr, idx, v, (3, 2), layout=ec.sparse_csc, dtype=ec.float64)
    np.testing.assert_array_equal(csr.to_dense().numpy(), [[0, 0, 1], [2, 3, 0]])
    assert csc.layout is ec.sparse_csc and csc.dtype is ec.float64
    np.testing.assert_array_equal(csc.to_dense().numpy(), [[0, 2], [0, 3], [1, 0]])
    for layout, name in ((None, "none"), (ec.sparse_coo, "Sparse"), (ec.strided, "Strided")):
        with pytest.raises(RuntimeError, match=f"^sparse_compressed_tensor expected sparse compressed tensor layout "
                                               f"but got {name}$"):
            sparse_compressed_tensor(ptr, idx, v, (2, 3), layout=layout)


def test_like_factories_keep_a_sparse_inputs_layout():
    s = sparse_coo_tensor([[0, 1], [1, 0]], ec.tensor([1.0, 2.0]), (2, 3))
    for z in (ec.zeros_like(s), ec.empty_like(s), ec.zeros_like(s, dtype=ec.float64)):
        assert z.is_sparse and z.shape == (2, 3) and z._nnz() == 0
    assert not ec.zeros_like(s, layout=ec.strided).is_sparse
    for call in (lambda: ec.ones_like(s), lambda: ec.full_like(s, 2.0)):
        with pytest.raises(NotImplementedError, match="'aten::fill_.Scalar' with arguments from the 'SparseCPU'"):
            call()


def test_zero_preserving_unary_methods_coalesce_first():
    s = sparse_coo_tensor([[0, 1, 1, 2, 0], [1, 0, 2, 1, 1]], ec.tensor([-1.0, 2.0, -3.0, 4.0, 5.0]), (3, 3))
    dense = s.to_dense().numpy()
    for name, ref in (("abs", np.abs), ("sqrt", lambda a: np.sqrt(np.abs(a))), ("tanh", np.tanh), ("sign", np.sign),
                      ("square", np.square), ("expm1", np.expm1)):
        src = s.abs() if name == "sqrt" else s
        out = getattr(src, name)()
        assert out.is_sparse and out.is_coalesced() and out._nnz() == 4
        np.testing.assert_allclose(out.to_dense().numpy(), ref(dense), rtol=1e-6)
    assert s.isnan().dtype is ec.bool and s.relu().to_dense().numpy().min() == 0.0
    np.testing.assert_allclose((s ** 2).to_dense().numpy(), dense ** 2)
    np.testing.assert_allclose(s.pow(-1)._values().numpy(), 1 / s.coalesce()._values().numpy())
    with pytest.raises(RuntimeError, match="^pow: cannot raise to zeroth power on sparse tensor; it would make"):
        s.pow(0)
    assert s.to_sparse_csr().abs().is_sparse_csr


def test_integer_and_bool_casts_of_a_coo_tensor_cast_each_stored_value_as_pytorch_does():
    # duplicates stay uncoalesced: each value casts before to_dense sums them (-2.7 -> -2, + 0.5 -> 0: -2)
    s = sparse_coo_tensor(ec.tensor([[0, 1, 1], [1, 0, 0]]), ec.tensor([1.5, -2.7, 0.5]), (2, 2))
    want = {"long": [[0, 1], [-2, 0]], "int": [[0, 1], [-2, 0]], "short": [[0, 1], [-2, 0]],
            "char": [[0, 1], [-2, 0]], "byte": [[0, 1], [254, 0]], "bool": [[False, True], [True, False]]}
    for name, dense in want.items():
        t = getattr(s, name)()
        assert t.layout is ec.sparse_coo and not t.is_coalesced() and t.to_dense().tolist() == dense, name
    assert s.long().dtype is ec.int64 and s.bfloat16().dtype is ec.bfloat16 and s.bool().dtype is ec.bool


@pytest.mark.parametrize("p, want", [(None, np.sqrt(14.0)), ("fro", np.sqrt(14.0)), (1, 6.0), (3, 36.0 ** (1 / 3)),
                                     (np.inf, 3.0), (-np.inf, 1.0), (0, 3.0)])
def test_torch_norm_of_a_sparse_tensor_is_the_norm_of_all_its_elements(p, want):
    s = ec.tensor([[1.0, -2.0], [0.0, 3.0]]).to_sparse()
    for r in (ec.norm(s, p=p), s.norm(p), ec.norm(s, p=p, dim=(1, 0))):
        assert r.shape == () and r.item() == pytest.approx(want, rel=1e-6)
    # duplicates are summed first, a dense dim counts too
    assert ec.norm(sparse_coo_tensor([[0, 0]], [1.0, 2.0], (2,))).item() == 3.0
    assert ec.norm(ec.ones(2, 2, 3).to_sparse(2)).item() == pytest.approx(12 ** 0.5)


@pytest.mark.parametrize("call, error, message", [
    (lambda s: ec.norm(s, dim=0), RuntimeError, "norm_sparse currently only supports full reductions, so 'dim' must "
                                                "either be empty or contain all dimensions of the input"),
    (lambda s: ec.norm(s, p=1, dim=1, keepdim=True), RuntimeError, "norm_sparse currently only supports full"),
    (lambda s: ec.norm(s, keepdim=True), RuntimeError, "norm_sparse currently does not support keepdim=True"),
    (lambda s: ec.norm(s, p=2, dtype=ec.float64), RuntimeError, "norm_sparse currently does not support 'dtype'"),
    (lambda s: ec.norm(s, dtype=ec.float64), ValueError, "dtype argument is not supported in frobenius norm"),
    (lambda s: ec.norm(s, p="abc"), RuntimeError, "only valid string values are 'fro' and 'nuc', found abc"),
    (lambda s: ec.norm(s, p="nuc"), NotImplementedError, "Could not run 'aten::_linalg_svd' with arguments from the "
                                                         "'SparseCPU' backend"),
    (lambda s: ec.norm(s, out=ec.empty(())), NotImplementedError, "Could not run 'aten::norm.out'"),
    (lambda s: ec.norm(s.to_sparse_csr()), NotImplementedError, "Could not run 'aten::norm.out' with arguments from "
                                                                "the 'SparseCsrCPU' backend"),
    (lambda s: ec.norm(s.long()), RuntimeError, "norm(): input dtype should be either floating point or complex. "
                                                "Got Long instead."),
])
def test_torch_norm_of_a_sparse_tensor_refuses_as_pytorchs_sparse_kernel(call, error, message):
    with pytest.raises(error, match="^" + re.escape(message)):
        call(ec.tensor([[1.0, -2.0], [0.0, 3.0]]).to_sparse())


def test_function_forms_of_select_narrow_copy_unsqueeze_pow_and_sum():
    """`torch.select(s, ...)` & co answer as the methods (PyTorch's sparse kernels); values as PyTorch 2.13's."""
    s = ec.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]).to_sparse()
    r = ec.select(s, 0, 1)
    assert isinstance(r, SparseTensor) and r.shape == (3,)
    np.testing.assert_array_equal(r._indices().numpy(), [[0, 2]])
    np.testing.assert_array_equal(r._values().numpy(), [3.0, 4.0])
    n = ec.narrow_copy(s, 1, 0, 2)
    np.testing.assert_array_equal(n.to_dense().numpy(), [[0.0, 2.0], [3.0, 0.0]])
    u = ec.unsqueeze(s, 0)
    assert u.shape == (1, 2, 3) and u.sparse_dim() == 3
    np.testing.assert_array_equal(u._indices().numpy(), [[0, 0, 0], [0, 1, 1], [1, 0, 2]])
    p = ec.pow(s, 2)
    assert isinstance(p, SparseTensor)
    np.testing.assert_array_equal(p._values().numpy(), [4.0, 9.0, 16.0])
    assert ec.sum(s).item() == 9.0
    np.testing.assert_array_equal(ec.sum(s, 1).to_dense().numpy(), [2.0, 7.0])
    with pytest.raises(IndexError, match=r"select\(\): index 2 out of range"):
        ec.select(s, 0, 2)


def test_sum_keepdim_as_pytorch():
    s = ec.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0], [1.0, 0.0, 0.0]]).to_sparse()
    k = s.sum(1, keepdim=True)
    assert isinstance(k, SparseTensor) and k.shape == (3, 1) and k.sparse_dim() == 2 and not k.is_coalesced()
    np.testing.assert_array_equal(k._indices().numpy(), [[0, 1, 2], [0, 0, 0]])
    np.testing.assert_array_equal(k._values().numpy(), [2.0, 7.0, 1.0])
    k0 = ec.sum(s, 0, keepdim=True)
    np.testing.assert_array_equal(k0.to_dense().numpy(), [[4.0, 2.0, 4.0]])
    assert k0._indices().numpy().tolist() == [[0, 0, 0], [0, 1, 2]]
    whole = s.sum((0, 1), keepdim=True)  # every sparse dim summed: dense, as PyTorch's
    assert type(whole) is ec.Tensor and whole.numpy().tolist() == [[10.0]]
    h = ec.arange(12.0).view(3, 2, 2).to_sparse(1)
    hd = h.sum(2, keepdim=True)
    assert hd.shape == (3, 2, 1) and hd.sparse_dim() == 1 and hd._values().shape == (3, 2, 1)
    np.testing.assert_array_equal(hd.to_dense().numpy(), np.arange(12.0).reshape(3, 2, 2).sum(2, keepdims=True))
    np.testing.assert_array_equal(h.sum(0, keepdim=True).numpy(), [[[12.0, 15.0], [18.0, 21.0]]])


def test_int_index_of_a_coo_tensor():
    s = ec.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]]).to_sparse()
    for i in (1, -1, np.int64(1), ec.tensor(1)):
        r = s[i]
        assert isinstance(r, SparseTensor) and r.shape == (3,) and not r.is_coalesced()
        np.testing.assert_array_equal(r._values().numpy(), [3.0, 4.0])
    assert s[1, 2].item() == 4.0 and s[0][1].item() == 2.0 and s[0, 0].item() == 0.0
    one = sparse_coo_tensor([[1, 1]], [1.0, 2.0], (2,))  # duplicates summed, as PyTorch's
    assert type(one[1]) is ec.Tensor and one[1].item() == 3.0 and one[0].item() == 0.0
    with pytest.raises(IndexError, match="^index 5 is out of bounds for dimension 0 with size 2$"):
        s[5]
    with pytest.raises(IndexError, match="^index 3 is out of bounds for dimension 1 with size 3$"):
        s[1, 3]
    with pytest.raises(NotImplementedError, match="aten::as_strided"):
        s[1:]


def test_compressed_add_and_csc_pickling():
    import pickle

    a = ec.tensor([[0.0, 2.0, 0.0], [3.0, 0.0, 4.0]])
    b = ec.tensor([[1.0, 0.0, 0.0], [-3.0, 0.0, 1.0]])
    r = a.to_sparse_csr() + b.to_sparse_csr()  # PyTorch 2.13's: the merged pattern, the explicit zero kept
    assert r.layout is ec.sparse_csr
    np.testing.assert_array_equal(r.crow_indices().numpy(), [0, 2, 4])
    np.testing.assert_array_equal(r.col_indices().numpy(), [0, 1, 0, 2])
    np.testing.assert_array_equal(r.values().numpy(), [1.0, 2.0, 0.0, 5.0])
    c = a.to_sparse_csc()
    cc = c + c
    assert cc.layout is ec.sparse_csc
    np.testing.assert_array_equal(cc.ccol_indices().numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(cc.values().numpy(), [6.0, 4.0, 8.0])
    np.testing.assert_array_equal(c.sub(b.to_sparse_csc(), alpha=2).to_dense().numpy(), (a - 2 * b).numpy())
    for dense_sum in (c + b, a.to_sparse_csr() + b, b + c):
        assert type(dense_sum) is ec.Tensor
        np.testing.assert_array_equal(dense_sum.numpy(), (a + b).numpy())
    with pytest.raises(NotImplementedError, match="aten::add"):
        c + b.to_sparse()
    back = pickle.loads(pickle.dumps(c))
    assert back.layout is ec.sparse_csc
    np.testing.assert_array_equal(back.row_indices().numpy(), [1, 0, 1])
    np.testing.assert_array_equal(back.to_dense().numpy(), a.numpy())


def test_smm_hspmm_sspaddmm_as_pytorch():
    """PyTorch 2.13's results (indices, values, uncoalesced) for a duplicate-holding COO matrix."""
    u = sparse_coo_tensor([[2, 0, 2], [0, 1, 0]], [1.0, 2.0, 3.0], (3, 3))
    d = ec.arange(6.0).view(3, 2)
    h = hspmm(u, d)
    assert h.shape == (3, 2) and h.sparse_dim() == 1 and not h.is_coalesced()
    np.testing.assert_array_equal(h._indices().numpy(), [[0, 2]])
    np.testing.assert_array_equal(h._values().numpy(), [[4.0, 6.0], [0.0, 4.0]])
    m = smm(u, d)
    np.testing.assert_array_equal(m._indices().numpy(), [[0, 0, 2, 2], [0, 1, 0, 1]])
    np.testing.assert_array_equal(m._values().numpy(), [4.0, 6.0, 0.0, 4.0])
    np.testing.assert_array_equal(u.smm(d)._values().numpy(), [4.0, 6.0, 0.0, 4.0])
    e = ec.eye(3, 2).to_sparse()
    a = sspaddmm(e, u, d, beta=2, alpha=0.5)
    np.testing.assert_array_equal(a._indices().numpy(), [[0, 1, 0, 0, 2, 2], [0, 1, 0, 1, 0, 1]])
    np.testing.assert_array_equal(a._values().numpy(), [2.0, 2.0, 2.0, 3.0, 0.0, 2.0])
    np.testing.assert_array_equal(e.sspaddmm(u, d).to_dense().numpy(), (ec.eye(3, 2) + u.to_dense() @ d).numpy())
    with pytest.raises(RuntimeError, match=r"^sspaddmm: Argument #3: Expected dim 0 size 3, got 2$"):
        smm(u, ec.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^hspmm: Argument #3: Expected dim 0 size 3, got 2$"):
        hspmm(u, ec.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"^sspaddmm: Argument #1: Expected dim 0 size 3, got 2$"):
        sspaddmm(ec.eye(2).to_sparse(), u, d)
    with pytest.raises(RuntimeError, match=r"^tensor.sspaddmm\(\.\.\.\) can only be called on sparse tensors$"):
        ec.ones(2, 3).smm(d)
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        smm(u.float(), d.double())


def test_csc_beta_warning_names_csc():
    """PyTorch 2.13 warns "Sparse CSC tensor support is in beta state" for a CSC tensor (not CSR's words)."""
    import warnings

    from ember.core.ops import _util

    for k in ("CSR", "CSC"):
        _util._warned_once.discard(_beta_message(k))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c = ec.eye(3).to_sparse_csc()
    assert [str(x.message)[:40] for x in w] == ["Sparse CSC tensor support is in beta sta"]
    np.testing.assert_array_equal(c.to_dense().numpy(), np.eye(3))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_copy_into_a_compressed_tensor_needs_its_layout_nnz_and_size():
    eye = sparse_csr_tensor([0, 1, 2, 3], [0, 1, 2], ec.ones(3), (3, 3))
    other = sparse_csr_tensor([0, 1, 2, 3], [1, 0, 2], ec.tensor([4.0, 5.0, 6.0]), (3, 3))
    assert eye.copy_(other).col_indices().tolist() == [1, 0, 2] and eye.values().tolist() == [4.0, 5.0, 6.0]
    with pytest.raises(RuntimeError, match=r"^torch\.copy_: only sparse compressed tensors with the same number of "
                                           r"specified elements are supported\.$"):
        eye.copy_(sparse_csr_tensor([0, 1, 1, 1], [0], ec.ones(1), (3, 3)))
    with pytest.raises(RuntimeError, match=r"^torch\.copy_: expected shapes of self and src to match along dimension "
                                           r"0 for SparseCsr layout but the corresponding dimensions of self and src "
                                           r"are 3 and 4, respectively\.$"):
        eye.copy_(sparse_csr_tensor([0, 1, 2, 3, 3], [0, 1, 2], ec.ones(3), (4, 3)))
    for src, name in ((_coo(ec.float32), "Sparse"), (ec.ones(3, 3), "Strided")):
        with pytest.raises(RuntimeError, match=r"^torch\.copy_: copy of sparse compressed tensors having different "
                                               f"layouts is not supported. self layout is SparseCsr and src layout "
                                               f"is {name}$"):
            eye.copy_(src)


def test_copy_into_coo_from_a_dense_tensor_names_both_types():
    with pytest.raises(RuntimeError, match=r"^copy_\(\) between dense and sparse Tensors is not implemented! Found "
                                           r"self type = torch\.sparse\.DoubleTensor and src type = "
                                           r"torch\.FloatTensor$"):
        _coo().copy_(ec.ones(2, 3))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_sampled_addmm_takes_csr_input_only_with_pytorchs_errors():
    from ember.core.sparse_ops import sampled_addmm

    q = ec.ones(2, 2)
    csr = sparse_csr_tensor([0, 1, 2], [1, 0], ec.tensor([1.0, 2.0]), (2, 2))
    assert sampled_addmm(csr, q, q, beta=0.5).values().tolist() == [2.5, 3.0]
    for bad, backend in ((csr.to_sparse_coo(), "SparseCPU"), (ec.eye(2), "CPU")):
        with pytest.raises(NotImplementedError, match=f"^Could not run 'aten::sparse_sampled_addmm' with arguments "
                                                      f"from the '{backend}' backend. This could be"):
            sampled_addmm(bad, q, q)
    with pytest.raises(RuntimeError, match="^sampled_addmm: Expected result to have sparse csr layout, but got "
                                           "SparseCsc$"):
        sampled_addmm(csr.to_sparse_csc(), q, q)


def test_one_beta_warning_for_both_compressed_layouts():
    """PyTorch 2.13 warns once for CSR and CSC together: a CSR tensor's transpose (a CSC one) adds no warning."""
    import warnings

    from ember.core.ops import _util

    for k in ("CSR", "CSC"):
        _util._warned_once.discard(_beta_message(k))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c = ec.eye(3).to_sparse_csr()
        assert c.t().layout is ec.sparse_csc and ec.eye(2).to_sparse_csc().layout is ec.sparse_csc
    assert [str(x.message)[:40] for x in w] == ["Sparse CSR tensor support is in beta sta"]
    assert str(w[0].message).endswith(" (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                                      "SparseCsrTensorImpl.cpp:49.)")  # PyTorch's C++ warning, as it prints


def test_sparse_resize_grows_a_non_empty_coo_tensor_and_refuses_shrinking():
    s = ec.eye(3).to_sparse()
    t = s.clone()
    assert t.sparse_resize_((4, 5), 2, 0) is t and t.shape == (4, 5) and t._nnz() == 3
    np.testing.assert_array_equal(t.to_dense().numpy(), np.eye(4, 5) * (np.arange(4) < 3)[:, None])
    with pytest.raises(RuntimeError, match=r"^shrinking the size of sparse dimensions \(from \[3, 3\] to \[2, 4\]\) "
                                           r"on a non-empty sparse tensor is not supported\.\nYou could try the "
                                           r"following options:\n1\. If you need an empty sparse tensor of this size"):
        s.clone().sparse_resize_((2, 4), 2, 0)
    with pytest.raises(RuntimeError, match=r"^changing the number of dense dimensions \(from 0 to 1\) on a non-empty"):
        s.clone().sparse_resize_((3, 3, 2), 2, 1)
    with pytest.raises(RuntimeError, match=r"^'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: len\(size\) "
                                           r"= 2, sparse_dim = 1, dense_dim = 0$"):
        s.clone().sparse_resize_((3, 3), 1, 0)


def test_sparse_resize_of_an_empty_tensor_takes_any_layout_of_dims():
    t = ec.eye(3).to_sparse().sparse_resize_and_clear_((2, 5), 2, 0)
    assert t.shape == (2, 5) and t._nnz() == 0 and tuple(t._indices().shape) == (2, 0)
    t.sparse_resize_((3, 3, 2), 2, 1)
    assert t.sparse_dim() == 2 and t.dense_dim() == 1 and tuple(t._values().shape) == (0, 2)
    assert t.to_dense().shape == (3, 3, 2)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::sparse_resize_' with arguments from the "
                                                  "'CPU' backend"):
        ec.eye(2).sparse_resize_((3, 3), 2, 0)


def test_sparse_indexing_follows_pytorch_for_none_ellipsis_csr_and_refusals():
    s, c = ec.eye(3).to_sparse(), ec.eye(3).to_sparse_csr()
    assert s[None].shape == (1, 3, 3) and s[None].layout is ec.sparse_coo
    assert s[..., 1].to_dense().tolist() == [0.0, 1.0, 0.0]
    assert c[1].layout is ec.sparse_coo and c[1].to_dense().tolist() == [0.0, 1.0, 0.0] and c[2, 2].item() == 1.0
    for call in (lambda: s[0:2], lambda: s.narrow(0, 0, 2)):  # a strided view: PyTorch's as_strided refusal
        with pytest.raises(NotImplementedError, match="^Could not run 'aten::as_strided' with arguments from the "
                                                      "'SparseCPU' backend"):
            call()
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::index.Tensor' with arguments from the "
                                                  "'SparseCPU' backend"):
        s[[0, 1]]
    for call in (lambda: c[0:2], lambda: c.narrow(0, 0, 2), lambda: c[None]):
        with pytest.raises(RuntimeError, match="^Sparse CSR tensors do not have strides$"):
            call()


def test_constructors_warn_once_that_invariant_checks_are_implicit():
    """PyTorch 2.13 warns on the first sparse_coo/csr/csc_tensor made without `check_invariants`, until the program
    chooses (torch.sparse.check_sparse_tensor_invariants); conversions and unpickling do not warn."""
    import pickle
    import warnings

    from ember.core import sparse
    from ember.core.ops import _util

    _util._warned_once.difference_update({m for m in _util._warned_once if m.startswith("Sparse invariant")})
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ec.eye(2).to_sparse()
        pickle.loads(pickle.dumps(ec.eye(2).to_sparse()))
        sparse_coo_tensor([[0]], [1.0], (2,), check_invariants=False)
        sparse_coo_tensor([[0]], [1.0], (2,))
        sparse_coo_tensor([[0]], [1.0], (2,))
    assert [str(x.message)[:40] for x in w] == ["Sparse invariant checks are implicitly d"]
    assert str(w[0].message).endswith("for guidance.  (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                                      "Context.cpp:816.)")
    _util._warned_once.discard(str(w[0].message))
    chosen, sparse.invariants_chosen[0] = sparse.invariants_chosen[0], True
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sparse_csr_tensor([0, 1], [0], [1.0], (1, 2))
        assert not [x for x in w if str(x.message).startswith("Sparse invariant")]
    finally:
        sparse.invariants_chosen[0] = chosen


def test_coalesced_flag_set_in_place():
    s = sparse_coo_tensor([[1, 0, 1]], [1.0, 2.0, 4.0], (3,))
    assert not s.is_coalesced() and s._coalesced_(False) is s
    assert s._coalesced_(True) is s and s.is_coalesced()  # ember coalesces what it is told is coalesced
    assert s._indices().tolist() == [[0, 1]] and s._values().tolist() == [2.0, 5.0]
    assert not s._coalesced_(False).is_coalesced() and s.to_dense().tolist() == [2.0, 5.0, 0.0]
    with pytest.raises(TypeError, match=r"^_coalesced_\(\): argument 'coalesced' \(position 1\) must be bool, "
                                        r"not int$"):
        s._coalesced_(1)
    with pytest.raises(NotImplementedError, match="^Could not run 'aten::_coalesced_' with arguments from the 'CPU'"):
        ec.eye(2)._coalesced_(True)


def test_clone_takes_no_memory_format_as_pytorchs_sparse_clone():
    s = sparse_coo_tensor(ec.tensor([[0, 1], [1, 0]]), ec.tensor([1.0, 2.0]), (2, 2))
    assert ec.clone(s).to_dense().tolist() == [[0.0, 1.0], [2.0, 0.0]]  # the function form too
    for fmt, name in ((ec.preserve_format, "Preserve"), (ec.contiguous_format, "Contiguous"),
                      (ec.channels_last, "ChannelsLast")):
        with pytest.raises(RuntimeError, match=f"^unsupported memory format option {name}$"):
            s.clone(memory_format=fmt)
        with pytest.raises(RuntimeError, match=f"^unsupported memory format option {name}$"):
            ec.clone(s, memory_format=fmt)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16bit_duplicates_round_after_each_add(dtype):
    # 1 + 2**-11 + 2**-11 + 2**-8 + 2**-8 added one at a time in float16 is 1.0078125 (PyTorch 2.13's coalesce and
    # to_dense); a float32 sum rounded once would be 1.0087890625. bfloat16 rounds every add back to 1.0
    dt = getattr(ec, dtype)
    v = ec.tensor([[1.0], [2.0 ** -11], [2.0 ** -11], [2.0 ** -8], [2.0 ** -8]], dtype=dt)
    s = ec.sparse_coo_tensor(ec.tensor([[0, 0, 0, 0, 0]]), v, (2, 1))
    want = 1.0078125 if dtype == "float16" else 1.0
    assert s.coalesce().values().tolist() == [[want]]
    assert s.to_dense().tolist() == [[want], [0.0]]
