"""GitHub issues about clone vs detach vs .data, requires_grad propagation through ops, factories and
integer results, and the grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode) as context
managers and decorators, with what each makes of results, views and in-place updates."""

import numpy as np
import torch

rng = np.random.default_rng(9)


def desc(t):
    fn = type(t.grad_fn).__name__ if t.grad_fn is not None else None
    return f"rg={t.requires_grad} leaf={t.is_leaf} fn={fn}"


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: {desc(out)} {out.dtype}")
    else:
        print(f"{name}: {out}")


w = torch.from_numpy(rng.standard_normal((3,)).astype(np.float32)).requires_grad_()
show("w", lambda: w)
show("w*2", lambda: w * 2)
show("clone", lambda: w.clone())
show("detach", lambda: w.detach())
show(".data", lambda: w.data)
show("detach().clone()", lambda: w.detach().clone())
show("clone().detach()", lambda: w.clone().detach())
show("new_tensor", lambda: w.new_tensor([1.0]))
show("torch.tensor(w)", lambda: torch.tensor(w.detach().numpy()))
show("as_tensor", lambda: torch.as_tensor(w))
show("zeros_like", lambda: torch.zeros_like(w))
show("zeros_like rg", lambda: torch.zeros_like(w, requires_grad=True))
show("argmax", lambda: w.argmax())
show("long()", lambda: w.long())
show("gt", lambda: w > 0)
show("round", lambda: w.round())
show("sign", lambda: w.sign())
show("div floor", lambda: torch.div(w, 2, rounding_mode="floor"))
show("div trunc", lambda: torch.div(w, torch.tensor(2.0), rounding_mode="trunc"))
show("max tuple", lambda: w.max(0).indices)
show("nonzero", lambda: w.nonzero())
show("to double", lambda: w.double())
show("to same", lambda: w.to(torch.float32) is w)
show("float()", lambda: w.float() is w)
show("numpy", lambda: w.numpy())
show("numpy detach", lambda: w.detach().numpy().dtype)
show("tolist", lambda: [round(v, 4) for v in w.tolist()])
show("item grad", lambda: round((w * w).sum().item(), 4))
show("int requires_grad", lambda: torch.tensor([1, 2], requires_grad=True))
show("complex requires_grad", lambda: torch.tensor([1 + 1j], requires_grad=True))
show("set requires_grad attr", lambda: setattr(w * 2, "requires_grad", False))

# shared storage
c = w.clone()
d = w.detach()
print("share", d.data_ptr() == w.data_ptr(), c.data_ptr() == w.data_ptr(), w.data.data_ptr() == w.data_ptr())
d[0] = 100.0
print("w after detach write", round(w[0].item(), 4), w._version)
with torch.no_grad():
    w[0] = 1.0
print("w after no_grad write", round(w[0].item(), 4), desc(w))

# grad modes
print("enabled", torch.is_grad_enabled(), torch.is_inference_mode_enabled())
with torch.no_grad():
    a = w * 2
    print("no_grad", desc(a), torch.is_grad_enabled())
    with torch.enable_grad():
        print("enable inside", desc(w * 2))
    b = w[1:]
    print("no_grad view", b.requires_grad, b._base is w)
    p = torch.zeros(2, requires_grad=True)
    print("no_grad factory", desc(p))
with torch.set_grad_enabled(False):
    print("set_grad_enabled(False)", desc(w * 2))
torch.set_grad_enabled(False)
print("set_grad_enabled call", desc(w * 2), torch.is_grad_enabled())
torch.set_grad_enabled(True)
print("restored", torch.is_grad_enabled())
with torch.inference_mode():
    i = w * 2
    print("inference", desc(i), i.is_inference(), torch.is_inference_mode_enabled())
    iv = w[1:]
    print("inference view", iv.is_inference(), iv.requires_grad)
with torch.inference_mode(False):
    print("inference(False)", desc(w * 2))
show("inference tensor in graph", lambda: (w * i).sum().backward())
show("inference tensor inplace", lambda: i.add_(1))
show("inference clone ok", lambda: (w * i.clone()).sum())
show("inference is_inference", lambda: (i + 1).is_inference())
show("normal is_inference", lambda: w.is_inference())


@torch.no_grad()
def predict(t):
    return t * 3


@torch.enable_grad()
def with_grad(t):
    return t * 3


@torch.inference_mode()
def infer(t):
    return t * 3


show("decorated no_grad", lambda: predict(w))
show("decorated enable_grad in no_grad", lambda: (lambda: torch.no_grad()(with_grad)(w))())
with torch.no_grad():
    show("enable_grad decorated inside no_grad", lambda: with_grad(w))
show("decorated inference", lambda: infer(w).is_inference())
print("no_grad name", predict.__name__, torch.no_grad().__class__.__name__)

# gradients after detach / clone in a graph
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
z = y.detach() * x
z.sum().backward()
print("grad through detach", x.grad)
x.grad = None
y = x * x
z = y.clone() * x
z.sum().backward()
print("grad through clone", x.grad)
x.grad = None
y = x * x
y.data.mul_(10)
y.sum().backward()
print("grad after .data edit", x.grad, y)
x.grad.zero_()
u = x.exp()
u.detach().zero_()
show("detach zero_ then backward", lambda: u.sum().backward())
x.grad = None
v = torch.stack([x, x.detach()]).sum()
v.backward()
print("stack with detached", x.grad)
show("requires_grad of sum of detached", lambda: (x.detach() + torch.ones(3)).sum())
show("grad of int result", lambda: torch.autograd.grad(x.argmax().float(), x))
show("backward on detached", lambda: x.detach().sum().backward())
print("param", desc(torch.nn.Parameter(torch.ones(2))), desc(torch.nn.Parameter(torch.ones(2), requires_grad=False)))
lin = torch.nn.Linear(2, 2)
with torch.no_grad():
    out = lin(torch.ones(1, 2))
print("module in no_grad", desc(out), desc(lin.weight))
lin.requires_grad_(False)
print("frozen", desc(lin(torch.ones(1, 2))), [p.requires_grad for p in lin.parameters()])
lin.weight.requires_grad = True
print("one unfrozen", desc(lin(torch.ones(1, 2))))
