"""GitHub issues about backward's semantics: gradient accumulation across calls, retain_graph and create_graph,
double backward through ops with and without second derivatives, backward(inputs=...), grads of expanded and
broadcast leaves, gradients of in-place ops on non-leaves (CopySlices), hooks on views, and zero_grad."""

import numpy as np
import torch

rng = np.random.default_rng(21)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32)).round(decimals=2).requires_grad_()


def r4(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: {tuple(out.shape)} {r4(out)}")
    elif isinstance(out, (tuple, list)):
        print(f"{name}: {[r4(o) if isinstance(o, torch.Tensor) else o for o in out]}")
    else:
        print(f"{name}: {out}")


x = T(3)
for k in range(3):
    (x * x).sum().backward()
    print("accumulated", k, r4(x.grad))
x.grad = None
y = (x ** 3).sum()
y.backward(retain_graph=True)
g_first = x.grad.clone()
y.backward()
print("retain twice", r4(g_first), r4(x.grad))
x.grad = None

# create_graph: the grad itself is differentiable
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print("g", r4(g), g.requires_grad, type(g.grad_fn).__name__)
(h,) = torch.autograd.grad(g.sum(), x)
print("second", r4(h))
y = (x ** 3).sum()
y.backward(create_graph=True)
print("grad has graph", x.grad.requires_grad)
x.grad.sum().backward()
print("after backward of grad", r4(x.grad))
x.grad = None

for name, f in [("sin", torch.sin), ("tanh", torch.tanh), ("sigmoid", torch.sigmoid), ("relu", torch.relu),
                ("softplus", torch.nn.functional.softplus), ("gelu", torch.nn.functional.gelu),
                ("log_softmax", lambda t: torch.log_softmax(t, 0)), ("norm", lambda t: t.norm()),
                ("max", lambda t: t.max()), ("cumprod", lambda t: t.cumprod(0)),
                ("logsumexp", lambda t: t.logsumexp(0)), ("atan2", lambda t: torch.atan2(t, t + 2))]:
    def second(f=f):
        (g1,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
        if not g1.requires_grad:
            return "first grad is constant"
        return torch.autograd.grad(g1.sum(), x)[0]
    show(f"d2 {name}", second)

# backward(inputs=...) and grad of some inputs only
a, b = T(2), T(2)
loss = (a * b).sum()
loss.backward(inputs=[a])
print("inputs=[a]", r4(a.grad), b.grad)
show("inputs non-leaf", lambda: (a * b * 2).sum().backward(inputs=[a * 1]))
show("grad wrt non-leaf", lambda: torch.autograd.grad((a * b).sum(), [a * 1]))
c = a * b
show("grad wrt intermediate", lambda: torch.autograd.grad((c * c).sum(), c))
show("grad_outputs", lambda: torch.autograd.grad(a * 3, a, grad_outputs=torch.tensor([1.0, -1.0])))
show("grad_outputs shape", lambda: torch.autograd.grad(a * 3, a, grad_outputs=torch.ones(3)))
show("backward gradient shape", lambda: (a * 3).backward(torch.ones(3)))
show("backward gradient dtype", lambda: (a * 3).backward(torch.ones(2, dtype=torch.float64)))

# expanded and broadcast leaves
bias = T(3)
big = T(4, 3)
(big + bias).pow(2).sum().backward()
print("broadcast grad shape", tuple(bias.grad.shape), r4(bias.grad))
e = T(1, 3)
e.expand(4, 3).sum().backward()
print("expand grad", r4(e.grad))
s = T(2)
torch.stack([s, s, s]).sum().backward()
print("reused grad", r4(s.grad))

# in-place on non-leaves
p = T(4)
q = p * 1
q[1:3] = 0
q.mul_(2)
print("copyslices fn", type(q.grad_fn).__name__)
(q * p).sum().backward()
print("grad after slice assign", r4(p.grad))
p.grad = None
q = p.clone()
q[q > 0] = q[q > 0] ** 2
q.sum().backward()
print("masked in-place grad", r4(p.grad))
p.grad = None
q = p * 1
v = q[:2]
v.exp_()
q.sum().backward()
print("view exp_ grad", r4(p.grad), type(v.grad_fn).__name__)

# hooks on views and non-leaves
p.grad = None
seen = []
q = p * 2
q.register_hook(lambda g: seen.append(r4(g)))
qv = q[1:]
qv.register_hook(lambda g: g * 10)
qv.sum().backward()
print("hook on view", seen, r4(p.grad))
p.grad = None
hk = p.register_hook(lambda g: g.clamp(max=0.5))
(p * 3).sum().backward()
print("leaf hook", r4(p.grad))
hk.remove()
show("hook on no-grad", lambda: torch.ones(2).register_hook(lambda g: g))
wrong = T(2)
wrong.register_hook(lambda g: g.sum())
show("hook returns wrong shape", lambda: (wrong * 2).sum().backward())

# zero_grad
lin = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
lin(torch.ones(1, 3)).sum().backward()
opt.zero_grad()
print("zero_grad default", lin.weight.grad)
lin(torch.ones(1, 3)).sum().backward()
opt.zero_grad(set_to_none=False)
print("zero_grad zeros", r4(lin.weight.grad))
lin.zero_grad()
print("module zero_grad", lin.bias.grad)
