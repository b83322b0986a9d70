"""renorm, gradient, histogram(dd), torch.vander, nonzero_static, as_strided_scatter, a few Tensor
methods and the global switches, against numpy float64 and PyTorch's documented values."""

import numpy as np
import pytest

import ember.core as E
from ember.core.testing import assert_close


def T(a):
    return E.tensor(np.asarray(a), dtype=E.float64)


def test_renorm_is_row_major_and_a_16_bit_norm_is_float32():
    # PyTorch's structured output is row-major whatever the input's layout; a bfloat16 input's norm and factor are
    # float32, the factor rounded once to bfloat16 before the product
    x = np.array([[1.5, 2.25, 3.1], [0.1, 7.3, 9.9]])
    t = T(x).t()
    assert t.renorm(2, 1, 1.0).stride() == (2, 1)
    y = t.clone()
    assert y.renorm_(2, 1, 1.0) is y and y.stride() == (1, 3)
    assert_close(y, t.renorm(2, 1, 1.0))
    b = E.tensor(x, dtype=E.bfloat16)
    xb = b.to(E.float64).numpy()
    norm = np.linalg.norm(xb.astype(np.float32), axis=1, keepdims=True).astype(np.float32)
    factor = E.tensor(np.where(norm > 1.0, np.float32(1.0) / (norm + np.float32(1e-7)), 1.0).astype(np.float32))
    want = (E.tensor(xb, dtype=E.float32) * factor.to(E.bfloat16).to(E.float32)).to(E.bfloat16)
    assert E.renorm(b, 2, 0, 1.0).to(E.float64).tolist() == want.to(E.float64).tolist()


