"""Tensor metadata, Python protocols, numpy interop and repr (PyTorch's formats)."""

import math
import pickle

import numpy as np
import pytest

import ember.core as E


def test_shape_size_stride_offset_of_a_contiguous_tensor():
    x = E.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, tuple) and isinstance(x.shape, E.Size)
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.stride() == (12, 4, 1) and x.stride(0) == 12 and x.stride(-2) == 4
    assert x.storage_offset() == 0
    assert x.ndim == x.dim() == 3 and x.numel() == 24 and len(x) == 2
    assert repr(x.shape) == "ember.Size([2, 3, 4])"
    assert x.shape.numel() == 24
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(3)


@pytest.mark.parametrize("dtype,itemsize", [(E.float32, 4), (E.float64, 8), (E.float16, 2), (E.int64, 8),
                                            (E.int32, 4), (E.int16, 2), (E.int8, 1), (E.uint8, 1), (E.bool, 1)])
def test_dtype_element_size_and_flags(dtype, itemsize):
    x = E.zeros(3, dtype=dtype)
    assert x.dtype is dtype and x.element_size() == itemsize and x.itemsize == itemsize
    assert x.nbytes == 3 * itemsize
    assert x.is_floating_point() == (dtype in (E.float16, E.float32, E.float64))
    assert x.numpy().dtype == dtype.np


def test_device_and_dtype_aliases():
    x = E.ones(2)
    assert x.device == E.device("cpu") and x.device == "cpu" and str(x.device) == "cpu"
    assert x.is_cpu and not x.is_cuda
    assert E.float is E.float32 and E.double is E.float64 and E.long is E.int64 and E.int is E.int32
    assert repr(E.float32) == "ember.float32"


def test_is_contiguous_for_views():
    x = E.zeros(3, 4)
    assert x.is_contiguous()
    assert not x.t().is_contiguous()
    assert x[:, :2].is_contiguous() is False
    assert x[1:].is_contiguous()
    assert not x[:, 1:2].is_contiguous()
    assert x[1:2].is_contiguous() and E.zeros(3).unsqueeze(1).t().is_contiguous()   # size-1 dims do not matter
    assert E.zeros(0, 3).t().is_contiguous()


def test_data_ptr_moves_with_offset():
    x = E.zeros(3, 4)
    assert x[1].data_ptr() == x.data_ptr() + 4 * 4
    assert x[:, 2].data_ptr() == x.data_ptr() + 2 * 4
    assert x.data_ptr() == x.numpy().ctypes.data


def test_item_and_number_protocols():
    assert E.tensor(2.5).item() == 2.5 and isinstance(E.tensor(2.5).item(), float)
    assert E.tensor([7]).item() == 7 and isinstance(E.tensor([7]).item(), int)
    assert E.tensor(True).item() is True
    assert float(E.tensor([1.5])) == 1.5 and int(E.tensor(3.7)) == 3 and bool(E.tensor([1]))
    assert [10, 20, 30][E.tensor(1)] == 20
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        E.zeros(2).item()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(E.zeros(2))
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1, 2][E.tensor(0.0)]
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(E.tensor(1))


@pytest.mark.parametrize("convert", [float, int, complex])
@pytest.mark.parametrize("shape", [(2,), (0,), (2, 2)])
def test_python_scalar_conversions_of_many_elements_raise_value_error(convert, shape):
    # PyTorch: Python's number protocols raise ValueError; `item()` raises RuntimeError naming the count
    with pytest.raises(ValueError, match="^only one element tensors can be converted to Python scalars$"):
        convert(E.ones(*shape))
    with pytest.raises(RuntimeError, match=f"^a Tensor with {math.prod(shape)} elements cannot be converted to "
                                           "Scalar$"):
        E.ones(*shape).item()


def test_bool_of_an_empty_tensor_and_index_of_a_complex_one():
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        bool(E.zeros(0))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(E.zeros(2, 2))
    with pytest.raises(TypeError, match="^only integer tensors of a single element can be converted to an index$"):
        [1, 2][E.tensor(1 + 0j)]
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int64_t without overflow$"):
        int(E.tensor(1 + 2j))
    assert int(E.tensor(1 + 0j)) == 1 and [1, 2][E.tensor(True)] == 2


