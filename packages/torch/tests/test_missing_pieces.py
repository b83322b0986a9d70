"""The names ported programs stopped on, through `ember.torch`: legacy tensor types, finfo/iinfo, device
predicates, global switches, memory formats, the default device, `range` indices, broadcast errors,
autocast and GradScaler; against hard-coded PyTorch 2.13 behaviour and, when installed, live PyTorch."""

import math
import warnings

import numpy as np
import pytest

import ember.nn as enn
import ember.torch as et


def test_legacy_types_construct_and_match_by_dtype_and_device():
    assert et.FloatTensor(2, 3).shape == (2, 3) and et.FloatTensor(2, 3).dtype is et.float32
    assert et.LongTensor([1, 2]).tolist() == [1, 2] and et.LongTensor([1, 2]).dtype is et.int64
    assert et.FloatTensor().shape == (0,) and et.FloatTensor(et.Size([2, 2])).shape == (2, 2)
    assert et.FloatTensor((2, 3)).tolist() == [2.0, 3.0]
    for cls, dt in [(et.DoubleTensor, et.float64), (et.IntTensor, et.int32), (et.BoolTensor, et.bool),
                    (et.ByteTensor, et.uint8), (et.HalfTensor, et.float16)]:
        assert cls(1).dtype is dt
    x = et.zeros(2)
    assert isinstance(x, et.FloatTensor) and not isinstance(x, et.DoubleTensor)
    assert isinstance(enn.Parameter(x), et.FloatTensor) and isinstance(x.requires_grad_(), et.FloatTensor)
    assert not isinstance(x, et.cuda.FloatTensor) and not isinstance(np.zeros(2), et.FloatTensor)
    assert x.type() == "torch.FloatTensor" and et.LongTensor([1]).type() == "torch.LongTensor"
    assert x.type(et.DoubleTensor).dtype is et.float64 and x.type("torch.IntTensor").dtype is et.int32
    assert repr(et.FloatTensor) == "<class 'torch.FloatTensor'>" and et.cuda.FloatTensor.is_cuda
    with pytest.raises(TypeError, match=r"^expected TensorOptions\(dtype=float, .*\(got TensorOptions\(dtype=long"):
        et.FloatTensor(et.zeros(2, dtype=et.int64))


def test_finfo_and_iinfo():
    f = et.finfo(et.float32)
    assert (f.bits, f.eps, f.max, f.tiny) == (32, 2.0 ** -23, float(np.finfo(np.float32).max), 2.0 ** -126)
    assert f.smallest_normal == f.tiny and f.resolution == 1e-6 and f.dtype == "float32"
    assert et.finfo(et.float16).eps == 2.0 ** -10 and et.finfo().dtype == "float32"
    i = et.iinfo(et.int8)
    assert (i.bits, i.min, i.max, i.dtype) == (8, -128, 127, "int8") and et.iinfo(et.uint8).max == 255
    with pytest.raises(TypeError, match="finfo"):
        et.finfo(et.int64)
    with pytest.raises(TypeError, match="iinfo"):
        et.iinfo(et.float32)
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        et.iinfo(et.bool)


def test_device_predicates():
    x = et.zeros(1)
    assert x.is_cpu and not x.is_cuda
    assert not any([x.is_xpu, x.is_mps, x.is_meta, x.is_sparse, x.is_quantized, x.is_mkldnn, x.is_nested])


def test_global_switches_are_recorded():
    assert et.get_float32_matmul_precision() == "highest"
    et.set_float32_matmul_precision("high")
    try:
        assert et.get_float32_matmul_precision() == "high"
    finally:
        et.set_float32_matmul_precision("highest")
    with pytest.warns(UserWarning, match="^fast is not one of 'highest', 'high', or 'medium'; the current"):
        et.set_float32_matmul_precision("fast")  # PyTorch warns and ignores it
    assert et.get_float32_matmul_precision() == "highest"
    assert et.are_deterministic_algorithms_enabled() is False
    et.use_deterministic_algorithms(True, warn_only=True)
    try:
        assert et.are_deterministic_algorithms_enabled() and et.is_deterministic_algorithms_warn_only_enabled()
    finally:
        et.use_deterministic_algorithms(False)


def test_memory_formats_are_accepted_and_keep_values():
    x = et.arange(24.0).reshape(1, 2, 3, 4)
    for fmt in (et.channels_last, et.contiguous_format, et.preserve_format):
        np.testing.assert_array_equal(x.contiguous(memory_format=fmt).numpy(), x.numpy())
        np.testing.assert_array_equal(x.to(memory_format=fmt).numpy(), x.numpy())
    m = enn.Conv2d(2, 2, 1).to(memory_format=et.channels_last)
    assert m(x).shape == (1, 2, 3, 4)


def test_default_device_moves_factories():
    assert et.get_default_device() == et.device("cpu")
    et.set_default_device("cpu")
    try:
        assert et.zeros(2).device == et.device("cpu") and et.get_default_device().type == "cpu"
    finally:
        et.set_default_device(None)
    if et.cuda.is_available():
        et.set_default_device("cuda")
        try:
            assert et.zeros(2).is_cuda and et.tensor([1.0]).is_cuda and et.randn(2).is_cuda
        finally:
            et.set_default_device(None)
    assert et.zeros(2).is_cpu


def test_range_indices_select_like_lists():
    x = et.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(x[range(2)].numpy(), x.numpy()[:2])
    np.testing.assert_array_equal(x[range(0, 4, 2), 1].numpy(), x.numpy()[[0, 2], 1])
    x[range(1, 3)] = 0.0
    assert x[1:3].sum().item() == 0.0


