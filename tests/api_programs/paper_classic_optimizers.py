"""The pre-Adam optimizers and Adafactor written from their papers and compared with torch.optim step by step:
Nesterov momentum (Sutskever et al. 2013), Adagrad (Duchi et al. 2011) with lr_decay, Adadelta (Zeiler 2012),
centered RMSprop (Graves 2013), Rprop (Riedmiller & Braun 1993), Adamax (Kingma & Ba 2015), ASGD's Polyak
averaging, Adafactor (Shazeer & Stern 2018); then hypergradient descent (Baydin et al. 2018) on the learning rate."""

import numpy as np
import torch

rng = np.random.default_rng(1993)
A = torch.from_numpy(rng.standard_normal((6, 4)).astype(np.float32))
B = torch.from_numpy(rng.standard_normal((6, 3)).astype(np.float32))
W0 = rng.standard_normal((4, 3)).astype(np.float32) * 0.5


def loss_fn(w):
    return ((A @ w - B) ** 2).mean() + 0.1 * w.abs().sum()


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


def scratch(kind, w, g, st, t, hp):
    """One step of `kind` on w (in place) with gradient g; st holds the optimizer's buffers."""
    if kind == "nesterov":
        buf = st.setdefault("buf", g.clone()) if t > 1 else st.setdefault("buf", g.clone())
        if t > 1:
            buf.mul_(hp["momentum"]).add_(g)
        w.sub_(hp["lr"] * (g + hp["momentum"] * buf))
    elif kind == "adagrad":
        clr = hp["lr"] / (1 + (t - 1) * hp["lr_decay"])
        s = st.setdefault("sum", torch.zeros_like(w))
        s.addcmul_(g, g)
        w.sub_(clr * g / (s.sqrt() + 1e-10))
    elif kind == "adadelta":
        sq, acc = st.setdefault("sq", torch.zeros_like(w)), st.setdefault("acc", torch.zeros_like(w))
        sq.mul_(hp["rho"]).addcmul_(g, g, value=1 - hp["rho"])
        delta = (acc + 1e-6).sqrt() / (sq + 1e-6).sqrt() * g
        acc.mul_(hp["rho"]).addcmul_(delta, delta, value=1 - hp["rho"])
        w.sub_(hp["lr"] * delta)
    elif kind == "rmsprop_centered":
        sq, ga = st.setdefault("sq", torch.zeros_like(w)), st.setdefault("ga", torch.zeros_like(w))
        sq.mul_(hp["alpha"]).addcmul_(g, g, value=1 - hp["alpha"])
        ga.mul_(hp["alpha"]).add_(g, alpha=1 - hp["alpha"])
        w.sub_(hp["lr"] * g / ((sq - ga * ga).sqrt() + 1e-8))
    elif kind == "rprop":
        prev = st.setdefault("prev", torch.zeros_like(w))
        step = st.setdefault("step", torch.full_like(w, hp["lr"]))
        sign = (g * prev).sign()
        factor = torch.where(sign > 0, 1.2, torch.where(sign < 0, 0.5, 1.0))
        step.mul_(factor).clamp_(1e-6, 50)
        g = torch.where(sign < 0, 0.0, g)
        w.sub_(g.sign() * step)
        prev.copy_(g)
    elif kind == "adamax":
        m, u = st.setdefault("m", torch.zeros_like(w)), st.setdefault("u", torch.zeros_like(w))
        m.mul_(0.9).add_(g, alpha=0.1)
        torch.maximum(u * 0.999, g.abs() + 1e-8, out=u)
        w.sub_(hp["lr"] / (1 - 0.9**t) * m / u)