@pytest.mark.torch
@pytest.mark.parametrize("convert", [float, int, complex, bool, lambda x: x.item(), lambda x: [0, 1][x]])
@pytest.mark.parametrize("value", [[1.0, 2.0], [], [[1, 2]], [1 + 2j], [True]])
def test_scalar_conversions_match_pytorch(convert, value):
    torch = pytest.importorskip("torch")
    outcomes = []
    for M in (E, torch):
        try:
            outcomes.append(repr(convert(M.tensor(value))))
        except (TypeError, ValueError, RuntimeError) as e:
            outcomes.append(f"{type(e).__name__}: {e}")
    assert outcomes[0] == outcomes[1]


def test_tolist_and_iteration():
    x = E.tensor([[1, 2], [3, 4]])
    assert x.tolist() == [[1, 2], [3, 4]] and isinstance(x.tolist()[0][0], int)
    assert E.tensor(1.5).tolist() == 1.5
    assert [r.tolist() for r in x] == [[1, 2], [3, 4]]
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(E.tensor(1))


def test_contains_searches_every_element():
    # PyTorch's `in` is `(element == self).any()`: a 2-D tensor, a 0-d one, a broadcast row; other types refused
    x = E.tensor([[0, 1], [2, 3]])
    assert 3 in x and 7 not in x and 2.0 in x and E.tensor(1) in x and E.tensor([2, 3]) in x
    assert 2 in E.tensor(2) and 1 not in E.zeros(0) and float("nan") not in E.tensor([float("nan")])
    with pytest.raises(RuntimeError, match=r"^Tensor.__contains__ only supports Tensor or scalar, but you passed in "
                                           r"a <class 'list'>\.$"):
        [1] in x  # noqa: B015


def test_numpy_shares_memory_both_ways():
    x = E.zeros(2, 3)
    a = x.numpy()
    a[0, 1] = 5
    assert x[0, 1].item() == 5
    x[1, 2] = 7
    assert a[1, 2] == 7
    t = x.t()
    assert np.shares_memory(t.numpy(), a) and t.numpy().shape == (3, 2)


def test_array_protocol():
    x = E.tensor([[1.0, 2.0]])
    a = np.asarray(x)
    assert a.dtype == np.float32 and a.shape == (1, 2)
    assert np.shares_memory(a, x.numpy())
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    assert np.add(x, 1).tolist() == [[2.0, 3.0]]