def test_renorm_scales_slices_above_maxnorm():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    ref = x * np.where(norms > 2.5, 2.5 / (norms + 1e-7), 1.0)
    assert_close(E.renorm(T(x), 2, 0, 2.5), T(ref))
    n1 = np.abs(x).sum(axis=0, keepdims=True)
    assert_close(T(x).renorm(1, 1, 3.0), T(x * np.where(n1 > 3.0, 3.0 / (n1 + 1e-7), 1.0)))
    y = T(x)
    assert y.renorm_(2, 0, 2.5) is y
    with pytest.raises(RuntimeError, match="non-positive-norm"):
        E.renorm(T(x), 0, 0, 1.0)
    with pytest.raises(RuntimeError, match="^renorm: expected maxnorm to be >= 0 but got -1$"):
        E.renorm(T(x), 2, 0, -1.0)
    for bad in (T([1.0, 2.0]), T(1.0)):  # PyTorch checks the rank before the dim
        with pytest.raises(RuntimeError, match=f"^renorm: input needs at least 2 dimensions, got {bad.ndim} dim"):
            E.renorm(bad, 2, 5, 1.0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        E.renorm(T(x), 2, 2, 1.0)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(edge_order):
    rng = np.random.default_rng(0)
    y = rng.standard_normal((4, 6))
    for got, want in zip(E.gradient(T(y), edge_order=edge_order), np.gradient(y, edge_order=edge_order),
                         strict=True):
        assert_close(got, T(want))
    (g,) = E.gradient(T(y), spacing=0.5, dim=1, edge_order=edge_order)
    assert_close(g, T(np.gradient(y, 0.5, axis=1, edge_order=edge_order)))
    xs = np.array([0.0, 0.5, 1.5, 1.7, 3.0, 4.2])
    (g,) = E.gradient(T(y), spacing=(T(xs),), dim=1, edge_order=edge_order)
    assert_close(g, T(np.gradient(y, xs, axis=1, edge_order=edge_order)))


def test_gradient_errors_and_integer_input():
    assert E.gradient(E.tensor([1, 4, 9]))[0].tolist() == [3.0, 4.0, 5.0]
    with pytest.raises(RuntimeError, match="edge_order"):
        E.gradient(T([1.0, 2.0, 3.0]), edge_order=3)
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        E.gradient(T([1.0, 2.0]), edge_order=2)


def test_gradient_spacing_kinds_and_repeated_dims_are_refused_as_pytorchs_parser():
    m = T(np.arange(12.0).reshape(3, 4) ** 2)
    # a sequence that is not all numbers is a "tuple of Tensors": the first non-tensor element is named
    for spacing, i, kind in [([1.0, E.arange(4.0)], 0, "float"), ([E.arange(3.0), 2.0], 1, "float"),
                             (([0.0, 1.0, 3.0],), 0, "list"), ([None, 1.0], 0, "NoneType")]:
        with pytest.raises(TypeError) as info:
            E.gradient(m, spacing=spacing)
        assert str(info.value) == f"expected Tensor as element {i} in argument 1, but got {kind}"
    # a 1-D tensor or a dict is no overload's spacing; the keywords print in PyTorch's order
    with pytest.raises(TypeError) as info:
        E.gradient(m, spacing=E.arange(3.0), dim=1)
    lines = str(info.value).split("\n")
    assert lines[0] == ("gradient() received an invalid combination of arguments - got (Tensor, dim=int, "
                        "spacing=Tensor), but expected one of:")
    assert lines[1:3] == [" * (Tensor input, *, tuple of ints dim, int edge_order = 1)",
                          " * (Tensor input, *, Number spacing, tuple of ints dim, int edge_order = 1)"]
    with pytest.raises(TypeError, match=r"^gradient\(\) received an invalid combination of arguments - got \(Tensor, "
                                        r"spacing=dict\)"):
        E.gradient(m, spacing={1: 2})
    with pytest.raises(RuntimeError, match="^dim 0 appears multiple times in the list of dims$"):
        E.gradient(m, dim=[0, -2])
    # None, a bool and a 0-dim tensor are numbers
    want = np.gradient(np.arange(12.0).reshape(3, 4) ** 2, axis=1)
    for spacing in (None, True, E.tensor(1.0)):
        assert_close(E.gradient(m, spacing=spacing, dim=1)[0], T(want))


def test_gradient_error_messages_are_pytorchs():
    m = T(np.ones((3, 4)))
    with pytest.raises(RuntimeError, match=r"^torch.gradient only supports edge_order=1 and edge_order=2\.$"):
        E.gradient(m, edge_order=3)
    with pytest.raises(RuntimeError, match=r"list of length equal to 'self.dim\(\) = 2', since dim argument was not "
                                           r"given, but got a list of length 3$"):
        E.gradient(m, spacing=[1.0, 2.0, 3.0], edge_order=3)
    with pytest.raises(RuntimeError, match=r"spacing argument of length 2 and a dim argument of length 1\.$"):
        E.gradient(m, spacing=[1.0, 2.0], dim=1)
    with pytest.raises(RuntimeError, match=r"^torch.gradient expected each dimension size to be at least "
                                           r"edge_order\+1$"):
        E.gradient(T(np.ones((1, 4))))
    with pytest.raises(RuntimeError, match="does not support uint8 input"):
        E.gradient(E.tensor([1, 2, 3], dtype=E.uint8))



def test_gradient_coordinates_of_another_length_fail_where_pytorchs_weights_fail_to_broadcast():
    y = T(np.arange(20.0).reshape(4, 5) ** 2)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(5\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 1$"):
        E.gradient(y, spacing=(T([0.0, 1, 3, 4, 5, 6, 7]),), dim=1)
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(0\) must match the size of tensor b \(2\)"):
        E.gradient(y, spacing=(T([0.0, 1.0]),), dim=0)
    (g,) = E.gradient(y, spacing=(T([0.0, 1.0, 3.0]),), dim=1)  # one interior weight broadcasts, as PyTorch's
    assert_close(g[0], T([1.0, 7 / 6, 17 / 6, 4.5, 3.5]))

def test_histograms_match_numpy():
    a = np.array([1.0, 2.0, 1.0, 7.0, 3.5])
    h, e = E.histogram(T(a), bins=4)
    nh, ne = np.histogram(a, bins=4)
    assert h.tolist() == nh.astype(float).tolist() and e.tolist() == ne.tolist()
    h, e = E.histogram(T(a), bins=T([0.0, 1.0, 2.0, 8.0]), weight=T([1.0, 2.0, 3.0, 4.0, 5.0]), density=True)
    nh, _ = np.histogram(a, bins=[0.0, 1.0, 2.0, 8.0], weights=[1, 2, 3, 4, 5], density=True)
    assert_close(h, T(nh))
    assert E.histogram(T(a), 3, range=(0.0, 6.0)).hist.tolist() == [2.0, 2.0, 0.0]
    pts = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    h, edges = E.histogramdd(T(pts), bins=[3, 3], weight=T([1.0, 2.0, 4.0, 8.0]))
    nh, nedges = np.histogramdd(pts, bins=[3, 3], weights=[1, 2, 4, 8])
    assert h.tolist() == nh.tolist() and isinstance(edges, tuple)
    assert [x.tolist() for x in edges] == [[0.0, 2 / 3, 1.3333333333333335, 2.0]] * 2  # PyTorch's linspace
    assert all(np.allclose(x.tolist(), n) for x, n in zip(edges, nedges, strict=True))


def test_vander_nonzero_static_and_as_strided_scatter():
    assert E.vander(E.tensor([1, 2, 3])).tolist() == np.vander([1, 2, 3]).tolist()
    assert E.vander(T([1.0, 2.0]), N=3, increasing=True).tolist() == [[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]]
    assert E.tensor([1, 0, 2]).nonzero_static(size=4).tolist() == [[0], [2], [-1], [-1]]
    with pytest.raises(RuntimeError, match="^nonzero_static: 'size' must be an non-negative integer$"):
        E.tensor([1]).nonzero_static(size=-1)
    assert E.nonzero_static(E.tensor([1, 0, 2]), size=1).tolist() == [[0]]
    assert E.as_strided_scatter(E.zeros(4), E.ones(2), (2,), (2,)).tolist() == [1.0, 0.0, 1.0, 0.0]


def test_vander_takes_zero_or_one_columns_where_linalg_vander_refuses():
    # torch.vander builds N = 0 or 1 columns; torch.linalg.vander requires N > 1 (both PyTorch 2.13)
    x = T([2.0, 3.0])
    assert E.vander(x, 0).shape == (2, 0) and E.vander(x, N=1).tolist() == [[1.0], [1.0]]
    with pytest.raises(RuntimeError, match="^N must be greater than 1.$"):
        E.linalg.vander(x, N=1)
    assert E.linalg.vander(x, N=3).tolist() == np.vander([2.0, 3.0], 3, increasing=True).tolist()


def test_small_methods_and_switches():
    x = T([[1.0, 2.0], [3.0, 4.0]])
    assert x.hardshrink(1.5).tolist() == [[0.0, 2.0], [3.0, 4.0]]
    assert x.is_set_to(x) and not x.is_set_to(x.clone()) and x.const_data_ptr() == x.data_ptr()
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        assert x.resize(4).shape == (4,)
    assert x.shape == (2, 2)
    assert not E.is_warn_always_enabled()
    E.set_warn_always(True)
    assert E.is_warn_always_enabled()
    E.set_warn_always(False)
    E.set_deterministic_debug_mode("warn")
    assert E.get_deterministic_debug_mode() == 1 and E.is_deterministic_algorithms_warn_only_enabled()
    E.set_deterministic_debug_mode(0)
    assert E.get_deterministic_debug_mode() == 0 and not E.are_deterministic_algorithms_enabled()
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        E.set_deterministic_debug_mode(5)
    assert E.set_flush_denormal(True) is False


def test_resize_views_as_many_elements_and_refuses_others_as_pytorchs_autograd_resize():
    """PyTorch's `Tensor.resize`/`resize_as` (autograd's Resize): a view, never a grown or cut copy."""
    x = E.arange(6.0).view(2, 3)
    with pytest.warns(UserWarning, match="^non-inplace resize is deprecated$"):
        r = x.resize(3, 2)
    assert r.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]] and r.data_ptr() == x.data_ptr()
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match=(
            r"^requested resize to 7 \(7 elements in total\), but the given tensor has a size of 2x3 \(6 elements\)\. "
            r"autograd's resize can only change the shape of a given tensor, while preserving the number of "
            r"elements\. $")):
        x.resize(7)
    with pytest.warns(UserWarning, match="^non-inplace resize_as is deprecated$"):
        assert x.t().resize_as(E.ones(6)).tolist() == [0.0, 3.0, 1.0, 4.0, 2.0, 5.0]


