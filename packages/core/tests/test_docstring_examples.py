"""PyTorch's reference-docstring examples and their typical misuse, as ember answers them."""

import math

import numpy as np

import pytest

import ember.core as E


def test_eye_refuses_negative_sizes():
    with pytest.raises(RuntimeError, match="^n must be greater or equal to 0, got -1$"):
        E.eye(-1)
    with pytest.raises(RuntimeError, match="^m must be greater or equal to 0, got -2$"):
        E.eye(2, -2)


def test_polar_refuses_mixed_and_integer_parts():
    a = E.tensor([1.0, 2.0], dtype=E.float64)
    with pytest.raises(
        RuntimeError, match="^Expected object of scalar type Double but got scalar type Float for second"
    ):
        E.polar(a, a.float())
    with pytest.raises(RuntimeError, match="^Expected both inputs to be Half, Float or Double tensors but got Long"):
        E.polar(a.long(), a.long())
    p = E.polar(a, E.tensor([math.pi / 2, 0.0], dtype=E.float64))
    assert p.dtype is E.complex128
    assert abs(p[0].imag.item() - 1.0) < 1e-12 and p[1].real.item() == 2.0


def test_new_full_refuses_int_size():
    with pytest.raises(
        TypeError, match=r"^new_full\(\): argument 'size' \(position 1\) must be tuple of ints, not int$"
    ):
        E.tensor([1, 2]).new_full(3, 2)
    assert E.tensor([1.0]).new_full([2], 4.0).tolist() == [4.0, 4.0]


def test_aminmax_of_a_0d_tensor_over_dim_0():
    r = E.aminmax(E.tensor(2.5), dim=0, keepdim=True)
    assert r.min.shape == () and r.max.item() == 2.5
    assert E.aminmax(E.tensor(-1), dim=-1).min.item() == -1


def test_sort_and_topk_of_complex_keep_pytorchs_leading_space():
    z = E.tensor([1 + 1j])
    for fn, text in [(E.sort, " Sort"), (E.argsort, " Sort"), (E.msort, " Sort"), (lambda t: E.topk(t, 1), " topk")]:
        with pytest.raises(RuntimeError) as info:
            fn(z)
        assert str(info.value) == f"{text} does not support complex dtypes on CPU"


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_rounds_as_pytorchs(edge_order):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    y = rng.standard_normal((5, 6)).astype(np.float32)
    xs = np.cumsum(rng.uniform(0.1, 2.0, 6)).astype(np.float32)
    for spacing in [2.5, [1.0, 0.3]]:
        got = E.gradient(E.tensor(y), spacing=spacing, edge_order=edge_order)
        want = torch.gradient(torch.tensor(y), spacing=spacing, edge_order=edge_order)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.numpy(), w.numpy())
    got = E.gradient(E.tensor(y).double(), spacing=(E.tensor(xs),), dim=1, edge_order=edge_order)[0]
    want = torch.gradient(torch.tensor(y).double(), spacing=(torch.tensor(xs),), dim=1, edge_order=edge_order)[0]
    assert got.dtype is E.float64 and np.allclose(got.numpy(), want.numpy(), rtol=1e-15, atol=0)


def test_tensordot_and_renorm_messages_are_pytorchs_words():
    a = E.ones(3, 4, 5)
    with pytest.raises(RuntimeError) as info:
        E.tensordot(a, a, dims=([1], [0, 1]))
    assert str(info.value) == "both dimension lists should have same length"
    with pytest.raises(RuntimeError) as info:
        E.renorm(a, -1, 0, 5)
    assert str(info.value) == "renorm: non-positive-norm not supported"


def _message(fn) -> str:
    with pytest.raises(RuntimeError) as info:
        fn()
    return str(info.value)


