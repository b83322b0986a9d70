"""Acceptance tests: every name of shared/PYTORCH_API.md with PyTorch's semantics.

Unmarked tests compare ember with numpy float64 references computed here (they run without
PyTorch). Tests marked `torch` also run the same code with PyTorch and compare the results; they
skip when torch is not installed. With EMBER_COMPAT_AGAINST_TORCH=1 the unmarked tests run against
PyTorch itself: that is how each expectation here was checked to be PyTorch's behaviour.
"""

from __future__ import annotations

import collections
import copy
import io
import math
import pickle

import numpy as np
import pytest

try:  # tests/ is a rootdir module or, with consider_namespace_packages, the package `tests`
    from tests.conftest import LazyModule, api_module, assert_same, compare_with_torch, ember_torch, to_numpy
except ImportError:
    from conftest import LazyModule, api_module, assert_same, compare_with_torch, ember_torch, to_numpy

ea = LazyModule("torch")                      # ember.autograd
nn = LazyModule("torch.nn")                   # ember.nn
F = LazyModule("torch.nn.functional")         # ember.nn.functional
init = LazyModule("torch.nn.init")            # ember.nn.init
optim = LazyModule("torch.optim")             # ember.optim
lr_scheduler = LazyModule("torch.optim.lr_scheduler")  # ember.optim.lr_scheduler
data = LazyModule("torch.utils.data")         # ember.data
autograd = LazyModule("torch.autograd")       # ember.autograd

RNG = np.random.default_rng(1234)


def N(x) -> np.ndarray:
    return to_numpy(x)


def rand(*shape, dtype=np.float32, low=-1.0, high=1.0):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def close(actual, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(N(actual) if hasattr(actual, "detach") else actual, expected, rtol=rtol, atol=atol)


def t32(a, requires_grad=False):
    return ea.tensor(np.asarray(a, dtype=np.float32), requires_grad=requires_grad)


def t64(a, requires_grad=False):
    return ea.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


# ---------------------------------------------------------------------------------------------
# dtypes
# ---------------------------------------------------------------------------------------------

def test_dtype_aliases_are_the_same_objects():
    assert ea.float is ea.float32
    assert ea.double is ea.float64
    assert ea.long is ea.int64
    assert ea.int32 is not ea.int64
    assert ea.bool is not ea.int64
    assert ea.float32 != ea.float64


def test_get_default_dtype_is_float32():
    assert ea.get_default_dtype() is ea.float32


def test_dtype_is_floating_point_attribute():
    assert ea.float32.is_floating_point and ea.float64.is_floating_point
    assert not ea.int64.is_floating_point and not ea.bool.is_floating_point


# ---------------------------------------------------------------------------------------------
# creation
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data_, dtype_name, shape", [
    ([1, 2], "int64", (2,)),
    ([1.0, 2.0], "float32", (2,)),
    ([True, False], "bool", (2,)),
    ([[1, 2, 3], [4, 5, 6]], "int64", (2, 3)),
    ([1, 2.5], "float32", (2,)),
    (3.5, "float32", ()),
    (7, "int64", ()),
    ([], "float32", (0,)),
])
def test_tensor_infers_dtype_and_shape(data_, dtype_name, shape):
    x = ea.tensor(data_)
    assert x.dtype is getattr(ea, dtype_name)
    assert x.shape == shape
    np.testing.assert_array_equal(N(x), np.array(data_, dtype=dtype_name))


def test_tensor_dtype_and_requires_grad_arguments():
    x = ea.tensor([1, 2], dtype=ea.float64, requires_grad=True)
    assert x.dtype is ea.float64 and x.requires_grad and x.is_leaf
    assert ea.tensor([1.7, -1.7], dtype=ea.int32).tolist() == [1, -1]


def test_tensor_from_numpy_keeps_dtype_and_copies():
    a = np.arange(4, dtype=np.float64)
    x = ea.tensor(a)
    assert x.dtype is ea.float64
    a[0] = 100
    assert x[0].item() == 0.0
    assert ea.tensor(np.arange(3, dtype=np.int32)).dtype is ea.int32


def test_tensor_of_tensors_list_and_of_a_tensor():
    x = ea.tensor([ea.tensor(1.0), ea.tensor(2.0)])
    assert x.shape == (2,) and x.tolist() == [1.0, 2.0]


def test_as_tensor_shares_numpy_memory_when_dtype_matches():
    a = np.zeros(3, dtype=np.float32)
    x = ea.as_tensor(a)
    a[1] = 5
    assert x.tolist() == [0.0, 5.0, 0.0]
    y = ea.as_tensor(a, dtype=ea.float64)
    assert y.dtype is ea.float64
    a[2] = 7
    assert y.tolist() == [0.0, 5.0, 0.0]
    assert ea.as_tensor([1, 2]).dtype is ea.int64
    t = ea.ones(2)
    assert ea.as_tensor(t) is t


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    x = ea.from_numpy(a)
    assert x.dtype is ea.float64 and x.shape == (2, 3)
    a[0, 0] = -1
    assert x[0, 0].item() == -1
    x[1, 2] = 42
    assert a[1, 2] == 42
    assert ea.from_numpy(np.zeros(2, dtype=np.int32)).dtype is ea.int32
    assert ea.from_numpy(np.zeros(2, dtype=np.bool_)).dtype is ea.bool


def test_numpy_shares_memory_with_the_tensor():
    x = ea.zeros(3)
    a = x.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 3
    assert x[0].item() == 3
    x.add_(1)
    assert a.tolist() == [4.0, 1.0, 1.0]


def test_numpy_of_a_tensor_requiring_grad_raises():
    x = ea.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("fn", ["empty", "zeros", "ones"])
def test_empty_zeros_ones_take_varargs_or_a_tuple(fn):
    f = getattr(ea, fn)
    for x in (f(2, 3), f((2, 3)), f([2, 3]), f(size=(2, 3))):
        assert x.shape == (2, 3) and x.dtype is ea.float32 and not x.requires_grad
    x = f(4, dtype=ea.int64)
    assert x.dtype is ea.int64 and x.shape == (4,)
    assert f(2, requires_grad=True).requires_grad
    assert f(()).shape == ()


def test_zeros_ones_values():
    np.testing.assert_array_equal(N(ea.zeros(2, 2)), np.zeros((2, 2)))
    np.testing.assert_array_equal(N(ea.ones(3, dtype=ea.float64)), np.ones(3))


@pytest.mark.parametrize("fn, value", [("zeros_like", 0), ("ones_like", 1)])
def test_zeros_like_ones_like_keep_dtype_and_shape(fn, value):
    src = ea.tensor([[1, 2], [3, 4]], dtype=ea.int32)
    x = getattr(ea, fn)(src)
    assert x.dtype is ea.int32 and x.shape == (2, 2)
    assert x.tolist() == [[value, value], [value, value]]
    y = getattr(ea, fn)(src, dtype=ea.float64)
    assert y.dtype is ea.float64
    g = getattr(ea, fn)(ea.ones(2, requires_grad=True))
    assert not g.requires_grad


def test_full_and_full_like():
    x = ea.full((2, 3), 7.5)
    assert x.shape == (2, 3) and x.dtype is ea.float32
    np.testing.assert_array_equal(N(x), np.full((2, 3), 7.5))
    assert ea.full((2,), 3).dtype is ea.int64
    assert ea.full((2,), True).dtype is ea.bool
    assert ea.full((2,), 3, dtype=ea.float64).dtype is ea.float64
    y = ea.full_like(ea.zeros(2, 2, dtype=ea.float64), -1)
    assert y.dtype is ea.float64 and y.tolist() == [[-1, -1], [-1, -1]]
    assert ea.full_like(ea.zeros(2, dtype=ea.int64), 2.7).tolist() == [2, 2]


def test_arange_forms_and_dtypes():
    x = ea.arange(5)
    assert x.dtype is ea.int64 and x.tolist() == [0, 1, 2, 3, 4]
    assert ea.arange(1, 10, 3).tolist() == [1, 4, 7]
    y = ea.arange(0, 1, 0.25)
    assert y.dtype is ea.float32 and y.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert ea.arange(5.0).dtype is ea.float32
    assert ea.arange(3, dtype=ea.float64).dtype is ea.float64
    assert ea.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert ea.arange(start=2, end=4).tolist() == [2, 3]


def test_linspace():
    x = ea.linspace(0, 1, 5)
    assert x.dtype is ea.float32 and x.shape == (5,)
    close(x, np.linspace(0, 1, 5))
    close(ea.linspace(-2, 2, steps=9, dtype=ea.float64), np.linspace(-2, 2, 9), rtol=0, atol=1e-15)
    assert ea.linspace(3, 3, 1).tolist() == [3.0]


def test_randn_shape_dtype_statistics():
    ea.manual_seed(0)
    x = ea.randn(200, 100)
    assert x.shape == (200, 100) and x.dtype is ea.float32
    a = N(x).astype(np.float64)
    assert abs(a.mean()) < 0.02 and abs(a.std() - 1) < 0.02
    assert ea.randn((2, 3)).shape == (2, 3)
    assert ea.randn(2, dtype=ea.float64).dtype is ea.float64
    assert ea.randn(2, requires_grad=True).requires_grad


def test_manual_seed_makes_draws_reproducible():
    ea.manual_seed(123)
    a, b, c = ea.randn(5), ea.randint(0, 100, (5,)), ea.randperm(10)
    ea.manual_seed(123)
    a2, b2, c2 = ea.randn(5), ea.randint(0, 100, (5,)), ea.randperm(10)
    assert ea.equal(a, a2) and ea.equal(b, b2) and ea.equal(c, c2)
    assert not ea.equal(ea.randn(5), a)


def test_randint_forms_range_and_dtype():
    x = ea.randint(3, 7, (1000,))
    assert x.dtype is ea.int64 and x.shape == (1000,)
    v = N(x)
    assert v.min() == 3 and v.max() == 6
    y = ea.randint(4, (2, 5))
    assert y.shape == (2, 5) and N(y).min() >= 0 and N(y).max() < 4
    assert ea.randint(0, 2, (3,), dtype=ea.int32).dtype is ea.int32
    assert ea.randint(low=0, high=5, size=(2,)).shape == (2,)


def test_randperm_is_a_permutation():
    p = ea.randperm(50)
    assert p.dtype is ea.int64 and p.shape == (50,)
    assert sorted(p.tolist()) == list(range(50))
    assert ea.randperm(0).shape == (0,)


def test_generator_manual_seed_returns_the_generator_and_reproduces():
    g = ea.Generator()
    assert g.manual_seed(0) is g
    a = ea.randn(4, generator=g)
    b = ea.randint(0, 1000, (4,), generator=g)
    c = ea.randperm(8, generator=g)
    g2 = ea.Generator().manual_seed(0)
    assert ea.equal(a, ea.randn(4, generator=g2))
    assert ea.equal(b, ea.randint(0, 1000, (4,), generator=g2))
    assert ea.equal(c, ea.randperm(8, generator=g2))
    g3 = ea.Generator().manual_seed(1)
    assert not ea.equal(a, ea.randn(4, generator=g3))
    assert g.initial_seed() == 0


def test_generator_is_independent_of_the_global_seed():
    g = ea.Generator().manual_seed(5)
    ea.manual_seed(0)
    a = ea.randn(3, generator=g)
    g.manual_seed(5)
    ea.manual_seed(99)
    assert ea.equal(a, ea.randn(3, generator=g))


def test_generator_get_set_state():
    g = ea.Generator().manual_seed(7)
    s = g.get_state()
    a = ea.randn(3, generator=g)
    g.set_state(s)
    assert ea.equal(a, ea.randn(3, generator=g))


# ---------------------------------------------------------------------------------------------
# top-level ops
# ---------------------------------------------------------------------------------------------

def test_cat_and_stack():
    a, b = rand(2, 3), rand(1, 3)
    x = ea.cat([ea.tensor(a), ea.tensor(b)])
    np.testing.assert_array_equal(N(x), np.concatenate([a, b]))
    y = ea.cat((ea.tensor(a), ea.tensor(a)), dim=1)
    assert y.shape == (2, 6)
    z = ea.cat([ea.tensor(a), ea.tensor(a)], -1)
    assert z.shape == (2, 6)
    s = ea.stack([ea.tensor(a), ea.tensor(a)])
    assert s.shape == (2, 2, 3)
    s1 = ea.stack((ea.tensor(a), ea.tensor(a)), dim=1)
    np.testing.assert_array_equal(N(s1), np.stack([a, a], axis=1))
    assert ea.stack([ea.tensor(a)] * 3, dim=-1).shape == (2, 3, 3)


def test_cat_promotes_and_rejects_mismatched_shapes():
    x = ea.cat([ea.tensor([1, 2]), ea.tensor([0.5])])
    assert x.dtype is ea.float32 and x.tolist() == [1.0, 2.0, 0.5]
    with pytest.raises(RuntimeError):
        ea.cat([ea.zeros(2, 3), ea.zeros(2, 4)], dim=0)
    with pytest.raises(RuntimeError):
        ea.stack([ea.zeros(2), ea.zeros(3)])


def test_cat_and_stack_backward():
    a = t64(rand(2, 3), requires_grad=True)
    b = t64(rand(2, 3), requires_grad=True)
    w = rand(4, 3).astype(np.float64)
    (ea.cat([a, b]) * ea.tensor(w)).sum().backward()
    close(a.grad, w[:2])
    close(b.grad, w[2:])


def test_flatten_and_reshape_functions():
    x = ea.arange(24).reshape(2, 3, 4)
    assert ea.flatten(x).shape == (24,)
    assert ea.flatten(x, start_dim=1).shape == (2, 12)
    assert ea.flatten(x, 0, 1).shape == (6, 4)
    assert ea.flatten(x, end_dim=-2).shape == (6, 4)
    assert ea.reshape(x, (4, -1)).shape == (4, 6)
    assert ea.reshape(x, (-1,)).tolist() == list(range(24))
    with pytest.raises(RuntimeError):
        ea.reshape(x, (5, -1))


def test_mm_values_and_shape_errors():
    a, b = rand(3, 4), rand(4, 2)
    close(ea.mm(ea.tensor(a), ea.tensor(b)), a.astype(np.float64) @ b, rtol=1e-5)
    with pytest.raises(RuntimeError):
        ea.mm(ea.zeros(3, 4), ea.zeros(3, 4))
    with pytest.raises(RuntimeError):
        ea.mm(ea.zeros(3), ea.zeros(3, 4))


def test_sum_and_mean_dims_keepdim_and_dtypes():
    a = rand(2, 3, 4)
    x = ea.tensor(a)
    s = ea.sum(x)
    assert s.shape == () and s.dtype is ea.float32
    close(s, a.astype(np.float64).sum(), rtol=1e-5)
    close(ea.sum(x, 1), a.sum(1), rtol=1e-5)
    close(ea.sum(x, dim=(0, 2)), a.sum((0, 2)), rtol=1e-5)
    assert ea.sum(x, dim=1, keepdim=True).shape == (2, 1, 4)
    assert ea.sum(x, (0, -1), keepdim=True).shape == (1, 3, 1)
    close(ea.mean(x, dim=-1), a.mean(-1), rtol=1e-5)
    assert ea.mean(x, (1, 2), keepdim=True).shape == (2, 1, 1)
    assert ea.sum(ea.tensor([1, 2], dtype=ea.int32)).dtype is ea.int64
    assert ea.sum(ea.tensor([True, True, False])).item() == 2
    assert ea.sum(ea.ones(3), dtype=ea.float64).dtype is ea.float64
    assert ea.mean(ea.tensor([1.0, 2.0], dtype=ea.float64)).dtype is ea.float64


def test_mean_of_integers_raises():
    with pytest.raises(RuntimeError):
        ea.mean(ea.tensor([1, 2]))


def test_max_full_reduction_dim_and_binary_forms():
    a = np.array([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]], dtype=np.float32)
    x = ea.tensor(a)
    m = ea.max(x)
    assert m.shape == () and m.item() == 7.0
    r = ea.max(x, 1)
    assert isinstance(r, tuple) and len(r) == 2
    assert r.values.tolist() == [5.0, 7.0] and r.indices.tolist() == [1, 0]
    assert r.indices.dtype is ea.int64
    values, indices = ea.max(x, dim=0)
    assert values.tolist() == [7.0, 5.0, 7.0] and indices.tolist() == [1, 0, 1]
    rk = ea.max(x, dim=1, keepdim=True)
    assert rk.values.shape == (2, 1) and rk.indices.shape == (2, 1)
    assert r[0].tolist() == [5.0, 7.0]
    b = ea.max(x, ea.tensor([[2.0, 2.0, 2.0]]))
    assert b.tolist() == [[2.0, 5.0, 3.0], [7.0, 2.0, 7.0]]


def test_max_min_dim_backward_routes_to_the_argmax():
    x = t64([[1.0, 3.0, 2.0]], requires_grad=True)
    ea.max(x, dim=1).values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0]]


