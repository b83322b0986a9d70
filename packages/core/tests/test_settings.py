"""finfo/iinfo against numpy and PyTorch's values, memory formats, the recorded global switches, the default
device, legacy tensor types, device predicates, range indices and broadcast errors."""

import numpy as np
import pytest

import ember.core as E
from ember.core import legacy, settings


def test_iinfo_of_a_float_dtype_raises_pytorch_message():
    with pytest.raises(TypeError) as info:
        settings.iinfo(E.float32)
    assert str(info.value) == "torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'"


def test_finfo_of_an_integer_raises_pytorch_message_and_finfos_compare_equal():
    with pytest.raises(TypeError) as info:
        settings.finfo(E.int32)
    assert str(info.value) == ("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                               "'torch.finfo'")
    assert settings.finfo(E.float16) == settings.finfo(E.float16) != settings.finfo(E.float32)
    assert repr(settings.finfo(E.float8_e4m3fn)).startswith("finfo(resolution=1, ")


def test_finfo_iinfo_values():
    f = settings.finfo(E.float64)
    assert (f.bits, f.eps, f.max, f.tiny, f.resolution) == (64, 2.0 ** -52, np.finfo(np.float64).max, 2.0 ** -1022,
                                                          1e-15)
    i = settings.iinfo(E.int64)
    assert (i.bits, i.min, i.max) == (64, -2 ** 63, 2 ** 63 - 1)
    with pytest.raises(TypeError):
        settings.finfo(E.int32)
    # PyTorch's repr prints the bounds as C doubles (%g); the attributes stay exact ints
    assert repr(i) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"
    assert repr(settings.iinfo(E.int8)) == "iinfo(min=-128, max=127, dtype=int8)"


def test_switches_and_formats():
    assert repr(E.channels_last) == "ember.channels_last"
    assert E.get_float32_matmul_precision() == "highest" and E.are_deterministic_algorithms_enabled() is False
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument 'mode' \(position 1\) must be "
                                        "bool, not str$"):
        E.use_deterministic_algorithms("yes")


def test_default_device_is_cpu_unless_set():
    assert E.get_default_device() == E.device("cpu") and E.zeros(1).device == E.device("cpu")
    E.set_default_device("cpu")
    try:
        assert E.tensor([1.0]).device == E.device("cpu")
    finally:
        E.set_default_device(None)


def test_device_as_a_context_manager_sets_and_restores_the_default():
    import importlib

    D = importlib.import_module("ember.core.device")  # `ember.core.device` the attribute is the class
    with E.device("cpu") as d:
        assert d is E.device("cpu") and D._default is d and E.zeros(1).device == d
        with pytest.raises(KeyError), E.device("cpu"):  # nested, left by an exception
            raise KeyError("x")
        assert D._default is d
    assert D._default is None and E.get_default_device() == E.device("cpu")


@pytest.mark.cuda
def test_factories_inside_a_cuda_device_block_make_cuda_tensors():
    if not E.cuda.is_available():
        pytest.skip("no CUDA (or simulator)")
    with E.device("cuda"):
        assert E.zeros(2).device.type == "cuda" and E.tensor([1.0]).device.type == "cuda"
    assert E.zeros(2).device.type == "cpu"


def test_legacy_types():
    assert isinstance(E.zeros(2, dtype=E.int64), legacy.LongTensor)
    assert not isinstance(E.zeros(2), legacy.LongTensor)
    assert legacy.ByteTensor([1, 2]).dtype is E.uint8 and legacy.FloatTensor(3).shape == (3,)
    with pytest.raises(TypeError, match="^new\\(\\): invalid data type 'str'$"):  # PyTorch's words
        legacy.FloatTensor("abc")


def test_predicates_range_index_and_broadcast_error():
    x = E.arange(6.0).reshape(3, 2)
    assert not (x.is_meta or x.is_mps or x.is_xpu or x.is_sparse)
    np.testing.assert_array_equal(x[range(1, 3)].numpy(), x.numpy()[1:3])
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 1$") as info:
        E.add(x, E.ones(4))
    assert isinstance(info.value, ValueError)


def test_is_contiguous_in_channels_last_reads_the_strides():
    x = E.zeros(2, 3, 4, 5)
    assert x.is_contiguous() and not x.is_contiguous(memory_format=E.channels_last)
    nhwc = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert nhwc.is_contiguous(memory_format=E.channels_last) and not nhwc.is_contiguous()
    assert E.zeros(2, 3, 1, 1).is_contiguous(memory_format=E.channels_last)
    assert not E.zeros(2, 3).is_contiguous(memory_format=E.channels_last)


def test_devices_ember_lacks_refuse_as_a_pytorch_build_without_them():
    x = E.ones(2)
    assert x.is_xla is False
    with pytest.raises(AssertionError, match="^Torch not compiled with XPU enabled$"):
        x.xpu()
    with pytest.raises(RuntimeError, match="^PyTorch is not linked with support for ipu devices$"):
        x.ipu()
    with pytest.raises(AssertionError, match="^Torch not compiled with MTIA enabled. Ensure you have"):
        x.mtia()
    for name, shown in (("xpu", "xpu"), ("ipu", "ipu"), ("mtia", "MTIA")):  # an explicit device is checked first
        with pytest.raises(RuntimeError, match=f"^Invalid device, must be {shown} device$"):
            getattr(x, name)("cpu")
        with pytest.raises(RuntimeError, match=f"^Invalid device, must be {shown} device$"):
            getattr(x, name)(E.device("cpu"))
        if not E.cuda.is_available():  # an int is the current accelerator's index
            with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
                getattr(x, name)(0)
    with pytest.raises(RuntimeError, match="^reinforce\\(\\) was removed.\nUse torch.distributions instead.") as info:
        x.reinforce(1.0)
    assert str(info.value).endswith("loss = -m.log_prob(action) * reward\nloss.backward()\n")
