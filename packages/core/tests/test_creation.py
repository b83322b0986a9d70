"""Tensor creation: dtype inference of Python and numpy data, memory sharing, filled tensors and ranges."""

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E


@pytest.fixture
def float64_default():
    E.set_default_dtype(E.float64)
    yield
    E.set_default_dtype(E.float32)


@pytest.mark.parametrize("data,dtype,shape", [
    ([1, 2], E.int64, (2,)),
    ([1.0, 2], E.float32, (2,)),
    ([True, False], E.bool, (2,)),
    ([True, 1], E.int64, (2,)),
    ([[1, 2.5], [3, 4]], E.float32, (2, 2)),
    (3, E.int64, ()),
    (2.5, E.float32, ()),
    (True, E.bool, ()),
    ([], E.float32, (0,)),
    ([[], []], E.float32, (2, 0)),
    (np.array([1, 2], dtype=np.int32), E.int32, (2,)),
    (np.array([1.0], dtype=np.float64), E.float64, (1,)),
    (np.float64(2.0), E.float64, ()),
    (np.int16(2), E.int16, ()),
    ((1, 2, 3), E.int64, (3,)),
])
def test_tensor_infers_dtype_like_pytorch(data, dtype, shape):
    t = E.tensor(data)
    assert t.dtype is dtype and t.shape == shape
    np.testing.assert_array_equal(t.numpy(), np.asarray(data))