def test_maximum_values_dtype_and_grad():
    a, b = rand(4), rand(4)
    close(ea.maximum(ea.tensor(a), ea.tensor(b)), np.maximum(a, b))
    assert ea.maximum(ea.tensor([1, 5]), ea.tensor([3, 2])).tolist() == [3, 5]
    assert ea.maximum(ea.tensor([1, 5]), ea.tensor([3.0, 2.0])).dtype is ea.float32
    x = t64([1.0, 4.0], requires_grad=True)
    ea.maximum(x, t64([2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]


UNARY = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
    "sigmoid": lambda a: 1 / (1 + np.exp(-a)), "relu": lambda a: np.maximum(a, 0), "sqrt": np.sqrt,
}
UNARY_GRAD = {
    "exp": np.exp, "log": lambda a: 1 / a, "log1p": lambda a: 1 / (1 + a), "sin": np.cos,
    "cos": lambda a: -np.sin(a), "tanh": lambda a: 1 - np.tanh(a) ** 2,
    "sigmoid": lambda a: np.exp(-a) / (1 + np.exp(-a)) ** 2, "relu": lambda a: (a > 0).astype(a.dtype),
    "sqrt": lambda a: 0.5 / np.sqrt(a),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_values_and_grads(name):
    positive = name in ("log", "sqrt", "log1p")
    a = rand(3, 4, low=0.1 if positive else -2.0, high=3.0)
    x = ea.tensor(a)
    y = getattr(ea, name)(x)
    assert y.dtype is ea.float32 and y.shape == (3, 4)
    close(y, UNARY[name](a.astype(np.float64)), rtol=1e-5, atol=1e-6)
    x64 = ea.tensor(a.astype(np.float64), requires_grad=True)
    y64 = getattr(ea, name)(x64)
    assert y64.dtype is ea.float64
    y64.sum().backward()
    close(x64.grad, UNARY_GRAD[name](a.astype(np.float64)), rtol=1e-10, atol=1e-12)
    close(getattr(x, name)(), UNARY[name](a.astype(np.float64)), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt"])
def test_unary_float_functions_promote_integers_to_float32(name):
    y = getattr(ea, name)(ea.tensor([1, 2, 3]))
    assert y.dtype is ea.float32
    close(y, UNARY[name](np.array([1.0, 2.0, 3.0])), rtol=1e-6)


def test_relu_keeps_integer_dtype():
    y = ea.relu(ea.tensor([-1, 2]))
    assert y.dtype is ea.int64 and y.tolist() == [0, 2]


def test_log_and_sqrt_of_negative_are_nan_not_errors():
    y = ea.log(ea.tensor([-1.0, 0.0]))
    assert math.isnan(y[0].item()) and y[1].item() == -math.inf
    assert math.isnan(ea.sqrt(ea.tensor([-1.0]))[0].item())


def test_softmax_and_log_softmax_functions():
    a = rand(3, 5, low=-3, high=3)
    e = np.exp(a.astype(np.float64) - a.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    close(ea.softmax(ea.tensor(a), dim=1), sm, rtol=1e-5)
    close(ea.softmax(ea.tensor(a), 1), sm, rtol=1e-5)
    close(ea.log_softmax(ea.tensor(a), dim=-1), np.log(sm), rtol=1e-5, atol=1e-5)
    e0 = np.exp(a.astype(np.float64)) / np.exp(a.astype(np.float64)).sum(0)
    close(ea.softmax(ea.tensor(a), 0), e0, rtol=1e-5)
    big = ea.tensor([1000.0, 0.0])
    assert ea.softmax(big, 0).tolist() == [1.0, 0.0]
    assert ea.softmax(ea.tensor([1.0, 2.0]), dim=0, dtype=ea.float64).dtype is ea.float64


def test_isfinite_isnan():
    x = ea.tensor([1.0, math.inf, -math.inf, math.nan])
    f, n = ea.isfinite(x), ea.isnan(x)
    assert f.dtype is ea.bool and n.dtype is ea.bool
    assert f.tolist() == [True, False, False, False]
    assert n.tolist() == [False, False, False, True]
    assert ea.isfinite(ea.tensor([1, 2])).tolist() == [True, True]


def test_all_and_any():
    x = ea.tensor([[True, False], [True, True]])
    a = ea.all(x)
    assert a.dtype is ea.bool and a.shape == () and a.item() is False
    assert ea.all(x, dim=1).tolist() == [False, True]
    assert ea.all(x, 0).tolist() == [True, False]
    assert ea.all(ea.tensor([1, 2])).item() is True
    assert ea.all(ea.tensor([1.0, 0.0])).item() is False
    assert x.any().item() is True and x.any(dim=1).tolist() == [True, True]
    assert x.all(dim=0, keepdim=True).shape == (1, 2)
    assert bool(ea.all(ea.tensor([3]) > 2))


def test_allclose_and_equal_return_python_bools():
    a = ea.tensor([1.0, 2.0])
    r = ea.allclose(a, a + 1e-9)
    assert r is True
    assert ea.allclose(a, a + 0.1) is False
    assert ea.allclose(a, a + 0.1, atol=0.2) is True
    assert ea.allclose(a, a * 1.05, rtol=0.1, atol=0) is True
    assert ea.allclose(ea.tensor([math.nan]), ea.tensor([math.nan])) is False
    assert ea.allclose(ea.tensor([math.nan]), ea.tensor([math.nan]), equal_nan=True) is True
    assert ea.equal(a, ea.tensor([1.0, 2.0])) is True
    assert ea.equal(a, ea.tensor([1.0, 3.0])) is False
    assert ea.equal(a, ea.tensor([1.0, 2.0, 3.0])) is False
    assert ea.equal(ea.tensor([1, 2]), ea.tensor([1, 2])) is True


# ---------------------------------------------------------------------------------------------
# grad modes
# ---------------------------------------------------------------------------------------------

def test_no_grad_context():
    x = ea.ones(2, requires_grad=True)
    assert ea.is_grad_enabled()
    with ea.no_grad():
        assert not ea.is_grad_enabled()
        y = x * 2
    assert ea.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert (x * 2).requires_grad


def test_no_grad_decorator_keeps_function_metadata():
    @ea.no_grad()
    def f(x):
        """doc"""
        return x * 2, ea.is_grad_enabled()

    y, enabled = f(ea.ones(2, requires_grad=True))
    assert not y.requires_grad and enabled is False
    assert ea.is_grad_enabled()
    assert f.__name__ == "f" and f.__doc__ == "doc"


def test_no_grad_bare_decorator():
    @ea.no_grad
    def f(x):
        return x * 2

    assert not f(ea.ones(2, requires_grad=True)).requires_grad


def test_no_grad_restores_on_exception():
    with pytest.raises(ValueError):
        with ea.no_grad():
            raise ValueError
    assert ea.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = ea.ones(2, requires_grad=True)
    with ea.no_grad():
        with ea.enable_grad():
            assert ea.is_grad_enabled()
            y = x * 2
        assert not ea.is_grad_enabled()
    assert y.requires_grad

    @ea.enable_grad()
    def g(x):
        return x * 3

    with ea.no_grad():
        assert g(x).requires_grad


def test_set_grad_enabled_as_context_and_as_call():
    x = ea.ones(2, requires_grad=True)
    with ea.set_grad_enabled(False):
        assert not ea.is_grad_enabled()
        assert not (x * 2).requires_grad
    assert ea.is_grad_enabled()
    with ea.set_grad_enabled(True):
        assert (x * 2).requires_grad
    try:
        ea.set_grad_enabled(False)
        assert not ea.is_grad_enabled()
        assert not (x + 1).requires_grad
    finally:
        ea.set_grad_enabled(True)
    assert ea.is_grad_enabled()
    with ea.no_grad():
        with ea.set_grad_enabled(True):
            assert ea.is_grad_enabled()
        assert not ea.is_grad_enabled()


def test_inplace_on_leaf_requiring_grad_is_allowed_under_no_grad_only():
    w = ea.ones(2, requires_grad=True)
    with ea.no_grad():
        w -= 0.5
        w.mul_(2)
    assert w.tolist() == [1.0, 1.0] and w.is_leaf and w.requires_grad
    with pytest.raises(RuntimeError):
        w.add_(1)


# ---------------------------------------------------------------------------------------------
# save / load
# ---------------------------------------------------------------------------------------------

def test_save_load_round_trip_via_path(tmp_path):
    obj = {"w": ea.arange(6, dtype=ea.float32).reshape(2, 3), "step": 3, "names": ["a", "b"],
           "nested": {"i": ea.tensor([1, 2], dtype=ea.int32)}, "f64": ea.tensor([0.1], dtype=ea.float64)}
    path = tmp_path / "ckpt.pt"
    ea.save(obj, path)
    back = ea.load(path)
    assert set(back) == set(obj) and back["step"] == 3 and back["names"] == ["a", "b"]
    assert isinstance(back["w"], ea.Tensor) and back["w"].dtype is ea.float32
    assert ea.equal(back["w"], obj["w"])
    assert back["nested"]["i"].dtype is ea.int32 and back["nested"]["i"].tolist() == [1, 2]
    assert back["f64"].dtype is ea.float64
    ea.save([ea.ones(1)], str(tmp_path / "b.pt"))
    assert ea.load(str(tmp_path / "b.pt"))[0].tolist() == [1.0]


def test_save_load_round_trip_via_file_object():
    buf = io.BytesIO()
    x = ea.randn(3, 3)
    ea.save({"x": x}, buf)
    buf.seek(0)
    y = ea.load(buf)["x"]
    assert ea.equal(x, y)
    y.add_(1)
    assert not ea.equal(x, y)


def test_save_preserves_views_sharing_storage():
    base = ea.arange(6.0)
    buf = io.BytesIO()
    ea.save([base, base[2:4]], buf)
    buf.seek(0)
    b, v = ea.load(buf)
    v[0] = -1
    assert b[2].item() == -1


def test_save_load_requires_grad_and_parameters(tmp_path):
    p = nn.Parameter(ea.ones(2))
    ea.save({"p": p}, tmp_path / "p.pt")
    q = ea.load(tmp_path / "p.pt")["p"]
    assert isinstance(q, nn.Parameter) and q.requires_grad


def test_tensor_pickles():
    x = ea.tensor([[1.0, 2.0]])
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, ea.Tensor) and y.tolist() == [[1.0, 2.0]] and y.dtype is ea.float32


# ---------------------------------------------------------------------------------------------
# autograd: backward, grad, Function
# ---------------------------------------------------------------------------------------------

def test_backward_accumulates_into_leaf_grads():
    a = rand(3)
    x = t64(a, requires_grad=True)
    (x * x).sum().backward()
    close(x.grad, 2 * a)
    (x * x).sum().backward()
    close(x.grad, 4 * a)
    x.grad = None
    assert x.grad is None
    (3 * x).sum().backward()
    close(x.grad, np.full(3, 3.0))


def test_backward_needs_gradient_for_non_scalars():
    x = ea.ones(3, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError):
        y.backward()
    y.backward(ea.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    z = x * 3
    z.backward(gradient=ea.ones(3))
    assert x.grad.tolist() == [5.0, 7.0, 9.0]


def test_backward_twice_needs_retain_graph():
    x = t64([2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    close(x.grad, 2 * (np.exp(2.0) * 3))
    z = (x.exp() * x).sum()
    z.backward()
    with pytest.raises(RuntimeError):
        z.backward()


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError):
        ea.ones(2).sum().backward()


def test_grad_returns_a_tuple_and_leaves_dot_grad_alone():
    x = t64([1.0, 2.0], requires_grad=True)
    y = t64([3.0], requires_grad=True)
    out = (x * x).sum() * y.sum()
    gx, gy = autograd.grad(out, [x, y])
    close(gx, [6.0, 12.0])
    close(gy, [5.0])
    assert x.grad is None and y.grad is None
    (g,) = autograd.grad((x ** 3).sum(), x)
    close(g, [3.0, 12.0])
    r = autograd.grad(outputs=(x * 2).sum(), inputs=(x,))
    assert isinstance(r, tuple) and len(r) == 1


def test_grad_with_grad_outputs():
    x = t64([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = autograd.grad(x * x, x, grad_outputs=ea.tensor([1.0, 0.0, 2.0], dtype=ea.float64))
    close(g, [2.0, 0.0, 12.0])
    (g2,) = autograd.grad([x * 2], [x], grad_outputs=[ea.ones(3, dtype=ea.float64)])
    close(g2, [2.0, 2.0, 2.0])


def test_grad_create_graph_gives_second_derivatives():
    x = t64([0.5, 1.5], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = autograd.grad(y, x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    close(g, 3 * np.array([0.5, 1.5]) ** 2)
    (h,) = autograd.grad(g.sum(), x)
    close(h, 6 * np.array([0.5, 1.5]))
    x2 = t64([2.0], requires_grad=True)
    (g1,) = autograd.grad((x2 ** 2).sum(), x2, create_graph=True)
    (g1 * g1).sum().backward()  # d/dx (2x)^2 = 8x
    close(x2.grad, [16.0])
    (gn,) = autograd.grad((x ** 2).sum(), x)
    assert not gn.requires_grad


def test_grad_of_an_unused_input_raises_unless_allowed():
    x = ea.ones(2, requires_grad=True)
    z = ea.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        autograd.grad((x * 2).sum(), [x, z])
    gx, gz = autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert gz is None


def test_grad_through_a_python_loop_and_control_flow():
    x = t64([1.2], requires_grad=True)
    y = x
    for _ in range(3):
        y = y * x if y.item() < 2 else y + x
    y.backward()
    # 1.2, 1.44, 1.728 are all < 2: y = x^4
    close(x.grad, [4 * 1.2 ** 3])


def _function_classes():
    Function = autograd.Function

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    class ScaledMul(Function):
        @staticmethod
        def forward(ctx, a, b, scale):
            ctx.scale = scale
            ctx.save_for_backward(a, b)
            ctx.flags = ctx.needs_input_grad
            return a * b * scale

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            ga = grad * b * ctx.scale if ctx.needs_input_grad[0] else None
            gb = grad * a * ctx.scale if ctx.needs_input_grad[1] else None
            return ga, gb, None

    return Exp, ScaledMul


def test_function_subclass_forward_backward_and_ctx():
    Exp, ScaledMul = _function_classes()
    a = rand(3)
    x = t64(a, requires_grad=True)
    y = Exp.apply(x)
    assert y.requires_grad and y.grad_fn is not None
    close(y, np.exp(a))
    y.sum().backward()
    close(x.grad, np.exp(a))

    p = t64([1.0, 2.0], requires_grad=True)
    q = t64([3.0, 4.0])
    out = ScaledMul.apply(p, q, 2.0)
    close(out, [6.0, 16.0])
    assert out.grad_fn is not None
    out.sum().backward()
    close(p.grad, [6.0, 8.0])
    assert q.grad is None


def test_function_needs_input_grad_and_ctx_attributes_reach_backward():
    seen = {}

    class Probe(autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.k = k
            ctx.save_for_backward(a)
            return a * k + b

        @staticmethod
        def backward(ctx, g):
            seen["needs"] = tuple(ctx.needs_input_grad)
            seen["k"] = ctx.k
            seen["saved"] = len(ctx.saved_tensors)
            return g * ctx.k, g, None

    a = ea.ones(2, requires_grad=True)
    b = ea.ones(2)
    Probe.apply(a, b, 5).sum().backward()
    assert seen == {"needs": (True, False, False), "k": 5, "saved": 1}
    assert a.grad.tolist() == [5.0, 5.0]


def test_function_without_grad_inputs_returns_a_plain_tensor():
    Exp, _ = _function_classes()
    y = Exp.apply(ea.ones(2))
    assert not y.requires_grad and y.grad_fn is None
    with ea.no_grad():
        assert not Exp.apply(ea.ones(2, requires_grad=True)).requires_grad


def test_function_with_multiple_outputs_and_mark_non_differentiable():
    class SplitSum(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = ea.ones(2, requires_grad=True)
    a, b = SplitSum.apply(x)
    (a.sum() + b.sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_function_backward_twice_order_and_second_order_through_function():
    Exp, _ = _function_classes()
    x = t64([0.3], requires_grad=True)
    y = Exp.apply(Exp.apply(x))
    y.backward()
    close(x.grad, np.exp(np.exp(0.3)) * np.exp(0.3))


# ---------------------------------------------------------------------------------------------
# Tensor methods
# ---------------------------------------------------------------------------------------------

def test_abs_and_neg():
    a = rand(5)
    close(ea.tensor(a).abs(), np.abs(a))
    assert ea.tensor([-3, 2]).abs().tolist() == [3, 2]
    close(-ea.tensor(a), -a)
    x = t64([-2.0, 3.0], requires_grad=True)
    x.abs().sum().backward()
    assert x.grad.tolist() == [-1.0, 1.0]


def test_add_inplace_returns_self_and_alpha():
    x = ea.ones(3)
    r = x.add_(ea.tensor([1.0, 2.0, 3.0]))
    assert r is x and x.tolist() == [2.0, 3.0, 4.0]
    x.add_(ea.ones(3), alpha=2)
    assert x.tolist() == [4.0, 5.0, 6.0]
    x.add_(1)
    assert x.tolist() == [5.0, 6.0, 7.0]
    assert ea.ones(2).add(ea.ones(2), alpha=3).tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError):
        ea.ones(2, dtype=ea.int64).add_(0.5)
    with pytest.raises(RuntimeError):
        ea.ones(2).add_(ea.ones(2, 2))


def test_sub_mul_inplace():
    x = ea.tensor([4.0, 6.0])
    assert x.sub_(1) is x and x.tolist() == [3.0, 5.0]
    x.sub_(ea.tensor([1.0, 1.0]), alpha=2)
    assert x.tolist() == [1.0, 3.0]
    assert x.mul_(ea.tensor([2.0, 3.0])) is x and x.tolist() == [2.0, 9.0]
    x.mul_(0.5)
    assert x.tolist() == [1.0, 4.5]
    assert ea.tensor([1, 2]).mul(3).tolist() == [3, 6]
    assert ea.tensor([1, 2]).mul(0.5).dtype is ea.float32


def test_argmax_argmin():
    a = np.array([[1, 9, 3], [8, 2, 8]], dtype=np.float32)
    x = ea.tensor(a)
    assert x.argmax().item() == 1 and x.argmin().item() == 0
    assert x.argmax().shape == ()
    assert x.argmax(dim=1).tolist() == [1, 0] and x.argmin(1).tolist() == [0, 1]
    assert x.argmax(dim=0, keepdim=True).shape == (1, 3)
    assert x.argmax(1).dtype is ea.int64
    assert ea.argmax(x, dim=1).tolist() == [1, 0]


def test_chunk():
    x = ea.arange(10)
    parts = x.chunk(3)
    assert isinstance(parts, tuple) and [p.tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    y = ea.arange(12).reshape(2, 6)
    assert [p.shape for p in y.chunk(2, dim=1)] == [(2, 3), (2, 3)]
    assert len(ea.arange(5).chunk(6)) == 5


def test_clamp():
    a = rand(10, low=-3, high=3)
    x = ea.tensor(a)
    close(x.clamp(min=-1, max=1), np.clip(a, -1, 1))
    close(x.clamp(min=0), np.maximum(a, 0))
    close(x.clamp(max=0.5), np.minimum(a, 0.5))
    close(x.clamp(-0.5, 0.5), np.clip(a, -0.5, 0.5))
    close(ea.clamp(x, min=-1), np.maximum(a, -1))
    assert ea.tensor([1, 5]).clamp(2, 3).dtype is ea.int64
    g = t64([-2.0, 0.0, 2.0], requires_grad=True)
    g.clamp(-1, 1).sum().backward()
    assert g.grad.tolist() == [0.0, 1.0, 0.0]
    x.clamp_(min=0)
    assert N(x).min() >= 0


def test_clone_is_a_copy_with_grad():
    x = ea.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    assert y.requires_grad and not y.is_leaf and y.grad_fn is not None
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    z = ea.ones(2)
    c = z.clone()
    c[0] = 5
    assert z.tolist() == [1.0, 1.0]


def test_contiguous_and_is_contiguous():
    x = ea.arange(6.0).reshape(2, 3)
    assert x.is_contiguous()
    t = x.t()
    assert not t.is_contiguous()
    c = t.contiguous()
    assert c.is_contiguous() and c.tolist() == t.tolist()
    assert x.contiguous() is x
    assert not x[:, ::2].is_contiguous()


def test_detach_shares_storage_and_stops_grad():
    x = ea.ones(3, requires_grad=True)
    y = (x * 2)
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d[0] = 10
    assert y[0].item() == 10


def test_dim_numel_size():
    x = ea.zeros(2, 3, 4)
    assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert isinstance(x.size(), tuple) and isinstance(x.size(0), int)
    assert ea.tensor(1.0).dim() == 0 and ea.tensor(1.0).numel() == 1
    with pytest.raises(IndexError):
        x.size(3)


def test_dtype_conversion_methods():
    x = ea.tensor([1.7, -2.7])
    d = x.double()
    assert d.dtype is ea.float64 and d.tolist() == pytest.approx([1.7, -2.7], rel=1e-6)
    assert x.int().dtype is ea.int32 and x.int().tolist() == [1, -2]
    assert x.long().dtype is ea.int64 and x.long().tolist() == [1, -2]
    assert ea.tensor([1, 2]).float().dtype is ea.float32
    assert x.float() is x
    g = ea.ones(2, requires_grad=True)
    h = g.double()
    assert h.requires_grad
    (h * 2).sum().backward()
    assert g.grad.dtype is ea.float32 and g.grad.tolist() == [2.0, 2.0]


def test_expand_and_expand_as():
    x = ea.tensor([[1.0], [2.0]])
    e = x.expand(2, 3)
    assert e.shape == (2, 3) and e.tolist() == [[1, 1, 1], [2, 2, 2]]
    assert x.expand(-1, 4).shape == (2, 4)
    assert x.expand((3, 2, 2)).shape == (3, 2, 2)
    assert x.expand_as(ea.zeros(2, 5)).shape == (2, 5)
    with pytest.raises(RuntimeError):
        x.expand(3, 3)
    g = ea.ones(2, 1, requires_grad=True)
    g.expand(2, 3).sum().backward()
    assert g.grad.tolist() == [[3.0], [3.0]]


def test_fill_and_zero_():
    x = ea.ones(2, 2)
    assert x.fill_(3) is x and x.tolist() == [[3, 3], [3, 3]]
    assert x.zero_() is x and x.tolist() == [[0, 0], [0, 0]]
    y = ea.zeros(3, dtype=ea.int64)
    y.fill_(2)
    assert y.dtype is ea.int64 and y.tolist() == [2, 2, 2]
    v = ea.zeros(2, 3)
    v[0].fill_(1)
    assert v.tolist() == [[1, 1, 1], [0, 0, 0]]


def test_flatten_method():
    x = ea.zeros(2, 3, 4)
    assert x.flatten().shape == (24,)
    assert x.flatten(1).shape == (2, 12)
    assert x.flatten(start_dim=0, end_dim=1).shape == (6, 4)
    assert ea.tensor(3.0).flatten().shape == (1,)


def test_gather():
    a = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    idx = np.array([[2, 0], [1, 1]])
    x = ea.tensor(a)
    g = x.gather(1, ea.tensor(idx))
    np.testing.assert_array_equal(N(g), np.take_along_axis(a, idx, 1))
    g0 = ea.gather(x, 0, ea.tensor([[1, 0, 1]]))
    assert g0.tolist() == [[4, 2, 6]]
    w = t64(a, requires_grad=True)
    w.gather(1, ea.tensor([[0, 0], [2, 1]])).sum().backward()
    assert w.grad.tolist() == [[2, 0, 0], [0, 1, 1]]
    with pytest.raises(RuntimeError):
        x.gather(1, ea.tensor([[3]]))


def test_is_floating_point_and_item():
    assert ea.ones(1).is_floating_point() and not ea.tensor([1]).is_floating_point()
    i = ea.tensor([7]).item()
    f = ea.tensor(2.5).item()
    b = ea.tensor(True).item()
    assert type(i) is int and i == 7
    assert type(f) is float and f == 2.5
    assert type(b) is bool and b is True
    with pytest.raises(RuntimeError):
        ea.ones(2).item()
    assert ea.ones(1, 1, requires_grad=True).item() == 1.0


def test_max_min_methods():
    a = rand(3, 4)
    x = ea.tensor(a)
    assert x.max().item() == pytest.approx(float(a.max()))
    assert x.min().item() == pytest.approx(float(a.min()))
    r = x.max(dim=1)
    np.testing.assert_array_equal(N(r.values), a.max(1))
    np.testing.assert_array_equal(N(r.indices), a.argmax(1))
    m = x.min(0)
    np.testing.assert_array_equal(N(m.values), a.min(0))
    np.testing.assert_array_equal(N(m.indices), a.argmin(0))
    assert x.max(1, keepdim=True).values.shape == (3, 1)
    assert x.max(1, True).indices.shape == (3, 1)
    v, i = x.min(dim=-1)
    assert v.shape == (3,) and i.dtype is ea.int64
    assert x.max(ea.zeros(3, 4)).shape == (3, 4)


def test_mean_method_and_reduction_dims():
    a = rand(2, 3, 4)
    x = ea.tensor(a)
    close(x.mean(), a.astype(np.float64).mean(), rtol=1e-5)
    close(x.mean(dim=(0, 2)), a.mean((0, 2)), rtol=1e-5)
    close(x.mean([0, 1]), a.mean((0, 1)), rtol=1e-5)
    assert x.mean(1, keepdim=True).shape == (2, 1, 4)
    close(x.sum(-1), a.sum(-1), rtol=1e-5)
    assert x.sum(dim=(1, 2), keepdim=True).shape == (2, 1, 1)
    g = t64(a, requires_grad=True)
    g.mean(dim=1).sum().backward()
    close(g.grad, np.full(a.shape, 1 / 3))


def test_pow():
    a = rand(4, low=0.5, high=2)
    x = ea.tensor(a)
    close(x.pow(2), a.astype(np.float64) ** 2, rtol=1e-6)
    close(x.pow(0.5), np.sqrt(a.astype(np.float64)), rtol=1e-6)
    close(x.pow(ea.tensor(a)), a.astype(np.float64) ** a, rtol=1e-5)
    close(ea.pow(x, 3), a.astype(np.float64) ** 3, rtol=1e-5)
    assert ea.tensor([2, 3]).pow(2).tolist() == [4, 9] and ea.tensor([2, 3]).pow(2).dtype is ea.int64
    g = t64(a, requires_grad=True)
    g.pow(3).sum().backward()
    close(g.grad, 3 * a.astype(np.float64) ** 2, rtol=1e-10)


def test_permute_transpose_t():
    a = rand(2, 3, 4)
    x = ea.tensor(a)
    assert x.permute(2, 0, 1).shape == (4, 2, 3)
    np.testing.assert_array_equal(N(x.permute((1, 2, 0))), a.transpose(1, 2, 0))
    np.testing.assert_array_equal(N(x.transpose(0, 2)), a.swapaxes(0, 2))
    assert x.transpose(-1, -2).shape == (2, 4, 3)
    m = ea.tensor(a[0])
    np.testing.assert_array_equal(N(m.t()), a[0].T)
    assert ea.ones(3).t().shape == (3,)
    with pytest.raises(RuntimeError):
        x.t()
    v = ea.arange(6.0).reshape(2, 3)
    v.t()[0, 1] = 100
    assert v[1, 0].item() == 100


def test_register_hook_modifies_grad_and_handle_remove():
    x = ea.ones(3, requires_grad=True)
    seen = []

    def hook(g):
        seen.append(g.tolist())
        return g * 2

    h = x.register_hook(hook)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0, 3.0]] and x.grad.tolist() == [6.0, 6.0, 6.0]
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0] and len(seen) == 1
    y = x * 2
    y.register_hook(lambda g: g * 10)
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [20.0, 20.0, 20.0]
    with pytest.raises(RuntimeError):
        ea.ones(2).register_hook(lambda g: g)


def test_relu_inplace():
    x = ea.tensor([-1.0, 2.0])
    assert x.relu_() is x and x.tolist() == [0.0, 2.0]
    assert ea.tensor([-1.0, 2.0]).relu().tolist() == [0.0, 2.0]


def test_repeat_and_repeat_interleave():
    a = np.array([[1, 2], [3, 4]])
    x = ea.tensor(a)
    np.testing.assert_array_equal(N(x.repeat(2, 3)), np.tile(a, (2, 3)))
    assert x.repeat(2, 1, 1).shape == (2, 2, 2)
    assert x.repeat((1, 2)).shape == (2, 4)
    assert ea.tensor([1, 2, 3]).repeat_interleave(2).tolist() == [1, 1, 2, 2, 3, 3]
    np.testing.assert_array_equal(N(x.repeat_interleave(2, dim=0)), np.repeat(a, 2, axis=0))
    assert x.repeat_interleave(ea.tensor([1, 2]), dim=1).tolist() == [[1, 2, 2], [3, 4, 4]]
    assert x.repeat_interleave(2).shape == (8,)
    assert ea.repeat_interleave(ea.tensor([2, 1])).tolist() == [0, 0, 1]


def test_requires_grad_and_is_leaf_and_requires_grad_():
    x = ea.zeros(2)
    assert not x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    assert x.requires_grad_() is x and x.requires_grad
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    with pytest.raises(RuntimeError):
        y.requires_grad_(False)
    x.requires_grad_(False)
    assert not x.requires_grad
    x.requires_grad = True
    assert x.requires_grad
    with pytest.raises(RuntimeError):
        ea.tensor([1, 2]).requires_grad_()


def test_grad_fn_names():
    x = ea.ones(2, requires_grad=True)
    assert type((x * 2).grad_fn).__name__ == "MulBackward0"
    assert type((x + 2).grad_fn).__name__ == "AddBackward0"
    assert type(x.sum().grad_fn).__name__ == "SumBackward0"
    assert type(x.exp().grad_fn).__name__ == "ExpBackward0"
    assert (x * 2).grad_fn.next_functions[0][0] is not None


def test_reshape_view_view_as():
    x = ea.arange(12.0)
    assert x.reshape(3, 4).shape == (3, 4) and x.reshape((2, -1)).shape == (2, 6)
    v = x.view(4, 3)
    v[0, 0] = 99
    assert x[0].item() == 99
    assert x.view(-1, 6).shape == (2, 6)
    assert x.view(2, 2, 3).view_as(ea.zeros(6, 2)).shape == (6, 2)
    t = x.view(3, 4).t()
    with pytest.raises(RuntimeError):
        t.view(12)
    assert t.reshape(12).shape == (12,)
    with pytest.raises(RuntimeError):
        x.view(5, -1)


def test_retain_grad_on_non_leaf():
    x = ea.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = x * 3
    (y * z).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]
    assert z.grad is None


def test_softmax_method():
    a = rand(2, 3)
    e = np.exp(a.astype(np.float64))
    close(ea.tensor(a).softmax(dim=-1), e / e.sum(-1, keepdims=True), rtol=1e-5)
    close(ea.tensor(a).softmax(0), e / e.sum(0), rtol=1e-5)


def test_squeeze_unsqueeze():
    x = ea.zeros(1, 3, 1, 2)
    assert x.squeeze().shape == (3, 2)
    assert x.squeeze(0).shape == (3, 1, 2)
    assert x.squeeze(1).shape == (1, 3, 1, 2)
    assert x.squeeze(-2).shape == (1, 3, 2)
    assert x.squeeze((0, 2)).shape == (3, 2)
    assert ea.zeros(3).unsqueeze(0).shape == (1, 3)
    assert ea.zeros(3).unsqueeze(-1).shape == (3, 1)
    assert ea.zeros(2, 3).unsqueeze(1).shape == (2, 1, 3)
    with pytest.raises(IndexError):
        ea.zeros(3).unsqueeze(3)


def test_std_and_var_unbiased_and_dims():
    a = rand(4, 5).astype(np.float64)
    x = ea.tensor(a)
    close(x.std(), a.std(ddof=1), rtol=1e-10)
    close(x.var(), a.var(ddof=1), rtol=1e-10)
    close(x.var(dim=1), a.var(1, ddof=1), rtol=1e-10)
    close(x.var(1, unbiased=False), a.var(1), rtol=1e-10)
    close(x.std(dim=0, unbiased=False), a.std(0), rtol=1e-10)
    close(x.var(0, keepdim=True), a.var(0, ddof=1, keepdims=True), rtol=1e-10)
    close(x.var(dim=(0, 1)), a.var(ddof=1), rtol=1e-10)
    close(x.var(1, correction=0), a.var(1), rtol=1e-10)
    close(ea.var(x, 1), a.var(1, ddof=1), rtol=1e-10)
    g = ea.tensor(a, requires_grad=True)
    g.var().backward()
    close(g.grad, 2 * (a - a.mean()) / (a.size - 1), rtol=1e-10)


def test_to_dtype_device_and_tensor():
    x = ea.tensor([1.5, 2.5])
    assert x.to(ea.float64).dtype is ea.float64
    assert x.to(dtype=ea.int64).tolist() == [1, 2]
    assert x.to("cpu") is x
    assert x.to(ea.device("cpu")) is x
    assert x.to(ea.float32) is x
    assert x.to(ea.zeros(1, dtype=ea.float64)).dtype is ea.float64
    assert x.to("cpu", ea.float64).dtype is ea.float64
    assert x.device == ea.device("cpu") and x.device.type == "cpu" and str(x.device) == "cpu"
    assert x.cpu() is x


def test_tolist():
    assert ea.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert ea.tensor(3).tolist() == 3
    v = ea.tensor([0.5]).tolist()
    assert type(v[0]) is float
    assert type(ea.tensor([1]).tolist()[0]) is int
    assert ea.tensor([True]).tolist() == [True]


def test_type_method():
    x = ea.tensor([1.5])
    assert x.type().endswith("FloatTensor")
    assert ea.tensor([1]).type().endswith("LongTensor")
    assert x.type(ea.float64).dtype is ea.float64
    assert x.type(ea.int32).tolist() == [1]


def test_unbind_split_misc_shapes():
    x = ea.arange(6).reshape(2, 3)
    assert [t.tolist() for t in x.unbind(0)] == [[0, 1, 2], [3, 4, 5]]
    assert [p.shape for p in x.split(2, dim=1)] == [(2, 2), (2, 1)]


# ---------------------------------------------------------------------------------------------
# Tensor attributes and protocols
# ---------------------------------------------------------------------------------------------

def test_shape_compares_with_tuples_and_lists():
    x = ea.zeros(2, 3)
    assert x.shape == (2, 3) and (2, 3) == x.shape
    assert x.shape != (3, 2)
    assert isinstance(x.shape, tuple)
    assert x.shape[0] == 2 and x.shape[-1] == 3 and x.shape[1:] == (3,)
    assert len(x.shape) == 2 and list(x.shape) == [2, 3]
    n, m = x.shape
    assert (n, m) == (2, 3)
    assert x.shape.numel() == 6
    assert hash(x.shape) == hash((2, 3))
    assert ea.zeros(x.shape).shape == (2, 3)


def test_grad_settable_to_none_and_to_a_tensor():
    x = ea.ones(2, requires_grad=True)
    x.sum().backward()
    assert x.grad is not None
    x.grad = None
    assert x.grad is None
    x.grad = ea.zeros(2)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_arithmetic_operators_and_reflected():
    a, b = rand(3, low=0.5, high=2), rand(3, low=0.5, high=2)
    x, y = ea.tensor(a), ea.tensor(b)
    A, B = a.astype(np.float64), b.astype(np.float64)
    close(x + y, A + B)
    close(x - y, A - B)
    close(x * y, A * B)
    close(x / y, A / B, rtol=1e-6)
    close(x ** y, A ** B, rtol=1e-5)
    close(2 + x, 2 + A)
    close(2 - x, 2 - A)
    close(2 * x, 2 * A)
    close(2 / x, 2 / A, rtol=1e-6)
    close(2 ** x, 2 ** A, rtol=1e-5)
    close(x ** 2, A ** 2, rtol=1e-6)
    close(-x, -A)
    close(+x, A)


def test_integer_division_and_modulo_follow_python():
    x = ea.tensor([-7, 7, -8, 5])
    assert (x // 2).tolist() == [-4, 3, -4, 2]
    assert (x % 3).tolist() == [2, 1, 1, 2]
    assert (x // 2).dtype is ea.int64
    assert (x / 2).tolist() == [-3.5, 3.5, -4.0, 2.5] and (x / 2).dtype is ea.float32
    assert (ea.tensor([3]) / ea.tensor([2])).tolist() == [1.5]
    f = ea.tensor([-7.5, 7.5])
    assert (f // 2).tolist() == [-4.0, 3.0]
    assert (f % 2).tolist() == [0.5, 1.5]
    assert (7 // ea.tensor([2, -2])).tolist() == [3, -4]
    assert (-7 % ea.tensor(3)).item() == 2
    assert (ea.tensor([2, 3]) ** 2).tolist() == [4, 9]
    assert (ea.tensor([2, 3]) ** 2).dtype is ea.int64
    assert (ea.tensor([2, 3]) ** 0.5).dtype is ea.float32
    with pytest.raises(RuntimeError):
        ea.tensor([1]) // 0


def test_scalar_type_promotion_of_operators():
    i = ea.tensor([1, 2])
    f = ea.tensor([1.0, 2.0])
    d = ea.tensor([1.0], dtype=ea.float64)
    assert (i + 1).dtype is ea.int64
    assert (i + 1.5).dtype is ea.float32
    assert (i * f).dtype is ea.float32
    assert (f * 2.0).dtype is ea.float32
    assert (f + d).dtype is ea.float64
    assert (f + ea.tensor(1.0, dtype=ea.float64)).dtype is ea.float32
    assert (ea.tensor([1], dtype=ea.int32) + ea.tensor(1)).dtype is ea.int32
    assert (ea.tensor([True]) + ea.tensor([True])).dtype is ea.bool
    assert (ea.tensor([True]) + 1).dtype is ea.int64
    assert (i > 1).dtype is ea.bool


def test_matmul_operator_shapes():
    a, b = rand(2, 3), rand(3, 4)
    close(ea.tensor(a) @ ea.tensor(b), a.astype(np.float64) @ b, rtol=1e-5)
    v = rand(3)
    close(ea.tensor(a) @ ea.tensor(v), a.astype(np.float64) @ v, rtol=1e-5)
    assert (ea.tensor(v) @ ea.tensor(v)).shape == ()
    batch = rand(5, 2, 3)
    assert (ea.tensor(batch) @ ea.tensor(b)).shape == (5, 2, 4)
    close(ea.tensor(batch) @ ea.tensor(b), batch.astype(np.float64) @ b, rtol=1e-5)
    assert ea.matmul(ea.tensor(a), ea.tensor(b)).shape == (2, 4)
    with pytest.raises(RuntimeError):
        ea.tensor(a) @ ea.tensor(a)


def test_comparison_operators():
    x = ea.tensor([1, 2, 3])
    assert (x < 2).tolist() == [True, False, False]
    assert (x <= 2).tolist() == [True, True, False]
    assert (x > 2).tolist() == [False, False, True]
    assert (x >= 2).tolist() == [False, True, True]
    assert (x == 2).tolist() == [False, True, False]
    assert (x != 2).tolist() == [True, False, True]
    assert (x == ea.tensor([1, 0, 3])).dtype is ea.bool
    assert (2 < x).tolist() == [False, False, True]
    assert (x > 1.5).tolist() == [False, True, True]


def test_logical_operators_on_bool_tensors():
    a, b = ea.tensor([True, True, False]), ea.tensor([True, False, False])
    assert (a & b).tolist() == [True, False, False]
    assert (a | b).tolist() == [True, True, False]
    assert (a ^ b).tolist() == [False, True, False]
    assert (~a).tolist() == [False, False, True]
    assert ((ea.tensor([1, 2, 3]) > 1) & (ea.tensor([1, 2, 3]) < 3)).tolist() == [False, True, False]
    assert (ea.tensor([6]) & ea.tensor([3])).tolist() == [2]
    with pytest.raises(RuntimeError):
        ea.tensor([1.0]) & ea.tensor([1.0])


def test_inplace_operators_keep_identity_and_dtype():
    x = ea.ones(3)
    ident = id(x)
    x += 1
    x *= 3
    x -= ea.tensor([1.0, 2.0, 3.0])
    x /= 2
    assert id(x) == ident and x.tolist() == [2.5, 2.0, 1.5]
    i = ea.tensor([1, 2])
    i += 2
    assert i.dtype is ea.int64 and i.tolist() == [3, 4]
    with pytest.raises(RuntimeError):
        i /= 2
    v = ea.zeros(2, 2)
    row = v[0]
    row += 5
    assert v.tolist() == [[5, 5], [0, 0]]


def test_inplace_on_a_saved_tensor_is_detected_by_backward():
    x = ea.ones(3, requires_grad=True)
    y = x * 2
    z = y.exp()          # saves its result
    z.add_(1)
    with pytest.raises(RuntimeError):
        z.sum().backward()
    a = ea.ones(3, requires_grad=True)
    b = a * 3
    c = b * b            # saves b
    b.add_(1)
    with pytest.raises(RuntimeError):
        c.sum().backward()


def test_getitem_basic():
    a = np.arange(24).reshape(2, 3, 4)
    x = ea.tensor(a)
    for idx in [0, -1, (1, 2), (0, 1, 3), slice(None), slice(0, 1), (slice(None), 1),
                (slice(None), slice(None, None, 2)), (Ellipsis, 1), (0, Ellipsis), (None, 0),
                (slice(None), None, 1), (Ellipsis, None), (1, slice(1, 3), slice(None, None, 3)),
                (slice(-2, None),), (slice(None, None, 2), 0, slice(1, None, 2))]:
        np.testing.assert_array_equal(N(x[idx]), a[idx], err_msg=str(idx))
        assert x[idx].shape == a[idx].shape, idx


def test_getitem_basic_returns_views():
    x = ea.arange(12).reshape(3, 4)
    x[1][2] = 100
    x[:, 0][0] = -1
    x[..., 3][2] = 55
    assert x[1, 2].item() == 100 and x[0, 0].item() == -1 and x[2, 3].item() == 55


def test_getitem_advanced():
    a = np.arange(24).reshape(4, 6)
    x = ea.tensor(a)
    np.testing.assert_array_equal(N(x[[0, 2]]), a[[0, 2]])
    np.testing.assert_array_equal(N(x[[0, 2], [1, 3]]), a[[0, 2], [1, 3]])
    np.testing.assert_array_equal(N(x[:, [5, 0, 0]]), a[:, [5, 0, 0]])
    np.testing.assert_array_equal(N(x[ea.tensor([3, 1])]), a[[3, 1]])
    np.testing.assert_array_equal(N(x[ea.tensor([[0], [1]]), ea.tensor([2, 3])]), a[[[0], [1]], [2, 3]])
    mask = a % 5 == 0
    np.testing.assert_array_equal(N(x[ea.tensor(mask)]), a[mask])
    rmask = np.array([True, False, True, False])
    np.testing.assert_array_equal(N(x[ea.tensor(rmask)]), a[rmask])
    np.testing.assert_array_equal(N(x[x > 20]), a[a > 20])
    np.testing.assert_array_equal(N(x[ea.tensor(2)]), a[2])
    assert x[ea.tensor(2)].shape == (6,)
    assert x[ea.tensor(1), ea.tensor(2)].item() == a[1, 2]
    np.testing.assert_array_equal(N(x[[-1, -2]]), a[[-1, -2]])
    np.testing.assert_array_equal(N(x[1:, [0, 1]]), a[1:, [0, 1]])
    adv = x[[0, 1]]
    adv[0, 0] = -100
    assert x[0, 0].item() == 0   # advanced indexing copies


def test_getitem_out_of_range_raises_index_error():
    x = ea.zeros(3, 4)
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, -5]
    with pytest.raises(IndexError):
        x[[0, 5]]
    with pytest.raises(IndexError):
        x[0, 0, 0]


def test_setitem_forms():
    a = np.zeros((3, 4))
    x = ea.zeros(3, 4, dtype=ea.float64)

    def both(idx, val):
        a[idx] = val
        x[idx] = ea.tensor(val) if isinstance(val, np.ndarray) else val
        np.testing.assert_array_equal(N(x), a, err_msg=str(idx))

    both(0, 1.0)
    both((1, 2), 5.0)
    both((slice(None), 0), np.array([7.0, 8.0, 9.0]))
    both((slice(None, None, 2), slice(1, 3)), 3.0)
    both((Ellipsis, 3), 4.0)
    both([0, 2], np.array([1.0, 2.0, 3.0, 4.0]))
    both(([0, 1], [3, 3]), np.array([-1.0, -2.0]))
    both(a > 3, 0.5)
    both(2, np.array([[6.0, 6.0, 6.0, 6.0]])[0])
    x[ea.tensor(1)] = 11.0
    a[1] = 11.0
    np.testing.assert_array_equal(N(x), a)
    x[ea.tensor([True, False, True])] = -3.0
    a[[True, False, True]] = -3.0
    np.testing.assert_array_equal(N(x), a)
    x[x < 0] = ea.tensor(0.0, dtype=ea.float64)
    a[a < 0] = 0.0
    np.testing.assert_array_equal(N(x), a)
    x[None, 0] = 1.0
    a[None, 0] = 1.0
    np.testing.assert_array_equal(N(x), a)
    x[:, ea.tensor([0, 2])] = ea.tensor([[1.0, 2.0]], dtype=ea.float64)
    a[:, [0, 2]] = [[1.0, 2.0]]
    np.testing.assert_array_equal(N(x), a)


def test_setitem_casts_value_to_the_tensor_dtype():
    x = ea.zeros(3, dtype=ea.int64)
    x[0] = 2.7
    x[1:] = ea.tensor([1.9, -1.9])
    assert x.dtype is ea.int64 and x.tolist() == [2, 1, -1]


def test_setitem_is_differentiable():
    x = t64([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[1] = 0.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 1.0]
    w = t64([2.0], requires_grad=True)
    z = ea.zeros(3, dtype=ea.float64)
    z[1:2] = w * 3
    z.sum().backward()
    assert w.grad.tolist() == [3.0]


def test_getitem_backward_scatters():
    x = t64(np.arange(6.0).reshape(2, 3), requires_grad=True)
    (x[0, ::2].sum() + x[[1, 1], [0, 0]].sum() + x[x > 4].sum()).backward()
    assert x.grad.tolist() == [[1.0, 0.0, 1.0], [2.0, 0.0, 1.0]]


def test_len_float_int_bool():
    x = ea.zeros(4, 2)
    assert len(x) == 4
    with pytest.raises(TypeError):
        len(ea.tensor(1.0))
    assert float(ea.tensor([2.5])) == 2.5 and type(float(ea.tensor(2))) is float
    assert int(ea.tensor(3.9)) == 3 and type(int(ea.tensor([7]))) is int
    assert bool(ea.tensor([1])) is True and bool(ea.tensor(0.0)) is False
    with pytest.raises(RuntimeError):
        bool(ea.tensor([1, 2]))
    with pytest.raises((RuntimeError, ValueError, TypeError)):
        float(ea.ones(2))
    assert [1, 2, 3][ea.tensor(1)] == 2   # __index__
    assert math.isclose(math.exp(ea.tensor(1.0)), math.e, rel_tol=1e-6)
    if ea.tensor([0.0]):
        pytest.fail("a zero tensor is falsy")


def test_iteration_over_first_dim():
    x = ea.arange(6).reshape(3, 2)
    rows = list(x)
    assert len(rows) == 3 and all(isinstance(r, ea.Tensor) for r in rows)
    assert rows[1].tolist() == [2, 3]
    assert [int(v) for v in ea.tensor([4, 5])] == [4, 5]


def test_isinstance_tensor_and_parameter():
    x = ea.ones(2)
    assert isinstance(x, ea.Tensor)
    assert isinstance(x * 2, ea.Tensor)
    p = nn.Parameter(ea.ones(2))
    assert isinstance(p, ea.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert not isinstance(x, nn.Parameter)
    assert not isinstance(p * 2, nn.Parameter)
    q = nn.Parameter(ea.ones(2), requires_grad=False)
    assert not q.requires_grad
    assert not nn.Parameter(ea.ones(2)).detach().requires_grad


def test_tensor_str_repr_mention_values():
    r = repr(ea.tensor([1.5, 2.0]))
    assert "tensor(" in r and "1.5" in r
    assert "requires_grad=True" in repr(ea.ones(1, requires_grad=True))
    assert "grad_fn=" in repr(ea.ones(1, requires_grad=True) * 2)


def test_array_protocol():
    x = ea.tensor([[1.0, 2.0]])
    a = np.asarray(x)
    assert a.dtype == np.float32 and a.tolist() == [[1.0, 2.0]]
    assert np.array(ea.tensor([1, 2])).dtype == np.int64


def test_numpy_scalar_and_array_operands():
    x = ea.tensor([1.0, 2.0])
    assert (x * np.float32(2.0)).tolist() == [2.0, 4.0]
    assert isinstance(x * np.float64(2.0), ea.Tensor)
    assert (x + np.int64(1)).dtype is ea.float32


def test_tensor_is_not_hashable_by_value_but_by_identity():
    a, b = ea.ones(1), ea.ones(1)
    d = {a: 1, b: 2}
    assert len(d) == 2 and d[a] == 1


# ---------------------------------------------------------------------------------------------
# torch comparisons (run the same code with torch and ember)
# ---------------------------------------------------------------------------------------------

TORCH_CASES = {
    "creation": lambda t: [t.tensor([1, 2]), t.tensor([1.5]), t.zeros(2, 3), t.ones((2,), dtype=t.float64),
                           t.full((2,), 3), t.arange(5), t.arange(0, 1, 0.25), t.linspace(0, 1, 5),
                           t.zeros_like(t.tensor([1, 2], dtype=t.int32)), t.full_like(t.ones(2), 4.0)],
    "reductions": lambda t: [t.arange(12.0).reshape(3, 4).sum(1), t.arange(12.0).reshape(3, 4).mean(0, keepdim=True),
                             t.arange(12.0).reshape(3, 4).std(1), t.arange(12.0).reshape(3, 4).var(1, unbiased=False),
                             t.tensor([[1, 5, 3], [7, 2, 7]]).max(1), t.tensor([[1, 5, 3], [7, 2, 7]]).min(dim=0),
                             t.arange(6).sum(), t.tensor([1, 2], dtype=t.int32).sum()],
    "operators": lambda t: [t.tensor([-7, 7]) // 2, t.tensor([-7, 7]) % 3, t.tensor([-7.5, 7.5]) % 2,
                            t.tensor([1, 2]) / 2, t.tensor([2, 3]) ** 2, 2 ** t.tensor([1.0, 2.0]),
                            t.tensor([1, 2]) + 1.5, t.tensor([True]) + 1, -t.tensor([1, 2]),
                            t.tensor([1.0]) + t.tensor(1.0, dtype=t.float64)],
    "indexing": lambda t: [t.arange(24).reshape(2, 3, 4)[..., 1], t.arange(24).reshape(2, 3, 4)[None, 1, ::2],
                           t.arange(24).reshape(4, 6)[[0, 2], [1, 3]], t.arange(24).reshape(4, 6)[t.tensor(2)],
                           t.arange(24).reshape(4, 6)[t.arange(24).reshape(4, 6) > 20],
                           t.arange(24).reshape(4, 6)[1:, [0, 1]]],
    "shape_ops": lambda t: [t.arange(10).chunk(3), t.arange(6).reshape(2, 3).t(), t.zeros(1, 3, 1).squeeze(),
                            t.arange(3).repeat_interleave(2), t.tensor([[1, 2], [3, 4]]).repeat(2, 1),
                            t.cat([t.ones(2), t.zeros(1)]), t.stack([t.ones(2), t.zeros(2)], dim=1),
                            t.flatten(t.ones(2, 3, 4), 1), t.arange(6).reshape(2, 3).permute(1, 0)],
    "math": lambda t: [t.exp(t.tensor([0.5, 1.0])), t.log1p(t.tensor([0.5])), t.sigmoid(t.tensor([-1.0, 2.0])),
                       t.softmax(t.tensor([[1.0, 2.0, 3.0]]), dim=1), t.log_softmax(t.tensor([[1.0, 2.0]]), 1),
                       t.isfinite(t.tensor([1.0, float("inf")])), t.maximum(t.tensor([1, 4]), t.tensor([2, 3])),
                       t.sqrt(t.tensor([4, 9])), t.relu(t.tensor([-1, 2])), t.all(t.tensor([1, 0]))],
    "bools": lambda t: [t.equal(t.ones(2), t.ones(2)), t.allclose(t.ones(2), t.ones(2) + 1e-9),
                        t.tensor([3]).item(), t.tensor(2.5).item(), t.tensor([[1, 2]]).tolist(),
                        t.ones(2, 3).size(), t.ones(2, 3).dim(), t.ones(2, 3).numel(), t.ones(2).is_contiguous()],
}


@pytest.mark.torch
@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_same_results_as_torch(case):
    compare_with_torch(TORCH_CASES[case])


def _grad_program(t):
    x = t.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=t.float64, requires_grad=True)
    w = t.tensor([[1.0, 2.0], [0.5, -1.0], [0.25, 0.75]], dtype=t.float64, requires_grad=True)
    y = t.tanh(x @ w).sigmoid() * x[:, :2].exp()
    z = t.log_softmax(y, dim=1)[:, 0].sum() + (x.clamp(min=0) ** 2).mean() + x.max(dim=1).values.sum()
    z = z + x.var(1).sum() + x.abs().sum() + x.gather(1, t.tensor([[2], [0]])).sum()
    z.backward()
    (g,) = t.autograd.grad((w ** 3).sum(), w, create_graph=True)
    (h,) = t.autograd.grad(g.sum(), w)
    return [z, x.grad, w.grad, g, h]


@pytest.mark.torch
def test_gradients_match_torch():
    compare_with_torch(_grad_program, rtol=1e-10, atol=1e-12)


@pytest.mark.torch
def test_generator_semantics_match_torch():
    def prog(t):
        g = t.Generator().manual_seed(0)
        a = t.randn(4, generator=g)
        g.manual_seed(0)
        b = t.randn(4, generator=g)
        return [t.equal(a, b), a.dtype == t.float32, t.randperm(5, generator=g).sort().values]
    compare_with_torch(prog)


# ---------------------------------------------------------------------------------------------
# torch.nn: layers
# ---------------------------------------------------------------------------------------------

def P(t) -> np.ndarray:
    """A parameter's values as float64 numpy."""
    return N(t).astype(np.float64)


def test_linear_attributes_init_and_forward():
    ea.manual_seed(0)
    m = nn.Linear(5, 3)
    assert m.in_features == 5 and m.out_features == 3
    assert isinstance(m.weight, nn.Parameter) and m.weight.shape == (3, 5) and m.bias.shape == (3,)
    assert m.weight.dtype is ea.float32 and m.weight.requires_grad
    bound = 1 / math.sqrt(5)
    assert np.abs(P(m.weight)).max() <= bound + 1e-6 and np.abs(P(m.bias)).max() <= bound + 1e-6
    a = rand(4, 5)
    y = m(ea.tensor(a))
    assert y.shape == (4, 3) and y.requires_grad
    close(y, a.astype(np.float64) @ P(m.weight).T + P(m.bias), rtol=1e-5, atol=1e-6)
    assert m(ea.tensor(rand(2, 7, 5))).shape == (2, 7, 3)
    nb = nn.Linear(5, 3, bias=False)
    assert nb.bias is None and [n for n, _ in nb.named_parameters()] == ["weight"]
    with pytest.raises(RuntimeError):
        m(ea.zeros(4, 6))


def test_linear_backward_values():
    m = nn.Linear(3, 2).double()
    a = rand(4, 3).astype(np.float64)
    m(ea.tensor(a)).sum().backward()
    close(m.weight.grad, np.ones((2, 4)) @ a, rtol=1e-10)
    close(m.bias.grad, np.full(2, 4.0), rtol=1e-10)


def conv2d_ref(x, w, b, stride=1, padding=0):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (h + 2 * padding - kh) // stride + 1
    ow = (wd + 2 * padding - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out + (b[None, :, None, None] if b is not None else 0)


def test_conv2d_padding_stride_values_and_attributes():
    ea.manual_seed(0)
    m = nn.Conv2d(3, 4, kernel_size=3, padding=1)
    assert m.weight.shape == (4, 3, 3, 3) and m.bias.shape == (4,)
    assert m.in_channels == 3 and m.out_channels == 4 and m.kernel_size == (3, 3)
    assert m.padding == (1, 1) and m.stride == (1, 1)
    a = rand(2, 3, 6, 5)
    y = m(ea.tensor(a))
    assert y.shape == (2, 4, 6, 5)
    close(y, conv2d_ref(a.astype(np.float64), P(m.weight), P(m.bias), padding=1), rtol=1e-4, atol=1e-5)
    s = nn.Conv2d(3, 2, 3, stride=2, padding=1, bias=False)
    assert s.bias is None
    ys = s(ea.tensor(a))
    assert ys.shape == (2, 2, 3, 3)
    close(ys, conv2d_ref(a.astype(np.float64), P(s.weight), None, stride=2, padding=1), rtol=1e-4, atol=1e-5)
    assert nn.Conv2d(3, 2, (3, 1), padding=(1, 0))(ea.tensor(a)).shape == (2, 2, 6, 5)
    assert nn.Conv2d(3, 2, 5, padding="same")(ea.tensor(a)).shape == (2, 2, 6, 5)
    assert nn.Conv2d(3, 2, 3, padding="valid")(ea.tensor(a)).shape == (2, 2, 4, 3)
    fan_in_bound = 1 / math.sqrt(3 * 9)
    assert np.abs(P(m.weight)).max() <= fan_in_bound + 1e-6


def test_conv2d_backward_matches_finite_differences():
    m = nn.Conv2d(2, 3, 3, padding=1).double()
    a = rand(1, 2, 4, 4).astype(np.float64)
    x = ea.tensor(a, requires_grad=True)
    r = rand(1, 3, 4, 4).astype(np.float64)
    (m(x) * ea.tensor(r)).sum().backward()
    w, b = P(m.weight), P(m.bias)
    f = lambda aa: (conv2d_ref(aa, w, b, padding=1) * r).sum()
    eps = 1e-6
    num = np.zeros_like(a)
    for idx in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[idx] = eps
        num[idx] = (f(a + d) - f(a - d)) / (2 * eps)
    close(x.grad, num, rtol=1e-6, atol=1e-8)
    close(m.bias.grad, r.sum((0, 2, 3)), rtol=1e-10)


def test_maxpool2d():
    a = rand(2, 3, 6, 6)
    y = nn.MaxPool2d(2)(ea.tensor(a))
    assert y.shape == (2, 3, 3, 3)
    np.testing.assert_array_equal(N(y), a.reshape(2, 3, 3, 2, 3, 2).max((3, 5)))
    p = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
    assert p(ea.tensor(a)).shape == (2, 3, 3, 3)
    assert p.kernel_size == 3 and p.stride == 2 and p.padding == 1
    assert nn.MaxPool2d(2)(ea.tensor(rand(1, 1, 5, 5))).shape == (1, 1, 2, 2)
    x = t64([[[[1.0, 2.0], [4.0, 3.0]]]], requires_grad=True)
    nn.MaxPool2d(2)(x).sum().backward()
    assert x.grad.tolist() == [[[[0.0, 0.0], [1.0, 0.0]]]]


def test_batchnorm2d_train_eval_and_running_stats():
    bn = nn.BatchNorm2d(3)
    assert bn.eps == 1e-5 and bn.momentum == 0.1 and bn.num_features == 3
    assert bn.running_mean.tolist() == [0.0, 0.0, 0.0] and bn.running_var.tolist() == [1.0, 1.0, 1.0]
    assert bn.weight.tolist() == [1.0, 1.0, 1.0] and bn.bias.tolist() == [0.0, 0.0, 0.0]
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype is ea.int64
    assert bn.training
    a = rand(4, 3, 5, 5, low=0, high=4).astype(np.float64)
    y = bn(ea.tensor(a.astype(np.float32)))
    mean = a.mean((0, 2, 3))
    var = a.var((0, 2, 3))
    ref = (a - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    close(y, ref, rtol=1e-4, atol=1e-4)
    close(bn.running_mean, 0.1 * mean, rtol=1e-5, atol=1e-6)
    n = 4 * 25
    close(bn.running_var, 0.9 + 0.1 * var * n / (n - 1), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    y2 = bn(ea.tensor(a.astype(np.float32)))
    rm, rv = P(bn.running_mean), P(bn.running_var)
    close(y2, (a - rm[None, :, None, None]) / np.sqrt(rv[None, :, None, None] + 1e-5), rtol=1e-4, atol=1e-4)
    assert bn.num_batches_tracked.item() == 1
    assert P(bn.running_mean).tolist() == pytest.approx(rm.tolist())


def test_batchnorm1d_2d_and_3d_inputs_and_options():
    bn = nn.BatchNorm1d(4)
    a = rand(8, 4).astype(np.float64)
    y = bn(ea.tensor(a.astype(np.float32)))
    close(y, (a - a.mean(0)) / np.sqrt(a.var(0) + 1e-5), rtol=1e-4, atol=1e-4)
    b3 = rand(8, 4, 6).astype(np.float64)
    y3 = nn.BatchNorm1d(4)(ea.tensor(b3.astype(np.float32)))
    m, v = b3.mean((0, 2)), b3.var((0, 2))
    close(y3, (b3 - m[None, :, None]) / np.sqrt(v[None, :, None] + 1e-5), rtol=1e-4, atol=1e-4)
    na = nn.BatchNorm1d(4, affine=False, momentum=0.5, eps=1e-3)
    assert na.weight is None and na.bias is None and na.momentum == 0.5 and na.eps == 1e-3
    nt = nn.BatchNorm1d(4, track_running_stats=False)
    assert nt.running_mean is None
    with pytest.raises(ValueError):
        nn.BatchNorm1d(4)(ea.ones(1, 4))


def test_batchnorm_backward_matches_numpy():
    bn = nn.BatchNorm1d(3).double()
    a = rand(5, 3).astype(np.float64)
    r = rand(5, 3).astype(np.float64)
    x = ea.tensor(a, requires_grad=True)
    (bn(x) * ea.tensor(r)).sum().backward()
    mu, var = a.mean(0), a.var(0)
    xhat = (a - mu) / np.sqrt(var + 1e-5)
    n = 5
    gx = (1 / np.sqrt(var + 1e-5)) / n * (n * r - r.sum(0) - xhat * (r * xhat).sum(0))
    close(x.grad, gx, rtol=1e-8, atol=1e-10)
    close(bn.weight.grad, (r * xhat).sum(0), rtol=1e-8)
    close(bn.bias.grad, r.sum(0), rtol=1e-10)


def test_dropout_train_and_eval():
    d = nn.Dropout(p=0.5)
    assert d.p == 0.5 and nn.Dropout().p == 0.5
    x = ea.ones(200, 100)
    ea.manual_seed(0)
    y = N(d(x))
    assert set(np.unique(y).tolist()) <= {0.0, 2.0}
    assert 0.45 < (y == 0).mean() < 0.55
    d.eval()
    assert ea.equal(d(x), x)
    assert ea.equal(nn.Dropout(0.0)(x), x)
    assert N(nn.Dropout(1.0)(x)).max() == 0
    with pytest.raises(ValueError):
        nn.Dropout(1.5)
    g = ea.ones(1000, requires_grad=True)
    out = nn.Dropout(0.25)(g)
    out.sum().backward()
    np.testing.assert_allclose(N(g.grad), N(out.detach()))


@pytest.mark.parametrize("name, ref", [
    ("ReLU", lambda a: np.maximum(a, 0)),
    ("LeakyReLU", lambda a: np.where(a > 0, a, 0.01 * a)),
    ("Sigmoid", lambda a: 1 / (1 + np.exp(-a))),
    ("Tanh", np.tanh),
])
def test_activation_modules(name, ref):
    a = rand(3, 4, low=-3, high=3)
    close(getattr(nn, name)()(ea.tensor(a)), ref(a.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_leaky_relu_slope_and_inplace_relu():
    m = nn.LeakyReLU(0.2)
    assert m.negative_slope == 0.2 and nn.LeakyReLU().negative_slope == 0.01
    close(m(ea.tensor([-1.0, 2.0])), [-0.2, 2.0])
    x = ea.tensor([-1.0, 1.0])
    nn.ReLU(inplace=True)(x)
    assert x.tolist() == [0.0, 1.0]


def test_softmax_logsoftmax_modules():
    a = rand(2, 5)
    e = np.exp(a.astype(np.float64))
    sm = e / e.sum(1, keepdims=True)
    close(nn.Softmax(dim=1)(ea.tensor(a)), sm, rtol=1e-5)
    close(nn.LogSoftmax(dim=1)(ea.tensor(a)), np.log(sm), rtol=1e-5, atol=1e-6)
    assert nn.Softmax(dim=-1).dim == -1
    close(nn.Softmax(0)(ea.tensor(a)), e / e.sum(0), rtol=1e-5)


def test_embedding_lookup_grad_and_padding_idx():
    ea.manual_seed(0)
    e = nn.Embedding(10, 4)
    assert e.num_embeddings == 10 and e.embedding_dim == 4 and e.weight.shape == (10, 4)
    idx = ea.tensor([[1, 2, 1], [9, 0, 0]])
    y = e(idx)
    assert y.shape == (2, 3, 4)
    np.testing.assert_array_equal(N(y), N(e.weight)[N(idx)])
    y.sum().backward()
    g = N(e.weight.grad)
    assert g[1].tolist() == [2.0] * 4 and g[0].tolist() == [2.0] * 4 and g[3].tolist() == [0.0] * 4
    pe = nn.Embedding(5, 2, padding_idx=0)
    assert pe.padding_idx == 0 and pe.weight[0].tolist() == [0.0, 0.0]
    pe(ea.tensor([0, 1, 0])).sum().backward()
    assert pe.weight.grad[0].tolist() == [0.0, 0.0] and pe.weight.grad[1].tolist() == [1.0, 1.0]
    with pytest.raises(IndexError):
        e(ea.tensor([10]))


def test_embedding_from_pretrained():
    w = ea.tensor([[1.0, 2.0], [3.0, 4.0]])
    e = nn.Embedding.from_pretrained(w)
    assert e.num_embeddings == 2 and e.embedding_dim == 2
    assert not e.weight.requires_grad and isinstance(e.weight, nn.Parameter)
    assert e(ea.tensor([1, 0])).tolist() == [[3.0, 4.0], [1.0, 2.0]]
    t = nn.Embedding.from_pretrained(w, freeze=False)
    assert t.weight.requires_grad
    p = nn.Embedding.from_pretrained(w, padding_idx=1)
    assert p.padding_idx == 1


def lstm_ref(x, weights, num_layers, hidden, h0=None, c0=None):
    """batch_first LSTM in float64 numpy; weights[l] = (W_ih, W_hh, b_ih, b_hh)."""
    sig = lambda z: 1 / (1 + np.exp(-z))
    n, length, _ = x.shape
    inp = x
    hs, cs = [], []
    for layer in range(num_layers):
        w_ih, w_hh, b_ih, b_hh = weights[layer]
        h = np.zeros((n, hidden)) if h0 is None else h0[layer]
        c = np.zeros((n, hidden)) if c0 is None else c0[layer]
        outs = []
        for t in range(length):
            g = inp[:, t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh
            i, f, gg, o = np.split(g, 4, axis=1)
            c = sig(f) * c + sig(i) * np.tanh(gg)
            h = sig(o) * np.tanh(c)
            outs.append(h)
        inp = np.stack(outs, 1)
        hs.append(h)
        cs.append(c)
    return inp, np.stack(hs), np.stack(cs)


def test_lstm_batch_first_two_layers_values_and_attributes():
    ea.manual_seed(0)
    m = nn.LSTM(input_size=3, hidden_size=4, num_layers=2, batch_first=True)
    assert m.input_size == 3 and m.hidden_size == 4 and m.num_layers == 2 and m.batch_first
    assert m.weight_ih_l0.shape == (16, 3) and m.weight_hh_l0.shape == (16, 4)
    assert m.bias_ih_l0.shape == (16,) and m.bias_hh_l0.shape == (16,)
    assert m.weight_ih_l1.shape == (16, 4)
    names = [n for n, _ in m.named_parameters()]
    assert names == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                     "weight_ih_l1", "weight_hh_l1", "bias_ih_l1", "bias_hh_l1"]
    bound = 1 / math.sqrt(4)
    assert all(np.abs(P(p)).max() <= bound + 1e-6 for p in m.parameters())
    a = rand(2, 5, 3).astype(np.float64)
    out, (h, c) = m(ea.tensor(a.astype(np.float32)))
    assert out.shape == (2, 5, 4) and h.shape == (2, 2, 4) and c.shape == (2, 2, 4)
    weights = [tuple(P(getattr(m, f"{k}_l{l}")) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))
               for l in range(2)]
    ro, rh, rc = lstm_ref(a, weights, 2, 4)
    close(out, ro, rtol=1e-4, atol=1e-5)
    close(h, rh, rtol=1e-4, atol=1e-5)
    close(c, rc, rtol=1e-4, atol=1e-5)
    h0 = rand(2, 2, 4).astype(np.float64)
    c0 = rand(2, 2, 4).astype(np.float64)
    out2, (h2, c2) = m(ea.tensor(a.astype(np.float32)), (ea.tensor(h0.astype(np.float32)),
                                                         ea.tensor(c0.astype(np.float32))))
    close(out2, lstm_ref(a, weights, 2, 4, h0, c0)[0], rtol=1e-4, atol=1e-5)


def test_lstm_seq_first_default_and_backward():
    m = nn.LSTM(3, 2).double()
    assert not m.batch_first and m.num_layers == 1 and m.bias
    a = rand(4, 2, 3).astype(np.float64)   # (L, N, H_in)
    x = ea.tensor(a, requires_grad=True)
    out, (h, c) = m(x)
    assert out.shape == (4, 2, 2) and h.shape == (1, 2, 2)
    weights = [tuple(P(getattr(m, f"{k}_l0")) for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"))]
    close(out, lstm_ref(a.transpose(1, 0, 2), weights, 1, 2)[0].transpose(1, 0, 2), rtol=1e-10)
    out.sum().backward()
    assert x.grad.shape == (4, 2, 3) and m.weight_hh_l0.grad.shape == (8, 2)
    f = lambda aa: lstm_ref(aa.transpose(1, 0, 2), weights, 1, 2)[0].sum()
    eps = 1e-6
    d = np.zeros_like(a)
    d[1, 0, 2] = eps
    close(x.grad[1, 0, 2], (f(a + d) - f(a - d)) / (2 * eps), rtol=1e-5)


def test_sequential_positional_and_ordered_dict():
    s = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    assert len(s) == 3 and isinstance(s[0], nn.Linear) and isinstance(s[-1], nn.Linear)
    assert [n for n, _ in s.named_children()] == ["0", "1", "2"]
    sub = s[1:]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2
    assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Linear"]
    x = ea.tensor(rand(5, 4))
    assert ea.allclose(s(x), s[2](s[1](s[0](x))))
    od = nn.Sequential(collections.OrderedDict([("fc", nn.Linear(4, 2)), ("act", nn.Tanh())]))
    assert isinstance(od.fc, nn.Linear) and isinstance(od.act, nn.Tanh)
    assert [n for n, _ in od.named_parameters()] == ["fc.weight", "fc.bias"]
    assert od(x).shape == (5, 2)
    s.append(nn.Sigmoid())
    assert len(s) == 4
    assert [n for n, _ in s.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_module_list():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
    ml.append(nn.Linear(2, 3))
    assert len(ml) == 3 and isinstance(ml[2], nn.Linear) and ml[-1].out_features == 3
    assert [m.out_features for m in ml] == [2, 2, 3]
    ml.extend([nn.ReLU()])
    assert len(ml) == 4

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = ml

    assert len(list(Net().parameters())) == 6
    assert [n for n, _ in Net().named_parameters()][:2] == ["layers.0.weight", "layers.0.bias"]
    assert isinstance(ml[1:], nn.ModuleList)


def test_module_dict():
    md = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    assert "a" in md and "c" not in md and list(md.keys()) == ["a", "b"]
    assert isinstance(md["a"], nn.Linear) and len(md) == 2
    md["c"] = nn.Tanh()
    assert list(md) == ["a", "b", "c"]
    assert [k for k, _ in md.items()] == ["a", "b", "c"] and len(list(md.values())) == 3
    assert len(list(md.parameters())) == 2


# ---------------------------------------------------------------------------------------------
# losses (modules and functional)
# ---------------------------------------------------------------------------------------------

def log_softmax_ref(a, axis=1):
    a = a.astype(np.float64)
    m = a.max(axis, keepdims=True)
    return a - m - np.log(np.exp(a - m).sum(axis, keepdims=True))


def test_cross_entropy_reductions_and_ignore_index():
    a = rand(6, 4, low=-2, high=2)
    tgt = np.array([0, 3, 1, 1, -100, 2])
    lp = log_softmax_ref(a)
    valid = tgt != -100
    per = np.where(valid, -lp[np.arange(6), np.where(valid, tgt, 0)], 0.0)
    x, t = ea.tensor(a), ea.tensor(tgt)
    loss = nn.CrossEntropyLoss()(x, t)
    assert loss.shape == () and loss.dtype is ea.float32
    close(loss, per.sum() / valid.sum(), rtol=1e-5)
    close(F.cross_entropy(x, t, reduction="sum"), per.sum(), rtol=1e-5)
    close(F.cross_entropy(x, t, reduction="none"), per, rtol=1e-5, atol=1e-6)
    close(nn.CrossEntropyLoss(ignore_index=1)(x, ea.tensor([0, 3, 1, 1, 2, 2])),
          -(lp[0, 0] + lp[1, 3] + lp[4, 2] + lp[5, 2]) / 4, rtol=1e-5)
    assert nn.CrossEntropyLoss().ignore_index == -100 and nn.CrossEntropyLoss().reduction == "mean"
    w = np.array([1.0, 2.0, 0.5, 1.0])
    tw = np.array([0, 3, 1, 1, 2, 2])
    pw = -lp[np.arange(6), tw] * w[tw]
    close(F.cross_entropy(x, ea.tensor(tw), weight=ea.tensor(w.astype(np.float32))), pw.sum() / w[tw].sum(),
          rtol=1e-5)


def test_cross_entropy_with_spatial_dims_and_grad():
    a = rand(2, 3, 4, 5, low=-2, high=2).astype(np.float64)
    tgt = RNG.integers(0, 3, size=(2, 4, 5))
    lp = log_softmax_ref(a, axis=1)
    per = -np.take_along_axis(lp, tgt[:, None], 1)[:, 0]
    x = ea.tensor(a, requires_grad=True)
    loss = F.cross_entropy(x, ea.tensor(tgt))
    close(loss, per.mean(), rtol=1e-10)
    assert F.cross_entropy(x, ea.tensor(tgt), reduction="none").shape == (2, 4, 5)
    loss.backward()
    sm = np.exp(lp)
    onehot = np.moveaxis(np.eye(3)[tgt], -1, 1)
    close(x.grad, (sm - onehot) / per.size, rtol=1e-8, atol=1e-12)
    with pytest.raises((IndexError, RuntimeError)):
        F.cross_entropy(ea.tensor(rand(2, 3)), ea.tensor([0, 3]))


def test_nll_loss():
    a = log_softmax_ref(rand(5, 3))
    tgt = np.array([2, 0, 1, 1, 0])
    close(F.nll_loss(ea.tensor(a), ea.tensor(tgt)), -a[np.arange(5), tgt].mean(), rtol=1e-10)
    close(nn.NLLLoss(reduction="sum")(ea.tensor(a), ea.tensor(tgt)), -a[np.arange(5), tgt].sum(), rtol=1e-10)
    close(nn.NLLLoss()(ea.tensor(a), ea.tensor([2, 0, -100, 1, 0])),
          -(a[0, 2] + a[1, 0] + a[3, 1] + a[4, 0]) / 4, rtol=1e-10)


def test_mse_and_l1_loss():
    a, b = rand(4, 3), rand(4, 3)
    d = a.astype(np.float64) - b
    close(nn.MSELoss()(ea.tensor(a), ea.tensor(b)), (d ** 2).mean(), rtol=1e-5)
    close(F.mse_loss(ea.tensor(a), ea.tensor(b), reduction="sum"), (d ** 2).sum(), rtol=1e-5)
    close(F.mse_loss(ea.tensor(a), ea.tensor(b), reduction="none"), d ** 2, rtol=1e-5)
    close(F.l1_loss(ea.tensor(a), ea.tensor(b)), np.abs(d).mean(), rtol=1e-5)
    close(F.l1_loss(ea.tensor(a), ea.tensor(b), reduction="sum"), np.abs(d).sum(), rtol=1e-5)
    x = t64(a, requires_grad=True)
    F.mse_loss(x, t64(b)).backward()
    close(x.grad, 2 * d / d.size, rtol=1e-6)


def test_bce_and_bce_with_logits():
    p = rand(6, low=0.05, high=0.95).astype(np.float64)
    y = (RNG.uniform(size=6) > 0.5).astype(np.float64)
    ref = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    close(nn.BCELoss()(t64(p), t64(y)), ref.mean(), rtol=1e-10)
    close(F.binary_cross_entropy(t64(p), t64(y), reduction="none"), ref, rtol=1e-10)
    z = rand(6, low=-30, high=30).astype(np.float64)
    refz = np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z)))
    close(nn.BCEWithLogitsLoss()(t64(z), t64(y)), refz.mean(), rtol=1e-10)
    close(F.binary_cross_entropy_with_logits(t64(z), t64(y), reduction="sum"), refz.sum(), rtol=1e-10)
    pw = np.array([2.0])
    refw = (1 - y) * z + (1 + (pw - 1) * y) * (np.log1p(np.exp(-np.abs(z))) + np.maximum(-z, 0))
    close(nn.BCEWithLogitsLoss(pos_weight=t64(pw))(t64(z), t64(y)), refw.mean(), rtol=1e-10)
    assert math.isfinite(F.binary_cross_entropy(t64([0.0, 1.0]), t64([1.0, 0.0])).item())
    with pytest.raises((ValueError, RuntimeError)):
        F.binary_cross_entropy(t64([1.5]), t64([1.0]))


# ---------------------------------------------------------------------------------------------
# torch.nn.functional (the rest)
# ---------------------------------------------------------------------------------------------

def test_functional_relu_softmax_log_softmax():
    a = rand(3, 4, low=-2, high=2)
    close(F.relu(ea.tensor(a)), np.maximum(a, 0))
    x = ea.tensor([-1.0, 1.0])
    F.relu(x, inplace=True)
    assert x.tolist() == [0.0, 1.0]
    e = np.exp(a.astype(np.float64))
    close(F.softmax(ea.tensor(a), dim=1), e / e.sum(1, keepdims=True), rtol=1e-5)
    close(F.log_softmax(ea.tensor(a), dim=0), log_softmax_ref(a, 0), rtol=1e-5, atol=1e-6)


def test_functional_dropout_training_default_is_true():
    x = ea.ones(10000)
    y = N(F.dropout(x))
    assert set(np.unique(y).tolist()) == {0.0, 2.0}
    assert ea.equal(F.dropout(x, p=0.3, training=False), x)
    y2 = N(F.dropout(x, 0.2))
    assert set(np.unique(y2).tolist()) == {0.0, np.float32(1 / 0.8)}


def test_one_hot():
    y = F.one_hot(ea.tensor([0, 2, 1]))
    assert y.dtype is ea.int64 and y.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(ea.tensor([1]), num_classes=4).tolist() == [[0, 1, 0, 0]]
    assert F.one_hot(ea.tensor([[0, 1]]), 3).shape == (1, 2, 3)
    with pytest.raises(RuntimeError):
        F.one_hot(ea.tensor([3]), num_classes=2)


# ---------------------------------------------------------------------------------------------
# torch.nn.init
# ---------------------------------------------------------------------------------------------

def test_calculate_gain():
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("selu") == pytest.approx(0.75)
    with pytest.raises(ValueError):
        init.calculate_gain("nope")


def test_init_functions_work_in_place_without_recording_grad():
    w = nn.Parameter(ea.empty(300, 200))
    for fn in (lambda: init.kaiming_uniform_(w), lambda: init.kaiming_normal_(w), lambda: init.xavier_uniform_(w),
               lambda: init.xavier_normal_(w), lambda: init.normal_(w), lambda: init.uniform_(w),
               lambda: init.constant_(w, 0.5), lambda: init.zeros_(w), lambda: init.ones_(w)):
        r = fn()
        assert r is w and w.is_leaf and w.requires_grad and w.grad_fn is None and isinstance(w, nn.Parameter)


def test_kaiming_uniform_and_normal_scales():
    w = ea.empty(256, 128, 3, 3)   # fan_in = 1152, fan_out = 2304
    init.kaiming_uniform_(w)
    bound = math.sqrt(2) * math.sqrt(3 / 1152)
    v = N(w)
    assert np.abs(v).max() <= bound * (1 + 1e-6) and np.abs(v).max() > 0.99 * bound
    assert abs(v.std() - bound / math.sqrt(3)) < 0.01 * bound
    init.kaiming_uniform_(w, a=math.sqrt(5))
    b5 = math.sqrt(2 / 6) * math.sqrt(3 / 1152)
    assert np.abs(N(w)).max() <= b5 * (1 + 1e-6)
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(N(w).std() - math.sqrt(2 / 2304)) < 0.01 * math.sqrt(2 / 2304)
    assert abs(N(w).mean()) < 0.01 * math.sqrt(2 / 2304)
    init.kaiming_normal_(w, mode="fan_in", nonlinearity="linear")
    assert abs(N(w).std() - math.sqrt(1 / 1152)) < 0.01 * math.sqrt(1 / 1152)
    with pytest.raises(ValueError):
        init.kaiming_normal_(w, mode="fan_middle")


def test_xavier_scales():
    w = ea.empty(400, 600)
    init.xavier_uniform_(w)
    bound = math.sqrt(6 / 1000)
    assert np.abs(N(w)).max() <= bound * (1 + 1e-6) and np.abs(N(w)).max() > 0.99 * bound
    init.xavier_uniform_(w, gain=2.0)
    assert np.abs(N(w)).max() > 0.99 * 2 * bound
    init.xavier_normal_(w)
    assert abs(N(w).std() - math.sqrt(2 / 1000)) < 0.01 * math.sqrt(2 / 1000)
    init.xavier_normal_(w, gain=init.calculate_gain("tanh"))
    assert abs(N(w).std() - 5 / 3 * math.sqrt(2 / 1000)) < 0.01 * math.sqrt(2 / 1000) * 5 / 3


def test_normal_uniform_constant_zeros_ones():
    w = ea.empty(500, 400)
    init.normal_(w, mean=1.0, std=0.5)
    assert abs(N(w).mean() - 1) < 0.01 and abs(N(w).std() - 0.5) < 0.01
    init.normal_(w)
    assert abs(N(w).std() - 1) < 0.01
    init.uniform_(w, a=-2.0, b=3.0)
    assert N(w).min() >= -2 and N(w).max() <= 3 and abs(N(w).mean() - 0.5) < 0.02
    init.uniform_(w)
    assert N(w).min() >= 0 and N(w).max() <= 1
    init.constant_(w, 0.3)
    assert np.all(N(w) == np.float32(0.3))
    init.zeros_(w)
    assert not N(w).any()
    init.ones_(w)
    assert np.all(N(w) == 1)


# ---------------------------------------------------------------------------------------------
# Module methods
# ---------------------------------------------------------------------------------------------

def _net():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 3)
            self.bn = nn.BatchNorm1d(3)
            self.act = nn.ReLU()
            self.head = nn.Sequential(nn.Dropout(0.5), nn.Linear(3, 2))
            self.scale = nn.Parameter(ea.ones(1))
            self.register_buffer("counter", ea.zeros(1))
            self.plain = ea.ones(2)          # a plain tensor attribute is no parameter or buffer

        def forward(self, x):
            return self.head(self.act(self.bn(self.fc1(x)))) * self.scale

    return Net()


def test_paper_listing_1_custom_layer():
    class LinearLayer(nn.Module):
        def __init__(self, in_sz, out_sz):
            super().__init__()
            t1 = ea.randn(in_sz, out_sz)
            self.w = nn.Parameter(t1)
            t2 = ea.randn(out_sz)
            self.b = nn.Parameter(t2)

        def forward(self, activations):
            t = ea.mm(activations, self.w)
            return t + self.b

    class FullBasicModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 128, 3)
            self.fc = LinearLayer(128, 10)

        def forward(self, x):
            t1 = self.conv(x)
            t2 = nn.functional.relu(t1)
            t3 = self.fc(t2.mean((2, 3)))
            return nn.functional.softmax(t3, dim=1)

    m = FullBasicModel()
    y = m(ea.randn(2, 1, 8, 8))
    assert y.shape == (2, 10)
    close(y.sum(1), [1.0, 1.0], rtol=1e-5)
    assert [n for n, _ in m.named_parameters()] == ["conv.weight", "conv.bias", "fc.w", "fc.b"]


def test_call_runs_forward_and_parameters_order():
    m = _net()
    y = m(ea.randn(5, 4))
    assert y.shape == (5, 2)
    names = [n for n, _ in m.named_parameters()]
    assert names == ["scale", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "head.1.weight", "head.1.bias"]
    params = list(m.parameters())
    assert len(params) == 7 and all(isinstance(p, nn.Parameter) for p in params)
    assert params[1] is m.fc1.weight
    import types
    assert isinstance(m.parameters(), types.GeneratorType)
    assert len(list(m.parameters(recurse=False))) == 1


def test_named_buffers_children_modules():
    m = _net()
    assert [n for n, _ in m.named_buffers()] == ["counter", "bn.running_mean", "bn.running_var",
                                                 "bn.num_batches_tracked"]
    assert [n for n, _ in m.named_children()] == ["fc1", "bn", "act", "head"]
    assert [n for n, _ in m.named_modules()] == ["", "fc1", "bn", "act", "head", "head.0", "head.1"]
    mods = list(m.modules())
    assert len(mods) == 7 and mods[0] is m
    assert len(list(m.children())) == 4
    assert len(list(m.buffers())) == 4


def test_state_dict_keys_values_and_detachment():
    m = _net()
    sd = m.state_dict()
    assert isinstance(sd, collections.OrderedDict)
    assert list(sd) == ["scale", "counter", "fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "bn.running_mean",
                        "bn.running_var", "bn.num_batches_tracked", "head.1.weight", "head.1.bias"]
    assert not sd["fc1.weight"].requires_grad
    assert ea.equal(sd["fc1.weight"], m.fc1.weight.detach())
    sd["fc1.bias"][0] = 123.0       # state_dict tensors share storage with the parameters
    assert m.fc1.bias[0].item() == 123.0


def test_load_state_dict_strict_and_incompatible_keys():
    a, b = _net(), _net()
    res = b.load_state_dict(a.state_dict())
    assert list(res.missing_keys) == [] and list(res.unexpected_keys) == []
    assert ea.equal(a.fc1.weight, b.fc1.weight) and ea.equal(a.bn.running_var, b.bn.running_var)
    sd = a.state_dict()
    sd["fc1.weight"].add_(1)   # loaded values are copies, not aliases of the source
    assert not ea.equal(a.fc1.weight, b.fc1.weight)
    partial = {k: v for k, v in a.state_dict().items() if not k.startswith("head")}
    partial["extra.weight"] = ea.zeros(1)
    with pytest.raises(RuntimeError):
        b.load_state_dict(partial)
    res = b.load_state_dict(partial, strict=False)
    assert sorted(res.missing_keys) == ["head.1.bias", "head.1.weight"]
    assert list(res.unexpected_keys) == ["extra.weight"]
    bad = dict(a.state_dict())
    bad["fc1.weight"] = ea.zeros(5, 5)
    with pytest.raises(RuntimeError):
        b.load_state_dict(bad, strict=False)
    assert isinstance(b.fc1.weight, nn.Parameter) and b.fc1.weight.requires_grad


def test_train_eval_training_flag():
    m = _net()
    assert m.training and m.head[0].training
    assert m.eval() is m
    assert not m.training and not m.head[0].training and not m.bn.training
    x = ea.randn(3, 4)
    assert ea.equal(m(x), m(x))
    assert m.train() is m and m.bn.training
    m.train(False)
    assert not m.fc1.training


def test_module_zero_grad_sets_to_none_by_default():
    m = _net()
    m(ea.randn(3, 4)).sum().backward()
    assert m.fc1.weight.grad is not None
    m.zero_grad()
    assert m.fc1.weight.grad is None
    m(ea.randn(3, 4)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert m.fc1.weight.grad is not None and not N(m.fc1.weight.grad).any()


def test_module_apply_requires_grad_double_add_module():
    m = _net()
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Linear", "BatchNorm1d", "ReLU", "Dropout", "Linear", "Sequential", "Net"]

    def init_weights(mod):
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)

    m.apply(init_weights)
    assert np.all(N(m.head[1].weight) == 0.5)
    assert m.requires_grad_(False) is m
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    assert all(p.requires_grad for p in m.parameters())
    assert m.double() is m
    assert all(p.dtype is ea.float64 for p in m.parameters())
    assert m.bn.running_mean.dtype is ea.float64 and m.bn.num_batches_tracked.dtype is ea.int64
    assert m(ea.randn(3, 4, dtype=ea.float64)).dtype is ea.float64
    m.float()
    assert m.fc1.weight.dtype is ea.float32
    m.add_module("extra", nn.Linear(2, 2))
    assert isinstance(m.extra, nn.Linear) and "extra.weight" in dict(m.named_parameters())


def test_register_buffer_persistence():
    m = nn.Module()
    m.register_buffer("a", ea.ones(2))
    m.register_buffer("b", ea.zeros(1), persistent=False)
    assert list(m.state_dict()) == ["a"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]
    assert isinstance(m.a, ea.Tensor) and not m.a.requires_grad
    m.a = ea.full((2,), 3.0)
    assert m.state_dict()["a"].tolist() == [3.0, 3.0]
    with pytest.raises(KeyError):
        m.register_buffer("a.b", ea.ones(1))


def test_forward_hook_and_pre_hook():
    lin = nn.Linear(2, 2)
    calls = []

    def fwd(module, args, output):
        calls.append(("fwd", module is lin, isinstance(args, tuple), tuple(output.shape)))
        return output * 0

    def pre(module, args):
        calls.append(("pre", len(args)))
        return (args[0] * 2,)

    h1 = lin.register_forward_hook(fwd)
    h2 = lin.register_forward_pre_hook(pre)
    y = lin(ea.ones(3, 2))
    assert calls == [("pre", 1), ("fwd", True, True, (3, 2))]
    assert not N(y).any()
    h1.remove()
    h2.remove()
    x = ea.ones(3, 2)
    assert ea.allclose(lin(x), x @ lin.weight.t() + lin.bias)
    assert len(calls) == 2
    assert lin.forward(x).shape == (3, 2)


def test_module_setattr_registration_and_delattr():
    m = nn.Module()
    m.w = nn.Parameter(ea.ones(2))
    m.sub = nn.Linear(1, 1)
    m.t = ea.ones(1)
    assert [n for n, _ in m.named_parameters()] == ["w", "sub.weight", "sub.bias"]
    del m.sub
    assert [n for n, _ in m.named_parameters()] == ["w"]
    with pytest.raises(AttributeError):
        m.missing
    with pytest.raises(TypeError):
        m.register_parameter("p", ea.ones(1))   # not a Parameter


# ---------------------------------------------------------------------------------------------
# torch.optim
# ---------------------------------------------------------------------------------------------

def _quadratic_setup(n_params=2, seed=0):
    rng = np.random.default_rng(seed)
    inits = [rng.normal(size=(3,)) for _ in range(n_params)]
    targets = [rng.normal(size=(3,)) for _ in range(n_params)]
    params = [nn.Parameter(ea.tensor(v.copy(), dtype=ea.float64)) for v in inits]
    return inits, targets, params


def _loss_and_grads(params, targets):
    loss = sum(((p - ea.tensor(t)) ** 2 * ea.tensor(np.arange(1.0, 4.0))).sum() for p, t in zip(params, targets))
    loss.backward()


def _np_grads(values, targets):
    return [2 * (v - t) * np.arange(1.0, 4.0) for v, t in zip(values, targets)]


@pytest.mark.parametrize("momentum, weight_decay, nesterov, dampening", [
    (0.0, 0.0, False, 0.0), (0.9, 0.0, False, 0.0), (0.9, 0.01, True, 0.0), (0.5, 0.1, False, 0.3)])
def test_sgd_matches_reference(momentum, weight_decay, nesterov, dampening):
    inits, targets, params = _quadratic_setup()
    opt = optim.SGD(params, lr=0.05, momentum=momentum, weight_decay=weight_decay, nesterov=nesterov,
                    dampening=dampening)
    vals = [v.copy() for v in inits]
    bufs = [None] * len(vals)
    for _ in range(5):
        opt.zero_grad()
        _loss_and_grads(params, targets)
        opt.step()
        for i, g in enumerate(_np_grads(vals, targets)):
            d = g + weight_decay * vals[i]
            if momentum:
                bufs[i] = d.copy() if bufs[i] is None else momentum * bufs[i] + (1 - dampening) * d
                d = d + momentum * bufs[i] if nesterov else bufs[i]
            vals[i] = vals[i] - 0.05 * d
    for p, v in zip(params, vals):
        close(p, v, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("cls, wd, betas, eps", [
    ("Adam", 0.0, (0.9, 0.999), 1e-8), ("Adam", 0.1, (0.8, 0.99), 1e-6), ("AdamW", 0.01, (0.9, 0.999), 1e-8),
    ("AdamW", 0.2, (0.5, 0.9), 1e-3)])
def test_adam_and_adamw_match_reference(cls, wd, betas, eps):
    inits, targets, params = _quadratic_setup()
    lr = 0.01
    opt = getattr(optim, cls)(params, lr=lr, betas=betas, eps=eps, weight_decay=wd)
    vals = [v.copy() for v in inits]
    m = [np.zeros(3) for _ in vals]
    v2 = [np.zeros(3) for _ in vals]
    b1, b2 = betas
    for step in range(1, 6):
        opt.zero_grad()
        _loss_and_grads(params, targets)
        opt.step()
        for i, g in enumerate(_np_grads(vals, targets)):
            if cls == "AdamW":
                vals[i] = vals[i] * (1 - lr * wd)
            else:
                g = g + wd * vals[i]
            m[i] = b1 * m[i] + (1 - b1) * g
            v2[i] = b2 * v2[i] + (1 - b2) * g * g
            mhat, vhat = m[i] / (1 - b1 ** step), v2[i] / (1 - b2 ** step)
            vals[i] = vals[i] - lr * mhat / (np.sqrt(vhat) + eps)
    for p, v in zip(params, vals):
        close(p, v, rtol=1e-10, atol=1e-12)


def test_optimizer_defaults():
    p = [nn.Parameter(ea.ones(1))]
    d = optim.SGD(p, lr=0.1).defaults
    assert d["lr"] == 0.1 and d["momentum"] == 0 and d["weight_decay"] == 0 and d["nesterov"] is False
    assert d["dampening"] == 0
    a = optim.Adam(p).defaults
    assert a["lr"] == 0.001 and tuple(a["betas"]) == (0.9, 0.999) and a["eps"] == 1e-8 and a["weight_decay"] == 0
    assert a["amsgrad"] is False
    w = optim.AdamW(p).defaults
    assert w["lr"] == 0.001 and w["weight_decay"] == 0.01
    with pytest.raises(ValueError):
        optim.SGD(p, lr=-1)
    with pytest.raises(ValueError):
        optim.SGD(p, lr=0.1, nesterov=True)
    with pytest.raises(ValueError):
        optim.Adam(p, betas=(1.5, 0.9))


def test_zero_grad_set_to_none():
    p = nn.Parameter(ea.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and p.grad.tolist() == [0.0, 0.0]
    (p * 2).sum().backward()
    opt.zero_grad()
    assert p.grad is None
    opt.step()   # no grads: no update, no error
    assert p.tolist() == [1.0, 1.0]


def test_param_groups_per_group_lr_and_editing():
    a = nn.Parameter(ea.ones(2))
    b = nn.Parameter(ea.ones(2))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.0)
    assert isinstance(opt.param_groups, list) and len(opt.param_groups) == 2
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["momentum"] == 0.0
    assert opt.param_groups[0]["params"][0] is a
    (a.sum() + b.sum()).backward()
    opt.step()
    close(a, [0.9, 0.9], rtol=1e-6)
    close(b, [0.5, 0.5], rtol=1e-6)
    for g in opt.param_groups:
        g["lr"] = 0.01
    opt.step()
    close(a, [0.89, 0.89], rtol=1e-6)
    close(b, [0.49, 0.49], rtol=1e-6)
    c = nn.Parameter(ea.ones(1))
    opt.add_param_group({"params": c, "lr": 1.0})
    assert len(opt.param_groups) == 3 and opt.param_groups[2]["momentum"] == 0.0
    with pytest.raises(ValueError):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError):
        optim.SGD(ea.ones(2, requires_grad=True), lr=0.1)


def test_optimizer_state_and_state_dict_round_trip():
    inits, targets, params = _quadratic_setup()
    opt = optim.SGD(params, lr=0.05, momentum=0.9)
    assert len(opt.state) == 0
    _loss_and_grads(params, targets)
    opt.step()
    st = opt.state[params[0]]
    assert "momentum_buffer" in st and st["momentum_buffer"].shape == (3,)
    sd = opt.state_dict()
    assert set(sd) == {"state", "param_groups"}
    assert sorted(sd["state"]) == [0, 1] and sd["param_groups"][0]["params"] == [0, 1]
    assert sd["param_groups"][0]["lr"] == 0.05 and sd["param_groups"][0]["momentum"] == 0.9

    params2 = [nn.Parameter(p.detach().clone()) for p in params]
    opt2 = optim.SGD(params2, lr=1.0, momentum=0.0)
    opt2.load_state_dict(copy.deepcopy(sd))   # PyTorch's load keeps the very buffer tensors
    assert opt2.param_groups[0]["lr"] == 0.05 and opt2.param_groups[0]["momentum"] == 0.9
    assert opt2.param_groups[0]["params"][0] is params2[0]
    for o, ps in ((opt, params), (opt2, params2)):
        o.zero_grad()
        _loss_and_grads(ps, targets)
        o.step()
    for p, q in zip(params, params2):
        close(q, N(p), rtol=1e-12, atol=1e-14)
    sd["param_groups"][0]["lr"] = 123.0
    assert opt2.param_groups[0]["lr"] == 0.05


def test_adam_state_and_state_dict_round_trip():
    inits, targets, params = _quadratic_setup()
    opt = optim.Adam(params, lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        _loss_and_grads(params, targets)
        opt.step()
    st = opt.state[params[1]]
    assert {"step", "exp_avg", "exp_avg_sq"} <= set(st)
    assert float(st["step"]) == 2
    buf = io.BytesIO()
    ea.save(opt.state_dict(), buf)
    buf.seek(0)
    params2 = [nn.Parameter(p.detach().clone()) for p in params]
    opt2 = optim.Adam(params2, lr=0.1)
    opt2.load_state_dict(ea.load(buf))
    for o, ps in ((opt, params), (opt2, params2)):
        o.zero_grad()
        _loss_and_grads(ps, targets)
        o.step()
    for p, q in zip(params, params2):
        close(q, N(p), rtol=1e-12, atol=1e-14)


def test_optimizer_step_with_closure():
    p = nn.Parameter(ea.tensor([1.0]))
    opt = optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 1.0 and p.item() == pytest.approx(0.8)


# ---------------------------------------------------------------------------------------------
# torch.optim.lr_scheduler
# ---------------------------------------------------------------------------------------------

def test_step_lr():
    p = nn.Parameter(ea.ones(1))
    opt = optim.SGD([p], lr=0.1)
    s = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    assert s.get_last_lr() == [pytest.approx(0.1)]
    assert isinstance(s.get_last_lr(), list)
    seen = []
    for _ in range(6):
        opt.step()
        s.step()
        seen.append(s.get_last_lr()[0])
    assert seen == pytest.approx([0.1, 0.05, 0.05, 0.025, 0.025, 0.0125])
    assert opt.param_groups[0]["lr"] == pytest.approx(0.0125)
    assert lr_scheduler.StepLR(optim.SGD([p], lr=1.0), 3).gamma == 0.1
    assert s.last_epoch == 6


def test_cosine_annealing_lr():
    p = nn.Parameter(ea.ones(1))
    opt = optim.SGD([{"params": [p]}, {"params": [nn.Parameter(ea.ones(1))], "lr": 0.5}], lr=0.1)
    s = lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
    got = []
    for _ in range(4):
        opt.step()
        s.step()
        got.append(s.get_last_lr())
    for t, lrs in enumerate(got, start=1):
        for base, lr in zip((0.1, 0.5), lrs):
            assert lr == pytest.approx(0.01 + (base - 0.01) * (1 + math.cos(math.pi * t / 4)) / 2, rel=1e-9)
    assert opt.param_groups[1]["lr"] == pytest.approx(0.01)
    s2 = lr_scheduler.CosineAnnealingLR(optim.SGD([p], lr=1.0), T_max=10)
    assert s2.eta_min == 0 and s2.T_max == 10


def test_scheduler_state_dict_round_trip():
    p = nn.Parameter(ea.ones(1))
    opt = optim.SGD([p], lr=0.1)
    s = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        opt.step()
        s.step()
    sd = s.state_dict()
    opt2 = optim.SGD([p], lr=0.1)
    s2 = lr_scheduler.StepLR(opt2, step_size=1, gamma=0.5)
    s2.load_state_dict(sd)
    assert s2.last_epoch == 3 and s2.get_last_lr() == pytest.approx([0.0125])


# ---------------------------------------------------------------------------------------------
# torch.utils.data
# ---------------------------------------------------------------------------------------------

import threading  # noqa: E402


def _within(seconds, fn):
    """Run fn in a daemon thread so that a hung DataLoader fails the test instead of the suite."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:
            box["error"] = e

    th = threading.Thread(target=target, daemon=True)
    th.start()
    th.join(seconds)
    if th.is_alive():
        pytest.fail(f"DataLoader did not finish within {seconds}s (hung)")
    if "error" in box:
        raise box["error"]
    return box.get("value")


class SquaresDataset:
    """A map-style dataset defined at module level (picklable for worker processes)."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return i * i


class FailingDataset:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError("bad sample 5")
        return i


def test_dataset_subclass_and_tensor_dataset():
    class Squares(data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return ea.tensor([float(i)]), i * i

    ds = Squares()
    assert len(ds) == 4 and ds[2][1] == 4
    x, y = ea.arange(10.0).reshape(5, 2), ea.arange(5)
    td = data.TensorDataset(x, y)
    assert len(td) == 5
    item = td[3]
    assert isinstance(item, tuple) and len(item) == 2
    assert item[0].tolist() == [6.0, 7.0] and item[1].item() == 3
    assert td.tensors[0] is x
    cat = td + td
    assert len(cat) == 10 and cat[7][1].item() == 2


def test_dataloader_batching_len_and_drop_last():
    x, y = ea.arange(20.0).reshape(10, 2), ea.arange(10)
    ds = data.TensorDataset(x, y)
    dl = data.DataLoader(ds, batch_size=4)
    assert len(dl) == 3 and dl.batch_size == 4
    batches = list(dl)
    assert len(batches) == 3
    xb, yb = batches[0]
    assert isinstance(xb, ea.Tensor) and xb.shape == (4, 2) and yb.tolist() == [0, 1, 2, 3]
    assert batches[-1][1].tolist() == [8, 9]
    dl2 = data.DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dl2) == 2 and [b[1].shape[0] for b in dl2] == [4, 4]
    assert len(data.DataLoader(ds)) == 10
    assert list(data.DataLoader(ds))[0][0].shape == (1, 2)


def test_dataloader_reiteration_and_shuffle():
    ds = data.TensorDataset(ea.arange(32))
    dl = data.DataLoader(ds, batch_size=8, shuffle=True)
    e1 = [v for (b,) in dl for v in b.tolist()]
    e2 = [v for (b,) in dl for v in b.tolist()]
    assert sorted(e1) == list(range(32)) and sorted(e2) == list(range(32))
    assert e1 != list(range(32)) and e1 != e2
    it = iter(dl)
    first = next(it)
    assert first[0].shape == (8,)


def test_dataloader_generator_makes_shuffle_reproducible():
    ds = data.TensorDataset(ea.arange(40))

    def order(seed):
        g = ea.Generator()
        g.manual_seed(seed)
        return [v for (b,) in data.DataLoader(ds, batch_size=5, shuffle=True, generator=g) for v in b.tolist()]

    assert order(0) == order(0)
    assert order(0) != order(1)
    ea.manual_seed(3)
    a = [v for (b,) in data.DataLoader(ds, batch_size=5, shuffle=True) for v in b.tolist()]
    ea.manual_seed(3)
    b = [v for (b,) in data.DataLoader(ds, batch_size=5, shuffle=True) for v in b.tolist()]
    assert a == b


def test_dataloader_collate_fn():
    dl = data.DataLoader(SquaresDataset(5), batch_size=2, collate_fn=lambda batch: batch)
    assert list(dl) == [[0, 1], [4, 9], [16]]
    dl2 = data.DataLoader(SquaresDataset(4), batch_size=2, collate_fn=lambda b: sum(b))
    assert list(dl2) == [1, 13]


def test_default_collate_types():
    ints = list(data.DataLoader(SquaresDataset(4), batch_size=4))[0]
    assert isinstance(ints, ea.Tensor) and ints.dtype is ea.int64 and ints.tolist() == [0, 1, 4, 9]
    samples = [{"x": np.full(2, float(i)), "y": i, "f": 0.5 * i, "name": f"s{i}", "t": ea.ones(3) * i}
               for i in range(3)]
    batch = list(data.DataLoader(samples, batch_size=3))[0]
    assert isinstance(batch, dict) and list(batch) == ["x", "y", "f", "name", "t"]
    assert batch["x"].dtype is ea.float64 and batch["x"].shape == (3, 2)
    assert batch["y"].dtype is ea.int64 and batch["y"].tolist() == [0, 1, 2]
    assert batch["f"].dtype is ea.float64 and batch["f"].tolist() == [0.0, 0.5, 1.0]
    assert batch["name"] == ["s0", "s1", "s2"]
    assert batch["t"].shape == (3, 3) and batch["t"].dtype is ea.float32
    pairs = [(np.zeros((2, 2), dtype=np.float32), 1), (np.ones((2, 2), dtype=np.float32), 0)]
    xb, yb = data.default_collate(pairs)
    assert xb.dtype is ea.float32 and xb.shape == (2, 2, 2) and yb.tolist() == [1, 0]
    assert isinstance(data.default_collate([(1, 2.0), (3, 4.0)]), list)
    nested = data.default_collate([{"a": (1, ea.zeros(2))}, {"a": (2, ea.ones(2))}])
    assert nested["a"][0].tolist() == [1, 2] and nested["a"][1].shape == (2, 2)
    assert data.default_collate([True, False]).dtype is ea.bool


def test_dataloader_num_workers_matches_single_process():
    ds = data.TensorDataset(ea.arange(50.0).reshape(25, 2), ea.arange(25))
    ref = [(a.tolist(), b.tolist()) for a, b in data.DataLoader(ds, batch_size=4)]

    def run():
        dl = data.DataLoader(ds, batch_size=4, num_workers=2)
        first = [(a.tolist(), b.tolist()) for a, b in dl]
        second = [(a.tolist(), b.tolist()) for a, b in dl]
        return first, second, len(dl)

    first, second, n = _within(120, run)
    assert first == ref and second == ref and n == 7


def test_dataloader_num_workers_with_shuffle_generator_and_collate():
    def run():
        g = ea.Generator().manual_seed(0)
        a = [v for b in data.DataLoader(SquaresDataset(20), batch_size=3, shuffle=True, num_workers=2, generator=g,
                                        drop_last=True) for v in b.tolist()]
        g = ea.Generator().manual_seed(0)
        b = [v for b in data.DataLoader(SquaresDataset(20), batch_size=3, shuffle=True, num_workers=0, generator=g,
                                        drop_last=True) for v in b.tolist()]
        c = list(data.DataLoader(SquaresDataset(4), batch_size=2, num_workers=2, collate_fn=lambda b: b))
        return a, b, c

    a, b, c = _within(120, run)
    assert a == b and len(a) == 18 and c == [[0, 1], [4, 9]]


def test_dataloader_worker_exception_is_reraised_in_main_process():
    def run():
        dl = data.DataLoader(FailingDataset(), batch_size=2, num_workers=2)
        with pytest.raises(ValueError) as info:
            list(dl)
        return str(info.value)

    msg = _within(120, run)
    assert "bad sample 5" in msg and "worker process" in msg
    with pytest.raises(ValueError):
        list(data.DataLoader(FailingDataset(), batch_size=2))


# ---------------------------------------------------------------------------------------------
# torch comparisons of modules, losses, optimizers and collation
# ---------------------------------------------------------------------------------------------

def _module_layouts(t):
    nn_ = t.nn
    mods = [nn_.Linear(3, 2), nn_.Linear(3, 2, bias=False), nn_.Conv2d(2, 4, 3, padding=1), nn_.BatchNorm1d(3),
            nn_.BatchNorm2d(3, affine=False), nn_.Embedding(5, 2), nn_.Embedding(5, 2, padding_idx=1),
            nn_.LSTM(3, 4, num_layers=2, batch_first=True), nn_.LSTM(3, 4, bias=False), nn_.Dropout(0.3),
            nn_.Sequential(nn_.Linear(2, 2), nn_.ReLU(), nn_.Sequential(nn_.Linear(2, 1))),
            nn_.ModuleList([nn_.Linear(1, 1), nn_.Tanh()]), nn_.ModuleDict({"a": nn_.Linear(1, 2)})]
    out = []
    for m in mods:
        out.append([(k, list(v.shape), dtype_of(v)) for k, v in m.state_dict().items()])
        out.append([(k, p.requires_grad) for k, p in m.named_parameters()])
        out.append([k for k, _ in m.named_modules()])
    return out


def dtype_of(v):
    return str(v.dtype).rsplit(".", 1)[-1]


@pytest.mark.torch
def test_module_state_dict_layouts_match_torch():
    compare_with_torch(_module_layouts)


def _losses_program(t):
    F_ = t.nn.functional
    g = np.random.default_rng(0)
    logits = t.tensor(g.normal(size=(4, 3, 5)), requires_grad=True)
    tgt = t.tensor(g.integers(0, 3, size=(4, 5)))
    tgt[0, 0] = -100
    probs = t.tensor(g.uniform(0.05, 0.95, size=(4, 3)))
    y = t.tensor(g.integers(0, 2, size=(4, 3)).astype(np.float64))
    out = [F_.cross_entropy(logits, tgt), F_.cross_entropy(logits, tgt, reduction="none"),
           F_.cross_entropy(logits[:, :, 0], tgt[:, 1], reduction="sum"),
           F_.nll_loss(F_.log_softmax(logits[:, :, 1], dim=1), tgt[:, 2]),
           F_.mse_loss(probs, y), F_.l1_loss(probs, y, reduction="sum"),
           F_.binary_cross_entropy(probs, y), F_.binary_cross_entropy_with_logits(logits[:, :, 0], y),
           F_.one_hot(tgt[1], num_classes=3), t.nn.CrossEntropyLoss(ignore_index=2)(logits, tgt.clamp(min=0)),
           t.nn.BCEWithLogitsLoss(pos_weight=t.tensor([1.0, 2.0, 3.0], dtype=t.float64))(logits[:, :, 1], y)]
    sum(o.sum() for o in out if o.dtype == t.float64).backward()
    return out + [logits.grad]


@pytest.mark.torch
def test_losses_and_their_gradients_match_torch():
    compare_with_torch(_losses_program, rtol=1e-10, atol=1e-12)


def _optim_program(t):
    out = []
    for cls, kw in (("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
                    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)), ("AdamW", dict(lr=0.05))):
        w = t.nn.Parameter(t.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=t.float64))
        b = t.nn.Parameter(t.tensor([0.1, -0.1], dtype=t.float64))
        opt = getattr(t.optim, cls)([{"params": [w]}, {"params": [b], "lr": 0.01}], **kw)
        sched = t.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for _ in range(5):
            opt.zero_grad()
            ((w @ t.tensor([1.0, 2.0], dtype=t.float64) + b) ** 2).sum().backward()
            opt.step()
            sched.step()
        out += [w.detach().clone(), b.detach().clone(), sched.get_last_lr(),
                sorted(k for k in opt.state[w]), opt.state_dict()["param_groups"][1]["params"]]
    return out


@pytest.mark.torch
def test_optimizers_and_schedulers_match_torch():
    compare_with_torch(_optim_program, rtol=1e-12, atol=1e-14)


def _collate_program(t):
    d = t.utils.data
    samples = [{"x": np.full(2, float(i)), "y": i, "f": 0.5 * i, "t": t.ones(2, dtype=t.int32) * i,
                "pair": (i, t.tensor([float(i)]))} for i in range(3)]
    batch = d.default_collate(samples)
    loader = d.DataLoader(d.TensorDataset(t.arange(10), t.arange(10.0)), batch_size=4, drop_last=False)
    return [batch, [list(b) for b in loader], len(loader), d.default_collate([(1, 2.0), (3, 4.0)])]


@pytest.mark.torch
def test_default_collate_and_loader_batches_match_torch():
    compare_with_torch(_collate_program)


# ---------------------------------------------------------------------------------------------
# argument names and defaults, against PyTorch's own signatures
# ---------------------------------------------------------------------------------------------

SIGNATURES = [
    # (module path, attribute path)
    *[("torch.nn", n) for n in (
        "Linear", "Conv2d", "MaxPool2d", "BatchNorm1d", "BatchNorm2d", "Dropout", "ReLU", "LeakyReLU", "Sigmoid",
        "Tanh", "Softmax", "LogSoftmax", "Embedding", "Embedding.from_pretrained", "CrossEntropyLoss", "NLLLoss",
        "MSELoss", "BCELoss", "BCEWithLogitsLoss", "Module.parameters", "Module.named_parameters",
        "Module.named_buffers", "Module.named_children", "Module.named_modules", "Module.modules",
        "Module.state_dict", "Module.load_state_dict", "Module.train", "Module.eval", "Module.zero_grad",
        "Module.apply", "Module.requires_grad_", "Module.double", "Module.add_module", "Module.register_buffer",
        "Module.register_forward_hook", "Module.register_forward_pre_hook", "Sequential.append",
        "ModuleList.append", "ModuleDict.keys", "utils.clip_grad_norm_")],
    *[("torch.nn.functional", n) for n in (
        "relu", "softmax", "log_softmax", "dropout", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
        "binary_cross_entropy", "binary_cross_entropy_with_logits")],
    *[("torch.nn.init", n) for n in (
        "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_", "normal_", "uniform_",
        "constant_", "zeros_", "ones_", "calculate_gain")],
    *[("torch.optim", n) for n in (
        "SGD", "Adam", "AdamW", "Optimizer.zero_grad", "Optimizer.step", "Optimizer.state_dict",
        "Optimizer.load_state_dict", "Optimizer.add_param_group")],
    *[("torch.optim.lr_scheduler", n) for n in ("StepLR", "CosineAnnealingLR")],
    *[("torch.utils.data", n) for n in ("DataLoader", "TensorDataset", "default_collate")],
    *[("torch.autograd", n) for n in ("grad", "Function.apply")],
    *[("torch", n) for n in ("Tensor.backward", "Tensor.register_hook", "save", "load", "set_grad_enabled")],
]

# names PyTorch keeps only for backward compatibility
_DEPRECATED = {"size_average", "reduce"}
# defaults spelled differently with the same meaning (load's None means True; save's None means pickle)
_EQUIVALENT_DEFAULTS = {"weights_only", "pickle_module"}


def _callable_signature(obj):
    import inspect
    target = obj.__init__ if isinstance(obj, type) else obj
    sig = inspect.signature(target)
    params = [p for p in sig.parameters.values() if p.name not in ("self", "cls")]
    return params


def _default_repr(d):
    import inspect
    if d is inspect.Parameter.empty:
        return "<required>"
    if hasattr(d, "is_floating_point") and not callable(getattr(d, "shape", None)):
        return f"dtype:{str(d).rsplit('.', 1)[-1]}"
    return repr(d)


@pytest.mark.torch
@pytest.mark.parametrize("module, attr", SIGNATURES, ids=[f"{m}.{a}" for m, a in SIGNATURES])
def test_argument_names_and_defaults_match_torch(module, attr):
    import importlib
    import inspect
    torch = pytest.importorskip("torch")  # noqa: F841
    t_obj = importlib.import_module(module)
    e_obj = api_module(module)
    for part in attr.split("."):
        t_obj = getattr(t_obj, part)
        e_obj = getattr(e_obj, part)
    t_params = _callable_signature(t_obj)
    try:
        e_params = {p.name: p for p in _callable_signature(e_obj)}
    except (TypeError, ValueError):
        pytest.fail(f"{module}.{attr}: ember's signature cannot be inspected")
    e_var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in e_params.values())
    problems = []
    positional = [p.name for p in t_params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    e_positional = [n for n, p in e_params.items()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in _DEPRECATED]
    for p in t_params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name in _DEPRECATED:
            continue
        q = e_params.get(p.name)
        if q is None:
            problems.append(f"missing argument {p.name}={_default_repr(p.default)}"
                            + (" (ember takes **kwargs)" if e_var_kw else ""))
            continue
        if p.name not in _EQUIVALENT_DEFAULTS and _default_repr(p.default) != _default_repr(q.default):
            problems.append(f"{p.name}: default {_default_repr(q.default)}, PyTorch's {_default_repr(p.default)}")
    kept = [n for n in positional if n not in _DEPRECATED]
    if e_positional[:len(kept)] != kept and not any(p.kind is p.VAR_POSITIONAL for p in e_params.values()):
        problems.append(f"positional order {e_positional}, PyTorch's {kept}")
    assert not problems, f"{module}.{attr}: " + "; ".join(problems)


# ---------------------------------------------------------------------------------------------
# PyTorch's keyword names on functions and methods (torch's own are builtins without signatures)
# ---------------------------------------------------------------------------------------------

def _x():
    return ea.arange(12.0).reshape(3, 4)


KEYWORD_CALLS = {
    "tensor": (lambda: ea.tensor(data=[1.0, 2.0], dtype=ea.float64, device="cpu", requires_grad=True), (2,)),
    "as_tensor": (lambda: ea.as_tensor(data=[1, 2], dtype=ea.float32, device="cpu"), (2,)),
    "zeros": (lambda: ea.zeros(2, 3, dtype=ea.float32, device="cpu", requires_grad=False), (2, 3)),
    "ones": (lambda: ea.ones(size=(2,), dtype=ea.int64), (2,)),
    "empty": (lambda: ea.empty(3, dtype=ea.float64, device=ea.device("cpu")), (3,)),
    "zeros_like": (lambda: ea.zeros_like(input=_x(), dtype=ea.float64), (3, 4)),
    "ones_like": (lambda: ea.ones_like(_x(), requires_grad=True), (3, 4)),
    "full": (lambda: ea.full(size=(2, 2), fill_value=1.5, dtype=ea.float32), (2, 2)),
    "full_like": (lambda: ea.full_like(input=_x(), fill_value=2), (3, 4)),
    "arange": (lambda: ea.arange(start=0, end=6, step=2, dtype=ea.float32), (3,)),
    "linspace": (lambda: ea.linspace(start=0.0, end=1.0, steps=4, dtype=ea.float64), (4,)),
    "randn": (lambda: ea.randn(2, 3, generator=ea.Generator().manual_seed(0), dtype=ea.float32), (2, 3)),
    "randint": (lambda: ea.randint(low=0, high=3, size=(4,), generator=ea.Generator().manual_seed(0)), (4,)),
    "randperm": (lambda: ea.randperm(n=5, generator=ea.Generator().manual_seed(0), dtype=ea.int64), (5,)),
    "cat": (lambda: ea.cat(tensors=[_x(), _x()], dim=1), (3, 8)),
    "stack": (lambda: ea.stack(tensors=[_x(), _x()], dim=0), (2, 3, 4)),
    "flatten": (lambda: ea.flatten(input=_x(), start_dim=0, end_dim=-1), (12,)),
    "reshape": (lambda: ea.reshape(input=_x(), shape=(4, 3)), (4, 3)),
    "mm": (lambda: ea.mm(input=_x(), mat2=_x().t()), (3, 3)),
    "sum": (lambda: ea.sum(input=_x(), dim=1, keepdim=True, dtype=ea.float64), (3, 1)),
    "mean": (lambda: ea.mean(input=_x(), dim=(0, 1), keepdim=False), ()),
    "max": (lambda: ea.max(input=_x(), dim=1, keepdim=True).values, (3, 1)),
    "maximum": (lambda: ea.maximum(input=_x(), other=_x()), (3, 4)),
    "exp": (lambda: ea.exp(input=_x()), (3, 4)),
    "log": (lambda: ea.log(input=_x() + 1), (3, 4)),
    "sigmoid": (lambda: ea.sigmoid(input=_x()), (3, 4)),
    "softmax": (lambda: ea.softmax(input=_x(), dim=1, dtype=ea.float64), (3, 4)),
    "log_softmax": (lambda: ea.log_softmax(input=_x(), dim=0), (3, 4)),
    "all": (lambda: ea.all(input=_x() > 0, dim=1, keepdim=True), (3, 1)),
    "allclose": (lambda: ea.tensor(ea.allclose(input=_x(), other=_x(), rtol=1e-5, atol=1e-8, equal_nan=False)), ()),
    "equal": (lambda: ea.tensor(ea.equal(_x(), _x())), ()),
    "isnan": (lambda: ea.isnan(input=_x()), (3, 4)),
    "sum_method": (lambda: _x().sum(dim=(0, 1), keepdim=True), (1, 1)),
    "mean_method": (lambda: _x().mean(dim=0, keepdim=True), (1, 4)),
    "std_method": (lambda: _x().std(dim=1, unbiased=False, keepdim=True), (3, 1)),
    "var_method": (lambda: _x().var(dim=1, keepdim=False, unbiased=True), (3,)),
    "max_method": (lambda: _x().max(dim=0, keepdim=False).indices, (4,)),
    "min_method": (lambda: _x().min(dim=-1, keepdim=True).values, (3, 1)),
    "argmax_method": (lambda: _x().argmax(dim=1, keepdim=True), (3, 1)),
    "argmin_method": (lambda: _x().argmin(dim=None), ()),
    "transpose_method": (lambda: _x().transpose(dim0=0, dim1=1), (4, 3)),
    "permute_method": (lambda: _x().permute(dims=(1, 0)), (4, 3)),
    "squeeze_method": (lambda: _x()[None].squeeze(dim=0), (3, 4)),
    "unsqueeze_method": (lambda: _x().unsqueeze(dim=-1), (3, 4, 1)),
    "flatten_method": (lambda: _x().flatten(start_dim=0, end_dim=1), (12,)),
    "chunk_method": (lambda: _x().chunk(chunks=2, dim=1)[0], (3, 2)),
    "gather_method": (lambda: _x().gather(dim=1, index=ea.zeros(3, 1, dtype=ea.int64)), (3, 1)),
    "clamp_method": (lambda: _x().clamp(min=1.0, max=5.0), (3, 4)),
    "pow_method": (lambda: _x().pow(exponent=2), (3, 4)),
    "repeat_interleave_method": (lambda: _x().repeat_interleave(repeats=2, dim=0), (6, 4)),
    "softmax_method": (lambda: _x().softmax(dim=-1), (3, 4)),
    "add_method": (lambda: _x().add(other=_x(), alpha=2), (3, 4)),
    "mul_method": (lambda: _x().mul(other=2.0), (3, 4)),
    "add__method": (lambda: _x().add_(other=1.0, alpha=2.0), (3, 4)),
    "sub__method": (lambda: _x().sub_(other=_x(), alpha=0.5), (3, 4)),
    "to_method": (lambda: _x().to(device="cpu", dtype=ea.float64, non_blocking=False, copy=True), (3, 4)),
    "expand_method": (lambda: ea.ones(1, 4).expand(size=(3, 4)), (3, 4)),
    "view_method": (lambda: _x().view(4, 3), (4, 3)),
    "requires_grad__method": (lambda: _x().requires_grad_(requires_grad=True), (3, 4)),
    "type_method": (lambda: _x().type(dtype=ea.float64), (3, 4)),
    "fill__method": (lambda: _x().fill_(value=0.0), (3, 4)),
    "numpy_force": (lambda: ea.from_numpy(ea.ones(2, requires_grad=True).numpy(force=True)), (2,)),
    "mean_dtype_method": (lambda: ea.tensor([1.0, 2.0]).mean(dtype=ea.float64), ()),
    "std_correction_method": (lambda: _x().std(dim=1, correction=0, keepdim=True), (3, 1)),
    "repeat_interleave_output_size": (lambda: ea.tensor([1, 2]).repeat_interleave(ea.tensor([1, 2]), dim=0,
                                                                                   output_size=3), (3,)),
    "squeeze_dim_tuple": (lambda: ea.ones(1, 3, 1).squeeze(dim=(0, 2)), (3,)),
    "F.relu": (lambda: F.relu(input=_x(), inplace=False), (3, 4)),
    "F.softmax": (lambda: F.softmax(input=_x(), dim=1, dtype=ea.float64), (3, 4)),
    "F.log_softmax": (lambda: F.log_softmax(input=_x(), dim=1), (3, 4)),
    "F.dropout": (lambda: F.dropout(input=_x(), p=0.1, training=False, inplace=False), (3, 4)),
    "F.one_hot": (lambda: F.one_hot(ea.tensor([0, 1]), num_classes=3), (2, 3)),
    "F.cross_entropy": (lambda: F.cross_entropy(input=_x(), target=ea.tensor([0, 1, 3]), weight=None, ignore_index=-100,
                                                reduction="none", label_smoothing=0.0), (3,)),
    "nn.LSTM": (lambda: nn.LSTM(input_size=2, hidden_size=3, num_layers=2, bias=True, batch_first=True, dropout=0.0,
                                bidirectional=False)(ea.ones(1, 5, 2))[0], (1, 5, 3)),
    "nn.Linear": (lambda: nn.Linear(in_features=4, out_features=2, bias=True)(_x()), (3, 2)),
    "nn.Conv2d": (lambda: nn.Conv2d(in_channels=1, out_channels=2, kernel_size=3, stride=1, padding=1, dilation=1,
                                    groups=1, bias=True, padding_mode="zeros")(ea.ones(1, 1, 4, 4)), (1, 2, 4, 4)),
    "nn.Embedding": (lambda: nn.Embedding(num_embeddings=4, embedding_dim=2, padding_idx=None)(ea.tensor([1])),
                     (1, 2)),
}


@pytest.mark.parametrize("name", list(KEYWORD_CALLS))
def test_pytorch_keyword_arguments_are_accepted(name):
    fn, shape = KEYWORD_CALLS[name]
    out = fn()
    assert isinstance(out, ea.Tensor) and out.shape == shape


# ---------------------------------------------------------------------------------------------
# semantics that ported programs lean on (identity, copying, sharing)
# ---------------------------------------------------------------------------------------------

def test_parameter_shares_storage_with_its_data():
    t = ea.zeros(3)
    p = nn.Parameter(t)
    t[0] = 5
    assert p[0].item() == 5
    assert p.dtype is ea.float32 and p.shape == (3,)


def test_same_seed_gives_same_module_init():
    ea.manual_seed(42)
    a = nn.Linear(4, 3)
    ea.manual_seed(42)
    b = nn.Linear(4, 3)
    assert ea.equal(a.weight, b.weight) and ea.equal(a.bias, b.bias)
    c = nn.Linear(4, 3)
    assert not ea.equal(a.weight, c.weight)


def test_tied_parameters_are_listed_once():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Embedding(5, 3)
            self.dec = nn.Linear(3, 5, bias=False)
            self.dec.weight = self.enc.weight

    m = Tied()
    assert len(list(m.parameters())) == 1
    assert [n for n, _ in m.named_parameters()] == ["enc.weight"]
    assert list(m.state_dict()) == ["enc.weight", "dec.weight"]
    out = m.dec(m.enc(ea.tensor([1, 2])))
    out.sum().backward()
    assert m.enc.weight.grad is m.dec.weight.grad


def test_load_state_dict_keeps_parameter_objects_and_dtype():
    m = nn.Linear(2, 2)
    w = m.weight
    opt = optim.SGD(m.parameters(), lr=1.0)
    m.load_state_dict({"weight": ea.ones(2, 2, dtype=ea.float64), "bias": ea.zeros(2, dtype=ea.float64)})
    assert m.weight is w and w.dtype is ea.float32 and w.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    m(ea.ones(1, 2)).sum().backward()
    opt.step()
    assert m.weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_module_double_keeps_parameter_objects():
    m = nn.Linear(2, 2)
    w = m.weight
    opt = optim.SGD(m.parameters(), lr=1.0)
    m.double()
    assert m.weight is w and w.dtype is ea.float64 and isinstance(w, nn.Parameter)
    m(ea.ones(1, 2, dtype=ea.float64)).sum().backward()
    before = m.weight.detach().clone()
    opt.step()
    assert not ea.equal(before, m.weight)


def test_deepcopy_of_a_module_and_a_tensor():
    m = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    m(ea.randn(4, 3)).sum().backward()
    c = copy.deepcopy(m)
    assert c is not m and c[0].weight is not m[0].weight and isinstance(c[0].weight, nn.Parameter)
    assert ea.equal(c[0].weight, m[0].weight) and ea.equal(c[1].running_mean, m[1].running_mean)
    with ea.no_grad():
        c[0].weight.add_(1)
    assert not ea.equal(c[0].weight, m[0].weight)
    x = ea.ones(2, requires_grad=True)
    y = copy.deepcopy(x)
    assert y.requires_grad and y.is_leaf and y is not x
    with pytest.raises(RuntimeError):
        copy.deepcopy(x * 2)   # only leaves can be deep-copied


def test_save_load_of_a_whole_module():
    m = nn.Sequential(nn.Linear(3, 2), nn.ReLU())
    buf = io.BytesIO()
    ea.save(m, buf)
    buf.seek(0)
    m2 = ea.load(buf, weights_only=False)
    assert isinstance(m2, nn.Sequential) and isinstance(m2[0].weight, nn.Parameter)
    x = ea.randn(2, 3)
    assert ea.equal(m(x), m2(x))


def test_grad_with_respect_to_an_intermediate():
    x = t64([1.0, 2.0], requires_grad=True)
    z = x * 3
    y = (z ** 2).sum()
    (gz,) = autograd.grad(y, z)
    close(gz, [6.0, 12.0])


def test_function_backward_with_wrong_number_of_grads_raises():
    class Bad(autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError):
        Bad.apply(ea.ones(2, requires_grad=True), ea.ones(2, requires_grad=True)).sum().backward()


def test_inplace_on_a_leaf_view_requiring_grad_raises():
    w = ea.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        w[0] = 2.0
    with pytest.raises(RuntimeError):
        w.zero_()


def test_non_leaf_requires_grad_cannot_be_switched_off():
    y = ea.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError):
        y.requires_grad = False


def test_iterating_a_0d_tensor_raises():
    with pytest.raises(TypeError):
        iter(ea.tensor(1.0))


def test_default_collate_of_numpy_scalars_and_arrays():
    b = data.default_collate([np.float32(1.5), np.float32(2.5)])
    assert isinstance(b, ea.Tensor) and b.dtype is ea.float32 and b.tolist() == [1.5, 2.5]
    c = data.default_collate([np.int64(1), np.int64(2)])
    assert c.dtype is ea.int64
    d = data.default_collate([np.zeros(3, dtype=np.int32), np.ones(3, dtype=np.int32)])
    assert d.dtype is ea.int32 and d.shape == (2, 3)


def test_default_collate_records_autograd_and_keeps_subclasses():
    w = nn.Parameter(ea.ones(2))
    b = data.default_collate([w * 2, ea.zeros(2)])
    assert type(b.grad_fn).__name__ == "StackBackward0"
    b.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]

    class Tagged(ea.Tensor):
        pass

    x = ea.ones(2).as_subclass(Tagged)
    assert type(data.default_collate([x, x])) is Tagged


def test_tensor_of_numpy_scalars_and_mixed_lists():
    assert ea.tensor(np.float64(1.0)).dtype is ea.float64
    assert ea.tensor([True, 2]).dtype is ea.int64
    assert ea.tensor([np.array([1.0, 2.0]), np.array([3.0, 4.0])]).shape == (2, 2)


# ---------------------------------------------------------------------------------------------
# beyond the floor: the next names ported programs use most
# ---------------------------------------------------------------------------------------------

def test_beyond_floor_tensor_data_attribute():
    p = nn.Parameter(ea.ones(2))
    d = p.data
    assert not d.requires_grad and d.is_leaf
    p.data.add_(1)              # the pre-no_grad idiom: update a parameter in place
    assert p.tolist() == [2.0, 2.0] and p.is_leaf
    p.data = ea.zeros(2)
    assert p.tolist() == [0.0, 0.0] and isinstance(p, nn.Parameter)


def test_beyond_floor_common_functions():
    x = ea.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    assert x.T.shape == (3, 2) and x.ndim == 2
    assert ea.where(x > 0, x, ea.zeros_like(x)).tolist() == [[1.0, 0.0, 3.0], [0.5, 4.0, 0.0]]
    assert ea.matmul(x, x.T).shape == (2, 2)
    v, i = ea.topk(x, k=2, dim=1)
    assert v.tolist() == [[3.0, 1.0], [4.0, 0.5]] and i.tolist() == [[2, 0], [1, 0]]
    assert ea.argmax(x, dim=1).tolist() == [2, 1]
    assert ea.clamp(x, min=0).tolist() == [[1.0, 0.0, 3.0], [0.5, 4.0, 0.0]]
    assert F.pad(x, (1, 1)).shape == (2, 5)
    assert ea.bmm(ea.ones(2, 3, 4), ea.ones(2, 4, 5)).shape == (2, 3, 5)
    assert ea.einsum("ij,kj->ik", x, x).shape == (2, 2)
    assert x.sort(dim=1).values.tolist() == [[-2.0, 1.0, 3.0], [-1.0, 0.5, 4.0]]
    assert ea.no_grad is not None and ea.is_tensor(x) and not ea.is_tensor(1.0)
    assert ea.numel(x) == 6


def test_beyond_floor_common_modules_and_schedulers():
    x = ea.randn(4, 3, 5)
    assert nn.Flatten()(x).shape == (4, 15)
    assert nn.Identity()(x) is x
    assert nn.LayerNorm(5)(x).shape == (4, 3, 5)
    assert nn.GELU()(x).shape == (4, 3, 5)
    out, h = nn.GRU(5, 6, batch_first=True)(x)
    assert out.shape == (4, 3, 6) and h.shape == (1, 4, 6)
    p = nn.Parameter(ea.ones(1))
    opt = optim.SGD([p], lr=1.0)
    s = lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    opt.step()
    s.step()
    assert s.get_last_lr() == [0.5]
    r = lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.1)
    r.step(1.0)
    r.step(2.0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05)
    a, b = data.random_split(data.TensorDataset(ea.arange(10)), [7, 3], generator=ea.Generator().manual_seed(0))
    assert len(a) == 7 and len(b) == 3


# ---------------------------------------------------------------------------------------------
# broad torch comparisons: operators over dtype pairs, reductions over dims, indexing forms
# ---------------------------------------------------------------------------------------------

_DTYPES = ["bool", "int32", "int64", "float32", "float64"]


def _make(t, dtype, shape, seed):
    g = np.random.default_rng(seed)
    if dtype == "bool":
        a = g.integers(0, 2, size=shape).astype(bool)
    elif dtype.startswith("int"):
        a = g.integers(1, 6, size=shape).astype(dtype) * np.where(g.uniform(size=shape) < 0.3, -1, 1).astype(dtype)
    else:
        a = (g.uniform(0.5, 3.0, size=shape) * np.where(g.uniform(size=shape) < 0.3, -1, 1)).astype(dtype)
    return t.tensor(a)


_BINARY = {
    "add": lambda t, a, b: a + b, "sub": lambda t, a, b: a - b, "mul": lambda t, a, b: a * b,
    "div": lambda t, a, b: a / b, "floordiv": lambda t, a, b: a // b, "mod": lambda t, a, b: a % b,
    "pow": lambda t, a, b: a ** b, "lt": lambda t, a, b: a < b, "eq": lambda t, a, b: a == b,
    "ge": lambda t, a, b: a >= b, "and": lambda t, a, b: a & b, "radd": lambda t, a, b: b + a,
    "rsub": lambda t, a, b: b - a, "rdiv": lambda t, a, b: b / a,
    "iadd": lambda t, a, b: a.__iadd__(b), "imul": lambda t, a, b: a.__imul__(b),
}
_OPERANDS = _DTYPES + ["py_int", "py_float", "py_bool", "0d_float64", "0d_int64"]


def _operand(t, kind):
    if kind == "py_int":
        return -3
    if kind == "py_float":
        return 1.5
    if kind == "py_bool":
        return True
    if kind.startswith("0d_"):
        return t.tensor(2, dtype=getattr(t, kind[3:]))
    return _make(t, kind, (2, 4), 1)


def _raised(outcome) -> bool:
    return isinstance(outcome, tuple) and len(outcome) == 2 and isinstance(outcome[0], str)


def _outcome(fn):
    try:
        return fn()
    except Exception as e:
        return ("raises", type(e).__name__)


@pytest.mark.torch
@pytest.mark.parametrize("op", list(_BINARY))
@pytest.mark.parametrize("da", _DTYPES)
def test_binary_operators_match_torch_over_dtypes(op, da):
    torch = pytest.importorskip("torch")
    problems = []
    for db in _OPERANDS:
        def prog(t):
            a = _make(t, da, (3, 1, 4), 0)
            if op in ("pow",) and da != "bool" and not da.startswith("float"):
                a = a.abs()
            return _outcome(lambda: _BINARY[op](t, a, _operand(t, db)))

        expected = prog(torch)
        actual = prog(_ember_ns())
        if _raised(expected):   # a program that runs on PyTorch never does this: not checked here
            continue
        if _raised(actual):
            problems.append(f"{da} {op} {db}: ember raises {actual[1]}, PyTorch gives {expected.dtype}")
            continue
        try:
            assert_same(expected, actual, rtol=1e-6, atol=1e-6)
        except AssertionError as e:
            problems.append(f"{da} {op} {db}: {str(e).splitlines()[0]}")
    assert not problems, "\n".join(problems)


def _ember_ns():
    return ember_torch()


_REDUCTIONS = {
    "sum": lambda x, **k: x.sum(**k), "mean": lambda x, **k: x.mean(**k), "std": lambda x, **k: x.std(**k),
    "var": lambda x, **k: x.var(**k), "amax": lambda x, **k: x.amax(**k) if k else x.max(),
    "max_dim": lambda x, **k: x.max(**k) if "dim" in k and isinstance(k["dim"], int) else x.max(),
    "min_dim": lambda x, **k: x.min(**k) if "dim" in k and isinstance(k["dim"], int) else x.min(),
    "argmax": lambda x, **k: x.argmax(**k) if not isinstance(k.get("dim"), tuple) else x.argmax(),
    "all": lambda x, **k: x.all(**k) if not isinstance(k.get("dim"), tuple) else x.all(),
    "any": lambda x, **k: x.any(**k) if not isinstance(k.get("dim"), tuple) else x.any(),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_REDUCTIONS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_reductions_match_torch_over_dims(name, dtype):
    torch = pytest.importorskip("torch")
    problems = []
    for kw in ({}, {"dim": 0}, {"dim": -1}, {"dim": 1, "keepdim": True}, {"dim": (0, 2)},
               {"dim": (-1, 0), "keepdim": True}):
        def prog(t):
            x = _make(t, dtype, (2, 3, 4), 5)
            return _outcome(lambda: _REDUCTIONS[name](x, **kw))

        expected, actual = prog(torch), prog(_ember_ns())
        if _raised(expected):
            continue
        if _raised(actual):
            problems.append(f"{name}({dtype}, {kw}): ember raises {actual[1]}")
            continue
        try:
            assert_same(expected, actual, rtol=1e-5, atol=1e-5)
        except AssertionError as e:
            problems.append(f"{name}({dtype}, {kw}): {str(e).splitlines()[0]}")
    assert not problems, "\n".join(problems)


_INDEXES = {
    "int": lambda t: 1, "neg_int": lambda t: -1, "slice_step": lambda t: slice(None, None, 2),
    "tuple_mixed": lambda t: (slice(1, None), 0), "ellipsis_none": lambda t: (Ellipsis, None, 1),
    "list": lambda t: [0, 2, 2], "nested_lists": lambda t: ([0, 1], [1, 0]), "int_tensor": lambda t: t.tensor([1, 0]),
    "2d_int_tensor": lambda t: t.tensor([[0], [2]]), "bool_row_mask": lambda t: t.tensor([True, False, True]),
    "bool_full_mask": lambda t: t.arange(24).reshape(3, 2, 4) % 3 == 0, "0d_tensor": lambda t: t.tensor(2),
    "slice_and_list": lambda t: (slice(None), [1, 0], slice(None, None, 3)),
    "split_advanced": lambda t: ([0, 2], slice(None), [3, 1]),
    "none_and_tensor": lambda t: (None, t.tensor([2, 0]), Ellipsis),
    "neg_step_free": lambda t: (slice(-2, None), slice(None), -1),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_INDEXES))
def test_indexing_matches_torch(name):
    def prog(t):
        x = t.arange(24.0).reshape(3, 2, 4).requires_grad_()
        y = x[_INDEXES[name](t)]
        (y * t.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
        z = t.zeros(3, 2, 4)
        z[_INDEXES[name](t)] = -1.0
        return [y, x.grad, z]

    compare_with_torch(prog)


_SHAPE_OPS = {
    "view": lambda t, x: x.view(4, -1), "reshape_t": lambda t, x: x.transpose(0, 2).reshape(-1, 3),
    "permute": lambda t, x: x.permute(2, 0, 1) * 1, "flatten": lambda t, x: x.flatten(1),
    "squeeze_unsqueeze": lambda t, x: x.unsqueeze(1).unsqueeze(-1).squeeze(1) * 1,
    "expand": lambda t, x: x[:, :1].expand(3, 5, 4) * 1, "repeat": lambda t, x: x.repeat(2, 1, 1),
    "chunk": lambda t, x: t.cat(x.chunk(2, dim=2)[::-1], dim=2), "stack": lambda t, x: t.stack([x, x * 2], dim=-1),
    "t": lambda t, x: x[0].t(), "expand_as": lambda t, x: x[:1].expand_as(x) * 1,
    "repeat_interleave": lambda t, x: x.repeat_interleave(2, dim=1),
    "gather": lambda t, x: x.gather(2, t.tensor([[[3, 0]] * 2] * 3)),
    "contiguous": lambda t, x: x.transpose(1, 2).contiguous().view(3, -1),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_SHAPE_OPS))
def test_shape_ops_and_their_gradients_match_torch(name):
    def prog(t):
        x = t.arange(24.0, dtype=t.float64).reshape(3, 2, 4).requires_grad_()
        y = _SHAPE_OPS[name](t, x)
        (y * t.arange(1.0, y.numel() + 1, dtype=t.float64).reshape(y.shape)).sum().backward()
        return [y, x.grad]

    compare_with_torch(prog)


def test_beyond_floor_device_boilerplate():
    device = ea.device("cuda" if ea.cuda.is_available() else "cpu")
    assert isinstance(ea.cuda.is_available(), bool)
    m = nn.Linear(2, 2)
    assert m.to(device) is m and m.cpu() is m
    assert m.to(ea.float64) is m and m.weight.dtype is ea.float64
    m.float()
    x = ea.ones(3, 2).to(device)
    assert m(x).device.type == device.type
    assert next(m.parameters()).device == x.device


def test_beyond_floor_loader_pin_memory_and_early_break():
    ds = data.TensorDataset(ea.arange(40.0).reshape(20, 2), ea.arange(20))

    def run():
        dl = data.DataLoader(ds, batch_size=4, num_workers=2, pin_memory=True)
        first = next(iter(dl))          # an abandoned iterator must shut its workers down
        for i, (xb, yb) in enumerate(dl):
            if i == 1:
                break
        full = [yb.tolist() for _, yb in dl]
        return first, full

    first, full = _within(120, run)
    assert first[1].tolist() == [0, 1, 2, 3] and len(full) == 5 and full[-1] == [16, 17, 18, 19]


def test_beyond_floor_worker_info_and_init_fn():
    def run():
        dl = data.DataLoader(_WorkerIdDataset(), batch_size=2, num_workers=2, worker_init_fn=_record_worker)
        return sorted(v for b in dl for v in b.tolist())

    ids = _within(120, run)
    assert set(ids) == {0, 1} and len(ids) == 8
    assert data.get_worker_info() is None


class _WorkerIdDataset:
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = data.get_worker_info()
        return info.id if info is not None else -1


def _record_worker(worker_id):
    assert data.get_worker_info().id == worker_id


def _loss_extras(t):
    F_ = t.nn.functional
    g = np.random.default_rng(3)
    logits = t.tensor(g.normal(size=(5, 4)), requires_grad=True)
    tgt = t.tensor(g.integers(0, 4, size=5))
    soft = t.softmax(t.tensor(g.normal(size=(5, 4))), dim=1)
    out = [F_.cross_entropy(logits, tgt, label_smoothing=0.1), F_.cross_entropy(logits, soft),
           t.nn.CrossEntropyLoss(reduction="sum", label_smoothing=0.2)(logits, tgt)]
    sum(out).backward()
    return out + [logits.grad]


@pytest.mark.torch
def test_label_smoothing_and_probability_targets_match_torch():
    compare_with_torch(_loss_extras, rtol=1e-10, atol=1e-12)


def test_format_of_a_scalar_tensor_in_training_logs():
    loss = ea.tensor(0.123456)
    assert f"{loss:.4f}" == "0.1235"
    assert "%.2f" % loss == "0.12"  # noqa: UP031  (the old-style logging protocol is the point)
    assert f"{ea.tensor([2.5]).item():.1f}" == "2.5"
    assert "{:d}".format(ea.tensor(3).item()) == "3"  # noqa: UP032
    assert round(float(ea.tensor(2.6))) == 3


def test_module_repr_is_pytorchs():
    m = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Dropout(0.5))
    assert str(m) == ("Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)\n  (1): ReLU()\n"
                      "  (2): Dropout(p=0.5, inplace=False)\n)")
    assert repr(nn.Conv2d(1, 2, 3, padding=1)) == "Conv2d(1, 2, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    assert repr(nn.BatchNorm1d(3)) == ("BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                       "track_running_stats=True)")
    assert repr(nn.LSTM(2, 3, num_layers=2, batch_first=True)) == "LSTM(2, 3, num_layers=2, batch_first=True)"
    assert repr(nn.Embedding(5, 2)) == "Embedding(5, 2)"


def test_legacy_tensor_constructor():
    x = ea.Tensor([1, 2])
    assert x.dtype is ea.float32 and x.tolist() == [1.0, 2.0]
    assert ea.Tensor(2, 3).shape == (2, 3)


# ---------------------------------------------------------------------------------------------
# autograd edge cases against torch
# ---------------------------------------------------------------------------------------------

def _edge(t, body):
    x = t.tensor([[-1.0, 0.0, 2.0], [2.0, 2.0, 0.5]], dtype=t.float64, requires_grad=True)
    y = body(t, x)
    y.backward(t.ones_like(y)) if y.dim() else y.backward()
    return [y, x.grad]


_EDGES = {
    "abs_at_zero": lambda t, x: x.abs().sum(),
    "relu_at_zero": lambda t, x: t.relu(x).sum(),
    "clamp_boundaries": lambda t, x: x.clamp(min=0.0, max=2.0).sum(),
    "max_ties_full": lambda t, x: x.max(),
    "max_ties_dim": lambda t, x: x.max(dim=1).values.sum(),
    "maximum_ties": lambda t, x: t.maximum(x, t.full_like(x, 2.0)).sum(),
    "amax_ties": lambda t, x: x.amax(dim=1).sum(),
    "broadcast_reduce": lambda t, x: (x[:, :1] * x[:1, :] + x.sum(0, keepdim=True)).sum(),
    "inplace_on_view": lambda t, x: _inplace_view(x),
    "relu_inplace_nonleaf": lambda t, x: (x * 2).relu_().sum(),
    "iadd_nonleaf": lambda t, x: _iadd(x),
    "setitem_nonleaf": lambda t, x: _setitem(t, x),
    "where": lambda t, x: t.where(x > 0, x * 3, x ** 2).sum(),
    "masked_mean": lambda t, x: x[x > 0.4].mean(),
    "softmax_chain": lambda t, x: (t.softmax(x, dim=1) * t.log_softmax(x, dim=0)).sum(),
    "var_std_keepdim": lambda t, x: (x.var(1, keepdim=True) * x.std(0, keepdim=True)).sum(),
    "mean_tuple_dims": lambda t, x: x.mean(dim=(0, 1)),
    "expand_then_inplace_mul": lambda t, x: (x.unsqueeze(0).expand(2, 2, 3) * 1.0).mul_(3).sum(),
    "detach_blocks": lambda t, x: (x * x.detach()).sum(),
    "repeat_interleave": lambda t, x: (x.repeat_interleave(2, dim=1)
                                       * t.arange(12.0, dtype=t.float64).view(2, 6)).sum(),
    "gather_duplicates": lambda t, x: x.gather(1, t.tensor([[0, 0, 2], [1, 1, 1]])).sum(),
    "index_with_repeats": lambda t, x: x[[0, 0, 1]].sum(),
    "pow_tensor_exponent": lambda t, x: (x.abs() + 1).pow(x).sum(),
    "div_by_tensor": lambda t, x: (x / (x.abs() + 1)).sum(),
    "cat_stack_chunk": lambda t, x: t.stack(t.cat([x, x * 2], dim=1).chunk(3, dim=1)).pow(2).sum(),
    "matmul_batched": lambda t, x: (x.unsqueeze(0).expand(4, 2, 3) @ x.t()).sum(),
    "log1p_sigmoid_tanh": lambda t, x: (t.log1p(x.abs()) + t.sigmoid(x) * t.tanh(x)).sum(),
}


def _inplace_view(x):
    y = x * 1
    y[0].mul_(5)
    return y.sum()


def _iadd(x):
    y = x * 2
    y += x
    return y.sum()


def _setitem(t, x):
    y = x.clone()
    y[:, 1] = x[:, 0] * 10
    y[y > 3] = 0.5
    return (y * y).sum()


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_EDGES))
def test_autograd_edge_cases_match_torch(name):
    compare_with_torch(lambda t: _edge(t, _EDGES[name]), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# layers with the same weights as PyTorch's: outputs, input grads and parameter grads
# ---------------------------------------------------------------------------------------------

_LAYERS = {
    "linear": (lambda nn_: nn_.Linear(5, 3), (4, 5)),
    "linear_nobias_3d": (lambda nn_: nn_.Linear(5, 3, bias=False), (2, 4, 5)),
    "conv_pad": (lambda nn_: nn_.Conv2d(3, 4, 3, padding=1), (2, 3, 7, 6)),
    "conv_stride_dilation": (lambda nn_: nn_.Conv2d(3, 4, 3, stride=2, padding=2, dilation=2), (2, 3, 9, 8)),
    "conv_groups_same": (lambda nn_: nn_.Conv2d(4, 6, 3, groups=2, padding="same"), (2, 4, 6, 6)),
    "conv_rect_nobias": (lambda nn_: nn_.Conv2d(3, 2, (3, 1), padding=(1, 0), bias=False), (1, 3, 5, 4)),
    "conv_reflect": (lambda nn_: nn_.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"), (1, 2, 5, 5)),
    "conv_unbatched": (lambda nn_: nn_.Conv2d(2, 3, 3), (2, 5, 5)),
    "maxpool": (lambda nn_: nn_.MaxPool2d(2), (2, 3, 6, 6)),
    "maxpool_stride_pad": (lambda nn_: nn_.MaxPool2d(3, stride=2, padding=1), (2, 3, 7, 7)),
    "maxpool_ceil": (lambda nn_: nn_.MaxPool2d(2, ceil_mode=True), (1, 2, 5, 5)),
    "maxpool_dilation": (lambda nn_: nn_.MaxPool2d(2, stride=1, dilation=2), (1, 2, 5, 5)),
    "bn1d_2d": (lambda nn_: nn_.BatchNorm1d(4), (6, 4)),
    "bn1d_3d": (lambda nn_: nn_.BatchNorm1d(4, momentum=0.3), (3, 4, 5)),
    "bn2d": (lambda nn_: nn_.BatchNorm2d(3, eps=1e-3), (2, 3, 4, 4)),
    "bn2d_eval": (lambda nn_: nn_.BatchNorm2d(3).eval(), (2, 3, 4, 4)),
    "bn2d_cumulative": (lambda nn_: nn_.BatchNorm2d(3, momentum=None), (2, 3, 4, 4)),
    "bn2d_no_affine": (lambda nn_: nn_.BatchNorm2d(3, affine=False), (2, 3, 4, 4)),
    "leaky_relu": (lambda nn_: nn_.LeakyReLU(0.1), (3, 4)),
    "softmax": (lambda nn_: nn_.Softmax(dim=1), (3, 4, 2)),
    "log_softmax": (lambda nn_: nn_.LogSoftmax(dim=-1), (3, 4)),
    "sigmoid_tanh": (lambda nn_: nn_.Sequential(nn_.Sigmoid(), nn_.Tanh()), (3, 4)),
    "dropout_eval": (lambda nn_: nn_.Dropout(0.5).eval(), (3, 4)),
    "lstm_2layer_bf": (lambda nn_: nn_.LSTM(4, 5, num_layers=2, batch_first=True), (2, 6, 4)),
    "lstm_nobias": (lambda nn_: nn_.LSTM(4, 5, bias=False), (6, 2, 4)),
    "lstm_unbatched": (lambda nn_: nn_.LSTM(4, 5), (6, 4)),
    "lstm_bidirectional": (lambda nn_: nn_.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True), (2, 6, 4)),
    "lstm_proj_size": (lambda nn_: nn_.LSTM(4, 5, proj_size=3, batch_first=True), (2, 6, 4)),
}


def _layer_program(name):
    make, shape = _LAYERS[name]

    def prog(t):
        t.manual_seed(0)
        layer = make(t.nn).double()
        if prog.weights is None:            # the torch run goes first and records its weights
            prog.weights = {k: v.detach().numpy().copy() for k, v in layer.state_dict().items()}
        else:
            with t.no_grad():
                for k, v in list(layer.named_parameters()) + list(layer.named_buffers()):
                    v.copy_(t.from_numpy(prog.weights[k].copy()))
        g = np.random.default_rng(1)
        x = t.tensor(g.normal(size=shape), requires_grad=True)
        out = layer(x)
        outs = list(out) if isinstance(out, tuple) else [out]
        flat = []
        for o in outs:
            flat.extend(o if isinstance(o, tuple) else [o])
        w = [t.tensor(np.random.default_rng(2 + i).normal(size=tuple(o.shape))) for i, o in enumerate(flat)]
        sum((o * wi).sum() for o, wi in zip(flat, w)).backward()
        grads = [p.grad for _, p in layer.named_parameters()]
        buffers = [b for _, b in layer.named_buffers()]
        return [flat, x.grad, grads, buffers]

    prog.weights = None
    return prog


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_LAYERS))
def test_layers_match_torch_with_the_same_weights(name):
    compare_with_torch(_layer_program(name), rtol=1e-9, atol=1e-10)


_OPTIM_CONFIGS = {
    "sgd_plain": ("SGD", dict(lr=0.1)),
    "sgd_momentum_dampening": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=1e-2)),
    "sgd_nesterov_maximize": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    "adam_default": ("Adam", dict()),
    "adam_amsgrad_wd": ("Adam", dict(lr=0.02, amsgrad=True, weight_decay=0.1)),
    "adam_maximize": ("Adam", dict(lr=0.02, maximize=True, eps=1e-4)),
    "adamw_amsgrad": ("AdamW", dict(lr=0.03, amsgrad=True, weight_decay=0.5, betas=(0.7, 0.95))),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_OPTIM_CONFIGS))
def test_optimizer_options_match_torch(name):
    cls, kw = _OPTIM_CONFIGS[name]

    def prog(t):
        w = t.nn.Parameter(t.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=t.float64))
        b = t.nn.Parameter(t.tensor([0.1, -0.1], dtype=t.float64))
        frozen = t.nn.Parameter(t.tensor([1.0], dtype=t.float64))     # never gets a grad
        opt = getattr(t.optim, cls)([w, b, frozen], **kw)
        for i in range(6):
            opt.zero_grad()
            loss = ((w @ t.tensor([1.0, 2.0 + i], dtype=t.float64) + b) ** 2).sum()
            loss.backward()
            opt.step()
        return [w.detach().clone(), b.detach().clone(), frozen.detach().clone(), len(opt.state),
                sorted(opt.state_dict()["param_groups"][0])]

    compare_with_torch(prog, rtol=1e-12, atol=1e-14)


@pytest.mark.torch
def test_schedulers_past_their_period_match_torch():
    def prog(t):
        p = t.nn.Parameter(t.ones(1))
        opt = t.optim.SGD([p], lr=0.1)
        cos = t.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=3, eta_min=0.01)
        opt2 = t.optim.SGD([p], lr=1.0)
        step = t.optim.lr_scheduler.StepLR(opt2, step_size=3, gamma=0.3)
        seen = []
        for _ in range(10):
            opt.step()
            cos.step()
            opt2.step()
            step.step()
            seen.append([cos.get_last_lr()[0], step.get_last_lr()[0], opt.param_groups[0]["lr"]])
        return [seen, cos.state_dict()["last_epoch"], step.last_epoch]

    compare_with_torch(prog, rtol=1e-9, atol=1e-12)


