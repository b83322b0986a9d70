"""The memory layout of the results of composite and non-TensorIterator ops (isclose, dropout, cat, sort,
flip, the scatter family, complex, the cumulative ops, bernoulli, logsigmoid, device copies) over
channels_last and transposed inputs. PyTorch keeps the input's layout for some (they clone with
preserve_format or run as TensorIterator ops) and allocates row-major for others; the expected strides
are PyTorch 2.13's, hard-coded, and the `torch`-marked survey compares ~90 ops with PyTorch itself."""

from __future__ import annotations

import numpy as np
import pytest

import ember.core as E

RNG = np.random.default_rng(0)
A4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
B4 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
A2 = RNG.standard_normal((5, 4)).astype(np.float32)
B2 = RNG.standard_normal((5, 4)).astype(np.float32)
CL, ROW4 = (60, 1, 15, 3), (60, 20, 5, 1)
T, ROW2 = (1, 4), (5, 1)


def _pair(lib, kind, device="cpu"):
    """Two operands of one layout: `cl` channels_last (2, 3, 4, 5), `cl_rm` channels_last then row-major,
    `t` transposed (4, 5)."""
    def t(a):
        return lib.from_numpy(a).to(device)

    if kind == "t":
        return t(A2).t(), t(B2).t()
    x = t(A4).contiguous(memory_format=lib.channels_last)
    return x, (t(B4) if kind == "cl_rm" else t(B4).contiguous(memory_format=lib.channels_last))


def _F(lib):
    return lib.nn.functional if lib.__name__ == "torch" else lib


def _dim1(lib, x, n=1):
    """An index tensor selecting `n` slices along dim 1 of `x`'s shape, on its device."""
    return lib.zeros(x.shape[:1] + (n,) + tuple(x.shape[2:]), dtype=lib.int64).to(x.device)