def test_tensor_copies_and_accepts_dtype_device():
    a = np.arange(3.0)
    t = E.tensor(a)
    a[0] = 100
    assert t[0].item() == 0
    assert E.tensor([1, 2], dtype=E.float64).dtype is E.float64
    assert E.tensor([1.7], dtype=E.int32).tolist() == [1]
    assert E.tensor([1], device="cpu").device == "cpu"
    assert E.tensor([E.tensor(1.0), E.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert E.tensor([E.tensor(1.0, dtype=E.float64), E.tensor(2.0, dtype=E.float64)]).dtype is E.float64
    assert E.tensor([E.tensor(1, dtype=E.int32), E.tensor(2, dtype=E.int32)]).dtype is E.int32
    x = E.ones(2)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        y = E.tensor(x)
    y[0] = 5
    assert x[0].item() == 1


def test_tensor_errors():
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1 \\(got 1\\)"):
        E.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        E.tensor(["a"])
    assert E.tensor([1j]).dtype is E.complex64  # Python complex numbers: the default complex dtype


def test_default_dtype_governs_python_floats(float64_default):
    assert E.get_default_dtype() is E.float64
    assert E.tensor([1.0]).dtype is E.float64
    assert E.tensor([1]).dtype is E.int64
    assert E.zeros(2).dtype is E.float64 and E.arange(0.0, 1.0, 0.5).dtype is E.float64
    assert E.full((1,), 2.0).dtype is E.float64
    assert repr(E.tensor([1.5])) == "tensor([1.5000])"


def test_set_default_dtype_rejects_integers():
    with pytest.raises(TypeError, match="floating-point"):
        E.set_default_dtype(E.int64)
    for not_a_dtype in ("float64", float, None):  # PyTorch wants a dtype object, not a name or a Python type
        with pytest.raises(TypeError, match="^invalid dtype object: only floating-point types are supported as the "
                                            "default type$"):
            E.set_default_dtype(not_a_dtype)
    assert E.get_default_dtype() is E.float32


def test_python_complex_data_has_no_dtype_under_a_bfloat16_default():
    E.set_default_dtype(E.bfloat16)
    try:
        with pytest.raises(RuntimeError, match="^invalid default scalar type for complex$"):
            E.tensor([1j])
        with pytest.raises(RuntimeError, match="^invalid default scalar type for complex$"):
            E.tensor([1.0, 2j])
        assert E.tensor([1.0]).dtype is E.bfloat16 and E.tensor([1j], dtype=E.complex64).dtype is E.complex64
    finally:
        E.set_default_dtype(E.float32)


def test_as_tensor_shares_when_it_can():
    a = np.arange(4.0)
    t = E.as_tensor(a)
    a[1] = 10
    assert t[1].item() == 10 and t.dtype is E.float64
    c = E.as_tensor(a, dtype=E.float32)
    a[2] = 20
    assert c[2].item() == 2
    x = E.ones(2)
    assert E.as_tensor(x) is x
    assert E.as_tensor(x, dtype=E.float64).dtype is E.float64
    assert E.as_tensor([1, 2]).dtype is E.int64
    assert E.asarray(a).tolist() == a.tolist()


def test_from_numpy_shares_memory_and_strides():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = E.from_numpy(a)
    assert t.dtype is E.int32 and t.shape == (3, 4) and t.stride() == (4, 1)
    t[0, 0] = 99
    assert a[0, 0] == 99
    a[2, 3] = -1
    assert t[2, 3].item() == -1
    s = E.from_numpy(a[:, ::2])
    assert s.stride() == (4, 2) and s.tolist() == a[:, ::2].tolist()
    assert E.from_numpy(a.T).stride() == (1, 4)
    assert E.from_numpy(np.zeros((0, 3))).shape == (0, 3)


def test_from_numpy_errors(monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())
    with pytest.raises(ValueError, match="negative"):
        E.from_numpy(np.arange(3)[::-1])
    with pytest.raises(TypeError) as e:
        E.from_numpy(np.array(["a"]))
    assert str(e.value) == ("can't convert np.ndarray of type numpy.str_. The only supported types are: float64, "
                            "float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
                            "uint16, uint8, and bool.")
    for make in (E.tensor, E.as_tensor):  # PyTorch's words through every constructor taking the array itself
        with pytest.raises(TypeError, match="^can't convert np.ndarray of type numpy.object_. The only supported"):
            make(np.array([{}]))
        with pytest.raises(ValueError, match=r"^At least one stride in the given numpy array is negative, .*\) $"):
            make(np.arange(6.0).reshape(2, 3)[:, ::-1])
    with pytest.warns(UserWarning, match="list of numpy.ndarrays"):
        assert E.tensor([np.arange(2.0)[::-1].copy(), np.ones(2)]).dtype is E.float64  # an array leaf's dtype
    with pytest.raises(TypeError, match="^len\\(\\) of unsized object$"):  # a 0-d array read as a sequence
        E.tensor([np.array(1.0), 2])
    assert E.tensor([2, np.array(1.0)]).dtype is E.float64  # not first: read as a number
    with pytest.raises(TypeError, match="expected np.ndarray"):
        E.from_numpy([1, 2])
    ro = np.zeros(2)
    ro.flags.writeable = False
    with pytest.warns(UserWarning, match="^The given NumPy array is not writable, and PyTorch does not support") as w:
        E.from_numpy(ro)
    assert str(w[0].message).endswith("the rest of this program. (Triggered internally at /__w/pytorch/pytorch/torch/"
                                      "csrc/utils/tensor_numpy.cpp:213.)")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.as_tensor(ro)  # PyTorch's TORCH_WARN_ONCE: the rest of the program is silent


def test_empty_zeros_ones_size_forms_and_errors():
    for make in (E.empty, E.zeros, E.ones):
        assert make(2, 3).shape == make((2, 3)).shape == make([2, 3]).shape == (2, 3)
        assert make(()).shape == () and make(0).shape == (0,)
    assert E.zeros(2, 2).tolist() == [[0, 0], [0, 0]] and E.ones(2, dtype=E.int64).tolist() == [1, 1]
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1"):
        E.ones(2, -1)
    with pytest.raises(TypeError, match=r"^ones\(\): argument 'size' \(position 1\) must be tuple of ints, not float$"):
        E.ones(2.5)


@pytest.mark.parametrize("call, msg", [
    # PyTorch's parser: a lone number, a sequence's first element, a later element (`nn.Linear(784, 256 / 2)`)
    (lambda: E.zeros((2.5, 2)), "zeros(): argument 'size' (position 1) must be tuple of ints, but found element of "
                                "type float at pos 0"),
    (lambda: E.empty(3, 2.5), "empty(): argument 'size' failed to unpack the object at pos 2 with error \"type must "
                              "be tuple of ints,but got float\""),
    (lambda: E.randn(2, 2.5), "randn(): argument 'size' failed to unpack the object at pos 2 with error \"type must "
                              "be tuple of ints,but got float\""),
    (lambda: E.rand((2.5,)), "rand(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                             "float at pos 0"),
])
def test_a_float_size_is_pytorchs_type_error_not_truncated(call, msg):
    with pytest.raises(TypeError, match="^" + re.escape(msg) + "$"):
        call()


@pytest.mark.parametrize(("call", "msg"), [
    (lambda: E.zeros(2, 3.0), "zeros(): argument 'size' failed to unpack the object at pos 2 with error \"type must "
                              "be tuple of ints,but got float\""),
    (lambda: E.zeros([2.0]), "zeros(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                             "float at pos 0"),
    (lambda: E.zeros(size=[2.0]), "zeros(): argument 'size' must be tuple of ints, not list"),
    (lambda: E.ones(E.tensor([2, 3])), "ones(): argument 'size' (position 1) must be tuple of ints, not Tensor"),
    (lambda: E.ones(np.float64(2)), "ones(): argument 'size' (position 1) must be tuple of ints, not numpy.float64"),
    (lambda: E.zeros(2.0, 3), "zeros() takes 1 positional argument but 2 were given"),
    (lambda: E.empty(3, 2.0), "empty(): argument 'size' failed to unpack the object at pos 2 with error \"type must "
                              "be tuple of ints,but got float\""),
    (lambda: E.full((2.0,), 1), "full(): argument 'size' (position 1) must be tuple of ints, but found element of "
                                "type float at pos 0"),
    (lambda: E.randn(2.0), "randn(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: E.ones(2).reshape(2, 1.0), "reshape(): argument 'shape' failed to unpack the object at pos 2 with error "
                                        "\"type must be tuple of ints,but got float\""),
    (lambda: E.ones(2).expand(2.0), "expand(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: E.ones(2).repeat(2, 2.0), "repeat(): argument 'repeats' failed to unpack the object at pos 2 with error "
                                       "\"type must be tuple of ints,but got float\""),
    (lambda: E.ones(2).new_zeros(2.0), "new_zeros(): argument 'size' (position 1) must be tuple of ints, not float"),
    (lambda: E.ones(2).permute(0.0), "permute(): argument 'dims' (position 1) must be tuple of ints, not float"),
    (lambda: E.eye(2.0), "eye(): argument 'n' (position 1) must be int, not float"),
])
def test_sizes_that_are_not_ints_raise_pytorchs_parser_errors(call, msg):
    # the usual `torch.zeros(n / 2)`: PyTorch's argument parser refuses floats (ember took int(2.5) before)
    with pytest.raises(TypeError, match="^" + re.escape(msg) + "$"):
        call()


def test_int_like_sizes_still_pass():
    assert E.zeros(2, np.int64(3)).shape == (2, 3) and E.zeros(2, E.tensor(3)).shape == (2, 3)
    assert E.ones(E.tensor(2)).shape == (2,) and E.zeros(2, True).shape == (2, 1)
    assert E.zeros(np.array(3)).shape == (3,) and E.ones(2, np.array(2)).shape == (2, 2)
    assert E.ones(6).reshape(np.int32(2), 3).shape == (2, 3) and E.ones(2).repeat(E.Size([2, 1])).shape == (2, 2)
    with pytest.raises(RuntimeError, match="^n must be greater or equal to 0, got -1$"):
        E.eye(-1)


@pytest.mark.parametrize("value,dtype", [(1, E.int64), (True, E.bool), (1.5, E.float32), (E.tensor(2), E.int64)])
def test_full_infers_dtype_from_the_value(value, dtype):
    t = E.full((2, 2), value)
    assert t.dtype is dtype


def test_full_values_and_out():
    assert E.full((2,), 7, dtype=E.float64).tolist() == [7.0, 7.0]
    out = E.empty(0)
    E.zeros(3, out=out)
    assert out.tolist() == [0, 0, 0]


@settings(max_examples=25, deadline=None)
@given(st.integers(-20, 20), st.integers(-20, 20), st.integers(-5, 5).filter(lambda s: s != 0))
def test_arange_matches_numpy_for_ints(start, end, step):
    if (end - start) * step < 0:
        with pytest.raises(RuntimeError, match="^upper bound and lower bound inconsistent with step sign$"):
            E.arange(start, end, step)
        return
    t = E.arange(start, end, step)
    assert t.dtype is E.int64
    assert t.tolist() == np.arange(start, end, step).tolist()


def test_arange_takes_a_tensor_bound_only_as_a_0_dim_number():
    """PyTorch's arange binds its bounds as Numbers: a 0-dim tensor is one, a tensor with dimensions is not (its
    lone argument named, else the overloads listed) where ember read the single element."""
    assert E.arange(E.tensor(3)).tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match=r"^arange\(\): argument 'end' \(position 1\) must be Number, not Tensor$"):
        E.arange(E.tensor([3]))
    with pytest.raises(TypeError, match=r"^arange\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, int\), but expected one of:\n \* \(Number end, "):
        E.arange(E.tensor([0]), 5)
    with pytest.raises(TypeError, match=r"^arange\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, int, int\), but"):  # a step of 1 given is listed, as PyTorch's
        E.arange(E.tensor([0]), 5, 1)


def test_arange_float_forms():
    assert E.arange(5).tolist() == [0, 1, 2, 3, 4]
    t = E.arange(0, 1, 0.25)
    assert t.dtype is E.float32 and t.tolist() == [0, 0.25, 0.5, 0.75]
    assert E.arange(1, 2.5).tolist() == [1.0, 2.0]
    assert E.arange(3, dtype=E.float64).dtype is E.float64
    assert E.arange(E.tensor(3)).tolist() == [0, 1, 2]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        E.arange(0, 1, 0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_linspace_is_pytorchs_to_the_bit(dtype):
    torch = pytest.importorskip("torch")
    for start, end in [(-1, 1), (0.3, 7.1), (3, -17), (1e-3, 3e4)]:
        for steps in [*range(0, 40), 1000, 4097]:
            want = torch.linspace(start, end, steps, dtype=getattr(torch, dtype)).double().numpy()
            got = E.linspace(start, end, steps, dtype=getattr(E, dtype)).double().numpy()
            np.testing.assert_array_equal(got, want, err_msg=f"linspace({start}, {end}, {steps})")


def test_linspace_rounds_with_a_fused_multiply_add():
    # end - step * 3 with step = float32(1/3) is 1 - 1.0000000298, not 1 - float32(1.0000000298) = 0
    assert E.linspace(-1, 1, 7)[3].item() == np.float32(1) - np.float64(np.float32(1 / 3)) * 3
    assert E.linspace(2, 3, 1).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type c10::Half without overflow"):
        E.linspace(0, 1e5, 3, dtype=E.float16)


def test_integer_ranges_truncate_their_ends_as_pytorch():
    assert E.linspace(0.3, 7.1, 5, dtype=E.int64).tolist() == [0, 1, 3, 5, 7]
    assert E.linspace(-5, 10, 4, dtype=E.uint8).tolist() == [251, 170, 90, 10]
    assert E.arange(0, 5.5, 1.5, dtype=E.int64).tolist() == [0, 1, 2, 3, 4]  # int64 counts in truncated integers
    assert E.arange(0, 5.5, 1.5, dtype=E.int32).tolist() == [0, 1, 2, 3]
    assert E.arange(0, 5, 0.5, dtype=E.int32).tolist() == [0] * 10
    with pytest.raises(ValueError, match="^step must be nonzero$"):
        E.arange(0, 5, 0.5, dtype=E.int64)
    with pytest.raises(RuntimeError, match="^upper bound and lower bound inconsistent with step sign$"):
        E.arange(0, -5, 0.5)
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without overflow"):
        E.linspace(0, 300, 5, dtype=E.uint8)
    assert E.logspace(0.283, 1.5, 3, -2.0, dtype=E.int64).tolist()[0] == 1  # the start truncated to 0


def _ranges_against_torch(torch, fn, draw, n_cases):
    import random

    rng = random.Random(0)
    for _ in range(n_cases):
        args, dtype = draw(rng)
        results = []
        for lib in (torch, E):
            try:
                results.append(getattr(lib, fn)(*args, dtype=getattr(lib, dtype)).double().tolist())
            except (RuntimeError, ValueError) as e:
                results.append(f"{type(e).__name__}: {e}")
        assert results[0] == results[1], f"{fn}{args} dtype={dtype}"


def test_integer_linspace_is_pytorchs():
    torch = pytest.importorskip("torch")

    def draw(rng):
        dtype = rng.choice(["int64", "int32", "int16", "int8", "uint8"])
        info = np.iinfo(dtype)
        lo, hi = rng.choice([(max(int(info.min), -100), min(int(info.max), 120)), (int(info.min), int(info.max))])
        ends = [rng.uniform(lo, hi) if rng.random() < 0.5 else rng.randint(lo, hi) for _ in range(2)]
        return (*ends, rng.randint(0, 600)), dtype

    _ranges_against_torch(torch, "linspace", draw, 600)


def test_arange_is_pytorchs_for_every_real_dtype():
    torch = pytest.importorskip("torch")

    def draw(rng):
        dtype = rng.choice(["int64", "int32", "int16", "float16", "bfloat16", "float32", "float64"])
        start = round(rng.uniform(-40, 40), rng.choice([0, 2]))
        step = rng.choice([-1, 1]) * round(rng.uniform(0.1, 6), rng.choice([0, 2]))
        return (start, start + step * rng.uniform(0, 300), step), dtype

    _ranges_against_torch(torch, "arange", draw, 600)


def test_logspace_is_pytorchs_for_every_real_dtype():
    torch = pytest.importorskip("torch")

    def draw(rng):
        dtype = rng.choice(["int64", "int32", "int16", "uint8", "float32", "float64", "bfloat16"])
        ends = [round(rng.uniform(-3, 6), rng.choice([0, 1, 3])) for _ in range(2)]
        return (*ends, rng.randint(0, 60), rng.choice([10.0, 2.0, 3, 1.5, 0.5])), dtype

    _ranges_against_torch(torch, "logspace", draw, 400)


def test_linspace_and_logspace_take_only_0_dim_tensor_ends():
    """A Tensor end stands for one number: PyTorch refuses one with dimensions (naming each bad end) rather than
    reading its single element."""
    assert E.linspace(E.tensor(0.0), E.tensor(1.0), 3).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match=r"^linspace only supports 0-dimensional start and end tensors, but got "
                                           r"start with 1 dimension\(s\)\.$"):
        E.linspace(E.tensor([0.0]), 1, 3)
    with pytest.raises(RuntimeError, match=r"^logspace only supports 0-dimensional start and end tensors, but got "
                                           r"start with 1 dimension\(s\) and end with 2 dimension\(s\)\.$"):
        E.logspace(E.ones(2), E.ones(1, 1), 3)


def test_linspace_logspace_eye():
    np.testing.assert_allclose(E.linspace(0, 1, 5).numpy(), np.linspace(0, 1, 5, dtype=np.float32))
    assert E.linspace(0, 1, 5).dtype is E.float32
    assert E.linspace(2, 3, 1).tolist() == [2.0]
    assert E.linspace(0, 1, 0).shape == (0,)
    np.testing.assert_allclose(E.logspace(0, 2, 3).numpy(), [1, 10, 100], rtol=1e-6)
    assert E.eye(3).tolist() == np.eye(3).tolist()
    assert E.eye(2, 3).shape == (2, 3) and E.eye(2, dtype=E.int64).dtype is E.int64
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        E.linspace(0, 1, -1)


def test_like_constructors_keep_shape_and_dtype():
    x = E.zeros(2, 3, dtype=E.float64).t()
    for t in (E.empty_like(x), E.zeros_like(x), E.ones_like(x), E.full_like(x, 4)):
        assert t.shape == (3, 2) and t.dtype is E.float64
    assert E.ones_like(x).tolist() == [[1, 1]] * 3
    assert E.full_like(x, 4).tolist() == [[4, 4]] * 3
    assert E.zeros_like(x, dtype=E.int32).dtype is E.int32


def test_new_constructors_inherit_dtype():
    x = E.zeros(2, dtype=E.int32)
    assert x.new_zeros(3).dtype is E.int32 and x.new_ones((2, 2)).shape == (2, 2)
    assert x.new_full((2,), 5).tolist() == [5, 5]
    assert x.new_tensor([1.5]).dtype is E.int32
    assert x.new_empty(4).shape == (4,)


def test_empty_out_is_resized_and_returned():
    out = E.zeros(10, dtype=E.int64)
    r = E.empty(2, 3, out=out)
    assert r is out and tuple(r.shape) == (2, 3) and r.stride() == (3, 1) and r.dtype is E.int64
    with pytest.raises(RuntimeError, match="dtype float32 does not match dtype of out parameter \\(int64\\)"):
        E.empty(2, 3, out=out, dtype=E.float32)
    with pytest.raises(RuntimeError, match="'memory_format' argument is incompatible with 'out' tensor argument"):
        E.empty(2, 3, 4, 5, out=out, memory_format=E.channels_last)


def test_empty_memory_format_orders_the_strides_as_pytorch():
    assert E.empty(2, 3, 4, 5, memory_format=E.channels_last).stride() == (60, 1, 15, 3)  # PyTorch's strides
    t = E.empty(1, 2, 3, 4, 5, memory_format=E.channels_last_3d)
    assert t.stride() == (120, 1, 40, 10, 2) and t.is_contiguous(memory_format=E.channels_last_3d)
    assert E.empty(2, 3, memory_format=E.contiguous_format).stride() == (3, 1)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        E.empty(2, 3, 4, 5, 6, memory_format=E.channels_last)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        E.empty(2, 3, memory_format=E.preserve_format)
    with pytest.raises(TypeError, match="memory_format"):
        E.empty(2, 3, memory_format="channels_last")


# --- tensor(data) of tensors and numpy scalars -------------------------------------------------
_COPY_CONSTRUCT = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                   "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor).")


@pytest.mark.parametrize(("make", "call"), [
    (lambda t: E.tensor(t), "torch.tensor"),
    (lambda t: E.tensor(t, dtype=E.float64), "torch.tensor"),
    (lambda t: t.new_tensor(t), "tensor.new_tensor"),  # PyTorch names the method that copied, once
], ids=["tensor", "tensor dtype", "new_tensor"])
def test_tensor_of_a_tensor_warns_to_clone_instead(make, call):
    t = E.tensor([1.0, 2.0])
    with pytest.warns(UserWarning) as caught:
        r = make(t)
    assert [str(w.message) for w in caught] == [_COPY_CONSTRUCT.format(call)]
    assert caught[0].filename == __file__  # the user's line, as PyTorch's
    assert r.tolist() == [1.0, 2.0] and r.data_ptr() != t.data_ptr()


def test_tensor_of_sequences_with_tensors_or_numpy_data_does_not_warn():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.tensor([E.tensor(1.0), E.tensor(2.0)])
        E.as_tensor(E.tensor([1.0]))
        E.tensor(np.ones(2))


_LIST_OF_NDARRAYS = ("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                     "the list to a single numpy.ndarray with numpy.array() before converting to a tensor. (Triggered "
                     "internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")


@pytest.mark.parametrize("make", [lambda: E.tensor([np.zeros(2), np.ones(2)]), lambda: E.as_tensor((np.zeros(2),)),
                                  lambda: E.tensor([[1.0, 2.0], np.ones(2)]), lambda: E.tensor([[np.zeros(2)]]),
                                  lambda: E.zeros(1).new_tensor([np.ones(2)])],
                         ids=["list", "as_tensor tuple", "later element", "nested", "new_tensor"])
def test_tensor_of_a_list_of_arrays_warns_once_per_process(make, monkeypatch):
    from ember.core.ops import _util

    monkeypatch.setattr(_util, "_warned_once", set())  # PyTorch's TORCH_WARN_ONCE, wherever the array sits
    with pytest.warns(UserWarning) as caught:
        r = make()
        make()
    assert [str(w.message) for w in caught] == [_LIST_OF_NDARRAYS]
    assert caught[0].filename == __file__
    assert r.shape[-1] == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        E.tensor([np.float32(1.0), np.int64(2)])  # numpy scalars are no arrays


@pytest.mark.parametrize("data,dtype,values", [
    (lambda: [E.tensor(1.0), E.tensor(2.0)], E.float32, [1.0, 2.0]),
    (lambda: [E.tensor([1.0])], E.float32, [1.0]),  # a one-element tensor is a scalar leaf, whatever its shape
    (lambda: [[E.tensor([[1.0]]), 2.0]], E.float32, [[1.0, 2.0]]),
    (lambda: [E.tensor(1), 2.5], E.float32, [1.0, 2.5]),
    (lambda: [E.tensor(1, dtype=E.int32), 3], E.int64, [1, 3]),
    (lambda: [E.tensor(1, dtype=E.int32)], E.int32, [1]),
    (lambda: [E.tensor(1.0, dtype=E.float16), 3.5], E.float32, [1.0, 3.5]),
    (lambda: [E.tensor(1.0, dtype=E.float64), 1.5], E.float64, [1.0, 1.5]),
    (lambda: [E.tensor(True), 2.0], E.float32, [1.0, 2.0]),
    (lambda: [E.tensor(1j), 1.0], E.complex64, [1j, 1 + 0j]),
    (lambda: [np.float64(1.0)], E.float64, [1.0]),  # numpy scalars keep their dtype, as PyTorch
    (lambda: [np.int32(1)], E.int32, [1]),
    (lambda: [np.int32(1), 2.5], E.float32, [1.0, 2.5]),
    (lambda: [np.float64(1.0), E.tensor(2.0)], E.float64, [1.0, 2.0]),
])
def test_tensor_of_a_sequence_promotes_its_leaves_dtypes(data, dtype, values):
    t = E.tensor(data())
    assert t.dtype == dtype and t.tolist() == values


@pytest.mark.parametrize("data,dtype,exc,message", [
    (lambda: [E.tensor([1.0, 2.0]), E.tensor([3.0, 4.0])], None, ValueError,
     "only one element tensors can be converted to Python scalars"),
    (lambda: [E.tensor([])], None, ValueError, "only one element tensors can be converted to Python scalars"),
    (lambda: [E.tensor([1, 2])], None, TypeError, "only integer tensors of a single element can be converted to an "
                                                  "index"),
    (lambda: [E.tensor([1.0, 2.0])], E.int64, TypeError, "only integer tensors of a single element can be "
                                                         "converted to an index"),
])
def test_tensor_of_a_sequence_refuses_a_tensor_leaf_of_many_elements(data, dtype, exc, message):
    with pytest.raises(exc) as e:
        E.tensor(data(), dtype=dtype)
    assert str(e.value) == message


def test_asarray_copy_and_alias():
    t = E.tensor([1.0, 2.0])
    assert E.asarray(t) is t
    c = E.asarray(t, copy=True)
    assert c.tolist() == [1.0, 2.0] and c.data_ptr() != t.data_ptr()
    with pytest.raises(ValueError, match="^can't alias tensor with dtype 'Float' into dtype 'Double'.$"):
        E.asarray(t, dtype=E.float64, copy=False)
    with pytest.raises(ValueError, match="^can't alias tensor with dtype 'Double' into dtype 'Float'.$"):
        E.asarray(np.ones(2), dtype=E.float32, copy=False)
    a = np.ones(2)
    assert E.asarray(a, copy=True).data_ptr() != a.ctypes.data
    assert E.asarray(a).data_ptr() == a.ctypes.data


@pytest.mark.torch
@pytest.mark.parametrize("case", ["[t2, t2]", "[t1]", "[i32, 3]", "[np.float64]", "[f64, 1.5]"])
def test_tensor_of_a_sequence_matches_pytorch(case):
    torch = pytest.importorskip("torch")
    out = []
    for M in (E, torch):
        data = {"[t2, t2]": lambda: [M.tensor([1.0, 2.0])] * 2, "[t1]": lambda: [M.tensor([1.0])],
                "[i32, 3]": lambda: [M.tensor(1, dtype=M.int32), 3], "[np.float64]": lambda: [np.float64(1.0)],
                "[f64, 1.5]": lambda: [M.tensor(1.0, dtype=M.float64), 1.5]}[case]()
        try:
            t = M.tensor(data)
            out.append((str(t.dtype).split(".")[-1], t.tolist()))
        except ValueError as e:
            out.append(str(e))
    assert out[0] == out[1]


@pytest.mark.parametrize("data,kind,msg", [
    ([[[1, 2]], [[3]]], ValueError, "expected sequence of length 2 at dim 2 (got 1)"),
    ([[1, 2], (3, 4, 5)], ValueError, "expected sequence of length 2 at dim 1 (got 3)"),
    ([[1, 2], 3], TypeError, "not a sequence"),
    ([1, [2]], TypeError, "'list' object cannot be interpreted as an integer"),
    ([1.5, [2]], TypeError, "must be real number, not list"),
    ([1, None], RuntimeError, "Could not infer dtype of NoneType"),
    ([[1, 2], [3, None]], RuntimeError, "Could not infer dtype of NoneType"),
    ([{1: 2}], RuntimeError, "Could not infer dtype of dict"),
    (["a", None], ValueError, "too many dimensions 'str'"),
    ([1, "a"], TypeError, "new(): invalid data type 'str'"),
    ("a", TypeError, "new(): invalid data type 'str'"),
    (b"ab", TypeError, "new(): invalid data type 'bytes'"),
    ([1, b"a"], TypeError, "new(): invalid data type 'bytes'"),
    ([[b"a"]], TypeError, "new(): invalid data type 'bytes'"),
    ([np.ones(2), np.ones(3)], ValueError, "expected sequence of length 2 at dim 1 (got 3)"),
    ([np.ones((2, 2)), np.ones((2, 3))], ValueError, "expected sequence of length 2 at dim 2 (got 3)"),
    ([[np.float32(1), 2], [3]], ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ([np.array(["a", "b"])], ValueError, "too many dimensions 'str'"),
])
def test_tensor_of_bad_sequences_raises_pytorchs_error(data, kind, msg):
    """PyTorch 2.13's errors: the first non-number leaf decides (RuntimeError, a str's own errors), then the
    nesting is checked against the sizes along the first elements."""
    with pytest.raises(kind) as info:
        E.tensor(data)
    assert str(info.value) == msg


def test_python_ints_out_of_range_raise_as_pytorch():
    cases = (([300], E.uint8), ([128], E.int8), (2**31, E.int32), ([[1, 2**40]], E.int32), ([1.5, 2**40], E.int32))
    for data, dtype in cases:
        with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dtype.np.name} without overflow"):
            E.tensor(data, dtype=dtype)
    for data in ([2**63], 2**64, [-(2**63) - 1]):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):
            E.tensor(data)
    # an unsigned dtype takes negatives down to -max (two's complement), as PyTorch
    assert E.tensor([-1, 255], dtype=E.uint8).tolist() == [255, 255]
    assert E.tensor([2**63 - 1, -(2**63)]).tolist() == [2**63 - 1, -(2**63)]


def test_wide_unsigned_dtypes_take_python_numbers_as_pytorch():
    """uint16/uint32 follow uint8's rules (an int from -max wraps, past max or int64 is refused); a Python float
    for any unsigned dtype must lie in [0, max]; uint64 unpacks each leaf as an unsigned long long."""
    assert E.tensor([[1, -2]], dtype=E.uint16).tolist() == [[1, 65534]]
    assert E.tensor([-1, 2.5], dtype=E.uint32).tolist() == [2**32 - 1, 2]  # the -1 is an int
    assert E.tensor(-3, dtype=E.uint32).item() == 2**32 - 3
    with pytest.raises(RuntimeError, match="^value cannot be converted to type uint16 without overflow$"):
        E.tensor([-65536], dtype=E.uint16)
    with pytest.raises(ValueError, match="^Overflow when unpacking long long$"):
        E.tensor([2**63], dtype=E.uint32)
    for data, dtype in (([-0.5], E.uint8), (-3.0, E.uint16), ([1, -1.0], E.uint32), ([float("nan")], E.uint16)):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {dtype.np.name} without overflow$"):
            E.tensor(data, dtype=dtype)
    assert E.tensor([2**64 - 1], dtype=E.uint64).item() == 2**64 - 1
    for data, kind, msg in (([3, -1], OverflowError, "can't convert negative int to unsigned"),
                            ([2**64], OverflowError, "int too big to convert"),
                            ([1.5], TypeError, "an integer is required")):
        with pytest.raises(kind, match=f"^{msg}$"):
            E.tensor(data, dtype=E.uint64)


def test_numpy_uint64_scalars_are_refused_for_uint64_as_pytorch():
    """PyTorch unpacks a uint64 element from an exact Python int only; other dtypes read the scalar's value."""
    for data in (np.uint64(3), [[np.uint64(3)]]):
        with pytest.raises(TypeError, match="^an integer is required$"):
            E.tensor(data)
    assert E.tensor(np.array(3, dtype=np.uint64)).dtype is E.uint64
    assert E.tensor([np.uint64(3)], dtype=E.int64).tolist() == [3]
    assert E.tensor(np.uint64(3), dtype=E.float32).item() == 3.0


def test_python_ints_past_int64_become_floats_for_a_floating_dtype():
    # PyTorch reads each as a double when the dtype is floating or complex (no long long to unpack)
    assert E.tensor([2**63], dtype=E.float64).tolist() == [2.0**63]
    assert E.tensor([[2**70, -(2**63) - 1]], dtype=E.float32).tolist() == [[2.0**70, -(2.0**63)]]
    assert E.tensor(2**64, dtype=E.complex64).item() == complex(2.0**64)
    assert E.tensor([2**63], dtype=E.float16).isinf().all()
    with pytest.raises(OverflowError, match="^int too large to convert to float$"):
        E.tensor([10**400], dtype=E.float64)


def test_fills_check_float_and_masked_values_but_wrap_a_tensors():
    # PyTorch: a Python float must fit an integer dtype; masked_fill checks as fill_; a tensor's value is copied (wraps)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int without overflow$"):
        E.full((2,), 3e9, dtype=E.int32)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int16_t without overflow$"):
        E.zeros(2, dtype=E.int16).fill_(1e6)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type int8_t without overflow$"):
        E.zeros(2, dtype=E.int8).masked_fill_(E.tensor([True, False]), 200)
    assert E.zeros(2, dtype=E.int8).fill_(E.tensor(200)).tolist() == [-56, -56]
    assert E.full((2,), 1.5, dtype=E.int32).tolist() == [1, 1] and E.zeros(1, dtype=E.uint8).fill_(-1).tolist() == [255]


def test_long_arange_follows_pytorchs_thread_chunks():
    torch = pytest.importorskip("torch")
    for n, step, dtype in [(100001, 0.1, "float32"), (70000, -1.3, "float64"), (65537, 1.7, "float16")]:
        want = torch.arange(0.3, 0.3 + step * n, step, dtype=getattr(torch, dtype)).double().numpy()
        got = E.arange(0.3, 0.3 + step * n, step, dtype=getattr(E, dtype)).double().numpy()
        np.testing.assert_array_equal(got, want, err_msg=f"arange of {n} {dtype}")


@pytest.mark.parametrize(("make", "kernel", "name"), [
    (lambda d: E.arange(2, dtype=d), "arange_cpu", ["Bool", "UInt16", "ComplexFloat"]),
    (lambda d: E.arange(0, dtype=d), "arange_cpu", ["Bool", "UInt64", "ComplexDouble"]),
    (lambda d: E.range(0, 1, dtype=d), "range_cpu", ["Bool", "UInt32", "ComplexFloat"]),
    (lambda d: E.linspace(0, 1, 3, dtype=d), "linspace_cpu", ["Bool", "UInt16"]),
    (lambda d: E.logspace(0, 1, 3, dtype=d), "logspace_cpu", ["Bool", "UInt32"]),
    (lambda d: E.eye(2, dtype=d), "eye", ["UInt16"]),
])
def test_ranges_refuse_the_dtypes_pytorch_has_no_kernel_for(make, kernel, name):
    # PyTorch's CPU kernels: no bool or wide unsigned ranges, no complex arange/range (linspace has complex)
    by = {"Bool": E.bool, "UInt16": E.uint16, "UInt32": E.uint32, "UInt64": E.uint64, "ComplexFloat": E.complex64,
          "ComplexDouble": E.complex128}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.range's deprecation
        for n in name:
            with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for '{n}'$"):
                make(by[n])
        assert make(E.float32).dtype == E.float32 and make(E.int16).dtype == E.int16
    if kernel in ("linspace_cpu", "logspace_cpu", "eye"):
        assert make(E.complex64).dtype == E.complex64
    if kernel == "eye":
        assert make(E.bool).tolist() == [[True, False], [False, True]]


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like"])
def test_like_factories_refuse_a_non_tensor_as_pytorch(name):
    args = (2,) if name == "full_like" else ()
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' \(position 1\) must be Tensor, not list$"):
        getattr(E, name)([1, 2], *args)


def test_reshape_and_view_without_a_shape_are_pytorchs_type_errors():
    x = E.ones(2, 3)
    with pytest.raises(TypeError, match=r'^reshape\(\) missing 1 required positional arguments: "shape"$'):
        x.reshape()
    with pytest.raises(TypeError, match=r"^view\(\) received an invalid combination of arguments - got \(\), but "):
        x.view()


def test_a_finite_float_beyond_a_float_dtypes_range_overflows_as_pytorch():
    # PyTorch's checked Scalar conversion: a finite double beyond float32/float16/bfloat16's largest value raises;
    # infinities and NaN convert, and so does float32's own largest value
    x = E.zeros(2)
    for fn, name in ((lambda: E.full((2,), 1e300), "float"), (lambda: E.full((1,), -1e39), "float"),
                     (lambda: x.fill_(3.4028235e38), "float"), (lambda: E.full_like(x, 1e300), "float"),
                     (lambda: x.masked_fill(x == 0, 1e300), "float"), (lambda: x.clamp(max=1e300), "float"),
                     (lambda: E.ones(2, dtype=E.float16).fill_(70000.0), "c10::Half"),
                     (lambda: E.ones(2, dtype=E.bfloat16).fill_(1e39), "c10::BFloat16")):
        with pytest.raises(RuntimeError, match=f"^value cannot be converted to type {name} without overflow$"):
            fn()
    assert x.fill_(float(np.finfo(np.float32).max)).tolist() == [float(np.finfo(np.float32).max)] * 2
    assert E.full((2,), float("-inf")).tolist() == [float("-inf")] * 2
    assert np.isnan(E.full((1,), float("nan")).item())
    assert E.full((2,), 1e300, dtype=E.float64).tolist() == [1e300, 1e300]
    with pytest.raises(TypeError, match="^full\\(\\): argument 'size' failed to unpack"):  # the size first, as PyTorch
        E.full((2, 2.5), 1e300)
    # an integer tensor clamped by a float is promoted, not checked
    assert E.arange(3).clamp(min=1e30).tolist() == [float(np.float32(1e30))] * 3


def test_one_hot_and_factories_on_a_named_cpu_device():
    # the numpy paths (CPU one_hot, factories given device="cpu" or x.device) give the general path's tensors
    got = E.one_hot(E.tensor([[0, 2], [1, 1]]), 4)
    assert got.dtype is E.int64 and got.shape == (2, 2, 4) and got.stride() == (8, 4, 1)
    np.testing.assert_array_equal(got.numpy(), np.eye(4, dtype=np.int64)[[[0, 2], [1, 1]]])
    empty = E.one_hot(E.tensor([], dtype=E.int64).reshape(0, 2), 3)
    assert empty.shape == (0, 2, 3) and empty.stride() == (6, 3, 1)
    with pytest.raises(RuntimeError, match="^Can not infer total number of classes from empty tensor.$"):
        E.one_hot(E.tensor([], dtype=E.int64).reshape(0, 2), 0)  # PyTorch 2.13 refuses an explicit 0 too
    with pytest.raises(RuntimeError, match="^Class values must be smaller than num_classes.$"):
        E.one_hot(E.tensor([0, 3]), 3)
    x = E.ones(2)
    for t in (E.zeros(2, 3, device="cpu"), E.zeros(2, 3, device=x.device), E.ones(2, 3, device=E.device("cpu"))):
        assert t.shape == (2, 3) and t.device == x.device and t.stride() == (3, 1)


def test_factories_refuse_dtype_names_and_numpy_types_in_pytorchs_words():
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'dtype' must be torch.dtype, not str$"):
        E.zeros(2, dtype="float32")
    with pytest.raises(TypeError, match="^ones\\(\\): argument 'dtype' must be torch.dtype, not type$"):
        E.ones(2, dtype=np.float32)
    with pytest.raises(TypeError, match="^tensor\\(\\): argument 'dtype' must be torch.dtype, not str$"):
        E.tensor([1], dtype="float32")
    with pytest.raises(TypeError, match="^zeros_like\\(\\): argument 'dtype' must be torch.dtype, not "
                                        "numpy.dtypes.Float32DType$"):
        E.zeros_like(E.ones(2), dtype=np.dtype("float32"))
    with pytest.raises(TypeError, match="^new_zeros\\(\\): argument 'dtype' must be torch.dtype, not str$"):
        E.ones(2).new_zeros(2, dtype="float64")
    assert E.zeros(2, dtype=float).dtype is E.float64 and E.empty(2, dtype=bool).dtype is E.bool
    assert E.full((2,), 1, dtype=E.bfloat16).dtype is E.bfloat16


def test_full_takes_its_size_as_one_sequence():
    msg = "full(): argument 'size' (position 1) must be tuple of ints, not int"
    with pytest.raises(TypeError, match=re.escape(msg)):
        E.full(3, 1.0)
    assert E.full([2], 1.0).shape == (2,)


def test_randint_and_linspace_argument_errors_are_pytorchs_parser_messages():
    with pytest.raises(TypeError, match="^randint\\(\\): argument 'size' \\(position 2\\) must be tuple of ints, "
                                        "not int$"):
        E.randint(0, 5)
    with pytest.raises(TypeError, match="^randint\\(\\): argument 'high' \\(position 1\\) must be int, not float$"):
        E.randint(5.0, (3,))
    with pytest.raises(TypeError) as e:
        E.randint(0.5, 5.5, (3,))
    lines = str(e.value).splitlines()
    assert lines[0] == ("randint() received an invalid combination of arguments - got (float, float, tuple), but "
                        "expected one of:")
    assert lines[1].startswith(" * (int high, tuple of ints size, *, torch.Generator generator, Tensor out = None")
    assert len(lines) == 5 and lines[4].startswith(" * (int low, int high, tuple of ints size, *, Tensor out")
    with pytest.raises(TypeError, match=re.escape("randn() received an invalid combination of arguments - got "
                                                  "(int, dtype=str), but expected one of:\n * (tuple of ints size")):
        E.randn(2, dtype="float64")
    with pytest.raises(TypeError, match=re.escape("linspace() received an invalid combination of arguments - got "
                                                  "(int, int), but expected one of:\n * (Tensor start, Tensor end")):
        E.linspace(0, 1)
    with pytest.raises(TypeError, match=re.escape("logspace() received an invalid combination of arguments - got "
                                                  "(int, int, float), but expected one of:")):
        E.logspace(0, 1, 2.5)
    assert E.randint(E.tensor(5), (2,)).shape == (2,) and E.randint(np.int64(5), (2,)).shape == (2,)


def test_uniform_range_error_prints_bounds_as_cpp_does():
    with pytest.raises(RuntimeError, match=re.escape("found from=1.23457e+08 > to=1")):
        E.empty(2).uniform_(123456789.0, 1.0)


def test_arange_and_eye_refuse_dtype_names_listing_their_overloads():
    with pytest.raises(TypeError) as e:
        E.arange(0, 3, dtype="float32")
    lines = str(e.value).splitlines()
    assert lines[0] == "arange() received an invalid combination of arguments - got (int, int, dtype=str), but " \
                       "expected one of:"
    assert lines[2] == (" * (Number start, Number end, *, torch.dtype dtype = None, torch.layout layout = None, "
                        "torch.device device = None, bool pin_memory = False, bool requires_grad = False)")
    assert len(lines) == 4 and lines[3].startswith(" * (Number start, Number end, Number step = 1, *, Tensor out")
    with pytest.raises(TypeError, match=re.escape("eye() received an invalid combination of arguments - got (int, "
                                                  "dtype=str), but expected one of:\n * (int n, *, Tensor out")):
        E.eye(2, dtype="float32")
    assert E.arange(3, dtype=float).dtype is E.float64 and E.eye(2, dtype=E.bfloat16).dtype is E.bfloat16


def test_full_without_fill_value_is_refused_in_pytorchs_words():
    for call, name in ((lambda: E.full((2,)), "full"), (lambda: E.ones(2).new_full((2,)), "new_full")):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == f'{name}() missing 1 required positional arguments: "fill_value"'
    with pytest.raises(TypeError, match=re.escape("new_full(): argument 'fill_value' (position 2) must be Number, "
                                                  "not NoneType")):
        E.ones(2).new_full((2,), None)
    assert E.ones(2).new_full((3,), 2).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError, match=re.escape("new_full(): argument 'fill_value' (position 2) must be Number, "
                                                  "not Tensor")):
        E.ones(2).new_full((2,), E.tensor([3.0]))  # only a 0-dim tensor is a Number
    assert E.ones(2).new_full((2,), E.tensor(3.0)).tolist() == [3.0, 3.0]


def test_linspace_takes_a_0d_integer_tensor_for_steps_as_pytorch():
    assert E.linspace(0, 1, E.tensor(3)).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(TypeError, match=r"^linspace\(\) received an invalid combination of arguments"):
        E.linspace(0, 1, E.tensor(3.0))


def test_linspace_logspace_take_0d_tensor_ends_only():
    """A one-element tensor with dimensions is refused as PyTorch refuses it, naming each end that has them."""
    assert E.linspace(E.tensor(0.0), E.tensor(1.0), 3).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match=re.escape("linspace only supports 0-dimensional start and end tensors, but "
                                                     "got start with 1 dimension(s).")):
        E.linspace(E.tensor([0.0]), 1.0, 3)
    with pytest.raises(RuntimeError, match=re.escape("linspace only supports 0-dimensional start and end tensors, but "
                                                     "got start with 2 dimension(s) and end with 1 dimension(s).")):
        E.linspace(E.zeros(1, 1), E.ones(2), 3)
    with pytest.raises(RuntimeError, match=re.escape("logspace only supports 0-dimensional start and end tensors, but "
                                                     "got end with 1 dimension(s).")):
        E.logspace(0.0, E.tensor([1.0]), 3)