class _RaggedDataset:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return np.zeros(i + 1, dtype=np.float32)


def test_dataloader_collate_of_unequal_sizes_raises_runtime_error():
    with pytest.raises(RuntimeError):
        list(data.DataLoader(_RaggedDataset(), batch_size=2))


def test_dataloader_batch_size_none_sampler_and_batch_sampler():
    ds = data.TensorDataset(ea.arange(10))
    unbatched = list(data.DataLoader(SquaresDataset(3), batch_size=None))
    assert all(isinstance(v, int) for v in unbatched) and unbatched == [0, 1, 4]
    arr = list(data.DataLoader(_RaggedDataset(), batch_size=None))
    assert isinstance(arr[1], ea.Tensor) and arr[1].shape == (2,)
    sampled = [b[0].tolist() for b in data.DataLoader(ds, batch_size=3, sampler=[9, 0, 5, 1])]
    assert sampled == [[9, 0, 5], [1]]
    bs = data.BatchSampler(data.SequentialSampler(range(7)), batch_size=3, drop_last=False)
    assert list(bs) == [[0, 1, 2], [3, 4, 5], [6]] and len(bs) == 3
    by_batch = [b[0].tolist() for b in data.DataLoader(ds, batch_sampler=[[1, 2], [7]])]
    assert by_batch == [[1, 2], [7]]
    with pytest.raises(ValueError):
        data.DataLoader(ds, batch_size=2, shuffle=True, sampler=[0, 1])
    assert data.DataLoader(ds).sampler.__class__.__name__ == "SequentialSampler"
    assert data.DataLoader(ds, shuffle=True).sampler.__class__.__name__ == "RandomSampler"


