"""Users' tensor mistakes (tests/api_programs/oops_*.py): PyTorch 2.13's exception type and message, hard-coded."""

from __future__ import annotations

import re

import numpy as np
import pytest

import ember.core as E


@pytest.mark.parametrize("value, name", [("x", "str"), (None, "NoneType"), ([1, 2], "list"),
                                         (np.array(2.0), "numpy.ndarray"), (E.ones(2), "Tensor"),
                                         (E.ones(1), "Tensor")])
def test_full_refuses_a_fill_value_that_is_no_number(value, name):
    msg = f"full(): argument 'fill_value' (position 2) must be Number, not {name}"
    with pytest.raises(TypeError, match="^" + re.escape(msg) + "$"):
        E.full((2,), value)


@pytest.mark.parametrize("value, dtype", [(np.float32(2), E.float32), (np.bool_(True), E.float32),
                                          (np.int64(3), E.int64), (E.tensor(2), E.int64), (1 + 2j, E.complex64)])
def test_full_takes_numbers_and_0d_tensors(value, dtype):
    assert E.full((2,), value).dtype is dtype


def _raises(kind, message, fn):
    with pytest.raises(kind, match="^" + re.escape(message) + "$"):
        fn()


_ALL_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, "
              "hpu, mtia, privateuseone")


@pytest.mark.parametrize("text, message", [
    ("cuda:x", "Invalid device string: 'cuda:x'"), ("float32", "Invalid device string: 'float32'"),
    ("cuda:01", "Invalid device string: 'cuda:01'"), ("cuda1", "Invalid device string: 'cuda1'"),
    ("cuda: 0", "Invalid device string: 'cuda: 0'"), ("cuda:0:1", "Invalid device string: 'cuda:0:1'"),
    ("", "Device string must not be empty"),
    ("cpux", f"Expected one of {_ALL_TYPES} device type at start of device string: cpux"),
    ("cpux:0", f"Expected one of {_ALL_TYPES} device type at start of device string: cpux"),
    ("CUDA", f"Expected one of {_ALL_TYPES} device type at start of device string: CUDA"),
])
def test_device_strings_are_parsed_as_pytorchs(text, message):
    _raises(RuntimeError, message, lambda: E.device(text))


def test_pytorchs_other_device_types_make_devices_but_no_memory():
    """`torch.device("mps")` is a device in PyTorch's build without Metal too (device-agnostic code compares and
    prints it); memory on it is refused with PyTorch's RuntimeError, before anything is allocated."""
    mps, xpu = E.device("mps"), E.device("xpu", 1)
    assert (repr(mps), str(xpu), mps == E.device("mps"), mps == "mps", xpu.index) == (
        "device(type='mps')", "xpu:1", True, True, 1)
    for kind, make in (("mps", lambda: E.ones(2, device="mps")), ("xpu", lambda: E.zeros(2).to("xpu")),
                       ("xpu", lambda: E.empty(1, device=xpu)), ("hpu", lambda: E.tensor([1.0], device="hpu"))):
        _raises(RuntimeError, f"PyTorch is not linked with support for {kind} devices", make)


def test_device_index_errors():
    _raises(RuntimeError, "Device index must not be negative", lambda: E.device("cuda", -1))
    _raises(RuntimeError, "type (string) must not include an index because index was passed explicitly: cuda:0",
            lambda: E.device("cuda:0", 1))
    assert E.device("cpu:0").index == 0


@pytest.mark.parametrize("key, kind, message", [
    (slice(0.5, 2), TypeError, "slice indices must be integers or None or have an __index__ method"),
    (slice(None, 2.0), TypeError, "slice indices must be integers or None or have an __index__ method"),
    (slice(None, None, 1.0), TypeError, "slice indices must be integers or None or have an __index__ method"),
    (slice(None, None, 0), ValueError, "slice step cannot be zero"),
    (slice(None, None, -1), ValueError, "step must be greater than zero"),
    ((slice(None, None, 0), [0, 1]), ValueError, "slice step cannot be zero"),
    ((slice(0.5, None), [0, 1]), TypeError, "slice indices must be integers or None or have an __index__ method"),
    ("a", TypeError, "new(): invalid data type 'str'"),
])
def test_bad_index_items(key, kind, message):
    x = E.ones(3, 4)
    _raises(kind, message, lambda: x[key])


def test_a_slice_bound_may_be_a_0d_integer_tensor():
    assert E.ones(3, 4)[E.tensor(1):].shape == (2, 4)