def test_blas_products_check_as_pytorch_in_its_order():
    M, b1, b2 = E.ones(3, 5), E.ones(2, 3, 4), E.ones(2, 4, 5)
    assert _message(lambda: E.addbmm(M, b1, b2[:, :3])) == "Incompatible matrix sizes for bmm (3x4 and 3x5)"
    assert (
        _message(lambda: E.addbmm(M, b1, b2[:1])) == "batch1 and batch2 must have same number of batches, got 2 and 1"
    )
    assert _message(lambda: E.addbmm(M, b1, b2.double())) == (
        "self and mat2 must have the same dtype, but got Float and Double"
    )
    assert _message(lambda: E.addbmm(M, b1.double(), b2)) == (
        "mat1 and mat2 must have the same dtype, but got Double and Float"
    )
    assert _message(lambda: E.baddbmm(M, b1, b2.double())) == "expected scalar type Float but found Double"
    assert _message(lambda: E.baddbmm(M.double(), b1, b2)) == (
        "Input dtypes must be the same, got: input double, batch1: float, batch2: float"
    )
    assert _message(lambda: E.baddbmm(E.ones(4, 5), b1, b2)).startswith(
        "The expanded size of the tensor (3) must match the existing size (4) at non-singleton dimension 1."
    )
    m, v = E.ones(2, 3), E.ones(3)
    assert _message(lambda: E.addmv(E.ones(3), m, v)) == "size mismatch, got input (3), mat (2x3), vec (3)"
    assert _message(lambda: E.addmv(E.ones(2, 1), m, v)) == "vector + matrix @ vector expected, got 2, 2, 1"
    assert _message(lambda: E.addmv(E.ones(2), m.double(), v)) == (
        "addmv input tensors must have the same dtype, but got Float, Double, and Float"
    )
    assert _message(lambda: E.addr(E.zeros(3, 3), v, E.ones(2))).startswith("The expanded size of the tensor (2)")
    assert _message(lambda: E.addr(E.zeros(3, 3), v, E.ones(2, 1))) == "addr: Expected 1-D argument vec2, but got 2-D"


def test_integral_products_truncate_scalars_and_addr_refuses_floats():
    i = E.ones(2, 2, dtype=E.int64)
    r = E.addmm(i, i, i, alpha=1.5, beta=2.7)
    assert r.dtype is E.int64 and r.tolist() == [[4, 4], [4, 4]]
    assert E.addmv(E.ones(2, dtype=E.int64), i, E.ones(2, dtype=E.int64), alpha=0.5).tolist() == [1, 1]
    with pytest.raises(RuntimeError, match="^For integral input tensors, argument beta must not be a floating"):
        E.addr(i, E.tensor([1, 2]), E.tensor([3, 4]), beta=0.5)
    t, f = E.tensor([True, False]), E.tensor([True, True])
    r = E.addr(E.zeros(2, 2, dtype=E.bool), t, f, alpha=2)
    assert r.dtype is E.bool and r.tolist() == [[True, True], [False, False]]
    assert E.addr(E.ones(2, 2, dtype=E.bool), t, f, alpha=0).tolist() == [[True, True], [True, True]]


def test_round_negative_decimals_divides_and_nan_to_num_refuses_strings():
    assert E.round(E.tensor([1200.1234567]), decimals=-3).item() == 1000.0
    with pytest.raises(TypeError, match=r"^nan_to_num\(\): argument 'posinf' must be float, not str$"):
        E.nan_to_num(E.ones(2), posinf="x")
    assert E.nan_to_num(E.tensor([float("nan")]), nan=1).item() == 1.0


def test_special_namespace_names_itself_and_igamma_refuses_integers():
    x = E.ones(2)
    with pytest.raises(TypeError, match=r"^special_polygamma\(\): argument 'n' \(position 1\) must be int, not float$"):
        E.special.polygamma(1.5, x)
    for name in ("softmax", "log_softmax", "logsumexp"):
        with pytest.raises(TypeError, match=rf'^special_{name}\(\) missing 1 required positional arguments: "dim"$'):
            getattr(E.special, name)(x)
    assert E.special.logsumexp(E.zeros(2, 2), 1).tolist() == pytest.approx([math.log(2)] * 2)
    i = E.tensor([1, 2])
    with pytest.raises(NotImplementedError, match="^\"igammac_cpu\" not implemented for 'Long'$"):
        E.special.gammaincc(i, i)
    assert E.igamma(i, x).dtype is E.float32


def test_multi_dot_and_norm_check_as_pytorch():
    from ember.core import linalg

    assert _message(lambda: linalg.multi_dot([E.ones(2, 3), E.ones(2, 3)])) == (
        "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [2, 3] cannot be multiplied"
    )
    assert _message(lambda: linalg.multi_dot([E.ones(3, 3), E.ones(3), E.ones(3, 3)])) == (
        "multi_dot(): tensor 1 must be 2D but got 1D"
    )
    assert _message(lambda: linalg.multi_dot([E.ones(3, 3), E.ones(3, 3).double()])) == (
        "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 1 double"
    )
    assert (
        _message(lambda: linalg.norm(E.ones(3, 3), "fro", dim=0)) == "linalg.matrix_norm: dim must be a 2-tuple. Got 0"
    )
    assert _message(lambda: linalg.norm(E.ones(9), "nuc")) == (
        "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
    )
    assert _message(lambda: linalg.norm(E.ones(2, 2, 2), dim=(0, 1, 2))) == (
        "linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]"
    )
    assert linalg.norm(E.ones(2, 2, 2), "fro", dim=(1, 2)).tolist() == [2.0, 2.0]


def test_promote_types_and_seeds_refuse_as_pytorch():
    with pytest.raises(
        TypeError, match=r"^promote_types\(\): argument 'type2' \(position 2\) must be torch.dtype, not str$"
    ):
        E.promote_types(E.float32, "float64")
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        E.Generator().manual_seed(2**64)


