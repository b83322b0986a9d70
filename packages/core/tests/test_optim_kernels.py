"""The fused optimizer kernels' fast paths against their general loops and PyTorch's per-step roundings."""

import math

import numpy as np
import pytest

import ember.core as E
from ember.core.ops.optim_kernels import sgd_step


def _sgd_run(dtype, maximize: bool, sign: float, steps: int = 3):
    """`steps` SGD-with-momentum updates (lr 0.01, momentum 0.9, dampening 0.1) of a 1000-element parameter."""
    rng = np.random.default_rng(3)
    p, buf = E.from_numpy(rng.standard_normal(1000).astype(dtype)), E.from_numpy(np.zeros(1000, dtype))
    grads = [sign * rng.standard_normal(1000).astype(dtype) for _ in range(steps)]
    for i, g in enumerate(grads):
        sgd_step(p, E.from_numpy(g), buf, 0.01, 0.9, 0.1, 0.0, False, maximize, i == 0)
    return p.numpy(), buf.numpy()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sgd_momentum_fast_path_equals_the_general_loop_bit_for_bit(dtype):
    """The usual step (momentum, no weight decay/nesterov/maximize, buffer set) runs a branch-free loop; with
    maximize the general loop runs on -g: the same arithmetic, so the trajectories agree to the bit."""
    fast = _sgd_run(dtype, False, -1.0)
    general = _sgd_run(dtype, True, 1.0)
    for a, b in zip(fast, general):
        assert np.array_equal(a, b)


def test_sgd_momentum_step_rounds_as_pytorchs_kernel():
    """`buf = buf * m` rounded to float32, then `buf + (1 - dampening) * g` and `p - lr * buf` each as one
    fused multiply-add (float64 products of float32s, one rounding): PyTorch's CPU steps."""
    rng = np.random.default_rng(4)
    p0, b0, g = (rng.standard_normal(1000).astype(np.float32) for _ in range(3))
    p, buf = E.from_numpy(p0.copy()), E.from_numpy(b0.copy())
    sgd_step(p, E.from_numpy(g), buf, 0.01, 0.9, 0.1, 0.0, False, False, False)
    f32, f64 = np.float32, np.float64
    b_ref = ((b0 * f32(0.9)).astype(f64) + f64(f32(1 - 0.1)) * g.astype(f64)).astype(f32)
    p_ref = (p0.astype(f64) - f64(f32(0.01)) * b_ref.astype(f64)).astype(f32)
    assert np.array_equal(buf.numpy(), b_ref) and np.array_equal(p.numpy(), p_ref)


@pytest.mark.parametrize("weight_decay, decoupled", [(0.0, False), (0.0, True), (0.05, True)])
def test_adam_common_step_is_the_float32_operations_in_order(weight_decay, decoupled):
    # Adam and AdamW without amsgrad or maximize take a loop without branches: each element is still
    # PyTorch's float32 operations rounded one by one, NaN and -0.0 included
    from ember.core.ops.optim_kernels import adam_scalars, adam_update

    rng = np.random.default_rng(5)
    p, g, m = (rng.standard_normal(1003).astype(np.float32) for _ in range(3))
    v = np.abs(rng.standard_normal(1003)).astype(np.float32)
    p[:3], g[3:5], p[7] = -0.0, np.nan, np.nan
    want = [a.copy() for a in (p, g, m, v)]
    adam_update(p, g, m, v, np.empty(0, np.float32), 3.0, 1e-3, 0.9, 0.999, 1e-8, weight_decay, False, False,
                decoupled)
    sv = adam_scalars(np.float32, 3.0, 1e-3, 0.9, 0.999, 1e-8, weight_decay, False, False, decoupled)[0]
    assert sv.dtype == np.float32
    ldf, w1, w2, beta2, eps, _, step_size, bc2_sqrt = sv
    wp, wg, wm, wv = want
    pi = wp * ldf if decoupled else wp
    wm = wm + w1 * (wg - wm)
    wv = wv * beta2 + w2 * (wg * wg)
    wp = pi + (-step_size) * (wm / (np.sqrt(wv) / bc2_sqrt + eps))
    for got, ref in ((p, wp), (m, wm), (v, wv)):
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, ref)
    assert np.signbit(p[:3]).tolist() == np.signbit(wp[:3]).tolist()


def test_adam_reciprocal_form_multiplies_by_the_rounded_reciprocal():
    # `reciprocal=True` (a compiled plan's faster step): sv[7] is float32(1 / sqrt(bc2)) and the denominator
    # sqrt(v) * sv[7] + eps; the other steps are PyTorch's float32 operations, as in the exact form
    from ember.core.ops.optim_kernels import adam_kernel, adam_scalars

    rng = np.random.default_rng(6)
    p, g, m = (rng.standard_normal(1003).astype(np.float32) for _ in range(3))
    v = np.abs(rng.standard_normal(1003)).astype(np.float32)
    want = [a.copy() for a in (p, g, m, v)]
    args = adam_scalars(np.float32, 3.0, 1e-3, 0.9, 0.999, 1e-8, 0.0, False, False, False, reciprocal=True)
    ldf, w1, w2, beta2, eps, _, step_size, inv = args[0]
    assert inv == np.float32(1 / math.sqrt(1 - 0.999 ** 3))
    adam_kernel()(p, g, m, v, np.empty(0, np.float32), *args)
    wp, wg, wm, wv = want
    wm = wm + w1 * (wg - wm)
    wv = wv * beta2 + w2 * (wg * wg)
    wp = wp * ldf + (-step_size) * (wm / (np.sqrt(wv) * inv + eps))
    for got, ref in ((p, wp), (m, wm), (v, wv)):
        np.testing.assert_array_equal(got, ref)