def test_index_reduce_matches_a_python_loop():
    rng = np.random.default_rng(1)
    base, src = rng.standard_normal((5, 2)), rng.standard_normal((4, 2))
    idx = [0, 4, 2, 0]
    for reduce, fn in (("prod", np.prod), ("mean", np.mean), ("amax", np.max), ("amin", np.min)):
        for include_self in (True, False):
            want = base.copy()
            for row in set(idx):
                vals = [src[i] for i, j in enumerate(idx) if j == row] + ([base[row]] if include_self else [])
                want[row] = fn(np.stack(vals), axis=0)
            got = T(base).index_reduce(0, E.tensor(idx), T(src), reduce, include_self=include_self)
            assert_close(got, T(want))
    x = T(base)
    assert x.index_reduce_(0, E.tensor(idx), T(src), "amax") is x
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        x.index_reduce(0, E.tensor(idx), T(src), "sum")


def test_is_distributed_module_load_grad_dtype_and_from_file(tmp_path):
    x = E.ones(2)
    assert not E.is_distributed(x) and not x.is_distributed() and x.grad_dtype is E.float32
    path = tmp_path / "f.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    t = E.from_file(str(path), shared=False, size=4)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    t[0] = 9.0
    assert np.fromfile(path, dtype=np.float32)[0] == 0.0
    s = E.from_file(str(path), shared=True, size=4)
    s[1] = 5.0
    del s
    assert np.fromfile(path, dtype=np.float32)[1] == 5.0


def test_hash_tensor_xors_the_64_bit_patterns():
    from ember.core.ops import restricted_dtypes

    a = np.array([[1.5, -2.25, 3.0]], dtype=np.float32)
    h = E.hash_tensor(E.tensor(a))
    assert h.dtype is E.uint64 and h.item() == int(np.bitwise_xor.reduce(a.astype(np.float64).view(np.uint64).ravel()))
    assert E.hash_tensor(E.tensor([-1], dtype=E.int8)).item() == 2**64 - 1
    assert E.hash_tensor(E.tensor([True, False, True])).item() == 0
    rows = E.hash_tensor(E.arange(6.0).view(2, 3), dim=1)
    want = np.bitwise_xor.reduce(np.arange(6.0).reshape(2, 3).view(np.uint64), axis=1)
    assert rows.tolist() == want.tolist()
    restricted_dtypes.uninstall()


def test_segment_reduce_matches_pytorchs_values():
    d = T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    lengths = E.tensor([1, 0, 3])
    # PyTorch 2.13's values (an empty segment gives the identity, NaN for mean)
    want = {"sum": [[1.0, 2.0], [0.0, 0.0], [15.0, 18.0]], "max": [[1.0, 2.0], [-np.inf, -np.inf], [7.0, 8.0]],
            "min": [[1.0, 2.0], [np.inf, np.inf], [3.0, 4.0]], "prod": [[1.0, 2.0], [1.0, 1.0], [105.0, 192.0]]}
    for reduce, ref in want.items():
        assert E.segment_reduce(d, reduce, lengths=lengths).tolist() == ref
    m = E.segment_reduce(d, "mean", lengths=lengths).tolist()
    assert m[0] == [1.0, 2.0] and np.isnan(m[1]).all() and m[2] == [5.0, 6.0]
    assert E.segment_reduce(d, "mean", lengths=E.tensor([2, 2]), initial=10.0).tolist() == [[7.0, 8.0], [11.0, 12.0]]
    assert E.segment_reduce(d, "prod", lengths=E.tensor([2, 2]), initial=10.0).tolist() == \
        [[30.0, 80.0], [350.0, 480.0]]
    assert E.segment_reduce(d, "sum", offsets=E.tensor([0, 1, 4])).tolist() == [[1.0, 2.0], [15.0, 18.0]]
    with pytest.raises(RuntimeError, match="Expected all rows of lengths along axis to sum"):
        E.segment_reduce(d, "sum", lengths=E.tensor([1, 1]))


