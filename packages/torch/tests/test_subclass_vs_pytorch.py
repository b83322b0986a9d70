"""Tensor subclasses and `__torch_function__` through `import ember.torch as torch`, against PyTorch's own."""

import copy
import pickle

import pytest

import ember.torch as torch
import ember.torch.nn as nn
import ember.torch.nn.functional as F

# snippets whose result types and `__torch_function__` calls (func.__name__, types) equal PyTorch's
SNIPPETS = ["x + 1", "x * x", "x / 2", "x.sum()", "torch.sum(x)", "x.sum(0)", "x.mean()", "torch.mean(x)",
            "torch.relu(x)", "F.relu(x)", "x.view(3)", "x.reshape(3, 1)", "torch.add(x, 2)", "x.add(1)", "x.exp()",
            "torch.cat([x, x])", "x.max(0)", "x == 1", "x.detach()", "x.clone()", "x.abs()",
            "x.unsqueeze(0)", "x.to(torch.float64)", "x.softmax(0)", "x.t()", "x.flatten()", "x.data"]


def _run(tm, fm):
    """Each snippet's result type names and the calls the LoggingTensor saw, with the library `tm`."""
    log = []

    class LoggingTensor(tm.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            log.append((func.__name__, tuple(t.__name__ for t in types)))
            return super().__torch_function__(func, types, args, kwargs)

    x = tm.tensor([1.0, -2.0, 3.0]).as_subclass(LoggingTensor)
    out = {}
    for snippet in SNIPPETS:
        log.clear()
        r = eval(snippet, {"torch": tm, "F": fm, "x": x})
        kinds = [type(i).__name__ for i in r] if isinstance(r, tuple) else type(r).__name__
        out[snippet] = (kinds, list(log))
    return out


def test_types_and_call_logs_match_pytorch():
    real = pytest.importorskip("torch")
    import torch.nn.functional as real_F

    ours, theirs = _run(torch, F), _run(real, real_F)
    for snippet in SNIPPETS:
        assert ours[snippet] == theirs[snippet], snippet


def test_parameters_opt_out_as_pytorch():
    p = nn.Parameter(torch.randn(2, 3))
    assert p.__torch_function__ is torch.overrides._disabled_torch_function_impl
    for r in (p + 1, p.sum(), p[0], p.view(6), F.relu(p), p.detach(), torch.mul(p, p)):
        assert type(r) is torch.Tensor
    lin = nn.Linear(3, 2)
    assert all(type(q) is nn.Parameter for q in lin.parameters())
    assert type(lin(torch.ones(1, 3))) is torch.Tensor
    real = pytest.importorskip("torch")
    rp = real.nn.Parameter(real.randn(2, 3))
    assert type(rp + 1) is real.Tensor and type(rp[0]) is real.Tensor


class Meters(torch.Tensor):
    """A subclass that keeps a unit on its instances (as user code does, with `__new__`)."""

    @staticmethod
    def __new__(cls, data, unit="m"):
        t = torch.Tensor._make_subclass(cls, data)
        t.unit = unit
        return t


def test_modules_and_functional_keep_the_subclass_and_gradients_flow():
    lin = nn.Linear(3, 2)
    x = Meters(torch.randn(4, 3)).requires_grad_()
    y = F.gelu(lin(x))
    assert type(y) is Meters and type(y.sum()) is Meters
    y.sum().backward()
    ref = torch.randn(1)  # the same computation on a plain tensor gives the same gradient
    xp = x.detach().as_subclass(torch.Tensor).requires_grad_()
    F.gelu(lin(xp)).sum().backward()
    assert torch.equal(x.grad, xp.grad) and ref.shape == (1,)


def test_pickle_and_deepcopy_keep_the_subclass_and_its_attributes():
    x = Meters(torch.arange(3.0), "km")
    for r in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x)):
        assert type(r) is Meters and r.unit == "km" and r.tolist() == [0.0, 1.0, 2.0]


def test_a_mode_matches_pytorch_on_a_plain_function():
    real = pytest.importorskip("torch")

    def names(tm):
        seen = []

        class Mode(tm.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))

        a = tm.ones(2)
        with Mode():
            r = tm.relu(tm.add(a, 1))
        return seen, r.tolist()

    assert names(torch) == names(real)


def test_override_listings_and_base_mode():
    overridable = torch.overrides.get_overridable_functions()
    flat = {f for fs in overridable.values() for f in fs}
    assert torch.add in flat and torch.Tensor.sum in flat and torch.Tensor.__add__ in flat
    ignored = torch.overrides.get_ignored_functions()
    assert torch.Tensor.as_subclass in ignored and not ignored & flat
    dummies = torch.overrides.get_testing_overrides()
    assert dummies[torch.add](torch.ones(1), 1) == -1
    with torch.overrides.BaseTorchFunctionMode(), torch.overrides.enable_reentrant_dispatch():
        assert torch.overrides._get_current_function_mode() is not None
        assert (torch.ones(2) + 1).tolist() == [2.0, 2.0]
    assert torch.overrides._get_current_function_mode() is None