def test_dataloader_persistent_workers_reiterate():
    def run():
        dl = data.DataLoader(SquaresDataset(6), batch_size=2, num_workers=2, persistent_workers=True)
        return [b.tolist() for b in dl], [b.tolist() for b in dl]

    a, b = _within(120, run)
    assert a == b == [[0, 1], [4, 9], [16, 25]]


@pytest.mark.torch
def test_beyond_floor_load_a_checkpoint_written_by_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    path = tmp_path / "from_torch.pt"
    torch.save({"model": tm.state_dict(), "epoch": 3}, path)
    ckpt = ea.load(path)
    em = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    em.load_state_dict(ckpt["model"])
    assert ckpt["epoch"] == 3
    x = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    tm.eval()
    em.eval()
    np.testing.assert_allclose(N(em(ea.tensor(x))), tm(torch.tensor(x)).detach().numpy(), rtol=1e-6, atol=1e-6)


def test_from_numpy_of_a_strided_view_shares_memory():
    a = np.arange(12.0).reshape(3, 4)
    x = ea.from_numpy(a[:, ::2])
    assert x.shape == (3, 2) and x.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    a[0, 2] = 99
    assert x[0, 1].item() == 99
    assert ea.from_numpy(np.zeros(2, dtype=np.uint8)).dtype is ea.uint8