@pytest.mark.parametrize("t,text", [
    (lambda: E.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: E.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
    (lambda: E.tensor([1.0, -2.0]), "tensor([ 1., -2.])"),
    (lambda: E.tensor([[1, 2], [30, 4]]), "tensor([[ 1,  2],\n        [30,  4]])"),
    (lambda: E.tensor([True, False]), "tensor([ True, False])"),
    (lambda: E.tensor(True), "tensor(True)"),
    (lambda: E.tensor(3.0), "tensor(3.)"),
    (lambda: E.tensor(-7), "tensor(-7)"),
    (lambda: E.zeros(0), "tensor([])"),
    (lambda: E.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: E.zeros(0, dtype=E.int64), "tensor([], dtype=ember.int64)"),
    (lambda: E.zeros(0, dtype=E.bool), "tensor([], dtype=ember.bool)"),  # an empty shows every non-default dtype
    (lambda: E.zeros(0, dtype=E.complex64), "tensor([], dtype=ember.complex64)"),
    (lambda: E.tensor([1.0, 2.0], dtype=E.float64), "tensor([1., 2.], dtype=ember.float64)"),
    (lambda: E.tensor([1, 2], dtype=E.int32), "tensor([1, 2], dtype=ember.int32)"),
    (lambda: E.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: E.tensor([float("nan"), 1.0]), "tensor([nan, 1.])"),
    (lambda: E.tensor([float("inf"), 1.5]), "tensor([   inf, 1.5000])"),
    (lambda: E.tensor([0.0, 1e-5]), "tensor([0.0000e+00, 1.0000e-05])"),
    (lambda: E.tensor([1.0, 10000.0]), "tensor([1.0000e+00, 1.0000e+04])"),
    (lambda: E.tensor([1.0, 1000.0]), "tensor([   1., 1000.])"),
    (lambda: E.tensor([0.0, 0.0]), "tensor([0., 0.])"),
])
def test_repr_like_pytorch(t, text):
    assert repr(t()) == text
    assert str(t()) == text


def test_repr_summarises_large_tensors():
    r = repr(E.arange(2000.0, dtype=E.float64) / 2000 + 1)
    assert r == "tensor([1.0000, 1.0005, 1.0010,  ..., 1.9985, 1.9990, 1.9995],\n       dtype=ember.float64)"
    assert repr(E.arange(2000.0)) == ("tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
                                      "        1.9990e+03])")


def test_format_of_scalar_tensors():
    assert f"{E.tensor(0.5):.2f}" == "0.50"
    # PyTorch formats a plain 0-dim tensor's value even with no spec; others print as str()
    assert (f"{E.tensor(3)}", f"{E.tensor(2.5)}", f"{E.tensor([1, 2])}") == ("3", "2.5", "tensor([1, 2])")
    with pytest.raises(TypeError):
        f"{E.tensor([1.0]):.2f}"


def test_pickle_round_trip():
    x = E.arange(6).reshape(2, 3)
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.dtype is E.int64


def test_version_counter_starts_at_zero_and_hash_is_identity():
    x = E.zeros(2)
    assert x._version == 0
    assert hash(x) == id(x)
    assert len({x, E.zeros(2)}) == 2


_RNG = np.random.default_rng(0)
REPR_ARRAYS = [
    _RNG.standard_normal((3, 4)), _RNG.standard_normal((2, 3, 5)) * 100, _RNG.standard_normal(20) * 1e-3,
    _RNG.integers(-1000, 1000, (5, 7)), _RNG.standard_normal((60, 60)), _RNG.standard_normal((3, 30)),
    _RNG.integers(0, 2, (4, 5)).astype(bool), _RNG.standard_normal((2, 2000)), np.array([1e20, -1e-20]),
    _RNG.integers(0, 10 ** 12, 6), (_RNG.standard_normal((4, 20)) * 10).astype(np.float16),
    np.arange(40.0).reshape(4, 10) * 1.5, np.array([[0.0, -0.0]]), _RNG.integers(-5, 5, (3, 1001)),
    np.array([np.nan, np.inf, -1.5]), _RNG.standard_normal((3, 30)).astype(np.float32),
]


@pytest.mark.torch
@pytest.mark.parametrize("i", range(len(REPR_ARRAYS)))
def test_repr_matches_pytorch_exactly(i):
    torch = pytest.importorskip("torch")
    a = REPR_ARRAYS[i]
    assert repr(E.from_numpy(a.copy())) == repr(torch.from_numpy(a.copy())).replace("torch.", "ember.")


@pytest.mark.torch
def test_repr_follows_precision_option_like_pytorch():
    torch = pytest.importorskip("torch")
    a = REPR_ARRAYS[0]
    try:
        E.set_printoptions(precision=2)
        torch.set_printoptions(precision=2)
        assert repr(E.from_numpy(a)) == repr(torch.from_numpy(a)).replace("torch.", "ember.")
    finally:
        E.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_repr_with_only_zeros_nan_inf_ignores_sci_mode_and_warns_nothing():
    """PyTorch's formatter leaves integer mode when no value is nonzero and finite, whatever sci_mode says; extreme
    ratios (1 / 5e-324) and float16 overflow in tensor() stay silent."""
    import warnings

    try:
        E.set_printoptions(sci_mode=True)
        assert repr(E.tensor([float("inf"), 0.0])) == "tensor([inf, 0.])"
        assert repr(E.tensor([1.0, 2.5])) == "tensor([1.0000e+00, 2.5000e+00])"
    finally:
        E.set_printoptions(profile="default")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tiny = E.tensor([5e-324, 1.0], dtype=E.float64)
        assert repr(tiny) == "tensor([4.9407e-324,  1.0000e+00], dtype=ember.float64)"
        assert repr(E.tensor([70000.0], dtype=E.float16)) == "tensor([inf], dtype=ember.float16)"


def test_repr_with_zero_edgeitems_shows_an_ellipsis_and_the_size():
    """PyTorch's edgeitems=0: a summarised tensor prints only `...`, and every non-empty one names its size."""
    try:
        E.set_printoptions(threshold=10, edgeitems=0)
        assert repr(E.arange(30.0)) == "tensor([...], size=(30,))"
        assert repr(E.ones(3, 4, dtype=E.float64)) == "tensor([...], size=(3, 4), dtype=ember.float64)"
        assert repr(E.tensor([1, 22])) == "tensor([ 1, 22], size=(2,))"
        assert repr(E.tensor(2.5)) == "tensor(2.5000, size=())"
        assert repr(E.zeros(0, 2)) == "tensor([], size=(0, 2))"
    finally:
        E.set_printoptions(profile="default")


def test_repr_of_float8_e8m0fnu_follows_pytorchs_comparisons_in_that_dtype():
    """e8m0's 0 is 2**-127 (PyTorch's `ne(0)` leaves it out) and its nan is finite to PyTorch's `isfinite`."""
    def e8m0(values):
        return E.tensor(values).to(E.float8_e8m0fnu)

    assert repr(e8m0([0.0, 1024.0])) == "tensor([   0., 1024.], dtype=ember.float8_e8m0fnu)"
    assert repr(e8m0([0.0, float("nan"), 1024.0])) == \
        "tensor([   0.0000,       nan, 1024.0000], dtype=ember.float8_e8m0fnu)"
    assert repr(e8m0([0.5, 2.0])) == "tensor([0.5000, 2.0000], dtype=ember.float8_e8m0fnu)"


def test_dispatcher_bumps_every_argument_an_op_mutates():
    from ember.core.dispatch import Op
    from ember.core.ops.optim_kernels import adam_step

    p, g, m, v = E.ones(3), E.ones(3), E.zeros(3), E.zeros(3)
    adam_step(p, g, m, v, None, 1, 0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    assert (p._version, g._version, m._version, v._version) == (1, 0, 1, 1)
    with pytest.raises(TypeError, match="mutates must be a tuple of argument positions"):
        Op("bad_", mutates=0)


def test_legacy_constructor_shapes():
    # PyTorch's Tensor(): an empty (0,) float tensor, not a 0-dim one
    assert E.Tensor().shape == (0,) and E.Tensor().dtype == E.float32
    assert E.Tensor(2, 3).shape == (2, 3)
    assert E.Tensor((4,)).tolist() == [4.0]  # a tuple is data, as in PyTorch; a Size is a shape
    assert E.Tensor(E.Size([2, 3])).shape == (2, 3)
    assert E.Tensor([1, 2]).tolist() == [1.0, 2.0]


def test_to_refuses_what_no_signature_takes():
    # PyTorch's parser names the offending types (a numpy scalar type is a `type`, a numpy dtype its C type)
    with pytest.raises(TypeError, match=r"^to\(\) received an invalid combination of arguments - got \(type\), but "
                                        r"expected one of:\n \* \(torch.device device = None, torch.dtype dtype"):
        E.ones(2).to(np.float32)
    with pytest.raises(TypeError, match=r"got \(numpy.dtypes.Float32DType\), but"):
        E.ones(2).to(np.dtype("float32"))
    with pytest.raises(TypeError, match=r"(?s)got \(torch.dtype, list\), but .*\n \* \(Tensor tensor, bool "):
        E.ones(2).to(E.float32, [1])


def test_type_takes_tensor_types_only():
    # PyTorch's Tensor.type: a torch.dtype, a type name or a tensor type; Python's and numpy's types are refused
    x = E.ones(2, dtype=E.int64)
    assert x.type(E.float64).dtype == E.float64 and x.type("torch.IntTensor").dtype == E.int32
    assert x.type(E.Tensor).dtype == E.get_default_dtype()
    with pytest.raises(ValueError, match=r"^invalid type: 'float'$"):
        x.type(float)
    with pytest.raises(ValueError, match=r"^invalid type: 'numpy.float32'$"):
        x.type(np.float32)
    with pytest.raises(TypeError, match=r"^dtype must be a type, str, or dtype object$"):
        x.type(np.dtype("float32"))


def test_data_ptr_of_a_tensor_without_elements_is_null_as_pytorchs():
    import ember.core as core

    x = core.arange(3.0)
    assert core.zeros(0).data_ptr() == 0 and x[:0].data_ptr() == 0 and x[3:].data_ptr() == 0
    assert core.zeros(0).untyped_storage().data_ptr() == 0
    assert x[1:].data_ptr() == x.data_ptr() + 4
