"""Elementwise ops on both devices: every UNARY/BINARY row, strided and broadcast operands,
dtypes, scalars, where/clamp/lerp, copies and casts; CUDA must match the CPU to float tolerance.

Run in Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`) with tiny shapes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember.core as E
from ember.core.ops import elementwise as ew
from ember.core.testing import assert_close, make_tensor

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")]

DEVICES = ["cpu", "cuda"]
# the op table: each row's OpInfo gives the input ranges where the op is defined (the simulator
# runs Python's math, which raises outside), the dtypes per device and the error inputs
UNARY = {r.name: r.info for r in ew.UNARY}
BINARY = {r.name: r.info for r in ew.BINARY}
DIVISIONS = {n for n, i in BINARY.items() if i.samples is ew._nonzero_divisor}


def _on(t: E.Tensor, device: str) -> E.Tensor:
    return t if device == "cpu" else t.to(device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [E.float32, E.float64, E.int64])
def test_unary_matches_cpu(name, dtype, device):
    if dtype not in UNARY[name].dtypes_for(device):  # frac refuses integers, as PyTorch's
        pytest.skip(f"{name} does not take {dtype}")
    lo, hi = UNARY[name].range_of(0, dtype) or ((-3, 3) if dtype.is_floating_point else (-3, 4))
    x = make_tensor(2, 3, dtype=dtype, low=lo, high=hi, seed=1, noncontiguous=True)
    expected = getattr(E, name)(x)
    actual = getattr(E, name)(_on(x, device))
    assert actual.device.type == device
    assert_close(actual, _on(expected, device), rtol=1e-5, atol=1e-6, equal_nan=True)


def _binary_inputs(name, dtype):
    info = BINARY[name]
    a = make_tensor(3, 1, 4, dtype=dtype, seed=2, **_bounds(info.range_of(0, dtype)))
    b = make_tensor(2, 1, dtype=dtype, seed=3, noncontiguous=True, **_bounds(info.range_of(1, dtype)))
    if name in DIVISIONS:
        b = b.abs() + 1
    if name == "pow" and not dtype.is_floating_point:
        b = b.clamp(0, 3)
    return a, b


def _bounds(r):
    return {"low": -5, "high": 5} if r is None else {"low": r[0], "high": r[1]}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", [E.float32, E.int32])
def test_binary_broadcast_matches_cpu(name, dtype, device):
    if dtype not in BINARY[name].dtypes_for(device):
        dtype = E.int64
        if dtype not in BINARY[name].dtypes_for(device):
            pytest.skip(f"{name} takes floating operands only, as PyTorch's")
    a, b = _binary_inputs(name, dtype)
    op = getattr(E, name)
    expected = op(a, b)
    actual = op(_on(a, device), _on(b, device))
    assert actual.dtype is expected.dtype and actual.shape == (3, 2, 4)
    assert_close(actual, _on(expected, device), rtol=1e-5, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [E.float32, E.int64, E.bfloat16])
def test_add_and_sub_with_alpha_match_cpu(dtype, device):
    a, b = _binary_inputs("add", E.float32 if dtype is E.bfloat16 else dtype)
    a, b = a.to(dtype), b.to(dtype)
    alpha = 3 if dtype is E.int64 else -0.37
    for op in (E.add, E.sub):
        expected = op(a, b, alpha=alpha)
        actual = op(_on(a, device), _on(b, device), alpha=alpha)
        assert actual.dtype is dtype
        assert_close(actual.cpu().float(), expected.float(), rtol=1e-2 if dtype is E.bfloat16 else 1e-6, atol=1e-6)
    base = a.expand(3, 2, 4).contiguous()
    x = _on(base.clone(), device)
    x.add_(_on(b, device), alpha=alpha)
    assert_close(x.cpu().float(), E.add(base, b, alpha=alpha).float(), rtol=1e-2 if dtype is E.bfloat16 else 1e-6,
                 atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("scalar", [2, 0.5, True])
def test_binary_with_python_scalar_follows_promotion(device, scalar):
    x = _on(make_tensor(4, dtype=E.int32, seed=4), device)
    for r in (x + scalar, scalar * x) + (() if isinstance(scalar, bool) else (x - scalar,)):  # `x - True` refused
        cpu = r.cpu()
        assert r.dtype is E.result_type(x, scalar)
        assert_close(cpu, E.tensor(cpu.tolist(), dtype=r.dtype))
    assert_close((x * scalar).cpu(), x.cpu() * scalar)


@pytest.mark.parametrize("device", DEVICES)
def test_python_int_outside_the_dtype_wraps_as_pytorch(device):
    x = _on(E.tensor([0, 5, 253], dtype=E.uint8), device)
    assert (x > -3).tolist() == [False, False, False] and (x == -3).tolist() == [False, False, True]
    assert (_on(E.tensor([1, 2], dtype=E.int8), device) + 1000).tolist() == [-23, -22]
    assert E.floor_divide(_on(E.tensor([80, -7], dtype=E.int8), device), 1000).tolist() == [-4, 0]


@pytest.mark.parametrize("device", DEVICES)
def test_cpu_zero_dim_tensor_goes_with_cuda_operand(device):
    x = _on(E.tensor([1.0, 2.0]), device)
    r = x * E.tensor(3.0)
    assert r.device.type == device
    assert r.tolist() == [3.0, 6.0]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [E.float16, E.float64, E.uint8, E.bool])
def test_add_of_every_dtype(device, dtype):
    a = make_tensor(5, dtype=dtype, low=0, high=4, seed=5)
    b = make_tensor(5, dtype=dtype, low=0, high=4, seed=6)
    assert_close(E.add(_on(a, device), _on(b, device)), _on(a + b, device))


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=0, max_size=4), data=st.data())
def test_strided_broadcast_mul_matches_numpy(shape, data):
    shape = tuple(shape)
    a = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    bshape = tuple(data.draw(st.sampled_from([1, n])) for n in shape)[data.draw(st.integers(0, len(shape))):]
    b = np.random.default_rng(7).standard_normal(bshape).astype(np.float32)
    x = E.from_numpy(a).cuda()
    perm = data.draw(st.permutations(range(len(shape))))
    xt = x.permute(*perm) if shape else x
    y = E.from_numpy(b).cuda()
    expected = np.transpose(a, perm) if shape else a
    try:
        want = expected * b
    except ValueError:
        with pytest.raises(ValueError, match=r"^The size of tensor a \(\d+\) must match the size of tensor b"):
            E.mul(xt, y)
        return
    assert_close(E.mul(xt, y).cpu(), E.from_numpy(np.array(want, dtype=np.float32)))


@pytest.mark.parametrize("device", DEVICES)
def test_out_and_inplace_write_into_the_given_tensor(device):
    x = _on(E.tensor([[1.0, -2.0], [3.0, -4.0]]), device)
    out = _on(E.empty(2, 2), device)
    r = E.add(x, 1, out=out)
    assert r is out and out.tolist() == [[2.0, -1.0], [4.0, -3.0]]
    v = x._storage.version
    x.mul_(2)
    x.abs_()
    assert x.tolist() == [[2.0, 4.0], [6.0, 8.0]] and x._storage.version == v + 2
    col = x[:, 1]
    col.add_(E.tensor([10.0, 20.0], device=device))
    assert x.tolist() == [[2.0, 14.0], [6.0, 28.0]]


@pytest.mark.parametrize("device", DEVICES)
def test_out_of_wrong_shape_is_resized_with_a_warning(device):
    out = _on(E.zeros(5), device)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        E.exp(_on(E.zeros(2, 2), device), out=out)
    assert out.shape == (2, 2) and out.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert any("resized" in str(m.message) for m in w)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(n for n, i in {**UNARY, **BINARY}.items() if i.errors is not None))
def test_error_inputs_raise_the_same_exception_on_both_devices(name, device):
    info = {**UNARY, **BINARY}[name]
    for e in info.error_inputs(device):
        with pytest.raises(e.exc, match=e.match):
            getattr(E, name)(*e.sample.args, **e.sample.kwargs)


@pytest.mark.parametrize("device", DEVICES)
def test_errors_match_the_cpu(device):
    with pytest.raises(ValueError, match=r"^The size of tensor a \(3\) must match the size of tensor b \(4\) at "
                                         r"non-singleton dimension 1$"):
        E.add(_on(E.zeros(2, 3), device), _on(E.zeros(4), device))
    with pytest.raises(TypeError, match="Negation"):
        -_on(E.tensor([True]), device)
    with pytest.raises(TypeError, match=r"^\"bitwise_and_(cpu|cuda)\" not implemented for 'Float'$"):
        E.bitwise_and(_on(E.zeros(2), device), _on(E.zeros(2), device))
    with pytest.raises(RuntimeError, match="can't be cast"):
        E.add(_on(E.zeros(2), device), 1.5, out=_on(E.zeros(2, dtype=E.int64), device))


@pytest.mark.parametrize("device", DEVICES)
def test_non_tensor_operands_raise_the_same_type_error_on_both_devices(device):
    x = _on(E.ones(2), device)
    with pytest.raises(TypeError, match=r"sub\(\): argument 'input' \(position 1\) must be Tensor, not str"):
        E.sub("a", x)
    with pytest.raises(TypeError, match=r"mul\(\): argument 'other' \(position 2\) must be Tensor, not NoneType"):
        E.mul(x, None)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the simulator's scalar math on inf and nan
def test_float_floor_division_of_infinities_matches_the_cpu():
    a = E.tensor([float("inf"), -5.0, 5.0, float("nan"), -7.25, 0.0], dtype=E.float64)
    b = E.tensor([1.0, float("inf"), float("-inf"), 2.0, 2.0, -3.0], dtype=E.float64)
    expected = E.floor_divide(a, b)  # PyTorch: [nan, -1, -1, nan, -4, -0]
    assert_close(E.floor_divide(a.cuda(), b.cuda()).cpu(), expected, equal_nan=True)
    assert expected.numpy()[1:3].tolist() == [-1.0, -1.0]


def test_mixing_cpu_and_cuda_tensors_raises():
    with pytest.raises(RuntimeError, match="same device"):
        E.add(E.zeros(2, device="cuda"), E.zeros(2))


@pytest.mark.parametrize("device", DEVICES)
def test_where_clamp_lerp(device):
    x = _on(E.tensor([[-2.0, 0.5], [3.0, float("nan")]]), device)
    c = x > 0
    assert_close(E.where(c, x, _on(E.zeros(1), device)).cpu(), E.tensor([[0.0, 0.5], [3.0, 0.0]]))
    assert_close(E.clamp(x, -1, 1).cpu(), E.tensor([[-1.0, 0.5], [1.0, float("nan")]]), equal_nan=True)
    assert_close(x.clamp(min=0).cpu(), E.tensor([[0.0, 0.5], [3.0, float("nan")]]), equal_nan=True)
    assert_close(x.clamp(max=0).cpu(), E.tensor([[-2.0, 0.0], [0.0, float("nan")]]), equal_nan=True)
    y = _on(E.ones(2, 2), device)
    assert_close(E.lerp(y, _on(E.full((2, 2), 3.0), device), 0.25).cpu(), E.full((2, 2), 1.5))


@pytest.mark.parametrize("device", DEVICES)
def test_clamp_and_relu_keep_negative_zero_and_take_nan_bounds(device):
    # PyTorch: `x < lo ? lo : x`, then `x > hi ? hi : x`, a NaN bound taken; so relu(-0.0) is -0.0
    x = _on(E.tensor([-0.0, 0.0, -1.0, 0.7]), device)
    sign = lambda t: np.signbit(t.cpu().numpy()).tolist()  # noqa: E731
    assert sign(E.relu(x)) == sign(x.clamp(min=0)) == sign(x.clone().relu_()) == [True, False, False, False]
    assert sign(x.clamp(max=-0.0)) == [True, False, True, True]
    assert x.clamp(1.0, 0.5).cpu().tolist() == [0.5] * 4
    assert np.isnan(x.clamp(min=float("nan")).cpu().numpy()).all()
    assert np.isnan(x.clamp(0.5, float("nan")).cpu().numpy()).all()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dst", [E.float16, E.int32, E.bool, E.float64])
def test_copy_casts_and_broadcasts(device, dst):
    src = _on(E.tensor([[0.0, 1.5, -2.25]]), device)
    out = _on(E.zeros(2, 3, dtype=dst), device)
    out.copy_(src)
    want = np.broadcast_to(np.array([[0.0, 1.5, -2.25]], np.float32).astype(dst.np), (2, 3))
    assert out.cpu().numpy().tolist() == want.tolist()
    assert_close(src.to(dst).cpu(), E.from_numpy(want[:1].copy()))


def test_copy_between_devices_and_views():
    host = E.arange(12.0).view(3, 4)
    dev = E.zeros(4, 3, device="cuda")
    dev.copy_(host.t())
    assert dev.tolist() == host.t().tolist()
    back = E.zeros(3, 4)
    back.copy_(dev.t())
    assert back.tolist() == host.tolist()
    dev[1] = 7.0
    dev[:, 0] = E.tensor([1.0, 2.0, 3.0, 4.0])
    assert dev.cpu()[:, 0].tolist() == [1.0, 2.0, 3.0, 4.0] and dev.cpu()[1, 1:].tolist() == [7.0, 7.0]


def test_fill_clone_contiguous_and_repr():
    x = E.empty(2, 3, device="cuda").fill_(2.5)
    assert x.tolist() == [[2.5] * 3] * 2
    t = x.t().contiguous()
    assert t.is_contiguous() and t.shape == (3, 2) and t.device == x.device
    assert "device='cuda:0'" in repr(x)
    assert E.zeros(0, 3, device="cuda").cpu().shape == (0, 3)


@pytest.mark.parametrize("dtype,uint", [(E.float32, np.uint32), (E.float64, np.uint64)])
def test_extremum_and_tensor_clamp_bits_match_the_cpu(dtype, uint):
    # PyTorch's element path: of equal zeros the first operand; maximum/minimum and clamp with tensor bounds give
    # the canonical NaN (whatever the payload and sign), fmax/fmin the number
    nan = np.array(0x7FC00123, np.uint32).view(np.float32) if dtype == E.float32 else -np.nan
    x = E.tensor(np.array([-0.0, 0.0, -0.0, nan, 1.0, nan, 2.0], dtype.np))
    y = E.tensor(np.array([0.0, -0.0, -0.0, 1.0, nan, nan, 3.0], dtype.np))
    bits = lambda t: t.cpu().numpy().view(uint).tolist()  # noqa: E731
    for f in (E.maximum, E.minimum, E.fmax, E.fmin, lambda a, b: a.clamp(min=b), lambda a, b: a.clamp(max=b),
              lambda a, b: a.clamp(b, b)):
        assert bits(f(x.to("cuda"), y.to("cuda"))) == bits(f(x, y))
    canonical = np.array(np.nan, dtype.np).view(uint).item()
    assert bits(E.maximum(x, y))[:6] == [bits(x)[0], bits(x)[1], bits(x)[2]] + [canonical] * 3