def test_tensor_of_a_float_past_float32s_range_is_inf_silently_as_pytorch():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert E.tensor([1e39, 1.0]).tolist() == [math.inf, 1.0] and E.tensor(2.0 ** 128).item() == math.inf


def test_an_object_numpy_reads_by_array_protocol_only_is_refused_as_pytorch():
    class ArrayLike:
        def __array__(self, dtype=None, copy=None):
            return np.array([1.5, 2.5])

    for make in (E.tensor, E.as_tensor):
        with pytest.raises(RuntimeError, match="^Could not infer dtype of ArrayLike$"):
            make(ArrayLike())

    assert E.tensor(np.asarray(ArrayLike())).tolist() == [1.5, 2.5]


def test_asarray_reads_a_buffer_in_the_default_dtype_sharing_its_memory():
    import array

    a = array.array("d", [1.5, 2.5])
    shared, copied = E.asarray(a, dtype=E.float64), E.asarray(a, dtype=E.float64, copy=True)
    a[0] = 9.0
    assert shared.tolist() == [9.0, 2.5] and copied.tolist() == [1.5, 2.5]
    assert E.asarray(array.array("f", [1.0, 2.0])).dtype is E.float32
    assert E.asarray(bytearray(b"\x01\x02"), dtype=E.uint8).tolist() == [1, 2]
    with pytest.raises(ValueError, match=r"buffer length \(2 bytes\) after offset \(0 bytes\) must be a multiple "):
        E.asarray(memoryview(bytearray(b"\x01\x02")))


