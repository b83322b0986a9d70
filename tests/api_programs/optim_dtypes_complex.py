"""Optimizer numerics across dtypes as a numerics study checks them: every optimizer on a complex parameter
(phase retrieval style loss), float64 and bfloat16 parameters and the dtypes of their state, foreach=True against
the per-tensor loop, parameters without gradients left untouched, a Tensor lr changed in place between
steps, and differentiable=True SGD giving hypergradients with respect to lr and the initial weights."""

import numpy as np
import torch
from torch import nn, optim

rng = np.random.default_rng(31)
Z0 = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex64)
T = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(np.complex64)


def fmt(t, k=4):
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    return np.round(t.double().flatten()[:k].numpy(), 4).tolist()


MAKERS = {
    "SGD": lambda p, **kw: optim.SGD(p, lr=0.05, momentum=0.9, **kw),
    "Adam": lambda p, **kw: optim.Adam(p, lr=0.05, amsgrad=True, **kw),
    "AdamW": lambda p, **kw: optim.AdamW(p, lr=0.05, **kw),
    "Adamax": lambda p, **kw: optim.Adamax(p, lr=0.05, **kw),
    "NAdam": lambda p, **kw: optim.NAdam(p, lr=0.05, **kw),
    "RAdam": lambda p, **kw: optim.RAdam(p, lr=0.05, **kw),
    "Adagrad": lambda p, **kw: optim.Adagrad(p, lr=0.1, **kw),
    "Adadelta": lambda p, **kw: optim.Adadelta(p, lr=1.0, **kw),
    "RMSprop": lambda p, **kw: optim.RMSprop(p, lr=0.01, centered=True, momentum=0.2, **kw),
    "Rprop": lambda p, **kw: optim.Rprop(p, lr=0.05, **kw),
    "ASGD": lambda p, **kw: optim.ASGD(p, lr=0.05, **kw),
}


def complex_loss(z):
    target = torch.from_numpy(T)
    return ((z - target).abs() ** 2).sum() + 0.1 * (z.real * z.imag).sum()


for name, make in MAKERS.items():
    z = nn.Parameter(torch.from_numpy(Z0.copy()))
    opt = make([z])
    for _ in range(5):
        opt.zero_grad()
        complex_loss(z).backward()
        opt.step()
    st = opt.state[z]
    print(
        f"complex {name:8s} {complex_loss(z).item():.4f}",
        fmt(z),
        z.dtype,
        sorted((k, str(v.dtype)) for k, v in st.items() if torch.is_tensor(v) and v.dim() > 0)[:2],
    )

# LBFGS on a complex parameter
z = nn.Parameter(torch.from_numpy(Z0.copy()))
lb = optim.LBFGS([z], lr=1, max_iter=10, line_search_fn="strong_wolfe")


def closure():
    lb.zero_grad()
    loss = complex_loss(z)
    loss.backward()
    return loss


lb.step(closure)
print("complex LBFGS", round(complex_loss(z).item(), 4), fmt(z))

# dtypes of state for float64 / bfloat16 params
for dt in (torch.float64, torch.bfloat16):
    p = nn.Parameter(torch.linspace(-1, 1, 5, dtype=dt))
    for name in ("Adam", "RMSprop", "Adagrad", "ASGD") if dt == torch.float64 else ("Adam", "Adagrad"):
        q = nn.Parameter(p.detach().clone())
        opt = MAKERS[name]([q])
        for _ in range(3):
            opt.zero_grad()
            (q.float() ** 2 * torch.arange(1.0, 6.0)).sum().backward()
            opt.step()
        st = opt.state[q]
        print("dtype", str(dt)[6:], name, fmt(q, 5), sorted({k: str(v.dtype)[6:] for k, v in st.items()}.items()))

# foreach=True matches the per-tensor loop bit for bit
ps0 = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (4,), (2, 2, 2))]
for name in ("SGD", "Adam", "AdamW", "NAdam", "RAdam", "Adagrad", "RMSprop", "Rprop", "Adamax", "Adadelta", "ASGD"):
    outs = []
    for fe in (False, True):
        ps = [nn.Parameter(torch.from_numpy(a.copy())) for a in ps0]
        opt = MAKERS[name](ps, foreach=fe)
        for _ in range(4):
            opt.zero_grad()
            sum(((p - 0.3) ** 2).sum() * (i + 1) for i, p in enumerate(ps)).backward()
            opt.step()
        outs.append(ps)
    same = all(torch.allclose(a, b, rtol=1e-6, atol=1e-7) for a, b in zip(*outs))
    print("foreach", name, same, fmt(outs[1][1]))

# params without grads are skipped (no state), frozen params keep their values
a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
b.requires_grad_(False)
opt = optim.Adam([a, b], lr=0.1, weight_decay=0.5)
(a * 2).sum().backward()
opt.step()
print("skip", fmt(a), fmt(b), len(opt.state), b in opt.state)

# a Tensor lr edited in place between steps
lr = torch.tensor(0.1)
w = nn.Parameter(torch.tensor([1.0, -1.0]))
opt = optim.Adam([w], lr=lr)
for k in range(3):
    opt.zero_grad()
    (w**2).sum().backward()
    opt.step()
    lr.mul_(0.5)
print("tensor_lr", fmt(w), opt.param_groups[0]["lr"] is lr, round(opt.param_groups[0]["lr"].item(), 4))


# differentiable SGD (a meta-learning inner step): d loss(w after two steps) / d lr and / d w0
for mom, nest in ((0.0, False), (0.9, True)):
    lr = torch.tensor(0.1, requires_grad=True)
    w0 = torch.tensor([1.0, 2.0, -1.0], requires_grad=True)
    c = torch.tensor([1.0, 2.0, 3.0])
    w = w0.clone()
    opt = optim.SGD([w], lr=lr, momentum=mom, nesterov=nest, differentiable=True, weight_decay=0.01)
    for k in range(2):
        (g,) = torch.autograd.grad((w0**2 * c).sum() * (k + 1), w0, create_graph=True)
        w.grad = g
        opt.step()
    after = (w**2 * c).sum()
    after.backward()
    print("hypergrad", mom, round(after.item(), 4), round(lr.grad.item(), 4), fmt(w0.grad), w.grad_fn.name())
try:
    optim.SGD([torch.ones(2, requires_grad=True) * 2], lr=0.1)
except ValueError as e:
    print("non_leaf", e)
print("OK")