def test_segment_reduce_arguments_as_pytorch():
    """Offsets win over lengths when both are given; no bounds, or indices, raise PyTorch's RuntimeErrors."""
    d = T([1.0, 2.0, 3.0, 4.0])
    assert E.segment_reduce(d, "sum", lengths=E.tensor([1, 3]), offsets=E.tensor([0, 2, 4])).tolist() == [3.0, 7.0]
    with pytest.raises(RuntimeError, match=r"^segment_reduce\(\): Either lengths or offsets must be defined\.$"):
        E.segment_reduce(d, "sum")
    with pytest.raises(RuntimeError, match=r"^segment_reduce\(\): indices based reduction is not supported yet\.$"):
        E.segment_reduce(d, "median", indices=E.tensor([0, 0, 1, 1]))


def test_segment_reduce_names_dtypes_and_node_as_pytorch():
    d = T([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    lengths = E.tensor([3, 3])
    assert E.segment_reduce(d, "amax", lengths=lengths).tolist() == [3.0, 6.0]  # amax/amin name max/min
    assert E.segment_reduce(d, "amin", lengths=lengths).tolist() == [1.0, 4.0]
    with pytest.raises(RuntimeError, match="^reduce argument must be either sum, prod, mean, amax or amin, got "
                                           "median$"):
        E.segment_reduce(d, "median", lengths=lengths)
    with pytest.raises(NotImplementedError, match="^\"_segment_reduce_cpu\" not implemented for 'Long'$"):
        E.segment_reduce(E.arange(6), "sum", lengths=lengths)
    with pytest.raises(NotImplementedError, match="^\"_segment_reduce_lengths_cpu_kernel1\" not implemented for "
                                                  "'Float'$"):
        E.segment_reduce(d, "sum", lengths=E.tensor([3.0, 3.0]))
    with pytest.raises(RuntimeError, match="Expected all rows of lengths"):  # the sizes are checked before the dtype
        E.segment_reduce(E.arange(6), "sum", lengths=E.tensor([2, 2]))
    assert E.segment_reduce(d.half(), "sum", lengths=lengths).dtype is E.float16


def test_segment_reduce_rows_of_lengths_reduce_rows_of_data():
    x = E.arange(12.0).view(2, 6)
    assert E.segment_reduce(x, "sum", lengths=E.tensor([[3, 3], [1, 5]]), axis=1).tolist() == [[3.0, 12.0],
                                                                                              [6.0, 45.0]]
    assert E.segment_reduce(x, "max", offsets=E.tensor([[0, 3, 6], [0, 1, 6]]), axis=1).tolist() == [[2.0, 5.0],
                                                                                                    [6.0, 11.0]]
    m = E.segment_reduce(x.view(2, 6, 1), "mean", lengths=E.tensor([[3, 3], [0, 6]]), axis=1)  # PyTorch 2.13's
    assert m.shape == (2, 2, 1) and m[0].flatten().tolist() == [1.0, 4.0] and np.isnan(m[1, 0, 0].item())
    with pytest.raises(RuntimeError, match=r"^segment_reduce\(\): Expected axis to be the last dimension of lengths "
                                           r"but got 1.$"):
        E.segment_reduce(x, "sum", lengths=E.tensor([3, 3]), axis=1)
    with pytest.raises(RuntimeError, match="Expected all rows of lengths along axis to sum"):
        E.segment_reduce(x, "sum", lengths=E.tensor([[3, 3], [1, 4]]), axis=1)


def test_slice_inverse_views_input_storage_with_src_geometry():
    x = E.arange(12.0).view(3, 4)
    r = E.slice_inverse(x[:, 1:3], x, 1, 1, 3)
    assert r.shape == (3, 4) and r.stride() == (4, 1) and r.data_ptr() == x.data_ptr()
    assert r.tolist() == x.tolist()
    assert x[1:].slice_inverse(x, 0, 1).tolist() == x.tolist()
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        E.slice_inverse(E.zeros(4), E.zeros(10), 0, 2, 6)
    assert E.random.thread_safe_generator() is None



def test_histogram_dtype_and_shape_refusals_are_pytorchs():
    x = E.ones(3, 2)
    with pytest.raises(NotImplementedError, match="^\"histogramdd\" not implemented for 'Long'$"):
        E.histogram(E.tensor([1, 2, 3]), bins=2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Half'"):
        E.histogramdd(x.half(), bins=2)
    with pytest.raises(RuntimeError, match="input with dtype float and bins for dimension 1 with dtype double$"):
        E.histogramdd(x, bins=[E.tensor([0.0, 1.0]), T([0.0, 1.0])])
    with pytest.raises(RuntimeError, match="but got input with dtype long int and bins for dimension 0 with dtype "):
        E.histogram(E.tensor([1, 2]), bins=E.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="expected 2 sequences of bin edges for a 2-dimensional histogram but got 1"):
        E.histogramdd(x, bins=[E.tensor([0.0, 1.0])])
    with pytest.raises(RuntimeError, match="^histogramdd: The size of bins must be equal to the innermost dimension"):
        E.histogramdd(x, bins=[2, 2, 2])
    with pytest.raises(RuntimeError, match="range should have 4 elements, but got 2$"):
        E.histogramdd(x, bins=[2, 2], range=[0.0, 1.0])
    with pytest.raises(RuntimeError, match="^torch.histogramdd: min should not exceed max, but got min 5 max 1 for "
                                           "dimension 0$"):
        E.histogram(E.arange(10.0), bins=3, range=(5.0, 1.0))
    with pytest.raises(RuntimeError, match="but got min 3 max 2.5 for dimension 1$"):
        E.histogramdd(x, bins=2, range=[0.0, 1.0, 3.0, 2.5])
    assert E.histogram(E.arange(10.0), bins=3, range=(1.0, 1.0)).hist.tolist() == [0.0, 1.0, 0.0]  # min == max


def test_histogram_weight_refusals_are_pytorchs():
    shape_msg = "^torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor " \
                r"excluding its innermost dimension, but got input with shape \[{}\] and weight with shape \[{}\]$"
    with pytest.raises(RuntimeError, match=shape_msg.format("3, 1", "4")):
        E.histogram(E.ones(3), bins=3, weight=E.ones(2, 2))  # both flattened
    with pytest.raises(RuntimeError, match=shape_msg.format("2, 2, 2", "4")):
        E.histogramdd(E.ones(2, 2, 2), bins=3, weight=E.ones(4))
    with pytest.raises(RuntimeError, match=r"the same dtype, but got input\(float\), and weight\(double\)$"):
        E.histogram(E.ones(4), bins=3, weight=T([1.0, 1.0, 1.0, 1.0]))
    assert E.histogram(E.ones(2, 2), bins=3, weight=E.full((4,), 0.5)).hist.tolist() == [0.0, 2.0, 0.0]
    assert E.histogramdd(E.ones(2, 2, 2), bins=1, weight=E.full((2, 2), 0.5)).hist.tolist() == [[2.0]]


@pytest.mark.parametrize("call, msg", [
    (lambda: E.histogram(E.tensor([1.0, float("inf")]), bins=2), "dimension 0's range [1, inf] is not finite"),
    (lambda: E.histogram(E.tensor([1.0, float("nan")]), bins=2), "dimension 0's range [nan, nan] is not finite"),
    (lambda: E.histogram(E.ones(2), bins=2, range=(0.0, float("inf"))), "dimension 0's range [0, inf] is not finite"),
    (lambda: E.histogramdd(E.tensor([[1.0, float("nan")], [2.0, 3.0]]), bins=2),
     "dimension 1's range [nan, nan] is not finite"),
])
def test_histogram_refuses_an_infinite_range_as_pytorch(call, msg):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == "torch.histogramdd: " + msg


def test_histogram_equal_bins_edges_are_pytorchs_float32_linspace():
    x = E.tensor([0.1, 2.7, 1.3])
    edges = E.histogram(x, bins=7).bin_edges.tolist()
    assert edges[5] == 1.9571428298950195  # PyTorch 2.13's; numpy's float64 edges rounded give 1.957142949104309
    assert edges == E.linspace(0.1, 2.7, 8).tolist()
    pts = E.tensor([[-1.0, 0.1], [1.0, 2.7]])
    h = E.histogramdd(pts, bins=[3, 7])
    assert h.bin_edges[0].tolist()[1] == -0.3333333134651184 and h.bin_edges[1].tolist() == edges
    assert h.hist.sum().item() == 2.0 and E.histogram(x, bins=7).hist.tolist() == [1.0, 0, 0, 1.0, 0, 0, 1.0]


def test_histogram_nan_weight_spoils_only_its_own_bin():
    """PyTorch adds each weight into its point's bin: a NaN weight makes that bin NaN and no other (numpy's
    weighted histogram differences a cumulative sum, which carried the NaN into every later bin)."""
    x = E.tensor([0.1, 0.2, 0.7, 0.9])
    w = E.tensor([float("nan"), 1.0, 2.0, 3.0])
    hist = E.histogram(x, 2, range=(0.0, 1.0), weight=w).hist.numpy()
    assert np.array_equal(hist, np.array([np.nan, 5.0], np.float32), equal_nan=True)
    hist = E.histogram(x, E.tensor([0.0, 0.5, 1.0]), weight=w).hist.numpy()
    assert np.array_equal(hist, np.array([np.nan, 5.0], np.float32), equal_nan=True)


def test_histogram_given_edges_bin_by_pytorchs_binary_search():
    # PyTorch bins by std::upper_bound and checks no order: edges that fall or repeat bin as its search lands
    x = E.tensor([-0.05, 0.0, 0.02, 0.05, 0.08, 0.1, 0.2, float("nan")], dtype=E.float64)
    edges = E.tensor([0.0, 0.1, 0.05, 0.2], dtype=E.float64)
    assert E.histogram(x, bins=edges).hist.tolist() == [2.0, 0.0, 4.0]  # PyTorch 2.13's
    assert E.histogram(x, bins=E.tensor([0.0, 0.1, 0.1, 0.2], dtype=E.float64)).hist.tolist() == [4.0, 0.0, 2.0]
    assert E.histogram(x, bins=E.tensor([0.1, 0.0], dtype=E.float64)).hist.tolist() == [0.0]
    w = E.arange(8, dtype=E.float64)
    assert E.histogram(x, bins=E.tensor([0.0, 0.05, 0.2], dtype=E.float64), weight=w).hist.tolist() == [3.0, 18.0]
    dd = E.histogramdd(E.stack([x, x], 1), bins=[edges, E.tensor([0.0, 0.2], dtype=E.float64)])
    assert dd.hist.tolist() == [[2.0], [0.0], [4.0]]
    for call in (lambda: E.histogram(x, bins=0), lambda: E.histogram(x, bins=E.tensor([0.0], dtype=E.float64)),
                 lambda: E.histogramdd(x.view(-1, 1), bins=[0])):
        with pytest.raises(RuntimeError, match=r"^torch.histogram\(\): bins must be > 0, but got 0 for dimension 0$"):
            call()


def test_numpy_port_refusals_are_pytorchs():
    """diff's 0-dim prepend, isin of bools, cov's zero weight sum, trace of bools and trapezoid's number x."""
    with pytest.raises(RuntimeError, match="^diff expects prepend or append to be the same dimension as input$"):
        E.diff(E.tensor([1.0, 2.0]), prepend=E.tensor(0.0))
    for a, b in ((E.tensor([True]), E.tensor([True])), (E.tensor([1]), True), (E.tensor([1]), E.tensor([False]))):
        with pytest.raises(RuntimeError, match=r"^Unsupported input type encountered for isin\(\): Bool$"):
            E.isin(a, b)
    with pytest.raises(RuntimeError, match="^cov\\(\\): weights sum to zero, can't be normalized$"):
        E.cov(E.tensor([[1.0, 2.0, 3.0]]), aweights=E.zeros(3))
    with pytest.raises(NotImplementedError, match="^\"trace\" not implemented for 'Bool'$"):
        E.trace(E.ones(2, 2, dtype=E.bool))
    assert E.trace(E.ones(2, 2, dtype=E.int8)).dtype is E.int64
    with pytest.raises(TypeError, match=r"^trapezoid\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, float\)"):
        E.trapezoid(E.tensor([1.0, 2.0]), 0.5)


def test_gradient_spacing_none_is_the_default_and_mixed_tuples_want_tensors():
    """PyTorch's binding: spacing=None is the unit step; a tuple that is not all numbers must be all Tensors."""
    x = E.arange(12.0).view(3, 4) ** 2
    for got, want in zip(E.gradient(x, spacing=None), np.gradient(x.numpy())):
        np.testing.assert_allclose(got.numpy(), want)
    for spacing, where, kind in ((([0.0, 1.0, 3.0],), 0, "list"), ((1.0, E.arange(4.0)), 0, "float"),
                                 ((E.arange(3.0), 2.0), 1, "float")):
        dim = (0, 1) if len(spacing) == 2 else 1
        with pytest.raises(TypeError, match=rf"^expected Tensor as element {where} in argument 1, but got {kind}$"):
            E.gradient(x, spacing=spacing, dim=dim)


def test_gradient_takes_a_0dim_spacing_tensor_as_a_number():
    (g,) = E.gradient(E.tensor([1.0, 4.0, 9.0]), spacing=E.tensor(2.0))
    assert g.tolist() == [1.5, 2.0, 2.5]
    with pytest.raises(RuntimeError, match="to have one dimension, but got an element with 0 dimensions!$"):
        E.gradient(E.ones(3, 3), spacing=[E.tensor(2.0), E.tensor(1.0)])


def test_integer_and_bool_refusals_of_argmax_round_addcdiv_and_var_are_pytorchs():
    with pytest.raises(RuntimeError, match=r"^argmin\(\): does not support bool input$"):
        E.argmin(E.tensor([True, False]))
    with pytest.raises(RuntimeError, match=r"^argmax\(\): does not support bool input$"):
        E.tensor([[True]]).argmax(1)
    assert E.round(E.tensor([1, 2])).tolist() == [1, 2]  # without decimals: the integer kernel
    with pytest.raises(NotImplementedError, match="^\"round_cpu\" not implemented for 'Long'$"):
        E.round(E.tensor([15, 25]), decimals=-1)
    with pytest.raises(NotImplementedError, match="^\"round_vml_cpu\" not implemented for 'Long'$"):
        E.round(E.tensor([15]), decimals=0)
    assert E.round(E.tensor([1.25, 2.675]), decimals=0).tolist() == [1.0, 3.0]
    with pytest.raises(RuntimeError, match="^Integer division with addcdiv is no longer supported"):
        E.addcdiv(E.tensor([1.0]), E.tensor([2]), E.tensor([3]))
    assert_close(E.addcdiv(E.tensor([1]), E.tensor([2.0]), E.tensor([3])), E.tensor([1 + 2 / 3]))
    with pytest.raises(RuntimeError, match="^std and var only support floating point and complex dtypes$"):
        E.var(E.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="^std_mean only support floating point and complex dtypes$"):
        E.std_mean(E.tensor([1, 2]))


def test_linalg_and_bit_helpers_refuse_as_pytorch():
    with pytest.raises(RuntimeError, match=r"^linalg.cross: inputs must have the same number of dimensions\.$"):
        E.linalg.cross(E.ones(2, 1, 3), E.ones(4, 3))
    with pytest.raises(RuntimeError, match="^expected scalar type Long but found Float$"):
        E.linalg.cross(E.tensor([1, 0, 0]), E.tensor([0.0, 1.0, 0.0]))
    with pytest.raises(RuntimeError, match="^both inputs should have same dtype$"):
        E.tensordot(E.ones(2, 3), E.ones(3, 2, dtype=E.float64), dims=1)
    with pytest.raises(ValueError, match="^fast is not a valid value for compute_mode$"):
        E.cdist(E.ones(1, 2), E.ones(1, 2), compute_mode="fast")
    with pytest.raises(NotImplementedError, match="^\"gcd_cpu\" not implemented for 'Bool'$"):
        E.gcd(E.tensor([True]), E.tensor([True]))
    with pytest.raises(RuntimeError, match="^torch.frexp\\(\\) expects exponent to have int dtype but got long int$"):
        E.frexp(E.tensor([1.5]), out=(E.empty(1), E.empty(1, dtype=E.int64)))
    with pytest.raises(RuntimeError, match="expects mantissa to have dtype float but got double$"):
        E.frexp(E.tensor([1.5]), out=(E.empty(1, dtype=E.float64), E.empty(1, dtype=E.int32)))
    assert E.ldexp(E.tensor([1.0], dtype=E.float64), E.tensor([1000])).item() == 2.0**1000  # 2**e in float64
    assert E.ldexp(E.tensor([1.0]), E.tensor([200])).item() == float("inf")


def test_order_statistics_of_bools_are_refused_as_pytorch():
    b = E.tensor([True, False, True])
    with pytest.raises(RuntimeError, match="^topk does not support bool dtypes on CPU$"):
        E.topk(b, 1)
    with pytest.raises(NotImplementedError, match="^\"kthvalue_cpu\" not implemented for 'Bool'$"):
        E.kthvalue(b, 1)
    with pytest.raises(NotImplementedError, match="^\"median_cpu\" not implemented for 'Bool'$"):
        b.median()
    with pytest.raises(NotImplementedError, match="^\"median_out\" not implemented for 'Bool'$"):
        E.median(b, 0)
    with pytest.raises(NotImplementedError, match="^\"searchsorted_out_cpu\" not implemented for 'Bool'$"):
        E.searchsorted(E.tensor([False, True]), E.tensor([True]))
    assert E.searchsorted(E.tensor([1, 2]), E.tensor([True])).tolist() == [0]  # bool values are fine


def test_searchsorted_of_a_bool_sequence_searches_in_the_common_dtype():
    # PyTorch refuses only an all-bool search: int and float values search a bool sequence as numbers
    seq = E.tensor([False, True, True])
    assert E.searchsorted(seq, E.tensor([-1, 1, 2]), right=True).tolist() == [0, 3, 3]
    assert E.searchsorted(seq, E.tensor([0.5, 1.5])).tolist() == [1, 3]
    assert E.searchsorted(seq, 1).item() == 1
    with pytest.raises(NotImplementedError, match="^\"searchsorted_out_cpu\" not implemented for 'Bool'$"):
        E.searchsorted(seq, True)


def test_gradient_of_complex_values_on_a_uniform_grid():
    # the grid is real (there is no complex arange): numpy's np.gradient of the same values
    z = np.array([1 + 1j, 2 + 0j, 4 + 2j], dtype=np.complex64)
    (g,) = E.gradient(E.from_numpy(z), spacing=2.0)
    assert g.dtype == E.complex64 and np.allclose(g.numpy(), np.gradient(z, 2.0))


def test_gradient_with_a_complex_step_is_complex():
    # a complex number spacing divides the differences, its result complex of the input's precision (PyTorch's)
    x = np.array([[1.0, 2.0, 4.0], [4.0, 5.0, 9.0]])
    for dtype, want in ((E.float32, E.complex64), (E.float64, E.complex128)):
        g0, _ = E.gradient(E.tensor(x, dtype=dtype), spacing=1 + 2j)
        (g1,) = E.gradient(E.tensor(x, dtype=dtype), spacing=1 + 2j, dim=1, edge_order=2)
        assert g0.dtype == g1.dtype == want
        np.testing.assert_allclose(g0.numpy(), np.gradient(x, axis=0) / (1 + 2j), rtol=1e-6)
        np.testing.assert_allclose(g1.numpy(), np.gradient(x, axis=1, edge_order=2) / (1 + 2j), rtol=1e-6)
    (g,) = E.gradient(E.tensor([1, 2, 4]), spacing=[np.complex64(2j)])
    np.testing.assert_allclose(g.numpy(), [-0.5j, -0.75j, -1j])


def test_deterministic_debug_mode_refusals_are_pytorchs():
    for bad, kind, text in (("loud", RuntimeError, "expected one of `default`, `warn`, `error`, but got loud"),
                            (3, RuntimeError, "expected 0, 1, or 2, but got 3"),
                            (1.0, TypeError, "debug_mode must be str or int, but got <class 'float'>")):
        with pytest.raises(kind) as e:
            E.set_deterministic_debug_mode(bad)
        assert str(e.value).endswith(text)


def test_size_checks_items_and_keeps_its_type_through_arithmetic():
    s = E.Size([2, 3])
    assert type(s * 2) is E.Size and s * 2 == (2, 3, 2, 3) and type(2 * s) is E.Size
    assert type((1,) + s) is E.Size and type(s + (4,)) is E.Size and type(s[1:]) is E.Size
    assert E.Size([True, np.int64(4), E.tensor(5)]) == (1, 4, 5)
    assert all(type(d) is int for d in E.Size([np.int64(4)]))
    with pytest.raises(TypeError, match=r"Size\(\) takes an iterable of 'int' \(item 1 is 'float'\)"):
        E.Size([2, 2.5])
    with pytest.raises(TypeError, match=r"can only concatenate tuple \(not list\) to .*Size"):
        s + [1]


def test_deterministic_and_thread_count_refusals_are_pytorchs():
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument 'mode' \(position 1\) must be "
                                        r"bool, not str$"):
        E.use_deterministic_algorithms("yes")
    with pytest.raises(TypeError, match=r"argument 'warn_only' must be bool, not str$"):
        E.use_deterministic_algorithms(True, warn_only="x")
    with pytest.raises(RuntimeError, match=r"^set_num_threads expects a positive integer$"):
        E.set_num_threads(0)
    assert not E.are_deterministic_algorithms_enabled()


def test_histogram_density_divides_in_inputs_dtype_as_pytorch_does():
    """hist / hist.sum() / widths in float32: 21 of 200 in a 60-wide bin is 0.0017499999 (numpy's float64 quotient
    rounds to 0.0017500001)."""
    x = E.tensor([1.0] * 21 + [100.0] * 86 + [400.0] * 93)
    h = E.histogram(x, bins=E.tensor([0.0, 60.0, 300.0, 600.0]), density=True).hist
    assert h.tolist() == [0.0017499999376013875, 0.0017916667275130749, 0.001550000044517219]  # PyTorch 2.13's
    pts = E.tensor([[0.5, 1.5], [2.5, 0.2], [1.1, 2.9], [0.3, 0.3]])
    hd = E.histogramdd(pts, bins=[E.tensor([0.0, 1.0, 3.0]), E.tensor([0.0, 0.7, 3.0])], density=True).hist
    assert hd.tolist() == [[0.3571428656578064, 0.10869565606117249], [0.1785714328289032, 0.05434782803058624]]


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("dtype, reduce, include_self, want", [
    (E.bfloat16, "prod", True, [3.3125, 1.2109375, 0.9140625]),
    (E.bfloat16, "mean", False, [1.2421875, 1.25, 0.875]),
    (E.float16, "prod", False, [3.302734375, 1.619140625, 0.73193359375]),
    (E.float16, "mean", True, [1.20703125, 1.1240234375, 0.99853515625]),
])
def test_index_reduce_of_16bit_rounds_after_every_write_as_pytorch(dtype, reduce, include_self, want):
    """PyTorch 2.13's values: its CPU loop rounds each product or sum to the dtype (scatter_reduce's rounds once)."""
    x = E.tensor([1.0, 0.75, 1.25]).to(dtype)
    src = E.tensor([1.1, 0.9, 1.3, 0.7, 1.7, 1.9, 0.6, 1.05, 1.45, 0.95, 1.15, 1.35]).to(E.bfloat16).to(dtype)
    idx = E.tensor([0, 1, 0, 2, 0, 1, 0, 2, 0, 1, 0, 0])
    assert x.index_reduce(0, idx, src, reduce, include_self=include_self).tolist() == want


@pytest.mark.filterwarnings("ignore:index_reduce")
@pytest.mark.parametrize("index, source, message", [
    ([0, 1], (2, 2), r"^source tensor shape must match self tensor shape, excluding the specified dimension\. Got "
                     r"self\.shape = \[3, 5\] source\.shape = \[2, 2\]$"),
    ([0, 7], (5, 2), r"^source tensor shape must match self tensor shape"),  # before the index's range
    ([0, 1, 2], (3, 2), r"^index_reduce_\(\): Number of indices \(3\) should be equal to source\.size\(dim\): \(2\), "
                        r"for dim: 1$"),
    ([0], (3,), r"^index_reduce_\(\): Indexing dim 1 is out of bounds of the source tensor with dim 1$"),
])
def test_index_reduce_checks_the_source_shape_as_pytorch(index, source, message):
    """A source of another shape raised a broadcasting error or, when it broadcast, reduced silently."""
    with pytest.raises(RuntimeError, match=message):
        E.rand(3, 5).index_reduce(1, E.tensor(index), E.rand(*source), "prod")
    with pytest.raises(RuntimeError, match=r"^index_reduce_\(\): self \(Float\) and source \(Double\) must have"):
        E.rand(3, 5).index_reduce(1, E.tensor([0, 1]), E.rand(3, 2, dtype=E.float64), "prod")


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_index_reduce_of_a_zero_dim_tensor():
    assert E.tensor(2.0).index_reduce(0, E.tensor([0]), E.tensor(3.0), "prod").item() == 6.0
    assert E.tensor(2.0).index_reduce(0, E.tensor([0]), E.tensor(3.0), "mean", include_self=False).item() == 3.0


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
@pytest.mark.parametrize("dtype, cap", [(E.bfloat16, 256), (E.float16, 2048)])
def test_index_reduce_mean_of_16_bit_counts_in_the_dtype_as_pytorch(dtype, cap):
    """PyTorch 2.13 counts through index_add_ in the dtype: the count and the sum of ones both stop at `cap`, so
    the mean of any number of ones is 1; a count below `cap` is exact."""
    for n in (cap + 44, 3000):
        for include_self in (True, False):
            got = E.ones(2, dtype=dtype).index_reduce(0, E.zeros(n, dtype=E.int64), E.ones(n, dtype=dtype), "mean",
                                                     include_self=include_self)
            assert got.tolist() == [1.0, 1.0]
    src = E.arange(10.0).to(dtype)
    assert E.zeros(1, dtype=dtype).index_reduce(0, E.zeros(10, dtype=E.int64), src, "mean",
                                                include_self=False).tolist() == [4.5]


def test_bool_and_complex_refusals_in_pytorchs_words():
    with pytest.raises(RuntimeError, match=r"Subtraction, the `-` operator, with two bool tensors is not supported"):
        E.gradient(E.tensor([True, False, True]))
    with pytest.raises(NotImplementedError, match="\"xor_sum_cpu\" not implemented for 'ComplexFloat'"):
        E.hash_tensor(E.tensor([1j], dtype=E.complex64))
    with pytest.raises(RuntimeError, match=r"cov\(\): bool dtype is not supported for input"):
        E.cov(E.tensor([[True, False]]))
    with pytest.raises(RuntimeError, match=r"cov\(\): bool dtype is not supported for input"):
        E.corrcoef(E.tensor([[True, False]]))
