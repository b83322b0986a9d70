"""The blitz's numpy bridge and the mistakes learners make with it: from_numpy / as_tensor sharing memory,
torch.tensor copying, dtype inference from arrays, lists of arrays and numpy scalars, .numpy() refusals
(requires_grad, bfloat16, conjugate), force=True, negative strides and unsupported dtypes, np.array(tensor),
plus the gradient-attribute mistakes: assigning a .grad of the wrong size/dtype, detach_() on a view."""

import warnings
import numpy as np
import torch

rng = np.random.default_rng(0)


def err(f):
    try:
        r = f()
        print("  ok", (tuple(r.shape), r.dtype) if isinstance(r, torch.Tensor) else r)
    except Exception as e:
        print(" ", type(e).__name__ + ":", str(e).splitlines()[0])


a = np.ones(5)
b = torch.from_numpy(a)
np.add(a, 1, out=a)
print(a)
print(b)
b.mul_(3)
print("shared", a.tolist(), b.dtype, b.is_contiguous())
c = torch.as_tensor(a)
d = torch.tensor(a)
a[0] = -1
print("as_tensor", c[0].item(), "tensor", d[0].item(), torch.as_tensor(a, dtype=torch.float32)[0].item())
t = torch.ones(5)
n = t.numpy()
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
print("np.array copies", np.array(t).sum(), np.asarray(t).dtype, np.array(t.int()).dtype)
n2 = np.asarray(t)
n2[0] = 10
print("asarray shares", t[0].item())

x = rng.standard_normal((3, 4))
print("dtypes", torch.from_numpy(x).dtype, torch.tensor(x).dtype, torch.tensor(x.astype(np.float32)).dtype,
      torch.tensor(np.arange(3)).dtype, torch.tensor(np.arange(3, dtype=np.int32)).dtype,
      torch.tensor(np.array([True, False])).dtype)
print("list of arrays", torch.tensor(np.stack([x[0], x[1]])).dtype, torch.tensor([x[0], x[1]]).dtype,
      torch.tensor([x[0].astype(np.float32), x[1].astype(np.float32)]).dtype)
print("numpy scalars", torch.tensor(np.float64(1.5)).dtype, torch.tensor([np.float32(1.5), 2.0]).dtype,
      torch.tensor(np.int16(3)).dtype, torch.tensor([np.int32(1), 2]).dtype)
print("scalar ops", (torch.ones(2) * np.float64(2.0)).dtype, (torch.ones(2, dtype=torch.int64) * np.float64(0.5)),
      (torch.arange(3) + np.int32(1)).dtype, torch.ones(3)[np.int64(1)].shape, torch.arange(5)[np.array([0, 3])])
xt = torch.from_numpy(x)
print("strided", torch.from_numpy(x[:, ::2]).stride(), torch.from_numpy(x.T).stride(), xt.T.numpy().strides)
print("from_numpy reshaped", torch.from_numpy(x).view(2, 6).shape, torch.from_numpy(x.reshape(-1)).shape)

print("-- mistakes")
w = torch.ones(3, requires_grad=True)
err(lambda: w.numpy())
err(lambda: (w * 2).numpy())
print("detach().numpy()", w.detach().numpy(), w.numpy(force=True).dtype)
err(lambda: torch.ones(2, dtype=torch.bfloat16).numpy())
err(lambda: np.array(torch.ones(2, dtype=torch.bfloat16)))
print("bf16 via float", torch.ones(2, dtype=torch.bfloat16).float().numpy())
err(lambda: torch.tensor([1 + 2j]).conj().numpy())
print("resolve_conj", torch.tensor([1 + 2j]).conj().resolve_conj().numpy())
err(lambda: torch.from_numpy(x[::-1]))
err(lambda: torch.tensor(x[:, ::-1]))
err(lambda: torch.as_tensor(x[::-1]))
print("copy fixes", torch.from_numpy(x[::-1].copy()).shape, torch.from_numpy(np.flip(x, 0).copy()).stride())
err(lambda: torch.from_numpy(np.array(["cat", "dog"])))
err(lambda: torch.tensor(np.array([None, 1.0])))
err(lambda: torch.from_numpy([1.0, 2.0]))
ro = np.arange(3.0)
ro.setflags(write=False)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    r = torch.from_numpy(ro)
print("read-only", r.tolist(), len(caught), caught[0].category.__name__ if caught else None)
err(lambda: torch.ones(2, device="meta").numpy())
print("item", torch.tensor([2.5]).item(), type(torch.tensor(3).item()).__name__, torch.tensor(7).tolist())
err(lambda: torch.ones(2).item())

print("-- grad attribute")
p = torch.zeros(2, 2, requires_grad=True)
p.grad = torch.ones(2, 2)
print("assigned", p.grad.sum().item())
err(lambda: setattr(p, "grad", torch.ones(4)))
err(lambda: setattr(p, "grad", torch.ones(2, 2, dtype=torch.float64)))
err(lambda: setattr(p, "grad", torch.ones(1, 4, dtype=torch.int64)))
err(lambda: setattr(p, "grad", np.ones((2, 2))))
p.grad = None
print("cleared", p.grad)
v = torch.ones(4)[1:3]
err(lambda: v.detach_())
err(lambda: torch.ones(4, requires_grad=True)[:2].detach_())
y = torch.ones(2, requires_grad=True) * 3
y.detach_()
print("detach_ non-view", y.requires_grad, y.grad_fn, y.is_leaf)
q = torch.ones(3, requires_grad=True)
with torch.no_grad():
    q.mul_(2)
print("no_grad edit", q, q.is_leaf)
q.data = torch.tensor([5.0, 6.0, 7.0])
print("data swap", q, q.requires_grad)
