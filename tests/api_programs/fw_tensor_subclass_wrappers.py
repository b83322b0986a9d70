"""Tensor subclasses without __torch_dispatch__ as libraries write them: a Parameter subclass carrying
metadata (sharding spec style) that survives module.to/state_dict, a ScaledTensor that unwraps in
__torch_function__ and rewraps results, a subclass that disables __torch_function__ for speed, as_subclass and
_make_subclass with require_grad, deepcopy/pickle of subclasses, isinstance checks through ops, and
TorchFunctionMode stacks queried with _get_current_function_mode_stack."""

import copy
import io
import pickle

import torch
from torch import nn
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

torch.set_printoptions(precision=4)


class ShardedParameter(nn.Parameter):
    """A Parameter with a `spec` attribute (like DTensor/FSDP flat params), kept through copies."""

    def __new__(cls, data=None, requires_grad=True, spec="replicate"):
        p = super().__new__(cls, data, requires_grad)
        p.spec = spec
        return p

    def __deepcopy__(self, memo):
        out = ShardedParameter(self.data.clone(), self.requires_grad, self.spec)
        memo[id(self)] = out
        return out

    def __reduce_ex__(self, proto):
        return (ShardedParameter, (self.data, self.requires_grad, self.spec))

    def __repr__(self):
        return f"ShardedParameter(spec={self.spec!r}, shape={tuple(self.shape)})"


lin = nn.Linear(3, 2)
lin.weight = ShardedParameter(torch.linspace(-1, 1, 6).reshape(2, 3), spec="shard(0)")
with torch.no_grad():
    lin.bias.copy_(torch.tensor([0.25, -0.5]))
print("param type", type(lin.weight).__name__, lin.weight.spec, isinstance(lin.weight, nn.Parameter))
print("in parameters()", [type(p).__name__ for p in lin.parameters()])
out = lin(torch.ones(1, 3))
print("forward result type", type(out).__name__, out)
print("ops on it", type(lin.weight * 2).__name__, type(lin.weight.detach()).__name__)
lin.double()
print("after .double()", type(lin.weight).__name__, lin.weight.dtype, getattr(lin.weight, "spec", None))
sd = lin.state_dict()
print("state_dict value", type(sd["weight"]).__name__)
lin2 = copy.deepcopy(lin)
print("deepcopy", type(lin2.weight).__name__, lin2.weight.spec, lin2.weight is not lin.weight)
restored = pickle.loads(pickle.dumps(lin.weight))
print("pickle", repr(restored), restored.requires_grad)
out.sum().backward()
print("grad type", type(lin.weight.grad).__name__)


class ScaledTensor(torch.Tensor):
    """Stores `_data * scale`; ops run on the dequantized values and rewrap with the max scale."""

    @staticmethod
    def __new__(cls, data, scale):
        t = torch.Tensor._make_subclass(cls, data.detach())
        t.scale = float(scale)
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        scales = []

        def unwrap(x):
            if isinstance(x, ScaledTensor):
                scales.append(x.scale)
                return x.as_subclass(torch.Tensor) * x.scale
            if isinstance(x, (list, tuple)):
                return type(x)(unwrap(y) for y in x)
            return x

        out = func(*unwrap(args), **{k: unwrap(v) for k, v in kwargs.items()})
        if isinstance(out, torch.Tensor) and out.is_floating_point():
            s = max(scales) if scales else 1.0
            return ScaledTensor(out / s, s)
        return out

    def dequant(self):
        return self.as_subclass(torch.Tensor) * self.scale

    def __repr__(self):
        return f"ScaledTensor({self.dequant().tolist()}, scale={self.scale})"


a = ScaledTensor(torch.tensor([1.0, 2.0, 3.0]), 0.5)
b = ScaledTensor(torch.tensor([2.0, 2.0, 2.0]), 2.0)
print("a", a, "b", b)
print("a + b", a + b)
print("torch.mul", torch.mul(a, b))
print("a.sum()", a.sum(), "eq", (a == a).dtype, type(a == a).__name__)
print("cat", torch.cat([a, b]))
print("plain tensor op", a + torch.ones(3))


class Fast(torch.Tensor):
    """Subclass only for isinstance checks: ops give plain tensors (no __torch_function__ overhead)."""

    __torch_function__ = torch.nn.parameter._disabled_torch_function_impl


f = torch.arange(4.0).as_subclass(Fast)
print("Fast", type(f).__name__, type(f + 1).__name__, type(f[1:]).__name__, isinstance(f, torch.Tensor))

base = torch.ones(2, 2)
sub = torch.Tensor._make_subclass(Fast, base, True)
print("_make_subclass", type(sub).__name__, sub.requires_grad, sub.is_leaf, sub.data_ptr() == base.data_ptr())
nl = torch.Tensor._make_subclass(Fast, torch.ones(2, requires_grad=True) * 2)
print("_make_subclass of a non-leaf", nl.requires_grad, nl.grad_fn, nl.is_leaf)


class Log(TorchFunctionMode):
    def __init__(self, name, sink):
        super().__init__()
        self.name, self.sink = name, sink

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.sink.append((self.name, len(_get_current_function_mode_stack())))
        return func(*args, **(kwargs or {}))


sink = []
print("stack outside", len(_get_current_function_mode_stack()))
with Log("A", sink) as mode_a:
    with Log("B", sink):
        stack = _get_current_function_mode_stack()
        print("stack inside", [type(m).__name__ for m in stack], [m.name for m in stack], stack[0] is mode_a)
        torch.neg(torch.ones(1))
print("mode log", sink)
buf = io.BytesIO()
torch.save({"w": torch.ones(2)}, buf)
print("saved bytes > 0", buf.tell() > 0)