# name -> op(lib, x, y)
SURVEY = {
    "isclose": lambda lib, x, y: lib.isclose(x, y),
    "isclose_shifted": lambda lib, x, y: lib.isclose(x, y + 1),
    "where": lambda lib, x, y: lib.where(x > 0, x, y),
    "where_scalar": lambda lib, x, y: lib.where(x > 0, x, 0.0),
    "clamp": lambda lib, x, y: lib.clamp(x, -0.5, 0.5),
    "clamp_tensor": lambda lib, x, y: lib.clamp(x, min=y),
    "lerp": lambda lib, x, y: lib.lerp(x, y, 0.3),
    "lerp_tensor_weight": lambda lib, x, y: lib.lerp(x, y, y),
    "addcmul": lambda lib, x, y: lib.addcmul(x, x, y, value=2),
    "addcdiv": lambda lib, x, y: lib.addcdiv(x, x, y + 3, value=2),
    "masked_fill": lambda lib, x, y: x.masked_fill(x > 0, 1.0),
    "masked_scatter": lambda lib, x, y: x.masked_scatter(x > 0, y),
    "nan_to_num": lambda lib, x, y: lib.nan_to_num(x),
    "logical_and": lambda lib, x, y: lib.logical_and(x, y),
    "logical_not": lambda lib, x, y: lib.logical_not(x),
    "logical_xor": lambda lib, x, y: lib.logical_xor(x, y),
    "eq": lambda lib, x, y: x == y,
    "lt_scalar": lambda lib, x, y: x < 0,
    "ge": lambda lib, x, y: lib.ge(x, y),
    "to_int32": lambda lib, x, y: x.to(lib.int32),
    "half": lambda lib, x, y: x.half(),
    "double": lambda lib, x, y: x.double(),
    "bool": lambda lib, x, y: x.bool(),
    "pow_scalar": lambda lib, x, y: x ** 2,
    "pow_number_base": lambda lib, x, y: 2 ** x,
    "pow_tensor": lambda lib, x, y: lib.pow(x.abs(), y),
    "dropout_eval": lambda lib, x, y: _F(lib).dropout(x, 0.5, training=False),
    "dropout": lambda lib, x, y: _F(lib).dropout(x, 0.5, training=True),
    "dropout2d": lambda lib, x, y: _F(lib).dropout2d(x, 0.5) if x.ndim == 4 else x,
    "alpha_dropout": lambda lib, x, y: _F(lib).alpha_dropout(x, 0.5, training=True),
    "relu": lambda lib, x, y: _F(lib).relu(x),
    "gelu": lambda lib, x, y: _F(lib).gelu(x),
    "gelu_tanh": lambda lib, x, y: _F(lib).gelu(x, approximate="tanh"),
    "silu": lambda lib, x, y: _F(lib).silu(x),
    "leaky_relu": lambda lib, x, y: _F(lib).leaky_relu(x, 0.1),
    "hardtanh": lambda lib, x, y: _F(lib).hardtanh(x),
    "elu": lambda lib, x, y: _F(lib).elu(x),
    "softplus": lambda lib, x, y: _F(lib).softplus(x),
    "logsigmoid": lambda lib, x, y: _F(lib).logsigmoid(x),
    "hardswish": lambda lib, x, y: _F(lib).hardswish(x),
    "mish": lambda lib, x, y: _F(lib).mish(x),
    "threshold": lambda lib, x, y: _F(lib).threshold(x, 0.1, 20.0),
    "celu": lambda lib, x, y: _F(lib).celu(x),
    "selu": lambda lib, x, y: _F(lib).selu(x),
    "softsign": lambda lib, x, y: _F(lib).softsign(x),
    "hardsigmoid": lambda lib, x, y: _F(lib).hardsigmoid(x),
    "relu6": lambda lib, x, y: _F(lib).relu6(x),
    "sigmoid": lambda lib, x, y: lib.sigmoid(x),
    "tanh": lambda lib, x, y: lib.tanh(x),
    "softmax_dim1": lambda lib, x, y: lib.softmax(x, 1),
    "log_softmax_dim1": lambda lib, x, y: lib.log_softmax(x, 1),
    "softmin_dim1": lambda lib, x, y: _F(lib).softmin(x, 1),
    "softmax_last": lambda lib, x, y: lib.softmax(x, -1),
    "log_softmax_dim0_double": lambda lib, x, y: lib.log_softmax(x, 0, dtype=lib.float64),
    "abs": lambda lib, x, y: lib.abs(x),
    "neg": lambda lib, x, y: -x,
    "sign": lambda lib, x, y: lib.sign(x),
    "sqrt": lambda lib, x, y: lib.sqrt(x.abs()),
    "rsqrt": lambda lib, x, y: lib.rsqrt(x.abs() + 1),
    "exp": lambda lib, x, y: lib.exp(x),
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "fmod": lambda lib, x, y: lib.fmod(x, 0.3),
    "remainder": lambda lib, x, y: lib.remainder(x, y + 3),
    "floor_divide": lambda lib, x, y: lib.floor_divide(x, 0.3),
    "round_decimals": lambda lib, x, y: lib.round(x, decimals=1),
    "trunc": lambda lib, x, y: lib.trunc(x),
    "sub_alpha": lambda lib, x, y: lib.sub(x, y, alpha=2),
    "add_scalar": lambda lib, x, y: x + 1,
    "mul": lambda lib, x, y: x * y,
    "div_floor": lambda lib, x, y: lib.div(x, y + 3, rounding_mode="floor"),
    "isnan": lambda lib, x, y: lib.isnan(x),
    "isfinite": lambda lib, x, y: lib.isfinite(x),
    "signbit": lambda lib, x, y: lib.signbit(x),
    "heaviside": lambda lib, x, y: lib.heaviside(x, y),
    "copysign": lambda lib, x, y: lib.copysign(x, y),
    "atan2": lambda lib, x, y: lib.atan2(x, y),
    "hypot": lambda lib, x, y: lib.hypot(x, y),
    "xlogy": lambda lib, x, y: lib.xlogy(x.abs(), y.abs()),
    "bitwise_and": lambda lib, x, y: (x > 0) & (y > 0),
    "float_power": lambda lib, x, y: lib.float_power(x.abs(), 2),
    "square": lambda lib, x, y: lib.square(x),
    "frac": lambda lib, x, y: lib.frac(x),
    "complex": lambda lib, x, y: lib.complex(x, y),
    "polar": lambda lib, x, y: lib.polar(x.abs(), y),
    "abs_of_complex": lambda lib, x, y: lib.abs(lib.complex(x, y)),
    "index_fill": lambda lib, x, y: x.index_fill(1, lib.tensor([0]).to(x.device), 1.0),
    "index_copy": lambda lib, x, y: x.index_copy(1, lib.tensor([0]).to(x.device), y[:, :1].contiguous()),
    "index_add": lambda lib, x, y: x.index_add(1, lib.tensor([0]).to(x.device), y[:, :1].contiguous()),
    "index_put": lambda lib, x, y: x.index_put((lib.tensor([0]).to(x.device),), lib.tensor(1.0)),
    "put": lambda lib, x, y: x.put(lib.tensor([0]).to(x.device), lib.tensor([1.0]).to(x.device)),
    "scatter": lambda lib, x, y: x.scatter(1, _dim1(lib, x), 1.0),
    "scatter_add": lambda lib, x, y: x.scatter_add(1, _dim1(lib, x), y),
    "select_scatter": lambda lib, x, y: x.select_scatter(x.select(0, 0).clone(), 0, 0),
    "slice_scatter": lambda lib, x, y: x.slice_scatter(x[:1].clone(), 0, 0, 1),
    "diagonal_scatter": lambda lib, x, y: x.diagonal_scatter(x.diagonal().clone()),
    "cumsum": lambda lib, x, y: lib.cumsum(x, 1),
    "cumprod": lambda lib, x, y: lib.cumprod(x, 0),
    "logcumsumexp": lambda lib, x, y: lib.logcumsumexp(x, 1),
    "cummax": lambda lib, x, y: lib.cummax(x, 0)[0],
    "sort_values": lambda lib, x, y: x.sort(0)[0],
    "sort_indices": lambda lib, x, y: x.sort(-1)[1],
    "argsort": lambda lib, x, y: x.argsort(0),
    "topk": lambda lib, x, y: x.topk(1, 0)[0],
    "flip": lambda lib, x, y: x.flip(0),
    "roll_dim": lambda lib, x, y: x.roll(1, 1),
    "cat_same": lambda lib, x, y: lib.cat([x, x], 1),
    "cat_mixed": lambda lib, x, y: lib.cat([x, y], 0),
    "stack_inner": lambda lib, x, y: lib.stack([x, y], 1),
    "stack_last": lambda lib, x, y: lib.stack([x, y], x.ndim),
    "bernoulli": lambda lib, x, y: lib.bernoulli(x.sigmoid()),
    "bernoulli_p": lambda lib, x, y: lib.bernoulli(x, 0.5),
    "clone": lambda lib, x, y: x.clone(),
    "zeros_like": lambda lib, x, y: lib.zeros_like(x),
    "tril": lambda lib, x, y: x.tril(),
    "gather": lambda lib, x, y: x.gather(0, lib.zeros(tuple(x.shape), dtype=lib.int64)),
}