def test_broadcast_mismatch_is_a_runtime_error():
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                           r"non-singleton dimension 1$"):
        et.ones(2, 3) + et.ones(4)
    with pytest.raises(ValueError):  # also what Python users expect
        et.ones(2, 3) * et.ones(2, 2)


def test_autocast_runs_linear_in_bfloat16_on_the_cpu_as_pytorch():
    lin = enn.Linear(3, 2)
    assert not et.is_autocast_enabled("cpu")
    with et.autocast("cpu"):
        assert et.is_autocast_enabled("cpu")
        y = lin(et.ones(1, 3))
    assert not et.is_autocast_enabled("cpu") and y.dtype is et.bfloat16
    assert lin(et.ones(1, 3)).dtype is et.float32
    if not et.cuda.is_available():
        with pytest.warns(UserWarning, match="CUDA is not available"):
            ac = et.cuda.amp.autocast()
        with ac:
            assert not et.is_autocast_enabled("cuda")


def test_grad_scaler_scales_skips_infs_and_adapts():
    p = enn.Parameter(et.tensor([1.0, 2.0]))
    opt = et.optim.SGD([p], lr=0.1)
    scaler = et.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    loss = (p * p).sum()
    scaled = scaler.scale(loss)
    assert scaled.item() == pytest.approx(8.0 * 5.0)
    scaled.backward()
    scaler.step(opt)  # unscales to the true gradient 2p, then steps
    scaler.update()
    np.testing.assert_allclose(p.detach().numpy(), [0.8, 1.6], rtol=1e-6)
    p.grad = et.tensor([math.inf, 0.0])
    before = p.detach().clone()
    assert scaler.step(opt) is None  # skipped
    scaler.update()
    np.testing.assert_array_equal(p.detach().numpy(), before.numpy())
    assert scaler.get_scale() == 4.0  # backed off by 0.5
    for _ in range(2):
        p.grad = et.ones(2)
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 8.0  # grown after growth_interval clean steps
    assert scaler.state_dict()["scale"] == 8.0


def test_cuda_grad_scaler_without_cuda_passes_through():
    if et.cuda.is_available():
        pytest.skip("a CUDA device is available")
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
        scaler = et.cuda.amp.GradScaler()
    p = enn.Parameter(et.tensor([1.0]))
    opt = et.optim.SGD([p], lr=0.5)
    loss = (p * 3).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss.backward()
    scaler.step(opt)
    scaler.update()
    assert p.item() == pytest.approx(-0.5)


def test_dropout2d_and_flatten_parameters_through_the_torch_names():
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        y = et.nn.functional.dropout2d(et.ones(32, 4), 0.5).numpy()
    assert set(np.unique(y)) == {0.0, 2.0} and not (y == y[:, :1]).all()  # (N, C): elements drop one by one
    et.nn.LSTM(2, 2).flatten_parameters()


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for name in ("float32", "float16", "float64"):
        a, b = et.finfo(getattr(et, name)), torch.finfo(getattr(torch, name))
        assert (a.bits, a.eps, a.max, a.min, a.tiny, a.resolution) == (b.bits, b.eps, b.max, b.min, b.tiny,
                                                                       b.resolution)
    for name in ("int8", "int16", "int32", "int64", "uint8"):
        a, b = et.iinfo(getattr(et, name)), torch.iinfo(getattr(torch, name))
        assert (a.bits, a.min, a.max) == (b.bits, b.min, b.max)
    for cls in ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor", "ByteTensor"):
        assert getattr(et, cls)([1, 0]).tolist() == getattr(torch, cls)([1, 0]).tolist()
        assert getattr(et, cls)(2, 3).shape == tuple(getattr(torch, cls)(2, 3).shape)
        ours, theirs = et.zeros(1, dtype=getattr(et, cls).dtype), torch.zeros(1, dtype=getattr(torch, cls).dtype)
        assert ours.type() == theirs.type()
    x, tx = et.arange(12.0).reshape(4, 3), torch.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(x[range(1, 4, 2)].numpy(), tx[range(1, 4, 2)].numpy())
    with pytest.raises(RuntimeError):
        torch.ones(2, 3) + torch.ones(4)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        t = torch.nn.functional.dropout2d(torch.ones(32, 4), 0.5)
    assert "2-D input to dropout2d" in str(w[0].message) and not (t == t[:, :1]).all()
    assert torch.get_float32_matmul_precision() in ("highest", "high", "medium")
    assert torch.multiprocessing.get_all_sharing_strategies() == et.multiprocessing.get_all_sharing_strategies()


def test_mps_and_xpu_modules_answer_as_a_build_without_them():
    """Device-agnostic programs probe `et.mps` / `et.xpu` before picking a device: they report nothing
    available, and the calls needing a device raise PyTorch's errors for a build without it."""
    assert et.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert (et.mps.is_available(), et.mps.device_count(), et.xpu.is_available(), et.xpu.device_count(),
            et.xpu.memory_allocated(), et.xpu.get_arch_list()) == (False, 0, False, 0, 0, [])
    et.mps.manual_seed(0)
    et.xpu.manual_seed_all(0)
    et.xpu.empty_cache()
    with pytest.raises(RuntimeError, match=r"^Cannot execute deviceSynchronize\(\) without MPS backend.$"):
        et.mps.synchronize()
    with pytest.raises(RuntimeError, match=r"^Cannot execute emptyCache\(\) without MPS backend.$"):
        et.mps.empty_cache()
    with pytest.raises(AssertionError, match="^Torch not compiled with XPU enabled$"):
        et.xpu.current_device()
