"""torch.overrides as library code uses it: a function that dispatches through has_torch_function /
handle_torch_function, is_tensor_like and is_tensor_method_or_property, get_ignored_functions and
get_overridable_functions membership, get_testing_overrides signatures, resolve_name, TorchFunctionMode stacks
(nesting order, a mode that rewrites arguments, a mode that falls back), and a metadata-carrying Tensor subclass
whose __torch_function__ propagates a tag through ops."""

import torch
from torch.overrides import (
    TorchFunctionMode,
    get_ignored_functions,
    get_overridable_functions,
    get_testing_overrides,
    handle_torch_function,
    has_torch_function,
    is_tensor_like,
    is_tensor_method_or_property,
    resolve_name,
)

torch.set_printoptions(precision=4)


def scaled_add(a, b, alpha=1.0):
    """A library function that participates in __torch_function__ like torch's own."""
    if has_torch_function((a, b)):
        return handle_torch_function(scaled_add, (a, b), a, b, alpha=alpha)
    return a + alpha * b


class Logged:
    """A duck-typed tensor-like (not a Tensor) that records the functions it receives."""

    calls = []

    def __init__(self, data):
        self.data = data

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        cls.calls.append(getattr(func, "__name__", str(func)))
        unwrapped = [a.data if isinstance(a, Logged) else a for a in args]
        return Logged(func(*unwrapped, **kwargs))


t = torch.tensor([1.0, 2.0])
print("plain", scaled_add(t, t, alpha=0.5), has_torch_function((t,)))
lg = Logged(torch.tensor([3.0, 4.0]))
print("has_torch_function", has_torch_function((lg, t)), is_tensor_like(lg), is_tensor_like(t), is_tensor_like(3))
out = scaled_add(t, lg, alpha=2.0)
print("dispatched", type(out).__name__, out.data, Logged.calls)
Logged.calls.clear()
out = torch.mul(lg, 3)
print("torch.mul on tensor-like", out.data, Logged.calls)
print("is_tensor_method_or_property", is_tensor_method_or_property(torch.Tensor.view),
      is_tensor_method_or_property(torch.stack), is_tensor_method_or_property(torch.Tensor.shape.__get__))
ignored = get_ignored_functions()
print("ignored", torch.tensor in ignored, torch.add in ignored, torch.is_tensor in ignored,
      torch.Tensor.add in ignored)
overridable = get_overridable_functions()
print("overridable torch.add", torch.add in overridable[torch], torch.Tensor.add in overridable[torch.Tensor],
      torch.nn.functional.relu in overridable[torch.nn.functional])
tests = get_testing_overrides()
print("testing overrides", tests[torch.add](1, 2), tests[torch.nn.functional.relu](None), torch.tensor in tests)
print("resolve_name", resolve_name(torch.stack), resolve_name(torch.Tensor.view),
      resolve_name(torch.nn.functional.relu), resolve_name(torch.linalg.norm), resolve_name(torch.fft.rfft),
      resolve_name(lambda t: t))


class TraceMode(TorchFunctionMode):
    def __init__(self, tag, log):
        super().__init__()
        self.tag, self.log = tag, log

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.log.append(self.tag)
        return func(*args, **(kwargs or {}))


class Float64Mode(TorchFunctionMode):
    """Promotes every float32 tensor argument to float64 before calling."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        args = tuple(a.double() if isinstance(a, torch.Tensor) and a.dtype == torch.float32 else a for a in args)
        return func(*args, **kwargs)


log = []
with TraceMode("outer", log):
    with TraceMode("inner", log):
        torch.exp(torch.zeros(2))
print("stack order", log)
with Float64Mode():
    r = torch.sin(torch.tensor([0.5, 1.0]))
print("promoted", r.dtype, r)
with Float64Mode():
    r2 = torch.nn.functional.relu(torch.tensor([-1.0, 2.0]))
print("promoted relu", r2.dtype, r2)
print("mode off", torch.sin(torch.tensor([0.5])).dtype)


class Tagged(torch.Tensor):
    """Carries a `tag` through ops; union of tags when two tagged tensors meet."""

    @staticmethod
    def __new__(cls, data, tag=""):
        t = torch.Tensor._make_subclass(cls, torch.as_tensor(data))
        t.tag = tag
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        tags = set()

        def collect(x):
            if isinstance(x, Tagged):
                tags.update(filter(None, getattr(x, "tag", "").split("+")))
            elif isinstance(x, (list, tuple)):
                for y in x:
                    collect(y)

        collect(args)
        collect(list(kwargs.values()))
        out = super().__torch_function__(func, types, args, kwargs)

        def stamp(o):
            if isinstance(o, Tagged):
                o.tag = "+".join(sorted(tags))
            elif isinstance(o, (list, tuple)):
                for p in o:
                    stamp(p)
            return o

        return stamp(out)

    def __repr__(self):
        return f"Tagged({self.tolist()}, tag={self.tag!r})"


a = Tagged([1.0, 2.0, 3.0], tag="meters")
b = Tagged([0.5, 0.5, 0.5], tag="scale")
c = a * b
print("mul", c, type(c).__name__)
print("reduction", a.sum(), "index", a[1:], "method chain", (a + 1).exp().log())
print("torch.stack", torch.stack([a, b]))
vals, idx = torch.max(Tagged([[1.0, 5.0], [7.0, 2.0]], tag="t"), dim=1)
print("namedtuple outputs", vals, type(idx).__name__, getattr(idx, "tag", None))
print("plain op with tensor", (a + torch.ones(3)).tag, "as_subclass",
      torch.ones(2).as_subclass(Tagged).__class__.__name__)
with TraceMode("x", []):
    print("under a mode", type(a + 1).__name__)
print("detach keeps subclass", type(a.detach()).__name__, "clone", type(a.clone()).__name__)