def test_fft_frequencies_at_degenerate_sizes():
    assert E.fft.fftfreq(0).shape == (0,)
    assert math.isnan(E.fft.rfftfreq(0).item())
    f = E.fft.rfftfreq(-1)
    assert f.shape == (1,) and math.copysign(1.0, f.item()) == -1.0
    assert E.fft.rfftfreq(3, d=0.0).tolist()[1] == math.inf
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -3: \[-3\]$"):
        E.fft.fftfreq(-3)


def test_factories_take_a_layout():
    assert E.zeros(2, layout=E.strided).tolist() == [0.0, 0.0]
    assert E.ones_like(E.ones(2), layout=E.strided).tolist() == [1.0, 1.0]
    assert E.arange(3, layout=E.strided).tolist() == [0, 1, 2]
    assert E.eye(2, layout=E.strided).shape == (2, 2)
    assert E.tensor([1]).new_zeros(2, layout=E.strided).tolist() == [0, 0]
    s = E.zeros(2, 3, layout=E.sparse.sparse_coo)
    assert s.is_sparse and s._nnz() == 0 and s.shape == (2, 3) and s.to_dense().sum().item() == 0
    assert E.zeros_like(E.ones(2), layout=E.sparse.sparse_coo).is_sparse
    assert E.sparse.sparse_coo_tensor(size=(2, 3)).shape == (2, 3)
    with pytest.raises(RuntimeError, match=r"^full\(\.\.\.\) is not implemented for sparse layout$"):
        E.ones(2, layout=E.sparse.sparse_coo)
    with pytest.raises(TypeError, match=r"^zeros\(\): argument 'layout' must be torch.layout, not str$"):
        E.zeros(2, layout="strided")


def test_csr_refuses_coordinate_accessors_with_pytorchs_words():
    c = E.eye(2).to_sparse_csr()
    with pytest.raises(RuntimeError, match="^indices expected sparse coordinate tensor layout but got SparseCsr$"):
        c.indices()


def test_stride_length_mismatch_in_each_entry_points_words():
    t = E.ones(9)
    assert _message(lambda: t.as_strided((2,), (1, 1))) == "mismatch in length of strides and shape"
    assert _message(lambda: E.empty_strided((2,), (1, 1))) == (
        "dimensionality of sizes (1) must match dimensionality of strides (2)"
    )
    assert _message(lambda: t.set_(t.untyped_storage(), 0, (2,), (1, 1))) == (
        "unequal size length (1) and stride length (2)"
    )


def test_random_refusals_in_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"^Trying to create tensor with negative dimension -1: \[-1\]$"):
        E.randperm(-1)
    with pytest.raises(
        TypeError, match=r"^randint\(\) received an invalid combination of arguments - got \(int, int, int\)"
    ):
        E.randint(0, 2, 3)
    assert _message(lambda: E.normal(E.zeros(2), E.ones(3))) == (
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"
    )
    assert _message(lambda: E.empty(3).geometric_(1.0)) == "geometric_ expects p to be in (0, 1), but got p=1"
    assert _message(lambda: E.empty(3).exponential_(-1.0)) == "exponential_ expects lambda > 0.0, but found lambda=-1"


def test_sum_prod_cumsum_compute_in_outs_dtype():
    x = E.full((2,), 1.5)
    assert E.sum(x, 0, out=E.empty((), dtype=E.int64)).item() == 2
    assert E.prod(x, 0, out=E.empty((), dtype=E.int64)).item() == 1
    assert E.cumsum(x, 0, out=E.empty(2, dtype=E.int64)).tolist() == [1, 2]
    assert E.sum(E.tensor([300, 300]), 0, out=E.empty((), dtype=E.uint8)).item() == 88
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        E.mean(E.ones(2), 0, out=E.empty((), dtype=E.int64))


def test_out_calls_return_the_out_structseqs():
    x = E.tensor([[1.0, 5.0], [7.0, 2.0]])
    r = E.max(x, 1, out=(E.empty(2), E.empty(2, dtype=E.int64)))
    assert type(r).__name__ == "max_out" and repr(r).startswith("torch.return_types.max_out(\n")
    assert type(E.sort(x, 1, out=(E.empty(2, 2), E.empty(2, 2, dtype=E.int64)))).__name__ == "sort_out"
    assert type(E.cummax(x, 1)).__name__ == "cummax"


def test_aminmax_writes_into_out():
    mn, mx = E.empty(2), E.empty(2)
    r = E.aminmax(E.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1, out=(mn, mx))
    assert type(r).__name__ == "aminmax_out" and r.min is mn and mx.tolist() == [5.0, 7.0]