@pytest.mark.torch
def test_more_index_forms_match_torch():
    def prog(t):
        x = t.arange(24.0).reshape(4, 6)
        out = [x[t.tensor([3, -1, 0], dtype=t.int32)], x[[True, False, True, True]], x[:, t.tensor([-1, -6])],
               x[t.tensor([[True] * 6, [False] * 6, [True] * 3 + [False] * 3, [False] * 6])], x[1:3, 4:],
               x[-1], x[..., -1], x[None, None, 2, ::2]]
        z = t.zeros(4, 6)
        m = x % 5 == 0
        z[m] = t.arange(float(int(m.sum())))
        z[[0, 3], 1:3] = t.tensor([[7.0, 8.0]])
        z[2, [0, 0]] = t.tensor([1.0, 2.0])   # repeated index: last write wins on the CPU
        z[..., 5] += 1
        out.append(z)
        return out

    compare_with_torch(prog)


def test_inf_and_nan_results_raise_no_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ea.log(ea.tensor([0.0, -1.0]))
        ea.sqrt(ea.tensor([-1.0]))
        ea.tensor([1.0, 0.0]) / 0
        ea.tensor([1.0]) // 0.0
        ea.tensor([0.0]) ** -1.0
        ea.tensor([1.0]) % 0.0
        ea.exp(ea.tensor([1000.0]))
        ea.tensor([1e38]) * 10
        F.binary_cross_entropy(ea.tensor([0.0, 1.0]), ea.tensor([1.0, 0.0]))


