"""A second backward adds into `.grad` in place: through numpy when autograd's hook is the dispatcher's only
one, through the dispatcher otherwise; the same bits either way, the version counter bumped, no warning."""

import warnings

import numpy as np
import pytest

import ember.autograd as E
from ember.core.dispatch import register_dispatch_hook, remove_dispatch_hook


def _twice(dtype, hooked: bool) -> tuple:
    rng = np.random.default_rng(3)
    a = E.from_numpy(rng.standard_normal((6, 5)).astype(dtype)).requires_grad_(True)
    b = E.from_numpy(rng.standard_normal((5, 4)).astype(dtype)).requires_grad_(True)
    seen = []

    def passthrough(op, args, kwargs, call_next):
        seen.append(op.name)
        return call_next(op, args, kwargs)

    if hooked:
        register_dispatch_hook(passthrough)
    try:
        (a @ b).tanh().sum().backward()
        grad, version = a.grad, a.grad._version
        (a @ b).sigmoid().sum().backward()
    finally:
        if hooked:
            remove_dispatch_hook(passthrough)
    assert a.grad is grad  # in place
    assert a.grad._version == version + 1
    return a.grad.numpy().copy(), b.grad.numpy().copy(), seen


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_accumulation_gives_the_dispatchers_bits(dtype):
    ga, gb, _ = _twice(dtype, hooked=False)
    ha, hb, seen = _twice(dtype, hooked=True)
    assert seen.count("add") >= 2  # the hooked run's accumulations went through the dispatcher
    np.testing.assert_array_equal(ga, ha)
    np.testing.assert_array_equal(gb, hb)


def test_overflowing_accumulation_is_inf_without_a_warning():
    x = E.tensor([3e38, 1.0], requires_grad=True)
    (x * 3e38).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x * 3e38).sum().backward()
    assert x.grad.numpy()[0] == np.inf