def test_numpy_bools_cannot_be_stored_in_an_integer_tensor():
    """PyTorch stores integers through `__index__`, which np.bool_ lacks; floats and bools take it."""
    for data, dtype in (([np.bool_(True), 1], None), ([np.bool_(True)], E.int64), (np.bool_(True), E.uint8),
                        ([[np.bool_(True)], [2]], None)):
        with pytest.raises(TypeError, match="^'numpy.bool' object cannot be interpreted as an integer$"):
            E.tensor(data, dtype=dtype)
    assert E.tensor([np.bool_(True), 1.5]).tolist() == [1.0, 1.5]
    assert E.tensor([np.bool_(True), True]).dtype is E.bool
    assert E.tensor([E.tensor(True), 1]).tolist() == [1, 1]


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_factories_without_a_size_raise_pytorchs_typeerror(name):
    with pytest.raises(TypeError, match=f'^{name}\\(\\) missing 1 required positional arguments: "size"$'):
        getattr(E, name)()
    assert getattr(E, name)(()).shape == () and getattr(E, name)(size=()).shape == ()  # an empty size is 0-dim


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_samplers_without_a_size_raise_pytorchs_typeerrors(name):
    fn = getattr(E, name)
    with pytest.raises(TypeError, match=rf"^{name}\(\) received an invalid combination of arguments - got \(\), but "
                                        r"expected one of:\n \* \(tuple of ints size, \*, torch.Generator generator, "):
        fn()
    with pytest.raises(TypeError, match=f'^{name}\\(\\) missing 1 required positional arguments: "size"$'):
        fn(dtype=E.float64)
    assert fn(()).shape == () and fn(size=()).shape == ()