def test_module_call_with_keywords_state_dict_options_and_shared_submodules():
    lin = nn.Linear(2, 3)
    assert lin(input=ea.ones(1, 2)).shape == (1, 3)
    sd = lin.state_dict(keep_vars=True)
    assert sd["weight"] is lin.weight
    assert list(lin.state_dict(prefix="enc.")) == ["enc.weight", "enc.bias"]
    assert [n for n, _ in lin.named_parameters(prefix="m")] == ["m.weight", "m.bias"]
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.parameters())) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    bn = nn.BatchNorm1d(3, track_running_stats=False)
    assert bn.running_mean is None and "running_mean" not in bn.state_dict()
    m = nn.Module()
    m.register_buffer("maybe", None)
    assert m.maybe is None and list(m.state_dict()) == []


_BEYOND = {
    "rand_like_family": lambda t: [t.rand(3, 4).shape, t.rand_like(t.ones(2)).dtype, t.randn_like(t.ones(2, 2)).shape,
                                   t.normal(0.0, 1.0, size=(3,)).shape, t.eye(3), t.tril(t.ones(3, 3)),
                                   t.triu(t.ones(3, 3), diagonal=1)],
    "norms": lambda t: [t.tensor([[3.0, 4.0], [1.0, 2.0]]).norm(), t.tensor([[3.0, 4.0]]).norm(dim=1),
                        t.tensor([[3.0, 4.0]]).norm(p=1), t.norm(t.tensor([3.0, 4.0]))],
    "scans_products": lambda t: [t.arange(1.0, 5.0).cumsum(0), t.arange(1.0, 5.0).prod(),
                                 t.cumsum(t.tensor([[1, 2], [3, 4]]), dim=1), t.logsumexp(t.tensor([[1.0, 2.0]]), 1)],
    "sorting": lambda t: [t.tensor([3, 1, 2]).argsort(), t.sort(t.tensor([3.0, 1.0, 2.0]), descending=True),
                          t.unique(t.tensor([3, 1, 3, 2])), t.topk(t.tensor([1.0, 5.0, 3.0]), 2)],
    "masking": lambda t: [t.arange(6.0).masked_fill(t.arange(6) > 3, -1.0), t.nonzero(t.tensor([0, 1, 0, 2])),
                          t.arange(6.0).reshape(2, 3).index_select(1, t.tensor([2, 0])),
                          t.zeros(3).scatter_(0, t.tensor([2, 0]), t.tensor([5.0, 6.0])),
                          t.where(t.tensor([True, False]))],
    "rounding": lambda t: [t.tensor([-1.5, 0.5, 2.5]).round(), t.tensor([-1.5, 2.2]).floor(),
                           t.tensor([-1.5, 2.2]).ceil(), t.tensor([-2.0, 0.0, 3.0]).sign(), t.tensor([-1.7]).trunc()],
    "shapes": lambda t: [t.arange(10).split([3, 7]), t.arange(10).narrow(0, 2, 3), t.outer(t.ones(2), t.arange(3.0)),
                         t.diag(t.tensor([1.0, 2.0])), t.arange(6).reshape(2, 3).flip(0),
                         t.arange(6).reshape(2, 3).unflatten(1, (3, 1)).shape, t.arange(4).roll(1)],
    "nn_extras": lambda t: [t.nn.functional.gelu(t.tensor([-1.0, 0.5])), t.nn.functional.silu(t.tensor([1.0])),
                            t.nn.functional.normalize(t.tensor([[3.0, 4.0]]), dim=1),
                            t.nn.functional.pad(t.ones(1, 2), (1, 2), value=3.0),
                            t.nn.functional.avg_pool2d(t.ones(1, 1, 4, 4), 2),
                            t.nn.functional.interpolate(t.ones(1, 1, 2, 2), scale_factor=2).shape,
                            t.nn.functional.cosine_similarity(t.ones(2, 3), t.ones(2, 3)),
                            t.nn.functional.smooth_l1_loss(t.tensor([0.0, 2.0]), t.tensor([0.5, 0.0])),
                            t.nn.functional.kl_div(t.log_softmax(t.tensor([[1.0, 2.0]]), 1),
                                                   t.softmax(t.tensor([[0.5, 0.5]]), 1), reduction="batchmean")],
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_BEYOND))
def test_beyond_floor_common_ops_match_torch(name):
    def prog(t):
        out = _BEYOND[name](t)
        return [tuple(o) if hasattr(o, "numel") and not hasattr(o, "dtype") else o for o in out]

    compare_with_torch(prog)


