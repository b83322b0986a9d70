"""Matrix products against numpy float64 references, and PyTorch's shape and dtype errors."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.testing import assert_close, make_tensor


def ref(x):
    return x.numpy().astype(np.float64)


TOL = {"rtol": 1e-10, "atol": 1e-10}


@st.composite
def matmul_shapes(draw):
    """Operand shapes torch.matmul accepts: 1-D/2-D/batched, with broadcasting batch dims."""
    n, k, m = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 4))
    batch = draw(st.lists(st.integers(1, 3), max_size=2))
    ba = [b if draw(st.booleans()) else 1 for b in batch]
    bb = [b if draw(st.booleans()) else 1 for b in batch]
    ba = ba[draw(st.integers(0, len(ba))):]
    bb = bb[draw(st.integers(0, len(bb))):]
    a = (k,) if draw(st.booleans()) and not ba else (*ba, n, k)
    b = (k,) if draw(st.booleans()) and not bb else (*bb, k, m)
    return a, b


@settings(max_examples=25, deadline=None)
@given(matmul_shapes(), st.booleans(), st.integers(0, 2**16))
def test_matmul_matches_numpy_for_every_rank(shapes, noncontig, seed):
    sa, sb = shapes
    a = make_tensor(sa, dtype=E.float64, noncontiguous=noncontig, seed=seed)
    b = make_tensor(sb, dtype=E.float64, noncontiguous=noncontig, seed=seed + 1)
    expected = np.matmul(ref(a), ref(b))
    got = E.matmul(a, b)
    assert got.shape == expected.shape
    assert_close(got, np.asarray(expected), **TOL)
    assert_close(a @ b, np.asarray(expected), **TOL)


@pytest.mark.parametrize("dtype", [E.float32, E.float64, E.float16, E.int64, E.int32])
def test_mm_dtypes(dtype):
    a = make_tensor(5, 3, dtype=dtype, low=-3, high=3, seed=1)
    b = make_tensor(3, 4, dtype=dtype, low=-3, high=3, seed=2)
    r = E.mm(a, b)
    assert r.dtype is dtype
    tol = {"rtol": 2e-3, "atol": 2e-3} if dtype is E.float16 else {}
    assert_close(r, E.from_numpy((ref(a) @ ref(b)).astype(dtype.np)), **tol)


def test_mm_on_transposed_and_strided_views_without_copy():
    base = make_tensor(6, 8, dtype=E.float64, seed=3)
    at = base.t()                       # column-major: goes to BLAS as is
    b = make_tensor(6, 5, dtype=E.float64, seed=4)
    assert_close(at.mm(b), ref(base).T @ ref(b), **TOL)
    strided = base[::2, ::2]            # neither layout: copied once
    assert_close(strided.mm(make_tensor(4, 2, dtype=E.float64, seed=5)),
                 ref(base)[::2, ::2] @ make_tensor(4, 2, dtype=E.float64, seed=5).numpy(), **TOL)


def test_mm_of_a_non_tensor_is_pytorchs_parser_type_error():
    x = E.eye(2)
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'mat2' \(position 2\) must be Tensor, not int$"):
        E.mm(x, 3)
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        E.mm([[1.0]], x)
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'mat2' \(position 1\) must be Tensor, not NoneType$"):
        x.mm(None)
    with pytest.raises(TypeError, match=r"^mm\(\): argument 'mat2' \(position 2\) must be Tensor, not int$"):
        E.mm(x.to_sparse(), 3)


def test_mm_errors_name_both_shapes_and_dtypes():
    with pytest.raises(RuntimeError, match=r"^mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)$"):
        E.mm(E.ones(2, 3), E.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        E.ones(2, 3) @ E.ones(4, 5)
    with pytest.raises(RuntimeError, match="expected m1 and m2 to have the same dtype, but got: float != double"):
        E.mm(E.ones(2, 3), E.ones(3, 2, dtype=E.float64))
    with pytest.raises(RuntimeError, match="^self must be a matrix$"):
        E.mm(E.ones(3), E.ones(3, 2))
    with pytest.raises(RuntimeError, match="^mat2 must be a matrix$"):
        E.mm(E.ones(3, 2), E.ones(3))
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: "
                                           r"\[2, 3\] but got: \[2, 4\]\."):
        E.bmm(E.ones(2, 5, 3), E.ones(2, 4, 5))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        E.bmm(E.ones(5, 3), E.ones(3, 5))
    with pytest.raises(RuntimeError, match=r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"):
        E.dot(E.ones(3), E.ones(4))
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        E.dot(E.ones(1, 3), E.ones(3))
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but found Float and Long"):
        E.dot(E.ones(3), E.ones(3, dtype=E.int64))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        E.mv(E.ones(2, 3), E.ones(4))
    with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
        E.matmul(E.tensor(1.0), E.ones(2))


def test_int_mm_multiplies_int8_in_int32_and_wraps_on_overflow():
    rng = np.random.default_rng(0)
    a, b = rng.integers(-128, 128, (3, 5)), rng.integers(-128, 128, (5, 4))
    r = E._int_mm(E.tensor(a.tolist(), dtype=E.int8), E.tensor(b.tolist(), dtype=E.int8))
    assert r.dtype is E.int32 and r.stride() == (4, 1)
    np.testing.assert_array_equal(r.numpy(), a @ b)
    u = E._int_mm(E.tensor([[200, 1]], dtype=E.uint8), E.tensor([[1], [-1]], dtype=E.int8))
    assert u.tolist() == [[199]]
    big = E._int_mm(E.full((1, 140000), 127, dtype=E.int8), E.full((140000, 1), -128, dtype=E.int8))
    assert big.item() == int(np.int64(127 * -128 * 140000).astype(np.int32))  # int32 wraps as PyTorch's
    out = E.empty(3, 4, dtype=E.int32)
    assert E._int_mm(E.tensor(a.tolist(), dtype=E.int8), E.tensor(b.tolist(), dtype=E.int8), out=out) is out


@pytest.mark.parametrize("a, b, out, message", [
    ((2, 3, "int32"), (3, 2, "int8"), None, "Expected self dtype to be int8 or uint8 but got int"),
    ((2, 3, "int8"), (3, 2, "uint8"), None, "Expected mat2 dtype to be of type int8 but got unsigned char"),
    ((2, 3, "int8"), (2, 2, "int8"), None, "self.size(1) needs to match mat2.size(0) but got 3 and 2"),
    ((3, "int8"), (3, 2, "int8"), None, "Expected self to be of dimension 2 but got 1"),
    ((2, 3, "int8"), (3, 2, 1, "int8"), None, "Expected mat2 to be of dimension 2 but got 3"),
    ((2, 3, "int8"), (3, 2, "int8"), (2, 2, "int64"), "Expected result dtype to be of type kInt but got long int"),
    ((2, 3, "int8"), (3, 2, "int8"), (0, "int32"), "Expected result.size(0) to be 2 but got 0"),
    ((2, 3, "int8"), (3, 2, "int8"), (2, 2, 1, "int32"), "Expected result to be of dimension 2 but got 3"),
])
def test_int_mm_checks_in_pytorchs_order_and_words(a, b, out, message):
    def t(spec):
        return E.ones(*spec[:-1], dtype=getattr(E, spec[-1]))

    with pytest.raises(RuntimeError) as info:
        E._int_mm(t(a), t(b), out=None if out is None else t(out))
    assert str(info.value) == "int_mm_out_cpu: " + message


def test_int_mm_refuses_a_strided_result_and_sizes_its_own_first():
    with pytest.raises(RuntimeError, match="^int_mm_out_cpu: Expected result to be contiguous.$"):
        E._int_mm(E.ones(2, 3, dtype=E.int8), E.ones(3, 2, dtype=E.int8), out=E.empty(2, 4, dtype=E.int32)[:, ::2])
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)"):
        E._int_mm(E.ones(2, 3, dtype=E.int8), E.ones(3, dtype=E.int8))


def test_matmul_folds_batched_left_operand_into_mm_like_pytorch():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x4 and 5x6\)"):
        E.matmul(E.ones(2, 3, 4), E.ones(5, 6))


def test_bmm_dot_vdot_mv_outer_inner():
    a = make_tensor(3, 2, 4, dtype=E.float64, seed=6)
    b = make_tensor(3, 4, 5, dtype=E.float64, seed=7)
    assert_close(E.bmm(a, b), ref(a) @ ref(b), **TOL)
    v, w = make_tensor(4, dtype=E.float64, seed=8), make_tensor(4, dtype=E.float64, seed=9)
    assert E.dot(v, w).shape == ()
    assert_close(v.dot(w), np.asarray(ref(v) @ ref(w)), **TOL)
    assert_close(E.vdot(v, w), np.asarray(ref(v) @ ref(w)), **TOL)
    m = make_tensor(3, 4, dtype=E.float64, seed=10)
    assert_close(m.mv(v), ref(m) @ ref(v), **TOL)
    assert_close(E.outer(v, w[:3]), np.outer(ref(v), ref(w)[:3]), **TOL)
    assert_close(v.ger(w), np.outer(ref(v), ref(w)), **TOL)
    assert_close(E.inner(m, v), np.inner(ref(m), ref(v)), **TOL)
    assert_close(E.inner(a, m), np.inner(ref(a), ref(m)), **TOL)
    assert_close(E.inner(E.tensor(2.0, dtype=E.float64), v), 2 * ref(v), **TOL)


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 3.0)])
def test_addmm_family(beta, alpha):
    inp = make_tensor(4, dtype=E.float64, seed=11)      # broadcasts over rows
    m1, m2 = make_tensor(3, 5, dtype=E.float64, seed=12), make_tensor(5, 4, dtype=E.float64, seed=13)
    expected = beta * ref(inp) + alpha * (ref(m1) @ ref(m2))
    assert_close(E.addmm(inp, m1, m2, beta=beta, alpha=alpha), expected, **TOL)
    vec = make_tensor(5, dtype=E.float64, seed=14)
    i3 = make_tensor(3, dtype=E.float64, seed=15)
    assert_close(E.addmv(i3, m1, vec, beta=beta, alpha=alpha), beta * ref(i3) + alpha * ref(m1) @ ref(vec), **TOL)
    b1, b2 = make_tensor(2, 3, 5, dtype=E.float64, seed=16), make_tensor(2, 5, 4, dtype=E.float64, seed=17)
    i34 = make_tensor(3, 4, dtype=E.float64, seed=18)
    assert_close(E.baddbmm(i34, b1, b2, beta=beta, alpha=alpha), beta * ref(i34) + alpha * (ref(b1) @ ref(b2)), **TOL)
    assert_close(E.addbmm(i34, b1, b2, beta=beta, alpha=alpha),
                 beta * ref(i34) + alpha * (ref(b1) @ ref(b2)).sum(0), **TOL)
    assert_close(E.addr(i34, i3, inp, beta=beta, alpha=alpha),
                 beta * ref(i34) + alpha * np.outer(ref(i3), ref(inp)), **TOL)


def test_addmm_family_takes_a_complex_scalar_as_its_real_part():
    o = E.ones(2, 2)
    r = E.addmm(o, o, o, beta=0.5 + 0j, alpha=2 + 0j)
    assert r.dtype is E.float32 and r.tolist() == [[4.5, 4.5]] * 2
    assert E.baddbmm(o[None].long(), o[None].long(), o[None].long(), beta=0.5 + 0j).tolist() == [[[2, 2]] * 2]
    with pytest.raises(RuntimeError, match="^value cannot be converted to type float without overflow$"):
        E.addmv(E.ones(2).half(), o.half(), E.ones(2).half(), beta=0.5 + 1j)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        E.addmm(o.long(), o.long(), o.long(), alpha=1j)
    with pytest.raises(RuntimeError, match="argument beta must not be a floating point number"):
        E.addr(o.long(), E.ones(2).long(), E.ones(2).long(), beta=1 + 0j)


@pytest.mark.parametrize("dtype", [E.float32, E.float16, E.int64])
def test_addmm_family_results_are_row_major_whatever_the_inputs_layout(dtype):
    # PyTorch's add*-products write a fresh row-major result, not one in a transposed input's layout
    inp = E.arange(6).reshape(2, 3).t().to(dtype)
    m1, m2 = E.ones(3, 2, dtype=dtype), E.ones(2, 2, dtype=dtype)
    for kw in ({}, {"alpha": 2}, {"beta": 2}):
        r = E.addmm(inp, m1, m2, **kw)
        assert r.stride() == (2, 1), kw
        assert r.tolist() == (kw.get("beta", 1) * inp + kw.get("alpha", 1) * 2).tolist()
    b = E.ones(2, 2, 2, dtype=dtype)
    assert E.baddbmm(E.arange(8).reshape(2, 2, 2).permute(2, 1, 0).to(dtype), b, b).stride() == (4, 2, 1)


def test_addmm_with_beta_zero_ignores_nan_input():
    inp = E.full((2, 2), float("nan"))
    r = E.addmm(inp, E.eye(2), E.ones(2, 2), beta=0)
    assert r.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_inplace_and_out_variants():
    x = E.zeros(2, 2)
    v = x._version
    x.addmm_(E.ones(2, 3), E.ones(3, 2))
    assert x.tolist() == [[3.0, 3.0], [3.0, 3.0]] and x._version > v
    out = E.empty(2, 2)
    assert E.mm(E.ones(2, 3), E.ones(3, 2), out=out) is out and out.tolist() == [[3.0, 3.0]] * 2
    assert E.matmul(E.ones(2, 3), E.ones(3), out=E.empty(2)).tolist() == [3.0, 3.0]
    y = before = E.eye(2) * 2
    y @= E.ones(2, 2)  # as PyTorch's Tensor (no __imatmul__): a new tensor, the old one untouched
    assert y.tolist() == [[2.0, 2.0], [2.0, 2.0]] and before.tolist() == [[2.0, 0.0], [0.0, 2.0]]
    z = E.ones(2, 3)
    z @= E.ones(3, 4)
    assert z.shape == (2, 4) and not hasattr(E.Tensor, "__imatmul__")


def test_rmatmul_with_numpy_left_operand_is_not_needed_but_tensor_left_works():
    a, b = E.ones(2, 3), E.ones(3, 1)
    assert (a @ b).tolist() == [[3.0], [3.0]]
    assert b.__rmatmul__(a).tolist() == [[3.0], [3.0]]


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(3, 3)]),
    ("ij->", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...ij,...jk", [(2, 3, 4), (4, 2)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
])
def test_einsum_matches_numpy(eq, shapes):
    ops = [make_tensor(s, dtype=E.float64, seed=i) for i, s in enumerate(shapes)]
    expected = np.einsum(eq, *(ref(o) for o in ops))
    assert_close(E.einsum(eq, *ops), np.asarray(expected), **TOL)
    assert_close(E.einsum(eq, ops), np.asarray(expected), **TOL)


def test_einsum_errors():
    with pytest.raises(RuntimeError, match="einsum"):
        E.einsum("ij,jk->ik", E.ones(2, 3), E.ones(4, 5))
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):  # bmm's check
        E.einsum("ij,jk->ik", E.ones(2, 3), E.ones(3, 5, dtype=E.float64))


@pytest.mark.parametrize("eq, shapes, axes", [
    ("...->", [(2, 3)], None), ("...i->", [(2, 3)], None), ("...i->i", [(2, 3)], (0,)),
    ("i...->i", [(2, 3, 2)], (1, 2)),
    ("...ij->j", [(2, 2, 3)], (0, 1)), ("...->", [(0, 3)], None), ("...->...", [()], None),
])
def test_einsum_sums_ellipsis_dims_the_output_drops(eq, shapes, axes):
    # PyTorch sums them (numpy refuses: "output has more dimensions than subscripts given")
    x = E.tensor(np.random.default_rng(3).standard_normal(shapes[0]))
    assert_close(E.einsum(eq, x), np.asarray(ref(x).sum(axis=axes)), **TOL)


def test_einsum_ellipsis_of_two_operands_dropped():
    a, b = make_tensor(2, 3, dtype=E.float64, seed=4), make_tensor(3, dtype=E.float64, seed=5)
    assert_close(E.einsum("i...,...->i", a, b), ref(a) @ ref(b), **TOL)
    assert_close(E.einsum("...,...->", a, b), np.asarray((ref(a) * ref(b)).sum()), **TOL)  # b broadcast to (2, 3)
    assert E.einsum("...->", E.arange(6.0).reshape(2, 3)).item() == 15.0  # PyTorch 2.13: tensor(15.)


# (equation, operand shape, PyTorch 2.13's result shape and strides): one operand that sums nothing out is a view
# (diagonals, then a permutation); one that sums is a contiguous result
@pytest.mark.parametrize("eq, shape, size, stride, view", [
    ("ij->ji", (3, 4), (4, 3), (1, 4), True), ("ij", (3, 4), (3, 4), (4, 1), True),
    ("ii->i", (3, 3), (3,), (4,), True), ("jii->ij", (2, 3, 3), (3, 2), (4, 9), True),
    ("iji->ij", (3, 2, 3), (3, 2), (7, 3), True), ("i...->...i", (2, 3, 4), (3, 4, 2), (4, 1, 12), True),
    ("bea->ae", (3, 6, 2), (2, 6), (6, 1), False), ("ijk->ki", (2, 3, 4), (4, 2), (2, 1), False),
    ("ii", (3, 3), (), (), False),
])
def test_einsum_of_one_operand_is_pytorchs_view_or_contiguous_sum(eq, shape, size, stride, view):
    x = E.tensor(np.random.default_rng(6).standard_normal(shape))
    r = E.einsum(eq, x)
    assert (tuple(r.shape), r.stride(), np.shares_memory(r.numpy(), x.numpy())) == (size, stride, view)
    if view:
        r.mul_(0)  # a write through the view reaches the operand
        assert E.einsum(eq, x).abs().sum().item() == 0.0


# (equation, operand dtypes, PyTorch 2.13's result dtype or its error message): PyTorch contracts left to right;
# a pair with a letter left to contract goes through bmm, which wants one dtype; a pair without one multiplies
@pytest.mark.parametrize("eq, shapes, dts, expected", [
    ("i,i->i", [(3,), (3,)], ("float32", "float64"), "float64"),
    ("i,j->ij", [(3,), (2,)], ("float32", "float64"), "float64"),
    ("i,j->", [(3,), (2,)], ("float32", "float64"), "float64"),  # each summed alone, then multiplied
    ("i,i->", [(1,), (1,)], ("float32", "float64"), "float64"),  # size 1: nothing to contract
    ("i,i->i", [(3,), (3,)], ("int64", "float32"), "float32"),
    ("i,i->i", [(3,), (3,)], ("float16", "float32"), "float32"),
    ("i,i->i", [(3,), (3,)], ("complex64", "float64"), "complex128"),
    ("i,i->i", [(3,), (3,)], ("bool", "int32"), "int32"),
    ("i,i->i", [(3,), (3,)], ("int32", "int64"), "int64"),
    ("i,i,i->i", [(3,), (3,), (3,)], ("float32", "float64", "float16"), "float64"),
    ("i,i,i->", [(3,), (3,), (3,)], ("float32", "float64", "float64"), "float64"),
    ("i,j,j->ij", [(2,), (3,), (3,)], ("float64", "float32", "float32"), "float64"),
    ("ij->i", [(2, 3)], ("bool",), "int64"),
    ("i,i->", [(3,), (3,)], ("float32", "float64"), "expected scalar type Float but found Double"),
    ("ij,j->i", [(2, 3), (3,)], ("float64", "float32"), "expected scalar type Double but found Float"),
    ("i,i->", [(3,), (3,)], ("int64", "float32"), "expected scalar type Long but found Float"),
    ("i,i->", [(3,), (3,)], ("complex64", "float64"), "expected scalar type ComplexFloat but found Double"),
    ("i,i,i->", [(3,), (3,), (3,)], ("float32", "float32", "float64"), "expected scalar type Float but found Double"),
    ("i,j,j->i", [(2,), (3,), (3,)], ("float64", "float32", "float32"), "expected scalar type Double but found Float"),
    ("ij,ij->i", [(2, 3), (2, 3)], ("float32", "float64"), "expected scalar type Float but found Double"),
    ("i,i->", [(3,), (3,)], ("int32", "int64"), "expected scalar type Int but found Long"),
])
def test_einsum_mixed_dtypes_as_pytorch(eq, shapes, dts, expected):
    rng = np.random.default_rng(7)
    arrays = [rng.integers(0, 3, s) for s in shapes]
    ops = [E.tensor(a).to(getattr(E, d)) for a, d in zip(arrays, dts, strict=True)]
    if not hasattr(E, expected):
        with pytest.raises(RuntimeError, match=f"^{expected}$"):
            E.einsum(eq, *ops)
        return
    got = E.einsum(eq, *ops)
    assert got.dtype is getattr(E, expected)
    np.testing.assert_allclose(got.to(E.complex128).numpy(), np.einsum(eq, *(o.to(E.complex128).numpy() for o in ops)))


@pytest.mark.parametrize("eq, shapes, expected", [
    # PyTorch's bmm takes the pair swapped when every dim only the second operand has comes before every dim only
    # the first has; it checks dtypes (first, then second) only when it runs a kernel, and an empty result or an
    # empty sum takes the second's dtype
    ("ij,jk->ik", [(2, 3), (3, 4)], "expected scalar type Float but found Double"),
    ("ij,jk->ki", [(2, 3), (3, 4)], "expected scalar type Double but found Float"),
    ("ij,jk->ik", [(0, 3), (3, 4)], "float64"),
    ("ij,jk->ki", [(0, 3), (3, 4)], "float32"),
    ("ij,jk->ik", [(2, 0), (0, 4)], "float64"),
    ("ij,jkl->kil", [(2, 0), (0, 3, 4)], "float64"),
    ("ij,jkl->kli", [(2, 0), (0, 3, 4)], "float32"),
    ("ijm,jkl->kli", [(2, 0, 5), (0, 3, 4)], "float64"),  # m, summed out of the first, sits last
    ("bij,bjk->kbi", [(2, 2, 0), (2, 0, 3)], "float32"),
])
def test_einsum_pair_order_and_empty_products_as_pytorch(eq, shapes, expected):
    a, b = E.ones(*shapes[0]), E.ones(*shapes[1], dtype=E.float64)
    if not hasattr(E, expected):
        with pytest.raises(RuntimeError, match=f"^{expected}$"):
            E.einsum(eq, a, b)
        return
    r = E.einsum(eq, a, b)
    assert r.dtype is getattr(E, expected) and not r.numpy().any()


@pytest.mark.parametrize("eq, shapes, strides", [  # strides PyTorch 2.13 gives
    ("bclhn,bcshn,bhcls,bcshp->bclhp", [(2, 3, 4, 2, 4), (2, 3, 4, 2, 4), (2, 2, 3, 4, 4), (2, 3, 4, 2, 3)],
     (72, 24, 3, 12, 1)),
    ("bhzc,bchpn->bzhpn", [(2, 3, 4, 4), (2, 4, 3, 5, 6)], (360, 30, 120, 6, 1)),
    ("ij,jk->ki", [(2, 3), (3, 4)], (2, 1)),  # the operands swapped: the bmm writes the output's own order
    ("bij,bjk->bki", [(5, 2, 3), (5, 3, 4)], (8, 2, 1)),
    ("ij,jk->kij", [(2, 3), (3, 4)], (1, 4, 8)),  # nothing summed: mul's layout
    ("ij,jk,kl->li", [(2, 3), (3, 4), (4, 5)], (1, 5)),
    ("bhld,bhde,bhl->bhle", [(2, 3, 4, 5), (2, 3, 5, 6), (2, 3, 4)], (72, 24, 6, 1)),
    ("def,f->fd", [(1, 1, 3), (3,)], (1, 1)),  # mul of two contiguous operands: row-major, size-1 strides too
])
def test_einsum_result_has_pytorchs_strides(eq, shapes, strides):
    ops = [make_tensor(s, dtype=E.float64, seed=i) for i, s in enumerate(shapes)]
    r = E.einsum(eq, *ops)
    assert r.stride() == strides
    assert r.is_contiguous() == (strides == E.empty(*r.shape).stride())
    assert_close(r, np.asarray(np.einsum(eq, *(ref(o) for o in ops))), **TOL)


def test_einsum_mixed_values_in_the_result_dtype():
    a = E.tensor([0.1, 0.2, 0.3])  # float32
    b = E.tensor([3.0, 5.0, 7.0], dtype=E.float64)
    np.testing.assert_array_equal(E.einsum("i,i->i", a, b).numpy(), a.numpy().astype(np.float64) * b.numpy())


def test_einsum_bool_pair_to_contract_refuses_as_pytorch():
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        E.einsum("i,i->", E.ones(3, dtype=E.bool), E.ones(3))


@pytest.mark.parametrize("eq, shapes, message", [  # PyTorch 2.13's messages, in its order of checks
    ("i.->i", [(2, 2)], "found '.' for operand 0 that is not part of any ellipsis"),
    ("....", [(2,)], "found '.' for operand 0 for which an ellipsis was already found"),
    ("i...->...i...", [(2, 3)], "found '.' for output but an ellipsis \\(...\\) was already found"),
    ("i...->.i", [(2, 3)], "found '.' for output that is not part of any ellipsis \\(...\\)"),
    ("i,j", [(2,)], "fewer operands were provided than specified in the equation"),
    ("ij", [(2, 3), (3,)], "more operands were provided than specified in the equation"),
    ("i1->i", [(2, 3)], "invalid subscript given at index 1 in the equation string, subscripts must be in "
                        "\\[a-zA-Z\\]"),
    ("i->i->i", [(2,)], "invalid subscript given at index 4 in the equation string"),
    ("ij->ii", [(2, 3)], "output subscript i appears more than once in the output"),
    ("ij->k", [(2, 3)], "output subscript k does not appear in the equation for any input operand"),
    ("ijk->i", [(2, 3)], "the number of subscripts in the equation \\(3\\) does not match the number of dimensions "
                         "\\(2\\) for operand 0 and no ellipsis was given"),
    ("ii->i", [(2, 3)], "subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    ("ij,jk->ik", [(2, 3), (4, 4)], "subscript j has size 4 for operand 1 which does not broadcast with previously "
                                    "seen size 3"),
    ("...i,...->i", [(2, 3), (4,)], "dimension 0 covered by ellipsis in operand 1has size 4 which does not broadcast "
                                    "with previously seen ellipsis with size 2 for the respective dimension"),
])
def test_einsum_equation_errors_as_pytorch(eq, shapes, message):
    with pytest.raises(RuntimeError, match=f"^einsum\\(\\): {message}"):
        E.einsum(eq, *(E.ones(*s) for s in shapes))


def test_einsum_argument_forms():
    a, b = make_tensor(2, 3, dtype=E.float64, seed=8), make_tensor(3, 4, dtype=E.float64, seed=9)
    expected = ref(a) @ ref(b)
    assert_close(E.einsum(a, [0, 1], b, [1, 2], [0, 2]), expected, **TOL)  # sublist format
    assert_close(E.einsum(a, [0, 1], b, [1, 2]), expected, **TOL)  # implicit output
    assert_close(E.einsum(a, [Ellipsis, 1], b, [1, 51], [Ellipsis, 51]), expected, **TOL)
    assert_close(E.einsum("ij,jk->ik", [a, b]), expected, **TOL)
    assert_close(E.einsum("ij,jk->ik", (a, b)), expected, **TOL)
    assert_close(E.einsum(" i j , j k -> i k ", a, b), expected, **TOL)
    with pytest.raises(ValueError, match="must specify the equation string and at least one operand"):
        E.einsum("i->i")
    with pytest.raises(ValueError, match="must specify the equation string and at least one operand"):
        E.einsum("i->i", [])
    with pytest.raises(ValueError, match="not within the valid range \\[0, 52\\)"):
        E.einsum(a, [0, 52])
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 1, but got float"):
        E.einsum("i->i", [1.0, 2.0])
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 1, but got numpy.ndarray"):
        E.einsum("i->i", np.ones(2))
    with pytest.raises(TypeError, match="argument 'equation' \\(position 1\\) must be str, not int"):
        E.einsum(3, a)


def test_einsum_repeated_and_broadcast_subscripts():
    x = E.arange(9.0).reshape(3, 3)
    assert E.einsum("ii", x).item() == 12.0  # implicit output: a letter seen twice is summed (the trace)
    assert E.einsum("ii->i", x).tolist() == [0.0, 4.0, 8.0]
    a, b = make_tensor(2, 1, 4, 5, dtype=E.float64, seed=10), make_tensor(3, 5, 2, dtype=E.float64, seed=11)
    assert_close(E.einsum("...ij,...jk", a, b), ref(a) @ ref(b), **TOL)
    assert tuple(E.einsum("ij,jk->ik", E.ones(2, 0), E.ones(0, 3)).shape) == (2, 3)


@pytest.mark.torch
def test_einsum_mixed_dtypes_match_pytorch():
    torch = pytest.importorskip("torch")
    import itertools

    names = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool", "complex64", "complex128"]
    rng = np.random.default_rng(0)
    for eq, shapes in [("i,i->i", [(3,), (3,)]), ("i,i->", [(3,), (3,)]), ("i,j->", [(3,), (2,)]),
                       ("ij,j->i", [(2, 3), (3,)]), ("ii,i->i", [(3, 3), (3,)]), ("...i,i->...", [(2, 3), (3,)]),
                       ("ij,jk->ik", [(2, 1), (1, 4)]), ("ij->", [(2, 3)]), ("...->", [(2, 3)]),
                       ("ij,jk->ki", [(2, 3), (3, 4)]), ("ij,jk->ki", [(0, 3), (3, 4)]),
                       ("ij,jk->ik", [(2, 0), (0, 4)])]:
        for combo in itertools.product(names, repeat=len(shapes)):
            arrays = [rng.integers(0, 3, s) for s in shapes]
            res = []
            for m in (torch, E):
                try:
                    r = m.einsum(eq, *(m.tensor(a).to(getattr(m, d)) for a, d in zip(arrays, combo, strict=True)))
                    res.append((str(r.dtype).split(".")[-1], r.to(m.complex128).numpy()))
                except (RuntimeError, NotImplementedError) as e:
                    res.append((str(e), None))
            assert res[0][0] == res[1][0], (eq, combo)
            if res[0][1] is not None:
                np.testing.assert_allclose(res[1][1], res[0][1], rtol=1e-2)


@pytest.mark.parametrize("dims", [0, 1, 2, ([1, 0], [0, 1]), ([2], [0])])
def test_tensordot_matches_numpy(dims):
    a = make_tensor(3, 4, 5, dtype=E.float64, seed=20)
    b = make_tensor(4, 3, 5, dtype=E.float64, seed=21) if dims == ([1, 0], [0, 1]) else \
        make_tensor(5, 2, dtype=E.float64, seed=21) if dims in (([2], [0]), 1) else \
        make_tensor(4, 5, 2, dtype=E.float64, seed=21)
    expected = np.tensordot(ref(a), ref(b), axes=dims)
    assert_close(E.tensordot(a, b, dims=dims), np.asarray(expected), **TOL)


def test_kron_matches_numpy():
    a = make_tensor(2, 3, dtype=E.float64, seed=22)
    b = make_tensor(4, 2, 2, dtype=E.float64, seed=23)
    assert_close(E.kron(a, b), np.kron(ref(a), ref(b)), **TOL)
    assert_close(a.kron(a), np.kron(ref(a), ref(a)), **TOL)


def test_matmul_primitives_are_declared_and_differentiable():
    ops = E.registered_ops()
    for name in ("mm", "bmm", "dot", "einsum"):
        assert ops[name].differentiable


def test_empty_matmul():
    assert E.mm(E.ones(0, 3), E.ones(3, 2)).shape == (0, 2)
    assert E.mm(E.ones(2, 0), E.ones(0, 3)).tolist() == [[0.0] * 3] * 2
    assert E.matmul(E.ones(0, 2, 3), E.ones(3, 4)).shape == (0, 2, 4)


def _minkowski(a, b, p):
    d = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == math.inf:
        return d.max(-1)
    if p == 0:
        return (d != 0).sum(-1).astype(a.dtype)
    return (d ** p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 0.0, math.inf])
@pytest.mark.parametrize("rows", [(3, 4), (30, 40)])
def test_cdist_matches_brute_force(p, rows):
    a = make_tensor(2, rows[0], 5, dtype=E.float64, seed=30)
    b = make_tensor(2, rows[1], 5, dtype=E.float64, seed=31)
    assert_close(E.cdist(a, b, p), _minkowski(ref(a), ref(b), p), rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("p", [2.0, 1.0, 1.5, 0.0, math.inf])
def test_cdist_of_column_major_operands_is_row_major_as_pytorchs_kernel(p):
    a = make_tensor(3, 6, dtype=E.float64, seed=35).t()  # (6, 3), strides (1, 6)
    b = make_tensor(4, 3, dtype=E.float64, seed=36)
    for x1, x2 in ((a, b), (b, a), (a, a)):
        got = E.cdist(x1, x2, p)
        assert got.is_contiguous() and got.stride() == (got.shape[1], 1)
        assert_close(got, _minkowski(ref(x1), ref(x2), p), rtol=1e-9, atol=1e-6)


def test_cdist_matmul_path_is_exactly_zero_on_equal_rows_and_broadcasts_batches():
    # PyTorch's _euclidean_dist clamps the squared distance at 0, so a row against itself is 0, not 1e-15
    a = E.tensor([[1.0, 2.0, 3.0, 4.0], [0.0, -1.0, 2.0, 5.0], [3.0, 3.0, 0.0, 1.0]], dtype=E.float64)
    d = E.cdist(a, a, compute_mode="use_mm_for_euclid_dist")
    assert d.diagonal().tolist() == [0.0, 0.0, 0.0]
    b = make_tensor(2, 1, 30, 4, dtype=E.float64, seed=33)
    c = make_tensor(3, 26, 4, dtype=E.float64, seed=34)
    got = E.cdist(b, c)
    assert got.shape == (2, 3, 30, 26)
    assert_close(got, _minkowski(ref(b), ref(c), 2.0), rtol=1e-9, atol=1e-6)


def test_cdist_and_pdist_take_a_float32_sums_root_in_double_as_pytorchs_kernels():
    x = E.tensor([[3.0, -1.0], [0.0, 0.0]])
    assert E.cdist(x[:1], x[1:], p=3).item() == np.float32(28.0 ** (1 / 3))   # 3.0365889, vector_norm's is 3.0365891
    assert E.pdist(x, p=3).item() == np.float32(28.0 ** (1 / 3))
    a, b = make_tensor(6, 4, seed=1), make_tensor(5, 4, seed=2)
    d = np.abs(a.numpy()[:, None] - b.numpy()[None])
    agg = (d ** np.float32(1.5)).sum(-1, dtype=np.float32)
    want = (agg.astype(np.float64) ** (1 / 1.5)).astype(np.float32)
    np.testing.assert_array_equal(E.cdist(a, b, p=1.5).numpy(), want)


def test_cdist_errors_and_dist():
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns. X1: 3 X2: 4"):
        E.cdist(E.ones(2, 3), E.ones(2, 4))
    with pytest.raises(RuntimeError, match="cdist only supports at least 2D tensors"):
        E.cdist(E.ones(3), E.ones(2, 3))
    with pytest.raises(RuntimeError, match="^cdist only supports non-negative p values$"):
        E.cdist(E.ones(2, 3), E.ones(2, 3), p=-1)
    with pytest.raises(RuntimeError, match="^pdist only supports non-negative p values$"):
        E.pdist(E.ones(2, 3), p=-0.5)
    # dtypes: PyTorch's cdist kernel has no half instance and takes X1's dtype; its matmul path compares both
    with pytest.raises(NotImplementedError, match="^\"cdist\" not implemented for 'BFloat16'$"):
        E.cdist(E.ones(2, 3, dtype=E.bfloat16), E.ones(2, 3))
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Half$"):
        E.cdist(E.ones(2, 3), E.ones(2, 3, dtype=E.float16))
    with pytest.raises(RuntimeError, match="^expected m1 and m2 to have the same dtype, but got: float != double$"):
        E.cdist(E.ones(30, 3), E.ones(30, 3, dtype=E.float64))
    assert E.cdist(E.ones(30, 3, dtype=E.float16), E.ones(30, 3, dtype=E.float16)).dtype is E.float16
    with pytest.raises(NotImplementedError, match="^\"pdist\" not implemented for 'Half'$"):
        E.pdist(E.ones(3, 2, dtype=E.float16))
    assert E.dist(E.ones(3), E.zeros(3)).item() == pytest.approx(math.sqrt(3))
    assert E.ones(2, 2).dist(E.zeros(2), 1).item() == 4.0


def test_dist_refuses_bool_and_integer_differences_as_pytorch():
    # PyTorch subtracts first (its bool refusal), then norm()'s dtype check of the common dtype
    with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with a bool tensor is not supported"):
        E.dist(E.tensor([True, False]), E.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="^Subtraction, the `-` operator, with two bool tensors is not supported"):
        E.dist(E.tensor([True]), E.tensor([True]))
    with pytest.raises(RuntimeError, match="^norm\\(\\): input dtype should be either floating point or complex. "
                       "Got Long instead.$"):
        E.dist(E.tensor([1, 2]), E.tensor([1, 3]))
    assert E.dist(E.tensor([1, 2]), E.tensor([1.0, 4.0])).item() == 2.0


def test_svd_of_a_matrix_with_an_inf_is_nan_and_returns():
    # found by the fuzz campaign's linalg family: LAPACK's gesdd (numpy's svd) looped forever on this
    # batch; PyTorch gives NaN factors for a matrix with a non-finite entry
    a = np.random.default_rng(2432).uniform(-4, 4, (2, 4, 4))
    a.reshape(-1)[[16, 29]] = -np.inf
    x = E.from_numpy(np.ascontiguousarray(a.T)).permute(2, 1, 0)
    u, s, vh = E.linalg.svd(x)
    assert np.isnan(s.numpy()[1]).all() and np.isnan(u.numpy()[1]).all() and np.isnan(vh.numpy()[1]).all()
    np.testing.assert_allclose(s.numpy()[0], np.linalg.svd(a[0], compute_uv=False), rtol=1e-12)
    assert np.isnan(E.linalg.svdvals(x).numpy()[1]).all()


@pytest.mark.parametrize("a, b", [((2, 1, 1), (1,)), ((3, 2), (1, 3, 2, 1))])
def test_lstsq_with_a_right_side_of_the_wrong_rank_raises_pytorchs_error(a, b):
    # found by the fuzz campaign's linalg family: an IndexError ("tuple index out of range") leaked
    with pytest.raises(RuntimeError, match=r"torch.linalg.lstsq: input.dim\(\) must be greater or equal to "
                                           r"other.dim\(\) and \(input.dim\(\) - other.dim\(\)\) <= 1"):
        E.linalg.lstsq(E.ones(*a), E.ones(*b))


def test_lstsq_reads_a_b_one_dim_short_as_a_matrix_unless_it_is_a_batch_of_vectors():
    # PyTorch's vector case is B.shape == A.shape[:-1]; another B one dim short is a matrix, A's batch broadcast
    # with B's dims but the last, each batch element solving all of B
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 5, 3)), rng.standard_normal((3, 2))[[0, 1, 2, 0, 1]]  # B (5, 2)
    x = E.linalg.lstsq(E.from_numpy(a[:1]), E.from_numpy(b)).solution
    assert x.shape == (5, 3, 2)
    np.testing.assert_allclose(x.numpy()[4], np.linalg.lstsq(a[0], b, rcond=None)[0], rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(5\) at "
                                           r"non-singleton dimension 0$"):
        E.linalg.lstsq(E.from_numpy(a), E.from_numpy(b))
    with pytest.raises(RuntimeError, match=r"^torch.linalg.lstsq: input.size\(-2\) should match other.size\(-2\)$"):
        E.linalg.lstsq(E.from_numpy(a), E.ones(3, 4, dtype=E.float64))
    assert E.linalg.lstsq(E.from_numpy(a), E.ones(3, 5, dtype=E.float64)).solution.shape == (3, 3)


@pytest.mark.parametrize("ord", [math.inf, -math.inf])
def test_inf_vector_norm_of_an_empty_tensor_over_a_non_empty_dim_is_empty(ord):
    # found by the fuzz campaign's linalg family: ember refused any empty tensor; PyTorch only a reduction
    # over an empty dim (which has no identity for max/min)
    assert tuple(E.linalg.vector_norm(E.zeros(0, 1), ord, dim=-1, keepdim=True).shape) == (0, 1)
    assert tuple(E.linalg.vector_norm(E.zeros(0, 3), ord, dim=1).shape) == (0,)
    for dim in (None, 0):
        with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
            E.linalg.vector_norm(E.zeros(0, 3), ord, dim=dim)


@pytest.mark.parametrize("a, b, shape", [((1, 0, 0), (0, 2), (1, 0, 2)), ((2, 0, 3, 0), (0,), (2, 0, 3)),
                                         ((2, 3, 0), (0, 4), (2, 3, 4))])
def test_batched_matmul_with_an_empty_inner_dim(a, b, shape):
    # found by the fuzz campaign's linalg family (lu_solve of 0 x 0 matrices): reshape(a, (-1, 0)) was ambiguous
    r = E.matmul(E.ones(*a), E.ones(*b))
    assert tuple(r.shape) == shape and float(r.abs().sum()) == 0.0


@pytest.mark.parametrize("ord", ["fro", 1, -1, math.inf, 2, "nuc"])
def test_matrix_norm_of_an_integer_matrix_raises_pytorchs_error(ord):
    # found by the fuzz campaign's linalg family: the 1/inf norms computed on int64 (PyTorch refuses every order)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Expected a floating point or complex tensor as "
                                           "input. Got Long"):
        E.linalg.matrix_norm(E.ones(1, 2, 2, dtype=E.int64), ord=ord)


# --- bool operands: PyTorch's BLAS kernels have none -------------------------------------------
def _bools(M):
    b = M.tensor([True, False])
    B = M.tensor([[True, False], [True, True]])
    return b, B, B.unsqueeze(0)


BOOL_PRODUCTS = {  # name: (call, the kernel PyTorch names)
    "dot": (lambda M, b, B, B3: M.dot(b, b), "dot"),
    "vdot": (lambda M, b, B, B3: M.vdot(b, b), "dot"),
    "inner": (lambda M, b, B, B3: M.inner(b, b), "dot"),
    "Tensor.dot": (lambda M, b, B, B3: b.dot(b), "dot"),
    "tensordot full": (lambda M, b, B, B3: M.tensordot(B, B, dims=2), "dot"),
    "mv": (lambda M, b, B, B3: M.mv(B, b), "addmv_impl_cpu"),
    "addmv": (lambda M, b, B, B3: M.addmv(b, B, b), "addmv_impl_cpu"),
    "matmul 2-D @ 1-D": (lambda M, b, B, B3: M.matmul(B, b), "addmv_impl_cpu"),
    "matmul 3-D @ 1-D": (lambda M, b, B, B3: M.matmul(B3, b), "addmv_impl_cpu"),
    "mm": (lambda M, b, B, B3: M.mm(B, B), "addmm_impl_cpu_"),
    "mm out=": (lambda M, b, B, B3: M.mm(B, B, out=M.empty(2, 2, dtype=M.bool)), "addmm_impl_cpu_"),
    "addmm": (lambda M, b, B, B3: M.addmm(B, B, B), "addmm_impl_cpu_"),
    "addbmm": (lambda M, b, B, B3: M.addbmm(B, B3, B3), "addmm_impl_cpu_"),
    "matmul 1-D @ 2-D": (lambda M, b, B, B3: M.matmul(b, B), "addmm_impl_cpu_"),
    "@": (lambda M, b, B, B3: B @ B, "addmm_impl_cpu_"),
    "tensordot dims=0": (lambda M, b, B, B3: M.tensordot(b, b, dims=0), "addmm_impl_cpu_"),
    "multi_dot of vectors": (lambda M, b, B, B3: M.linalg.multi_dot([b, b]), "addmm_impl_cpu_"),
    "multi_dot": (lambda M, b, B, B3: M.linalg.multi_dot([b, B, b]), "addmm_impl_cpu_"),
    "matmul 1-D": (lambda M, b, B, B3: M.matmul(b, b), "dot"),
    "bmm": (lambda M, b, B, B3: M.bmm(B3, B3), "bmm"),
    "matmul 3-D": (lambda M, b, B, B3: M.matmul(B3, B3), "bmm"),
    "matmul 1-D @ 3-D": (lambda M, b, B, B3: M.matmul(b, B3), "bmm"),
    "einsum contraction": (lambda M, b, B, B3: M.einsum("ij,jk->ik", B, B), "bmm"),
    "einsum implicit dot": (lambda M, b, B, B3: M.einsum("i,i", b, b), "bmm"),
    "baddbmm": (lambda M, b, B, B3: M.baddbmm(B3, B3, B3), "baddbmm"),
}

BOOL_PRODUCTS_KEPT = {  # no BLAS kernel runs: elementwise products, or an empty product
    "outer": (lambda M, b, B, B3: M.outer(b, b), [[True, False], [False, False]]),
    "addr": (lambda M, b, B, B3: M.addr(B, b, b), [[True, False], [True, True]]),
    "kron": (lambda M, b, B, B3: M.kron(b, b), [True, False, False, False]),
    "einsum outer": (lambda M, b, B, B3: M.einsum("i,j->ij", b, b), [[True, False], [False, False]]),
    "einsum product": (lambda M, b, B, B3: M.einsum("i,i->i", b, b), [True, False]),
    "mm with no rows": (lambda M, b, B, B3: M.mm(B[:0], B), []),
    "mm over k = 0": (lambda M, b, B, B3: M.mm(B[:, :0], B[:0]), [[False, False], [False, False]]),
    "mv over k = 0": (lambda M, b, B, B3: M.mv(B[:, :0], b[:0]), [False, False]),
    "bmm of no batch": (lambda M, b, B, B3: M.bmm(B3[:0], B3[:0]), []),
}


@pytest.mark.parametrize("name", list(BOOL_PRODUCTS))
def test_bool_matrix_products_raise_pytorchs_not_implemented(name):
    call, kernel = BOOL_PRODUCTS[name]
    with pytest.raises(NotImplementedError) as e:
        call(E, *_bools(E))
    assert str(e.value) == f"\"{kernel}\" not implemented for 'Bool'"


def test_dot_of_empty_bool_vectors_raises_too():
    with pytest.raises(NotImplementedError, match="\"dot\" not implemented for 'Bool'"):
        E.dot(E.zeros(0, dtype=E.bool), E.zeros(0, dtype=E.bool))


@pytest.mark.parametrize("name", list(BOOL_PRODUCTS_KEPT))
def test_bool_products_without_a_blas_kernel_compute(name):
    call, expect = BOOL_PRODUCTS_KEPT[name]
    r = call(E, *_bools(E))
    assert r.dtype == E.bool and r.tolist() == expect


def test_linalg_vecdot_takes_floating_operands_of_one_dtype():
    x = E.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="^linalg.vecdot: Expected a floating point or complex tensor as input. "
                                           "Got Long$"):
        E.linalg.vecdot(x.long(), x)
    with pytest.raises(RuntimeError, match="^linalg.vecdot: Expected x and y to have the same dtype, but found x of "
                                           "type Float and y of type Double instead$"):
        E.linalg.vecdot(x, x.double())
    assert E.linalg.vecdot(x.half(), x.half()).item() == 5.0


@pytest.mark.torch
@pytest.mark.parametrize("name", list(BOOL_PRODUCTS) + list(BOOL_PRODUCTS_KEPT))
def test_bool_products_match_pytorch(name):
    torch = pytest.importorskip("torch")
    call = (BOOL_PRODUCTS.get(name) or BOOL_PRODUCTS_KEPT[name])[0]
    outcomes = []
    for M in (E, torch):
        try:
            outcomes.append(call(M, *_bools(M)).tolist())
        except NotImplementedError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


# einsum over bool/integer operands: a letter summed out of one operand counts in int64 (PyTorch's `sum`);
# a pair contracted together goes through bmm, which refuses bool and wants one dtype
EINSUM_INTEGRAL = {
    ("ij->i", "bool"): ([1, 2], "int64"),
    ("ij->", "bool"): (3, "int64"),
    ("ii->", "bool"): (2, "int64"),
    ("ii->i", "bool"): ([True, True], "bool"),
    ("ij->ji", "bool"): ([[True, True], [False, True]], "bool"),
    ("ij,k->k", "bool"): ([3, 0], "int64"),
    ("ij,jk->j", "bool"): ([2, 2], "int64"),
    ("ij,jk->ijk", "bool"): ([[[True, False], [False, False]], [[True, False], [True, True]]], "bool"),
    ("ij->i", "int8"): ([1, 2], "int64"),
    ("ij,i->i", "int16"): ([1, 0], "int64"),
    ("ij,ij->i", "int32"): ([1, 2], "int32"),
    ("ij->i", "uint16"): ([1, 2], "int64"),
}
EINSUM_INTEGRAL_ERRORS = {
    ("ij,ij->i", "bool"): (NotImplementedError, "\"bmm\" not implemented for 'Bool'"),
    ("ij,jk->i", "bool"): (NotImplementedError, "\"bmm\" not implemented for 'Bool'"),
    ("ij,jk->k", "bool"): (RuntimeError, "expected scalar type Long but found Bool"),
    ("ij,jk->i", "int8"): (RuntimeError, "expected scalar type Char but found Long"),
    ("ij,ij->i", "uint16"): (NotImplementedError, "\"bmm\" not implemented for 'UInt16'"),
}


def _einsum_operands(M, eq, dt):
    b = M.tensor([[1, 0], [1, 1]], dtype=getattr(M, dt))
    return [b if len(t) == 2 else b[0] for t in eq.split("->")[0].split(",")]


@pytest.mark.parametrize("case", list(EINSUM_INTEGRAL), ids=" ".join)
def test_einsum_of_integral_operands_sums_in_int64(case):
    expect, dt = EINSUM_INTEGRAL[case]
    r = E.einsum(case[0], *_einsum_operands(E, *case))
    assert r.dtype == getattr(E, dt) and r.tolist() == expect


@pytest.mark.parametrize("case", list(EINSUM_INTEGRAL_ERRORS), ids=" ".join)
def test_einsum_of_integral_operands_raises_pytorchs_bmm_errors(case):
    kind, msg = EINSUM_INTEGRAL_ERRORS[case]
    with pytest.raises(kind) as e:
        E.einsum(case[0], *_einsum_operands(E, *case))
    assert str(e.value) == msg


@pytest.mark.torch
@pytest.mark.parametrize("case", list(EINSUM_INTEGRAL) + list(EINSUM_INTEGRAL_ERRORS), ids=" ".join)
def test_einsum_of_integral_operands_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    outcomes = []
    for M in (E, torch):
        try:
            r = M.einsum(case[0], *_einsum_operands(M, *case))
            outcomes.append((r.tolist(), str(r.dtype).split(".")[-1]))
        except (NotImplementedError, RuntimeError) as e:
            outcomes.append((isinstance(e, NotImplementedError), str(e)))
    assert outcomes[0] == outcomes[1]


# PyTorch's CPU bmm loops over products under 400 multiply-adds (dispatching on the first operand's dtype) and
# hands larger ones to BLAS (reading the first as the second's type) or to addmm: the errors follow the path
BMM_DTYPE_ERRORS = {
    ((2, 3, 4, 5), "float32", "float64"): (RuntimeError, "expected scalar type Float but found Double"),
    ((2, 3, 4, 5), "bool", "float32"): (NotImplementedError, "\"bmm\" not implemented for 'Bool'"),
    ((1, 20, 12, 6), "float32", "float64"): (RuntimeError, "expected scalar type Double but found Float"),
    ((1, 20, 12, 6), "bool", "float32"): (RuntimeError, "expected scalar type Float but found Bool"),
    ((1, 1, 400, 1), "int64", "complex64"): (RuntimeError, "expected scalar type ComplexFloat but found Long"),
    ((1, 20, 12, 6), "float32", "bool"): (
        RuntimeError, "expected m1 and m2 to have the same dtype, but got: float != bool"),
    ((1, 20, 12, 6), "bfloat16", "int64"): (
        RuntimeError, "expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != long int"),
    ((1, 20, 12, 6), "bool", "bool"): (NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
}


@pytest.mark.parametrize("case", list(BMM_DTYPE_ERRORS), ids=str)
def test_bmm_dtype_errors_follow_pytorchs_small_and_blas_paths(case):
    (b, n, k, m), da, db = case
    kind, msg = BMM_DTYPE_ERRORS[case]
    with pytest.raises(kind) as e:
        E.bmm(E.ones(b, n, k, dtype=getattr(E, da)), E.ones(b, k, m, dtype=getattr(E, db)))
    assert str(e.value) == msg


BADDBMM_DTYPE_ERRORS = {
    ((2, 3, 4, 5), "bool", "float32", "bool"): (NotImplementedError, "\"baddbmm\" not implemented for 'Bool'"),
    ((2, 3, 4, 5), "bool", "bool", "float32"): (
        RuntimeError, "Input dtypes must be the same, got: input float, batch1: bool, batch2: bool"),
    ((1, 20, 12, 6), "float32", "float64", "float32"): (RuntimeError, "expected scalar type Double but found Float"),
    ((1, 20, 12, 6), "float32", "bool", "float32"): (
        RuntimeError, "mat1 and mat2 must have the same dtype, but got Float and Bool"),
    ((1, 20, 12, 6), "bool", "bool", "bool"): (NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
}


@pytest.mark.parametrize("case", list(BADDBMM_DTYPE_ERRORS), ids=str)
def test_baddbmm_dtype_errors_follow_pytorchs_order_and_paths(case):
    (b, n, k, m), d1, d2, di = case
    kind, msg = BADDBMM_DTYPE_ERRORS[case]
    with pytest.raises(kind) as e:
        E.baddbmm(E.ones(b, n, m, dtype=getattr(E, di)), E.ones(b, n, k, dtype=getattr(E, d1)),
                  E.ones(b, k, m, dtype=getattr(E, d2)))
    assert str(e.value) == msg


def test_bmm_checks_out_against_the_second_operands_dtype_first():
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype double, but got float instead$"):
        E.bmm(E.ones(2, 3, 4), E.ones(2, 4, 5, dtype=E.float64), out=E.empty(2, 3, 5))
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype bool, but got float instead$"):
        E.bmm(E.ones(2, 3, 4, dtype=E.bool), E.ones(2, 4, 5, dtype=E.bool), out=E.empty(2, 3, 5))


def test_bmm_of_mixed_dtypes_with_nothing_to_compute_raises_nothing():
    assert E.bmm(E.ones(2, 0, 400), E.ones(2, 400, 5, dtype=E.float64)).shape == (2, 0, 5)
    assert E.bmm(E.ones(2, 5, 0, dtype=E.bool), E.ones(2, 0, 100)).shape == (2, 5, 100)


def test_einsum_dispatch_of_a_bool_mask_raises_what_its_bmm_raises():
    mask, x = E.ones(12, 4, 5, dtype=E.bool), E.ones(12, 6)
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Bool$"):
        E.einsum("sec,sm->ecm", mask, x)
    with pytest.raises(NotImplementedError, match="\"bmm\" not implemented for 'Bool'"):
        E.einsum("sec,sm->ecm", mask[:, :2, :2], x)


# a bool addmm/baddbmm/addbmm whose product sums nothing scales `input` by beta in bool, as PyTorch
def _bool_empty_products(M):
    B = M.ones(2, 2, dtype=M.bool)
    B3 = B[None]
    return {
        "addmm": lambda **kw: M.addmm(B, B[:, :0], B[:0], **kw),
        "addmm_": lambda **kw: B.clone().addmm_(B[:, :0], B[:0], **kw),
        "addmm out=": lambda **kw: M.addmm(B, B[:, :0], B[:0], out=M.empty(2, 2, dtype=M.bool), **kw),
        "baddbmm": lambda **kw: M.baddbmm(B3, B3[:, :, :0], B3[:, :0], **kw),
        "baddbmm_": lambda **kw: B3.clone().baddbmm_(B3[:, :, :0], B3[:, :0], **kw),
        "addbmm": lambda **kw: M.addbmm(B, B3[:, :, :0], B3[:, :0], **kw),
        "addbmm of no batch": lambda **kw: M.addbmm(B, B3[:0], B3[:0], **kw),
    }


BETAS = [(1, "Long"), (2, "Long"), (1.0, "Float"), (2.5, "Float"), (1j, "ComplexFloat")]  # 1 == 1.0: no dict


@pytest.mark.parametrize("name", list(_bool_empty_products(E)))
@pytest.mark.parametrize(("beta", "kind"), BETAS)
def test_bool_empty_product_cant_cast_beta_to_bool(name, beta, kind):
    with pytest.raises(RuntimeError, match=f"^result type {kind} can't be cast to the desired output type "
                                           "Bool$"):
        _bool_empty_products(E)[name](beta=beta)


@pytest.mark.parametrize("name", list(_bool_empty_products(E)))
def test_bool_empty_product_with_bool_or_zero_beta(name):
    call = _bool_empty_products(E)[name]
    for beta, value in ((True, True), (False, False), (0, False), (0.0, False)):
        r = call(beta=beta)
        assert r.dtype == E.bool and set(r.flatten().tolist()) == {value}


def test_bool_product_with_an_empty_result_stays_bool():
    B = E.ones(2, 2, dtype=E.bool)
    r = E.baddbmm(B[None][:, :0], B[None][:, :0], B[None], beta=2)
    assert r.dtype == E.bool and r.shape == (1, 0, 2)
    assert E.addbmm(B[:0], B[None][:, :0], B[None], beta=2.5).dtype == E.bool


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_bool_empty_products(E)))
@pytest.mark.parametrize("beta", [b for b, _ in BETAS] + [True, False, 0, 0.0])
def test_bool_empty_products_match_pytorch(name, beta):
    torch = pytest.importorskip("torch")
    outcomes = []
    for M in (E, torch):
        try:
            outcomes.append(_bool_empty_products(M)[name](beta=beta).tolist())
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]


def test_norm_string_orders_go_to_matrix_norm_and_vector_norm_refuses_them():
    """PyTorch: linalg.norm sends 'fro'/'nuc' to matrix_norm at any rank; vector_norm's ord must be a Number."""
    a = E.arange(4.0)
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: The input tensor A must have at least 2 dimensions"):
        E.linalg.norm(a, "fro")
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order bad not supported.$"):
        E.linalg.norm(a, "bad", dim=0)
    with pytest.raises(RuntimeError, match="must be 1D or 2D. Got 3D."):
        E.linalg.norm(E.ones(2, 2, 2), "fro")
    assert E.linalg.norm(E.ones(2, 2, 2), "fro", dim=(0, 2)).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match=r"argument 'ord' \(position 2\) must be Number, not str"):
        E.linalg.vector_norm(a, "fro")