def test_empty_sizes_inside_ember_make_0d_tensors():
    """A factory called with no size is PyTorch's TypeError, so ember's own callers pass an empty size as a tuple:
    `new(Size([]))`, `FloatTensor(Size([]))` and rrelu's slopes of a 0-d input are 0-d, as PyTorch's."""
    assert E.ones(2).new(E.Size([])).shape == () and E.ones(2).new(3).shape == (3,)
    assert E.FloatTensor(E.Size([])).shape == ()
    E.manual_seed(0)
    r = E.rrelu(E.tensor(-1.0), training=True)
    assert r.shape == () and -1 / 3 <= r.item() <= -1 / 8
    with pytest.raises(TypeError, match='^zeros\\(\\) missing 1 required positional arguments: "size"$'):
        E.zeros()


def test_deterministic_algorithms_fill_new_memory_as_pytorch():
    from ember.core import settings

    E.use_deterministic_algorithms(True)
    try:
        assert E.empty(3).isnan().all() and E.empty_like(E.ones(2, 2)).isnan().all()
        assert E.empty(2, dtype=E.int16).tolist() == [32767, 32767] and E.empty(1, dtype=E.bool).item() is True
        assert E.empty_strided((2,), (2,)).isnan().all() and E.ones(1).new_empty(2, dtype=E.uint8).tolist() == [255] * 2
        with pytest.raises(NotImplementedError, match="^\"fill_empty_deterministic_\" not implemented for 'UInt4'$"):
            E.empty(2, dtype=E.uint4)
        settings._fill_uninitialized = False
        assert E.empty(2, dtype=E.uint4).shape == (2,)
    finally:
        settings._fill_uninitialized = True
        E.use_deterministic_algorithms(False)