def test_function_returning_a_view_or_its_input_gradient_reversal():
    class GradReverse(autograd.Function):
        @staticmethod
        def forward(ctx, x, alpha):
            ctx.alpha = alpha
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.neg() * ctx.alpha, None

    class Identity(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ea.tensor([1.0, 2.0], requires_grad=True)
    y = GradReverse.apply(x * 1, 0.5)
    (y * ea.tensor([1.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [-0.5, -1.5]
    x.grad = None
    z = Identity.apply(x)
    assert z.grad_fn is not None
    (z * 3).sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_dataloader_workers_move_large_batches_intact():
    images = ea.from_numpy(np.random.default_rng(0).normal(size=(320, 3, 32, 32)).astype(np.float32))
    labels = ea.arange(320)
    ds = data.TensorDataset(images, labels)

    def run():
        out = []
        for xb, yb in data.DataLoader(ds, batch_size=64, num_workers=2):
            out.append((xb.numpy().copy(), yb.tolist()))
        return out

    batches = _within(180, run)
    assert len(batches) == 5
    for i, (xb, yb) in enumerate(batches):
        assert yb == list(range(64 * i, 64 * (i + 1)))
        np.testing.assert_array_equal(xb, N(images[64 * i:64 * (i + 1)]))


def test_beyond_floor_numpy_style_axis_and_keepdims_aliases():
    x = ea.arange(6.0).reshape(2, 3)
    assert x.sum(axis=1).tolist() == [3.0, 12.0]
    assert ea.mean(x, axis=0).tolist() == [1.5, 2.5, 3.5]
    assert x.max(axis=1).values.tolist() == [2.0, 5.0]
    assert x.argmax(axis=1).tolist() == [2, 2]
    assert ea.cat([x, x], axis=0).shape == (4, 3)
    assert x.sum(dim=1, keepdims=True).shape == (2, 1)
    assert x.size(dim=1) == 3


def test_beyond_floor_seed_and_backend_boilerplate():
    ea.manual_seed(0)
    ea.cuda.manual_seed(0)
    ea.cuda.manual_seed_all(0)
    ea.backends.cudnn.deterministic = True
    ea.backends.cudnn.benchmark = False
    ea.set_num_threads(ea.get_num_threads())
    assert isinstance(ea.cuda.device_count(), int)


def test_beyond_floor_set_default_dtype():
    try:
        ea.set_default_dtype(ea.float64)
        assert ea.get_default_dtype() is ea.float64
        assert ea.tensor([1.0]).dtype is ea.float64 and ea.zeros(2).dtype is ea.float64
        assert ea.arange(0.0, 1.0, 0.5).dtype is ea.float64 and ea.randn(2).dtype is ea.float64
        assert nn.Linear(2, 2).weight.dtype is ea.float64
        assert ea.tensor([1]).dtype is ea.int64
    finally:
        ea.set_default_dtype(ea.float32)
    assert ea.tensor([1.0]).dtype is ea.float32


def test_batchnorm_loads_a_state_dict_without_num_batches_tracked():
    # checkpoints from before num_batches_tracked existed (no version metadata) load strictly
    bn = nn.BatchNorm1d(3)
    sd = {k: v.clone() for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    sd["running_mean"].fill_(0.5)
    res = bn.load_state_dict(sd)
    assert list(res.missing_keys) == [] and bn.running_mean.tolist() == [0.5, 0.5, 0.5]
    assert bn.num_batches_tracked.item() == 0


def test_optimizer_load_state_dict_checks_groups_and_casts_state():
    a = [nn.Parameter(ea.ones(2)), nn.Parameter(ea.ones(3))]
    opt = optim.Adam(a, lr=0.1)
    sum(p.sum() for p in a).backward()
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    with pytest.raises(ValueError):
        optim.Adam([nn.Parameter(ea.ones(2))], lr=0.1).load_state_dict(sd)
    b = [nn.Parameter(ea.ones(2, dtype=ea.float64)), nn.Parameter(ea.ones(3, dtype=ea.float64))]
    opt2 = optim.Adam(b, lr=0.1)
    opt2.load_state_dict(sd)
    assert opt2.state[b[0]]["exp_avg"].dtype is ea.float64
    sum(p.sum() for p in b).backward()
    opt2.step()
    assert b[0].dtype is ea.float64


_EMBEDDING_OPTIONS = {"padding_idx": {"padding_idx": 1}, "max_norm": {"max_norm": 1.0},
                      "scale_grad_by_freq": {"scale_grad_by_freq": True},
                      "max_norm_l1": {"max_norm": 0.5, "norm_type": 1.0}}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_EMBEDDING_OPTIONS))
def test_embedding_options_match_torch(name):
    def prog(t):
        t.manual_seed(0)
        e = t.nn.Embedding(6, 3, **_EMBEDDING_OPTIONS[name]).double()
        with t.no_grad():
            e.weight.copy_(t.tensor(np.random.default_rng(4).normal(size=(6, 3))))
        idx = t.tensor([[1, 2, 2], [5, 1, 0]])
        y = e(idx)
        (y * t.tensor(np.random.default_rng(5).normal(size=(2, 3, 3)))).sum().backward()
        return [y, e.weight.grad, e.weight.detach().clone()]

    compare_with_torch(prog, rtol=1e-10, atol=1e-12)


def _combined_losses(t):
    F_ = t.nn.functional
    g = np.random.default_rng(6)
    x = t.tensor(g.normal(size=(4, 3, 2, 2)), requires_grad=True)
    tgt = t.tensor(g.integers(0, 3, size=(4, 2, 2)))
    tgt[0, 0, 0] = -100
    w = t.tensor([0.2, 1.0, 3.0], dtype=t.float64)
    p = t.tensor(g.uniform(0.05, 0.95, size=(4, 3)), requires_grad=True)
    y = t.tensor(g.integers(0, 2, size=(4, 3)).astype(np.float64))
    out = [F_.cross_entropy(x, tgt, weight=w, label_smoothing=0.1),
           F_.cross_entropy(x, tgt, weight=w, reduction="sum"),
           F_.nll_loss(F_.log_softmax(x, 1), tgt, weight=w, reduction="none"),
           F_.binary_cross_entropy(p, y, weight=t.tensor([1.0, 2.0, 0.5], dtype=t.float64)),
           F_.binary_cross_entropy_with_logits(p, y, weight=t.tensor([[2.0], [1.0], [1.0], [0.5]], dtype=t.float64),
                                               pos_weight=t.tensor([1.0, 3.0, 0.5], dtype=t.float64)),
           F_.l1_loss(p, y, reduction="none"), F_.mse_loss(p, y, reduction="sum")]
    sum(o.sum() for o in out).backward()
    return out + [x.grad, p.grad]


@pytest.mark.torch
def test_weighted_and_combined_losses_match_torch():
    compare_with_torch(_combined_losses, rtol=1e-10, atol=1e-12)


def test_backward_with_create_graph_makes_grad_differentiable():
    x = t64([0.5, 2.0], requires_grad=True)
    (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad and g.grad_fn is not None
    close(g, 3 * np.array([0.5, 2.0]) ** 2)
    (h,) = autograd.grad(g.sum(), x)
    close(h, 6 * np.array([0.5, 2.0]))


def test_lstm_dropout_between_layers_only_in_training():
    ea.manual_seed(0)
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5, batch_first=True)
    ref = nn.LSTM(3, 4, num_layers=2, batch_first=True)
    ref.load_state_dict(m.state_dict())
    x = ea.randn(2, 5, 3)
    m.eval()
    ref.eval()
    assert ea.allclose(m(x)[0], ref(x)[0])
    m.train()
    ea.manual_seed(1)
    a = m(x)[0]
    assert not ea.allclose(a, ref(x)[0])
    assert m.dropout == 0.5


def test_container_slices_share_modules_and_accept_assignment():
    s = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    assert s[1:][0] is s[1] and s[-2:][1] is s[2]
    ml = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1)])
    new = nn.Linear(1, 2)
    ml[0] = new
    assert ml[0] is new and list(ml.parameters())[0] is new.weight
    md = nn.ModuleDict()
    md.update({"x": nn.ReLU()})
    assert "x" in md and md.pop("x").__class__.__name__ == "ReLU" and len(md) == 0