def test_scatter_reads_src_over_the_index_dims_first():
    idx = E.tensor([[0, 1], [2, 3], [1, 1]])
    msg = "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
    _raises(IndexError, msg, lambda: E.zeros(3, 4).scatter_add(1, idx, E.ones(3)))
    _raises(IndexError, msg, lambda: E.zeros(3, 4).scatter(0, idx, E.ones(3)))
    _raises(RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype",
            lambda: E.zeros(3, 4).scatter(1, idx, E.ones(3, 2, dtype=E.float64)))


_TO_REFUSAL = "to() received an invalid combination of arguments - got ({}), but expected one of:\n"


@pytest.mark.parametrize("args, got", [((E.float64, E.int32), "torch.dtype, torch.dtype"), (("cpu", "cpu"), "str, str"),
                                       ((E.float64, "cpu"), "torch.dtype, str"), ((E.float64, 1), "torch.dtype, int")])
def test_to_refuses_arguments_outside_its_signatures(args, got):
    with pytest.raises(TypeError, match="^" + re.escape(_TO_REFUSAL.format(got))):
        E.ones(2).to(*args)


@pytest.mark.parametrize("args, kwargs, got", [((), {"dtype": "float64"}, "dtype=str, "),
                                               (("cpu",), {"dtype": np.float32}, "str, dtype=type")])
def test_to_refuses_dtype_names_and_numpy_types_as_keywords(args, kwargs, got):
    with pytest.raises(TypeError, match="^" + re.escape(_TO_REFUSAL.format(got))):
        E.ones(2).to(*args, **kwargs)
    assert E.ones(2).to(dtype=float).dtype is E.float64


def test_to_takes_positional_non_blocking_and_copy():
    x = E.ones(2)
    assert x.to(E.float32, False, True) is not x
    assert x.to(E.float32, False) is x
    assert x.to("cpu", E.float64, True).dtype is E.float64
    assert x.to(None, E.float64).dtype is E.float64


@pytest.mark.parametrize("args, message", [
    ((2.5,), "new(): data must be a sequence (got float)"), ((None,), "new(): data must be a sequence (got NoneType)"),
    ((np.float32(2),), "new(): data must be a sequence (got numpy.float32)"),
    ((True,), "new(): data must be a sequence (got bool)"), (("abc",), "new(): invalid data type 'str'"),
    ((2, 2.5), "new(): argument 'size' failed to unpack the object at pos 2 with error \"type must be tuple of "
               "ints,but got float\""),
])
def test_legacy_constructors_refuse_as_pytorchs_new(args, message):
    from ember.core import legacy

    for make in (E.Tensor, legacy.FloatTensor, legacy.LongTensor, E.ones(2).new):  # Tensor.new: the same parser
        _raises(TypeError, message, lambda: make(*args))  # noqa: B023


def test_legacy_constructors_still_build():
    from ember.core import legacy

    assert E.Tensor(2, 3).shape == (2, 3) and E.Tensor([1, 2]).tolist() == [1.0, 2.0]
    assert legacy.LongTensor(np.int64(3)).shape == (3,) and legacy.FloatTensor((2, 3)).tolist() == [2.0, 3.0]
    assert E.Tensor(np.int64(3)).shape == (3,) and E.ones(1).new(np.int64(2)).shape == (2,)  # numpy ints are sizes


def test_tensor_new_aliases_only_a_tensor_of_its_own_dtype():
    src = E.tensor([1.0, 2.0])
    assert E.ones(1).new(src).data_ptr() == src.data_ptr()
    _raises(TypeError, "expected TensorOptions(dtype=long int, device=cpu, layout=Strided, requires_grad=false "
                       "(default), pinned_memory=false (default), memory_format=(nullopt)) (got TensorOptions("
                       "dtype=float, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false "
                       "(default), memory_format=(nullopt)))", lambda: E.ones(1, dtype=E.int64).new(src))


def test_from_numpy_names_a_numpy_scalar_with_its_module():
    _raises(TypeError, "expected np.ndarray (got numpy.float32)", lambda: E.from_numpy(np.float32(3.0)))


@pytest.mark.parametrize("reduce", ["max", "mean", "sum"])
def test_scatter_refuses_a_reduce_other_than_add_or_multiply_in_pytorchs_words(reduce):
    index = E.zeros((1, 3), dtype=E.int64)
    for src in (E.ones(1, 3), 3.0):
        with pytest.raises(RuntimeError, match=r"^reduce argument must be either add or multiply\.$"):
            E.ones(2, 3).scatter_(0, index, src, reduce=reduce)