# PyTorch 2.13's strides for the ops whose layouts were wrong in ember, over (cl, transposed) inputs
FIXED = {
    "isclose": (CL, T),
    "dropout": (CL, T),
    "logsigmoid": (ROW4, ROW2),
    "complex": (CL, T),
    "polar": (CL, T),
    "abs_of_complex": (CL, T),
    "index_fill": (CL, T),
    "index_put": (CL, T),
    "put": (CL, T),
    "index_copy": (ROW4, ROW2),
    "scatter": (ROW4, ROW2),
    "masked_fill": (ROW4, ROW2),
    "masked_scatter": (ROW4, ROW2),
    "select_scatter": (CL, T),
    "slice_scatter": (CL, T),
    "diagonal_scatter": (CL, T),
    "cumsum": (ROW4, ROW2),
    "logcumsumexp": (ROW4, ROW2),
    "sort_values": (CL, T),
    "sort_indices": (CL, T),
    "flip": (CL, T),
    "roll_dim": (CL, ROW2),
    "bernoulli": (ROW4, ROW2),
    "bernoulli_p": (ROW4, ROW2),
}


def _values(r):
    return r.cpu().contiguous().numpy()


@pytest.mark.parametrize("name", list(FIXED))
def test_result_has_pytorchs_layout_and_the_row_major_values(name):
    op = SURVEY[name]
    for kind, strides in zip(("cl", "t"), FIXED[name], strict=True):
        x, y = _pair(E, kind)
        r = op(E, x, y)
        assert r.stride() == strides, kind
        if name.startswith(("dropout", "bernoulli")):
            continue  # random
        expected = op(E, x.contiguous(), y.contiguous())
        np.testing.assert_array_equal(_values(r), _values(expected))


