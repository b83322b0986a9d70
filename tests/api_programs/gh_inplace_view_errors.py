"""GitHub issues about in-place ops and views: a leaf's view modified in place, a view of a leaf under no_grad,
in-place ops on expanded or broadcast tensors, version-counter errors after in-place on saved tensors,
backward twice without retain_graph, and what the recommended fixes return."""

import numpy as np
import torch

rng = np.random.default_rng(11)


def T(*s, grad=False):
    t = torch.from_numpy(rng.standard_normal(s).astype(np.float32)).round(decimals=2)
    return t.requires_grad_() if grad else t


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    if isinstance(out, torch.Tensor):
        print(f"{name}: {tuple(out.shape)} {out.dtype} rg={out.requires_grad} leaf={out.is_leaf} "
              f"fn={type(out.grad_fn).__name__ if out.grad_fn else None}")
    else:
        print(f"{name}: {out}")
    return out


# a leaf that requires grad cannot be modified in place, nor can its views
w = T(3, 4, grad=True)
show("leaf add_", lambda: w.add_(1))
show("leaf view add_", lambda: w[0].add_(1))
show("leaf view index_put", lambda: w.__setitem__(0, 0.0))
show("leaf t() mul_", lambda: w.t().mul_(2))
show("leaf view_as", lambda: w.view(12).zero_())
show("leaf unbind", lambda: w.unbind(0)[1].fill_(3))
show("leaf detach add_", lambda: w.detach().add_(0))
with torch.no_grad():
    show("no_grad leaf add_", lambda: w.add_(0.5))
    v = w[1]
show("view made in no_grad", lambda: v.mul_(2))
print("w after no_grad", w.detach().sum().item().__round__(4), w.is_leaf, w.grad_fn)

# a non-leaf's view may be modified; the base's grad_fn changes
x = T(2, 3, grad=True)
y = x * 2
yv = y[:, 1]
yv.mul_(10)
print("base fn", type(y.grad_fn).__name__, "view fn", type(yv.grad_fn).__name__, y._version, yv._version)
y.sum().backward()
print("grad through view mul_", x.grad)

# in-place on a tensor saved for backward
a = T(4, grad=True)
b = a.sigmoid()
b.mul_(2)
show("sigmoid saved then mul_", lambda: b.sum().backward())
a2 = T(4, grad=True)
c = a2.exp()
c.add_(1)
show("exp saved then add_", lambda: c.sum().backward())
a3 = T(4, grad=True)
d = a3 * 3
e = d ** 2
d.add_(1)
show("pow input modified", lambda: e.sum().backward())
a4 = T(4, grad=True)
f = a4.relu()
g = f.clone()
f.add_(1)
show("clone before in-place", lambda: (g.sum() + f.sum()).backward())
print("a4 grad", a4.grad)

# expanded tensors share memory across elements
base = torch.zeros(3, 1)
ex = base.expand(3, 4)
show("expand add_", lambda: ex.add_(1))
show("expand add_ contiguous", lambda: ex.contiguous().add_(1).sum().item())
show("expand copy_", lambda: ex.copy_(torch.ones(3, 4)))
show("expand index_put_", lambda: ex.index_put_((torch.tensor([0]), torch.tensor([1])), torch.tensor(5.0)))
show("expand strides", lambda: ex.stride())
show("expand is_contiguous", lambda: ex.is_contiguous())

# broadcasting in place: the output must not grow
p = torch.ones(3)
q = torch.ones(2, 3)
show("small += big", lambda: p.add_(q))
show("big += small", lambda: q.add_(p).sum().item())
show("mul_ broadcast", lambda: torch.ones(3, 1).mul_(torch.ones(1, 3)))
show("out= shape", lambda: torch.add(torch.ones(3), torch.ones(2, 3), out=torch.empty(3)).shape)
show("int tensor add_ float", lambda: torch.ones(3, dtype=torch.long).add_(1.5))
show("int tensor mul_ float tensor", lambda: torch.ones(3, dtype=torch.long).mul_(torch.ones(3)))
show("float add_ int", lambda: torch.ones(3).add_(torch.ones(3, dtype=torch.long)).dtype)
show("bool add_", lambda: torch.ones(3, dtype=torch.bool).add_(1))

# backward twice
h = T(3, grad=True)
out = (h.exp() * h).sum()
out.backward()
show("backward twice", lambda: out.backward())
h.grad = None
out = (h.exp() * h).sum()
out.backward(retain_graph=True)
out.backward()
print("retained grad", h.grad)
show("backward non-scalar", lambda: (h * 2).backward())
show("backward no grad", lambda: torch.ones(3).sum().backward())
show("grad of non-leaf", lambda: (h * 2).grad)
k = h * 2
k.retain_grad()
k.sum().backward()
print("retain_grad", k.grad, k.is_leaf)
show("grad twice autograd.grad", lambda: torch.autograd.grad(out, h))
z = (h ** 3).sum()
(g1,) = torch.autograd.grad(z, h, create_graph=True)
print("g1", g1.requires_grad, type(g1.grad_fn).__name__)
(g2,) = torch.autograd.grad(g1.sum(), h)
print("double backward", g2)
show("grad unused", lambda: torch.autograd.grad((h * 2).sum(), [h, T(2, grad=True)]))
show("grad allow_unused", lambda: torch.autograd.grad((h * 2).sum(), [h, T(2, grad=True)], allow_unused=True)[1])

# in-place on a leaf's .data and detach shares storage
m = T(3, grad=True)
m.data.mul_(0)
print("data mul_", m, m.is_leaf)
dm = m.detach()
dm.add_(1)
print("detach shares", m)
show("requires_grad_ on non-leaf", lambda: (m * 1).requires_grad_(False))
show("requires_grad_ on int", lambda: torch.ones(2, dtype=torch.long).requires_grad_())
show("set .grad wrong shape", lambda: setattr(m, "grad", torch.ones(4)))