def test_randint_with_the_one_plausible_overload_names_its_bad_argument_as_pytorchs_parser():
    for call, msg in [(lambda: E.randint(5, size=3), "randint(): argument 'size' must be tuple of ints, not int"),
                      (lambda: E.randint(5, (3.0,)), "randint(): argument 'size' (position 2) must be tuple of ints, "
                                                     "but found element of type float at pos 0"),
                      (lambda: E.randint(5, size=[2.0]), "randint(): argument 'size' must be tuple of ints, not list"),
                      (lambda: E.randint(high=5.0, size=(3,)), "randint(): argument 'high' must be int, not float")]:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == msg
    with pytest.raises(TypeError, match=r"^randint\(\) received an invalid combination of arguments - got \(int, "
                                        r"dtype=torch\.dtype, size=int\), but expected one of:\n"):
        E.randint(5, size=3, dtype=E.int32)


def test_deterministic_resize_fills_the_grown_storage_and_empty_out_fills_all_as_pytorch():
    """PyTorch 2.13: resize_ fills the storage's new elements only (a shrink and regrow keeps the old ones);
    empty(out=) fills the whole output."""
    E.use_deterministic_algorithms(True)
    try:
        x = E.zeros(4)
        x.resize_(2)
        assert x.resize_(4).tolist() == [0.0] * 4
        y = E.zeros(2)[1:]
        assert y.resize_(3).tolist()[0] == 0.0 and y.isnan().tolist() == [False, True, True]
        assert E.zeros(2, dtype=E.int64).resize_(3).tolist() == [0, 0, 2 ** 63 - 1]
        z = E.zeros(2)
        assert E.empty(3, out=z) is z and z.isnan().all()
    finally:
        E.use_deterministic_algorithms(False)