@pytest.mark.parametrize("call, msg", [
    (lambda: E.linalg.householder_product(E.ones(2, 3), E.ones(2)),
     "torch.linalg.householder_product: input.shape[-2] must be greater than or equal to input.shape[-1]"),
    (lambda: E.linalg.householder_product(E.ones(3, 2), E.ones(3)),
     "torch.linalg.householder_product: input.shape[-1] must be greater than or equal to tau.shape[-1]"),
    (lambda: E.linalg.vecdot(E.ones(3), E.ones(4)), "inconsistent tensor size, expected tensor [3] and src [4] to "
     "have the same number of elements, but got 3 and 4 elements respectively"),
    (lambda: E.linalg.cond(E.eye(3), "bad"), "linalg.cond got an invalid norm type: bad"),
    (lambda: E.linalg.lstsq(E.eye(3), E.ones(3), driver="bad"),
     "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"),
    (lambda: E.linalg.multi_dot([E.ones(2, 3), E.ones(4, 2)]),
     "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 2] cannot be multiplied"),
    (lambda: E.linalg.multi_dot([E.ones(2, 3, 3), E.ones(3, 2)]),
     "multi_dot(): the first tensor must be 1D or 2D but got 3D"),
    (lambda: E.linalg.multi_dot([E.ones(2, 3), E.ones(3, 3, 3), E.ones(3)]),
     "multi_dot(): tensor 1 must be 2D but got 3D"),
    (lambda: E.linalg.multi_dot([E.ones(2, 3), E.ones(3, 2, dtype=E.float64)]),
     "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 1 double"),
    (lambda: E.linalg.lu(E.ones(2)), "linalg.lu: Expected tensor with 2 or more dimensions. Got size: [2] instead"),
    (lambda: E.linalg.lu_factor(E.ones(2)),
     "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [2] instead"),
    (lambda: E.linalg.norm(E.eye(3), dim=(0, 1, 1)),
     "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 1]"),
    (lambda: E.linalg.matrix_norm(E.eye(3), dim=(0, -2)), "linalg.matrix_norm: dims must be different. Got (0, 0)"),
    (lambda: E.linalg.matrix_norm(E.ones(2, 2, 2), dim=(0, 1, 2)),
     "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
    (lambda: E.linalg.vander(E.ones(3), N=1), "N must be greater than 1."),
    (lambda: E.linalg.vander(E.tensor(2.0)), "N must be greater than 1."),  # a number is a vector of one
    (lambda: E.linalg.vander(E.tensor([True])),
     "linalg.vander supports floating point, complex, and integer tensors, but got Bool"),
    (lambda: E.linalg.lstsq(E.ones(4, 2), E.ones(3)), "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"),
    (lambda: E.linalg.lstsq(E.ones(3, 2, dtype=E.int64), E.ones(3, 1)),  # the dtypes before the integer refusal
     "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype Long and other's "
     "dtype Float"),
    (lambda: E.linalg.lstsq(E.ones(3), E.ones(3), driver="bad"), "torch.linalg.lstsq: input must have at least 2 "
     "dimensions."),
    (lambda: E.linalg.lstsq(E.ones(3, 2), E.tensor(1.0)), "torch.linalg.lstsq: other must have at least 1 dimension."),
    (lambda: E.linalg.lstsq(E.ones(3, 2), E.ones(4, 1), driver="bad"),  # the shapes before the driver
     "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"),
])
def test_linalg_misuse_errors_are_pytorchs(call, msg):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == msg
    with pytest.raises(TypeError, match=r"argument 'n' \(position 2\) must be int, not float"):
        E.linalg.matrix_power(E.eye(2), 2.5)


def test_batched_and_out_dtype_mismatches_raise_pytorchs_messages():
    f = E.ones(2, 3, 3)
    # bmm (and matmul's and einsum's batched path) names scalar types; mm names C++ types
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Long$"):
        E.bmm(f, f.long())
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Float$"):
        E.matmul(f.double(), f)
    with pytest.raises(RuntimeError, match="^expected scalar type Half but found Float$"):
        E.baddbmm(f.half(), f.half(), f)
    with pytest.raises(RuntimeError, match="^expected m1 and m2 to have the same dtype, but got: float != long int$"):
        E.mm(f[0], f[0].long())
    # out= must have the result's dtype: products do not cast into it
    d = E.empty(2, 3, 3, dtype=E.float64)
    for fn in (lambda: E.bmm(f, f, out=d), lambda: E.matmul(f, f, out=d), lambda: E.mm(f[0], f[0], out=d[0]),
               lambda: E.baddbmm(f, f, f, out=d), lambda: E.addmm(f[0], f[0], f[0], out=d[0])):
        with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got double instead$"):
            fn()
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype long int, but got float instead$"):
        E.bmm(f.long(), f.long(), out=E.empty(2, 3, 3))
    with pytest.raises(RuntimeError, match="^addmv input tensors must have the same dtype, but got Double, Float, "
                                           "and Float$"):
        E.mv(f[0], f[0, 0], out=d[0, 0])
    with pytest.raises(RuntimeError, match="^result dtype Double does not match input dtype Float$"):
        E.dot(f[0, 0], f[0, 0], out=E.empty((), dtype=E.float64))
    r = E.empty(2, 3, 3)
    assert E.bmm(f, f, out=r) is r and r.tolist()[0][0] == [3.0, 3.0, 3.0]


def test_addmm_names_the_operand_that_is_not_a_matrix_and_cross_refuses_bool():
    m = E.ones(2, 3)
    with pytest.raises(RuntimeError, match="mat1 must be a matrix, got 1-D tensor"):
        E.addmm(E.ones(1), E.ones(3), m)
    with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 3-D tensor"):
        E.addmm(E.ones(1), m, E.ones(1, 3, 4))
    with pytest.raises(RuntimeError, match="self must be a matrix"):
        E.mm(E.ones(3), m)
    with pytest.raises(NotImplementedError, match="\"cross\" not implemented for 'Bool'"):
        E.linalg.cross(E.tensor([True, False, True]), E.tensor([False, True, True]))


@pytest.mark.parametrize("rows", [3, 257])  # numpy's call and the thread-limited one (blas_threads.matmul)
def test_mm_overflow_is_inf_without_a_numpy_warning(rows):
    import warnings

    x = np.full((rows, 64), 1e308)
    x[1:] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = E.mm(E.tensor(x), E.ones(64, 128, dtype=E.float64)).numpy()
    assert np.isposinf(r[0]).all() and (r[1:] == 64.0).all()


@pytest.mark.parametrize("dts, message", [
    (("float64", "float32", "float32"), "self and mat2 must have the same dtype, but got Double and Float"),
    (("float32", "float64", "float32"), "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (("float32", "float32", "float64"), "self and mat2 must have the same dtype, but got Float and Double"),
    (("int64", "float32", "float32"), "self and mat2 must have the same dtype, but got Long and Float"),
])
def test_addmm_wants_one_dtype_before_the_shapes(dts, message):
    shapes = ((3, 3), (2, 3), (3, 2))  # a bad shape too: PyTorch names the dtypes first
    args = [E.ones(*s, dtype=getattr(E, d)) for s, d in zip(shapes, dts, strict=True)]
    with pytest.raises(RuntimeError, match=f"^{message}$"):
        E.addmm(*args, beta=0)


def test_chain_matmul_of_one_matrix_is_a_copy_and_its_refusals(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())  # the warning comes once per process
    x = E.tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        r = E.chain_matmul(x)
    assert r.tolist() == x.tolist() and not np.shares_memory(r.numpy(), x.numpy())
    with pytest.raises(RuntimeError, match=r"^chain_matmul\(\): Expected one or more matrices$"):
        E.chain_matmul()
    with pytest.raises(RuntimeError, match="^Tensor dimension is 1, expected 2 instead.$"):
        E.chain_matmul(x, E.ones(2))


@pytest.mark.parametrize("dims, kind, message", [
    (3, RuntimeError, r"tensordot expects dims < ndim_a or ndim_b, but got dims=3"),
    ((1, 0), TypeError, r"tensordot\(\): argument 'dims_self' \(position 3\) must be tuple of ints, not int"),
    (([1], 0), TypeError, r"tensordot\(\): argument 'dims_other' \(position 4\) must be tuple of ints, not int"),
    ([[0, 0], [0, 1]], RuntimeError, r"dim 0 appears multiple times in the list of dims"),
    (([2], [0]), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (1.5, RuntimeError, r"tensordot expects dims to be int or tuple\[list\[int\], list\[int\]\] or list\[list\[int\]\] "
                        r"containing two lists, but got dims=1.5"),
])
def test_tensordot_dims_refused_as_pytorch(dims, kind, message):
    with pytest.raises(kind, match=f"^{message}$"):
        E.tensordot(E.ones(2, 2), E.ones(2, 2), dims=dims)


def test_tensordot_dims_as_a_one_element_tensor():
    a, b = make_tensor(2, 3, dtype=E.float64, seed=8), make_tensor(3, 4, dtype=E.float64, seed=9)
    assert_close(E.tensordot(a, b, dims=E.tensor(1)), ref(a) @ ref(b), **TOL)


def test_bmm_dtype_error_names_the_operands_in_pytorchs_kernel_order():
    # PyTorch 2.13's CPU bmm: its loop (under 400 multiply-adds a matrix) expects batch1's dtype, its BLAS path
    # batch2's; einsum's contraction and baddbmm go through it
    small = "expected scalar type Double but found Float"
    big = "expected scalar type Float but found Double"
    for (m, k, n), want in (((2, 3, 4), small), ((10, 4, 9), small), ((10, 4, 10), big), ((1, 400, 1), big)):
        a, b = E.ones(2, m, k, dtype=E.float64), E.ones(2, k, n)
        with pytest.raises(RuntimeError, match=f"^{want}$"):
            E.bmm(a, b)
        with pytest.raises(RuntimeError, match=f"^{want}$"):
            E.baddbmm(E.ones(2, m, n, dtype=E.float64), a, b)
    for (i, b_, h, w), want in (((3, 2, 5, 6), big), ((2, 2, 5, 6), small), ((5, 1, 5, 6), big)):
        with pytest.raises(RuntimeError, match=f"^{want}$"):
            E.einsum("ij,bjhw->bihw", E.ones(i, 3, dtype=E.float64), E.ones(b_, 3, h, w))


@pytest.mark.parametrize("p, name", [("fro", "str"), (None, "NoneType")])
def test_cdist_of_a_non_number_p_is_pytorchs_parser_error(p, name):
    x = E.ones(2, 3)
    with pytest.raises(TypeError, match=rf"^cdist\(\): argument 'p' \(position 3\) must be float, not {name}$"):
        E.cdist(x, x, p=p)
    assert E.cdist(x, x, p=True).tolist() == [[0.0, 0.0], [0.0, 0.0]]  # a bool is a float to the parser


def test_tensordot_broadcasts_size_one_contracted_dims():
    a = make_tensor(5, 6, 1, dtype=E.float64, seed=22)
    b = make_tensor(6, 2, dtype=E.float64, seed=23)
    assert_close(E.tensordot(a, b, dims=([2], [0])), ref(a) * ref(b).sum(0), **TOL)
    assert_close(E.tensordot(b, a, dims=([0], [2])), np.einsum("jk,bi->kbi", ref(b), ref(a)[..., 0]), **TOL)
    with pytest.raises(RuntimeError, match="first has size 2 in dim 2 and second has size 6 in dim 0"):
        E.tensordot(make_tensor(5, 6, 2, dtype=E.float64, seed=24), b, dims=([2], [0]))