def test_cat_of_channels_last_inputs_is_channels_last():
    x, y = _pair(E, "cl")
    r = E.cat([x, y], 1)
    assert r.stride() == (120, 1, 30, 6)
    np.testing.assert_array_equal(r.numpy(), np.concatenate([A4, B4], 1))
    assert E.cat([x, y.contiguous()], 0).stride() == (60, 20, 5, 1)
    assert E.cat([x, E.empty(0)]).stride() == (60, 20, 5, 1)  # a skipped legacy empty tensor counts as row-major
    t, u = _pair(E, "t")
    r = E.cat([t, u])
    assert r.stride() == (5, 1)
    np.testing.assert_array_equal(r.numpy(), np.concatenate([A2.T, B2.T]))


def test_stack_of_channels_last_inputs_keeps_their_layout():
    """PyTorch stacks along an inner dim as a cat followed by a split of that dim."""
    x, y = _pair(E, "cl")
    r = E.stack([x, y], 1)
    assert r.stride() == (120, 3, 1, 30, 6)
    np.testing.assert_array_equal(r.numpy(), np.stack([A4, B4], 1))
    assert E.stack([x, y]).stride() == (120, 60, 1, 15, 3)
    assert E.stack([x, y], 4).stride() == (120, 40, 10, 2, 1)
    t, u = _pair(E, "t")
    assert E.stack([t, u]).stride() == (20, 5, 1)


def test_dropout_keeps_values_and_mask_in_the_inputs_layout():
    from ember.core.ops.dropout import native_dropout

    x, _ = _pair(E, "cl")
    out, mask = native_dropout(x, 0.5, None)
    assert out.stride() == CL and mask.stride() == CL
    kept = mask.numpy()
    np.testing.assert_allclose(out.numpy()[kept], 2 * A4[kept], rtol=1e-6)
    assert (out.numpy()[~kept] == 0).all()


@pytest.mark.torch
@pytest.mark.parametrize("kind", ["cl", "cl_rm", "t"])
@pytest.mark.parametrize("name", list(SURVEY))
def test_layout_matches_pytorch(name, kind):
    torch = pytest.importorskip("torch")
    want = SURVEY[name](torch, *_pair(torch, kind))
    got = SURVEY[name](E, *_pair(E, kind))
    assert tuple(got.shape) == tuple(want.shape)
    assert got.stride() == tuple(want.stride())


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
@pytest.mark.parametrize("name", ["isclose", "dropout", "logsigmoid", "complex", "index_fill", "scatter",
                                  "masked_fill", "cumsum", "sort_values", "sort_indices", "flip", "bernoulli",
                                  "slice_scatter", "put", "masked_scatter"])
def test_cuda_results_take_the_cpu_layout(name):
    op = SURVEY[name]
    for kind, strides in zip(("cl", "t"), FIXED[name], strict=True):
        x, y = _pair(E, kind, "cuda")
        assert x.stride() == _pair(E, kind)[0].stride()  # the copy to the device kept the layout
        r = op(E, x, y)
        assert r.device.type == "cuda" and r.stride() == strides, kind
        if not name.startswith(("dropout", "bernoulli")):
            np.testing.assert_allclose(_values(r), _values(op(E, *_pair(E, kind))), rtol=1e-5)


@pytest.mark.cuda
@pytest.mark.skipif(not E.cuda.is_available(), reason="no CUDA device or simulator")
def test_device_copies_keep_a_dense_layout():
    x, _ = _pair(E, "cl")
    d = x.to("cuda")
    assert d.stride() == CL and d.cpu().stride() == CL
    np.testing.assert_array_equal(d.cpu().numpy(), A4)
    t, _ = _pair(E, "t")
    assert t.cuda().stride() == T
    s = E.from_numpy(A2)[:, ::2]  # not dense: row-major on the device
    assert s.cuda().stride() == (2, 1)
    np.testing.assert_array_equal(s.cuda().cpu().numpy(), A2[:, ::2])
