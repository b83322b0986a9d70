"""Extending torch with __torch_function__: a units-carrying Quantity tensor, a logging tensor subclass, a
TorchFunctionMode that counts calls, torch.overrides helpers, and a duck-typed non-Tensor with __torch_function__."""

import collections
import numpy as np
import torch
from torch.overrides import TorchFunctionMode, get_overridable_functions, handle_torch_function, has_torch_function

rng = np.random.default_rng(11)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class Quantity(torch.Tensor):
    """A tensor that carries a unit string through arithmetic."""

    @staticmethod
    def __new__(cls, data, unit=""):
        t = torch.Tensor._make_subclass(cls, data, data.requires_grad)
        t.unit = unit
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        units = [a.unit for a in args if isinstance(a, Quantity)]
        out = super().__torch_function__(func, types, args, kwargs)
        name = getattr(func, "__name__", str(func))
        if name in ("add", "__add__", "sub", "__sub__") and len(set(units)) > 1:
            raise ValueError(f"unit mismatch: {units}")
        if isinstance(out, Quantity):
            if name in ("mul", "__mul__"):
                out.unit = "*".join(units) if len(units) > 1 else units[0]
            elif name in ("__truediv__", "div"):
                out.unit = "/".join(units) if len(units) > 1 else units[0]
            else:
                out.unit = units[0] if units else ""
        return out

    def __repr__(self):
        return f"Quantity({self.as_subclass(torch.Tensor).tolist()}, unit={self.unit!r})"


d = Quantity(torch.tensor([1.0, 2.0, 3.0]), "m")
t = Quantity(torch.tensor([2.0, 4.0, 5.0]), "s")
v = d / t
print("speed", v, type(v).__name__)
print("area", d * d, (d + d).unit)
try:
    d + t
except ValueError as e:
    print("mismatch", e)
print("sum", type(d.sum()).__name__, d.sum().unit, round(d.sum().item(), 4))
print("isinstance", isinstance(v, torch.Tensor), torch.is_tensor(v), type(torch.cat([d, d])).__name__)
print("view", type(d.view(3, 1)).__name__, d[1:].unit, type(d.detach()).__name__)
print("plain", type(d.as_subclass(torch.Tensor)).__name__, type(torch.tensor([1.0]) + d).__name__)
g = Quantity(T(3).requires_grad_(), "kg")
(g * g).sum().backward()
print("grad", type(g.grad).__name__, r(g.grad), g.is_leaf)


class LoggingTensor(torch.Tensor):
    log = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", repr(func))
        cls.log.append(name)
        return super().__torch_function__(func, types, args, kwargs or {})


lt = T(2, 3).as_subclass(LoggingTensor)
out = torch.relu(lt @ T(3, 2)).mean(dim=0)
print("logged", LoggingTensor.log, type(out).__name__, r(out))
LoggingTensor.log.clear()
_ = lt.size(0), lt.dim()
print("attr_log", LoggingTensor.log)
LoggingTensor.log.clear()
with torch.DisableTorchFunctionSubclass():
    plain = lt + 1
print("disabled", type(plain).__name__, LoggingTensor.log)


class CountingMode(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.counts = collections.Counter()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.counts[getattr(func, "__name__", repr(func))] += 1
        return func(*args, **(kwargs or {}))


x = T(4, 3)
lin = torch.nn.Linear(3, 2)
with CountingMode() as mode:
    y = torch.nn.functional.gelu(lin(x)).softmax(-1)
    z = torch.add(y, 1, alpha=2)
print("mode_counts", sorted(mode.counts.items()))
print("mode_result", tuple(z.shape), round((z.sum() - 2 * z.numel()).item(), 4))


class DoubleAdd(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.add:
            return func(*args, **(kwargs or {})) * 2
        return func(*args, **(kwargs or {}))


with DoubleAdd():
    print("override", torch.add(torch.ones(2), torch.ones(2)).tolist(), (torch.ones(2) * 3).tolist())
print("mode_off", torch.add(torch.ones(2), torch.ones(2)).tolist())


class Scalarish:
    """A duck type torch functions accept through __torch_function__."""

    def __init__(self, value):
        self.value = value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        vals = [a.value if isinstance(a, Scalarish) else a for a in args]
        if func is torch.mul:
            return Scalarish(vals[0] * vals[1])
        return NotImplemented


s = torch.mul(Scalarish(3), Scalarish(4))
print("duck", type(s).__name__, s.value)
try:
    torch.sub(Scalarish(3), Scalarish(4))
except TypeError as e:
    print("duck_err", str(e).split(":")[0])


def my_op(a, b=2):
    if has_torch_function((a,)):
        return handle_torch_function(my_op, (a,), a, b=b)
    return a * b


print("has_tf", has_torch_function((torch.ones(1),)), has_torch_function((lt,)), has_torch_function((Scalarish(1),)))
LoggingTensor.log.clear()
res = my_op(lt)
print("handle", type(res).__name__, LoggingTensor.log[:2])
ov = get_overridable_functions()
print("overridable", torch in ov, torch.add in ov[torch], torch.Tensor.add in ov[torch.Tensor])
print("is_overridable", torch.overrides.is_tensor_like(lt), torch.overrides.is_tensor_like(Scalarish(1)),
      torch.overrides.is_tensor_method_or_property(torch.Tensor.add))