configs = {
    "nesterov": (lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True), {"lr": 0.05, "momentum": 0.9}),
    "adagrad": (lambda p: torch.optim.Adagrad(p, lr=0.3, lr_decay=0.1), {"lr": 0.3, "lr_decay": 0.1}),
    "adadelta": (lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.9), {"lr": 1.0, "rho": 0.9}),
    "rmsprop_centered": (
        lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9, centered=True),
        {"lr": 0.01, "alpha": 0.9},
    ),
    "rprop": (lambda p: torch.optim.Rprop(p, lr=0.05), {"lr": 0.05}),
    "adamax": (lambda p: torch.optim.Adamax(p, lr=0.05), {"lr": 0.05}),
}
for kind, (make, hp) in configs.items():
    wa = torch.tensor(W0, requires_grad=True)
    wb = torch.tensor(W0)
    opt = make([wa])
    st = {}
    losses = []
    for t in range(1, 7):
        opt.zero_grad()
        loss = loss_fn(wa)
        loss.backward()
        opt.step()
        wb_ = wb.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(loss_fn(wb_), wb_)
        scratch(kind, wb, g, st, t, hp)
        losses.append(round(loss.item(), 4))
    print(kind, losses, round((wa - wb).abs().max().item(), 5), sorted(opt.state[wa].keys()))

# ASGD: ax holds the running average of the iterates once t0 is passed
w = torch.tensor(W0, requires_grad=True)
asgd = torch.optim.ASGD([w], lr=0.05, t0=2, lambd=0.0, alpha=0.75)
iterates = []
for t in range(6):
    asgd.zero_grad()
    loss_fn(w).backward()
    asgd.step()
    iterates.append(w.detach().clone())
st = asgd.state[w]
print(
    "asgd",
    sorted(st),
    r(st["eta"].reshape(1)),
    r(st["mu"].reshape(1)),
    r(st["ax"]),
    r(torch.stack(iterates[2:]).mean(0)),
)

# Adafactor: factored second moments for matrices
w = torch.tensor(W0, requires_grad=True)
af = torch.optim.Adafactor([w], lr=0.05)
for t in range(4):
    af.zero_grad()
    loss = loss_fn(w)
    loss.backward()
    af.step()
st = af.state[w]
print(
    "adafactor", round(loss.item(), 4), sorted(st), tuple(st["row_var"].shape), tuple(st["col_var"].shape), st["step"]
)
print("adafactor_defaults", sorted(af.defaults.items()))
v = torch.zeros(5, requires_grad=True)
af1 = torch.optim.Adafactor([v], lr=0.1)
(v - torch.arange(5.0)).pow(2).sum().backward()
af1.step()
print("adafactor_vector", sorted(af1.state[v]), r(v, 5))

# hypergradient descent: the learning rate follows d loss / d lr = -g_t . g_{t-1}
w = torch.tensor(W0)
lr, beta = 0.01, 1e-3
prev = torch.zeros_like(w)
for t in range(6):
    wg = w.clone().requires_grad_(True)
    loss = loss_fn(wg)
    (g,) = torch.autograd.grad(loss, wg)
    lr = lr + beta * (g * prev).sum().item()
    w = w - lr * g
    prev = g
print("hypergrad", round(loss.item(), 4), round(lr, 5))

# the same with a differentiable optimizer step and the lr as a tensor requiring grad
lr_t = torch.tensor(0.05, requires_grad=True)
w = torch.tensor(W0, requires_grad=True)
g = torch.autograd.grad(loss_fn(w), w, create_graph=True)[0]
w1 = w - lr_t * g
val = loss_fn(w1)
(dlr,) = torch.autograd.grad(val, lr_t)
w1d = w1.detach().requires_grad_(True)
(g1,) = torch.autograd.grad(loss_fn(w1d), w1d)
print("dloss_dlr", round(dlr.item(), 4), round(-(g1 * g.detach()).sum().item(), 4), lr_t.grad)
p = torch.nn.Parameter(torch.tensor(W0))
sgd = torch.optim.SGD([p], lr=torch.tensor(0.01), momentum=0.5, differentiable=True)
print("tensor_lr", type(sgd.param_groups[0]["lr"]).__name__, sgd.defaults["differentiable"])
for bad in (
    lambda: torch.optim.SGD([p], lr=0.1, nesterov=True),
    lambda: torch.optim.Rprop([p], etas=(1.5, 1.2)),
    lambda: torch.optim.Rprop([p], step_sizes=(1.0, 0.5)) and None,
    lambda: torch.optim.Adadelta([p], rho=1.5),
    lambda: torch.optim.Adagrad([p], lr_decay=-1),
    lambda: torch.optim.RMSprop([p], alpha=-0.1),
    lambda: torch.optim.Adafactor([p], beta2_decay=0.5),
):
    try:
        bad()
        print("no error")
    except ValueError as e:
        print("ValueError", e)