def test_beyond_floor_type_as():
    x = ea.tensor([1, 2]).type_as(ea.ones(1, dtype=ea.float64))
    assert x.dtype is ea.float64 and x.tolist() == [1.0, 2.0]


def _schedule(t, make, n=12):
    p = t.nn.Parameter(t.ones(1))
    opt = t.optim.SGD([p], lr=0.1, momentum=0.9)
    s = make(t, opt)
    out = []
    for _ in range(n):
        opt.step()
        s.step()
        out.append(opt.param_groups[0]["lr"])
    return out


def _optimize(t, cls, **kw):
    w = t.nn.Parameter(t.tensor([[1.0, -2.0], [0.5, 3.0]], dtype=t.float64))
    o = getattr(t.optim, cls)([w], **kw)
    for i in range(5):
        o.zero_grad()
        ((w @ t.tensor([1.0, 2.0 + i], dtype=t.float64)) ** 2).sum().backward()
        o.step()
    return w.detach().clone()


_MORE_OPTIM = {
    "MultiStepLR": lambda t: _schedule(
        t, lambda t, o: t.optim.lr_scheduler.MultiStepLR(o, milestones=[3, 7], gamma=0.5)),
    "ExponentialLR": lambda t: _schedule(t, lambda t, o: t.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)),
    "OneCycleLR": lambda t: _schedule(t, lambda t, o: t.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=13)),
    "CosineAnnealingWarmRestarts": lambda t: _schedule(
        t, lambda t, o: t.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=4, T_mult=2)),
    "LinearLR": lambda t: _schedule(t, lambda t, o: t.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=5)),
    "RMSprop": lambda t: _optimize(t, "RMSprop", lr=0.01, momentum=0.5, alpha=0.9),
    "Adagrad": lambda t: _optimize(t, "Adagrad", lr=0.1),
    "Adadelta": lambda t: _optimize(t, "Adadelta"),
    "NAdam": lambda t: _optimize(t, "NAdam", lr=0.01),
    "RAdam": lambda t: _optimize(t, "RAdam", lr=0.01),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_MORE_OPTIM))
def test_beyond_floor_schedulers_and_optimizers_match_torch(name):
    compare_with_torch(_MORE_OPTIM[name], rtol=1e-9, atol=1e-12)


class _SeedDataset:
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return ea.tensor([float(data.get_worker_info().id), float(ea.initial_seed() % 1000003), float(ea.rand(1))])


def test_dataloader_worker_seeds_follow_pytorch():
    def epochs():
        ea.manual_seed(0)
        dl = data.DataLoader(_SeedDataset(), batch_size=1, num_workers=2)
        return [[b[0].tolist() for b in dl] for _ in range(2)]

    first, second = _within(120, epochs)
    again, _ = _within(120, epochs)
    w0 = [r for r in first if r[0] == 0]
    w1 = [r for r in first if r[0] == 1]
    assert len(w0) == 2 and len(w1) == 2
    assert w1[0][1] == (w0[0][1] + 1) % 1000003          # base_seed + worker_id
    assert w0[0][2] != w1[0][2] and w0[0][2] != w0[1][2]   # workers draw different numbers
    assert second[0][1] != first[0][1]                     # a new base seed each epoch
    assert again == first                                  # and all of it follows manual_seed


# ---------------------------------------------------------------------------------------------
# unbatched and empty inputs, and the error type where PyTorch raises
# ---------------------------------------------------------------------------------------------

_EMPTY_AND_UNBATCHED = {
    "ce_unbatched": lambda t: t.nn.functional.cross_entropy(t.tensor([1.0, 2.0, 0.5]), t.tensor(1)),
    "nll_unbatched": lambda t: t.nn.functional.nll_loss(t.log_softmax(t.tensor([1.0, 2.0]), 0), t.tensor(0)),
    "empty_mask_sum_mean": lambda t: [t.arange(3.0)[t.arange(3.0) > 5].sum(), t.arange(3.0)[t.arange(3.0) > 5].mean()],
    "linear_empty_batch": lambda t: t.nn.Linear(3, 2)(t.zeros(0, 3)).shape,
    "conv_empty_batch": lambda t: t.nn.Conv2d(1, 2, 3)(t.zeros(0, 1, 5, 5)).shape,
    "ce_empty_batch": lambda t: t.nn.functional.cross_entropy(t.zeros(0, 3), t.zeros(0, dtype=t.long)),
    "max_of_empty": lambda t: t.zeros(0).max(),
    "cat_of_nothing": lambda t: t.cat([]),
    "softmax_empty": lambda t: t.softmax(t.zeros(0, 3), dim=1).shape,
    "embedding_empty": lambda t: t.nn.Embedding(3, 2)(t.zeros(0, dtype=t.long)).shape,
    "bn_train_single_value": lambda t: t.nn.BatchNorm2d(2)(t.zeros(1, 2, 1, 1)),
    "mse_empty": lambda t: t.nn.functional.mse_loss(t.zeros(0), t.zeros(0)),
    "argmax_empty_dim": lambda t: t.zeros(0, 3).argmax(1).shape,
    "sum_empty_dim": lambda t: t.zeros(0, 3).sum(0),
    "view_empty": lambda t: t.zeros(0, 3).view(0, -1),
    "cat_legacy_empty": lambda t: t.cat([t.tensor([]), t.ones(2, 3)]),
    "ragged_list": lambda t: t.tensor([[1, 2], [3]]),
    "matmul_mismatch": lambda t: t.ones(2, 3) @ t.ones(2, 3),
    "view_bad_shape": lambda t: t.ones(6).view(4, -1),
    "index_out_of_range": lambda t: t.ones(3)[5],
    "cross_entropy_bad_target": lambda t: t.nn.functional.cross_entropy(t.ones(2, 3), t.tensor([0, 3])),
    "linear_bad_features": lambda t: t.nn.Linear(3, 2)(t.ones(2, 4)),
    "backward_twice": lambda t: (lambda y: (y.backward(), y.backward()))((t.ones(1, requires_grad=True).exp()).sum()),
    "item_of_many": lambda t: t.ones(2).item(),
    "int_requires_grad": lambda t: t.tensor([1, 2], requires_grad=True),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_EMPTY_AND_UNBATCHED))
def test_empty_unbatched_and_error_cases_match_torch(name):
    torch = pytest.importorskip("torch")
    expected = _outcome(lambda: _EMPTY_AND_UNBATCHED[name](torch))
    actual = _outcome(lambda: _EMPTY_AND_UNBATCHED[name](ember_torch()))
    if _raised(expected) or _raised(actual):
        assert _raised(expected) and _raised(actual) and expected[1] == actual[1], (
            f"PyTorch: {expected!r}; ember: {actual!r}")
    else:
        assert_same(expected, actual)


@pytest.mark.parametrize("map_location", ["cpu", "device", "callable", "dict", None])
def test_load_map_location_forms(map_location):
    ml = {"device": ea.device("cpu"), "callable": lambda storage, loc: storage,
          "dict": {"cuda:0": "cpu"}}.get(map_location, map_location)
    buf = io.BytesIO()
    ea.save({"w": ea.arange(3.0), "dtype": ea.float64, "dev": ea.device("cpu"), "size": ea.Size([2, 3])}, buf)
    buf.seek(0)
    d = ea.load(buf, map_location=ml)
    assert d["w"].tolist() == [0.0, 1.0, 2.0] and d["w"].device == ea.device("cpu")
    assert d["dtype"] is ea.float64 and d["dev"] == ea.device("cpu") and d["size"] == (2, 3)


def _hooks_program(t):
    t.manual_seed(0)
    m = t.nn.Sequential(t.nn.Linear(3, 4), t.nn.ReLU(), t.nn.Linear(4, 2)).double()
    with t.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(t.linspace(-1, 1, p.numel(), dtype=t.float64).reshape(p.shape) * (i + 1))
    acts, grads, outs = [], [], []
    m[0].register_forward_hook(lambda mod, inp, out: acts.append(out.detach().clone()))
    m[0].register_full_backward_hook(lambda mod, gin, gout: grads.append([g.clone() for g in gout]))
    lstm = t.nn.LSTM(2, 3, batch_first=True)
    lstm.register_forward_hook(lambda mod, inp, out: outs.append((type(out).__name__, len(out), len(out[1]))))
    lstm(t.zeros(1, 2, 2))
    x = t.tensor([[1.0, -2.0, 0.5]], dtype=t.float64, requires_grad=True)
    m(x).sum().backward()
    return [acts, grads, outs, x.grad]


@pytest.mark.torch
def test_forward_hooks_on_lstm_and_full_backward_hooks_match_torch():
    compare_with_torch(_hooks_program, rtol=1e-12, atol=1e-12)


_BEYOND_NN = {
    "pad_sequence": lambda t: t.nn.utils.rnn.pad_sequence([t.ones(2), t.ones(3) * 2], batch_first=True,
                                                          padding_value=-1),
    "pack_unpack": lambda t: t.nn.utils.rnn.pad_packed_sequence(t.nn.utils.rnn.pack_padded_sequence(
        t.arange(12.0).view(2, 3, 2), t.tensor([3, 1]), batch_first=True), batch_first=True),
    "clip_grad_norm_inf": lambda t: (lambda p: (p.sum().mul(3).backward(),
                                                t.nn.utils.clip_grad_norm_([p], 1.0, norm_type=float("inf")))[1])(
        t.nn.Parameter(t.ones(2))),
    "flatten_unflatten": lambda t: [t.nn.Flatten(0, 1)(t.ones(2, 3, 4)).shape,
                                    t.nn.Unflatten(1, (2, 2))(t.ones(3, 4)).shape],
    "init_extras": lambda t: [
        bool(t.nn.init.trunc_normal_(t.empty(1000), std=0.02, a=-0.04, b=0.04).abs().max() <= 0.04),
        t.nn.init.eye_(t.empty(2, 3))],
    "attention_shapes": lambda t: [o.shape for o in t.nn.MultiheadAttention(4, 2, batch_first=True)(
        t.ones(1, 3, 4), t.ones(1, 3, 4), t.ones(1, 3, 4))],
    "transformer_layer": lambda t: t.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)(
        t.ones(2, 3, 8)).shape,
    "more_layers": lambda t: [t.nn.Conv1d(2, 3, 3, padding=1)(t.ones(1, 2, 5)).shape,
                              t.nn.AdaptiveAvgPool2d((1, 1))(t.ones(1, 2, 5, 5)).shape,
                              t.nn.ConvTranspose2d(2, 3, 2, stride=2)(t.ones(1, 2, 3, 3)).shape,
                              t.nn.GroupNorm(2, 4)(t.ones(1, 4, 2, 2)).shape],
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_BEYOND_NN))
def test_beyond_floor_nn_utilities_match_torch(name):
    compare_with_torch(_BEYOND_NN[name])
