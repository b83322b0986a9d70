"""The rest of the 'Autograd mechanics' note: complex autograd (conjugate Wirtinger gradients of real losses),
hooks for saved tensors (saved_tensors_hooks that print, save to a dict, _raw_saved_<name>.register_hooks,
_saved_<name> reads and their errors after backward), backward hooks (tensor hooks, Node pre/post hooks,
module full backward hooks, post-accumulate-grad hooks) with their firing order, and anomaly detection."""

import math
import warnings
import numpy as np
import torch
import torch.nn as nn

warnings.simplefilter("ignore")
rng = np.random.default_rng(0)


def err(f):
    try:
        r = f()
        print("  ok", r)
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


def r4(t):
    return np.round(t.detach().numpy().astype(np.complex128 if t.is_complex() else np.float64), 4).tolist()


# complex autograd
z = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
loss = (z * z.conj()).real.sum()
loss.backward()
print("|z|^2 grad", r4(z.grad), z.grad.dtype)
z.grad = None
(z.abs() ** 2).sum().backward()
print("abs^2 grad", r4(z.grad))
err(lambda: (z * 2).sum().backward())
w = torch.tensor(1 + 1j, requires_grad=True)
(w * w).abs().backward()
print("|w^2| grad", w.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.view_as_complex(torch.stack([x, x * 2], -1))
c.abs().sum().backward()
print("via view_as_complex", r4(x.grad), c.grad_fn.name())
a = torch.tensor([0.5 + 0.5j], requires_grad=True)
out = torch.view_as_real(a.exp() * 1j).pow(2).sum()
out.backward()
print("exp grad", r4(a.grad), torch.autograd.gradcheck(lambda t: (t.exp() * t.conj()).abs(),
                                                        (torch.tensor([0.3 + 0.2j], dtype=torch.cdouble,
                                                                      requires_grad=True),)))

# hooks for saved tensors
log = []


def pack_hook(t):
    log.append(("pack", tuple(t.shape)))
    return t


def unpack_hook(t):
    log.append(("unpack", tuple(t.shape)))
    return t


a = torch.ones(5, requires_grad=True)
b = torch.ones(5, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
y.sum().backward()
print("logged", log)
storage = {}


def pack_to_dict(x):
    key = len(storage)
    storage[key] = x.detach().clone()
    return key


def unpack_from_dict(key):
    return storage[key]


x = torch.from_numpy(rng.standard_normal(4).astype(np.float32)).requires_grad_()
with torch.autograd.graph.saved_tensors_hooks(pack_to_dict, unpack_from_dict):
    y = x.pow(2).sin()
y.sum().backward()
print("dict hooks", len(storage), torch.allclose(x.grad, 2 * x * torch.cos(x.detach() ** 2)))
x = torch.ones(3, requires_grad=True)
y = x.pow(2)
print("saved", y.grad_fn._saved_self is x, y.grad_fn._saved_exponent, type(y.grad_fn._raw_saved_self).__name__)
e = x.exp()
print("saved result", torch.equal(e.grad_fn._saved_result, e), e.grad_fn._saved_result is e)
y.sum().backward()
err(lambda: y.grad_fn._saved_self)
s = x.sin()
s.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t * 2)
x.grad = None
s.sum().backward()
print("doubled on unpack", r4(x.grad), round(math.cos(2.0), 4))
err(lambda: s.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t))
t2 = x.tanh()
t2.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
err(lambda: t2.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t))
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 5):
    q = x.exp()
err(lambda: q.sum().backward())
err(lambda: torch.autograd.grad(x.sum(), []))

# backward hooks and their order
order = []
p = torch.tensor([1.0, 2.0], requires_grad=True)
h = p * 3
h.register_hook(lambda g: order.append("tensor hook on h") or None)
h.grad_fn.register_prehook(lambda go: order.append("prehook on MulBackward0") or None)
h.grad_fn.register_hook(lambda gi, go: order.append("post hook on MulBackward0") or None)
p.register_hook(lambda g: order.append("tensor hook on leaf") or g * 10)
p.register_post_accumulate_grad_hook(lambda t: order.append(f"post accumulate {t.grad.tolist()}"))
h.sum().backward()
print(order)
err(lambda: (p * 3).register_post_accumulate_grad_hook(lambda t: None))
m = nn.Linear(2, 2)
seen = []
hh = m.register_full_backward_hook(lambda mod, gi, go: seen.append(
    ([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
m(torch.ones(3, 2, requires_grad=True)).sum().backward()
m(torch.ones(3, 2)).sum().backward()
hh.remove()
pre = m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", len(go))))
m(torch.ones(1, 2)).sum().backward()
pre.remove()
print(seen, len(m._backward_hooks), len(m._backward_pre_hooks))
mod = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
mod[0].register_full_backward_hook(lambda mm, gi, go: (torch.zeros_like(gi[0]),))
xin = torch.ones(1, 2, requires_grad=True)
mod(xin).sum().backward()
print("replaced grad_input", xin.grad)

# anomaly detection
with torch.autograd.set_detect_anomaly(True):
    q = torch.tensor([0.0], requires_grad=True)
    r = q.sqrt() * 0
    err(lambda: r.sum().backward())
print("anomaly", torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())
with torch.autograd.detect_anomaly(check_nan=False):
    q = torch.tensor([0.0], requires_grad=True)
    (q.sqrt() * 0).sum().backward()
    print("nan passes", q.grad)
