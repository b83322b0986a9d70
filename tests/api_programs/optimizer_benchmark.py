"""A researcher's optimizer benchmark: every torch.optim optimizer on the Rosenbrock function and on a
logistic-regression problem from the same start, LBFGS with and without strong-Wolfe line search (its state
counters), SparseAdam / sparse SGD / sparse Adagrad on an nn.Embedding(sparse=True), tensor learning rates,
maximize on a concave objective, and ReduceLROnPlateau with per-group min_lr driving an Adam run."""

import numpy as np
import torch
from torch import nn, optim
from torch.optim import lr_scheduler as S

rng = np.random.default_rng(5)


def rosen(xy):
    return (1 - xy[0]) ** 2 + 100 * (xy[1] - xy[0] ** 2) ** 2


def fmt(t):
    return np.round(t.detach().double().numpy(), 4).tolist()


OPTS = {
    "SGD": lambda p: optim.SGD(p, lr=1e-3, momentum=0.9),
    "SGD_nesterov": lambda p: optim.SGD(p, lr=1e-3, momentum=0.9, nesterov=True),
    "SGD_dampening": lambda p: optim.SGD(p, lr=1e-3, momentum=0.5, dampening=0.5, weight_decay=1e-3),
    "Adam": lambda p: optim.Adam(p, lr=0.05),
    "Adam_amsgrad": lambda p: optim.Adam(p, lr=0.05, amsgrad=True),
    "AdamW": lambda p: optim.AdamW(p, lr=0.05, weight_decay=0.1),
    "Adamax": lambda p: optim.Adamax(p, lr=0.05),
    "NAdam": lambda p: optim.NAdam(p, lr=0.05),
    "RAdam": lambda p: optim.RAdam(p, lr=0.05),
    "Adagrad": lambda p: optim.Adagrad(p, lr=0.3),
    "Adadelta": lambda p: optim.Adadelta(p, lr=1.0),
    "RMSprop": lambda p: optim.RMSprop(p, lr=0.01),
    "RMSprop_centered": lambda p: optim.RMSprop(p, lr=0.005, centered=True, momentum=0.5),
    "Rprop": lambda p: optim.Rprop(p, lr=0.01),
    "ASGD": lambda p: optim.ASGD(p, lr=1e-3, t0=10),
}

for name, make in OPTS.items():
    xy = nn.Parameter(torch.tensor([-1.2, 1.0]))
    opt = make([xy])
    for _ in range(40):
        opt.zero_grad()
        loss = rosen(xy)
        loss.backward()
        opt.step()
    print(f"rosen {name:16s} {rosen(xy).item():.4f} {fmt(xy)}")

# ASGD's averaged iterate lives in its state
st = opt.state[xy]
print("asgd_state", fmt(st["ax"]), round(st["eta"].item(), 6), round(st["mu"].item(), 4), st["step"].item())

# LBFGS: plain vs strong Wolfe, counters in state
for ls in (None, "strong_wolfe"):
    xy = nn.Parameter(torch.tensor([-1.2, 1.0], dtype=torch.float64))
    opt = optim.LBFGS(
        [xy], lr=1, max_iter=20, history_size=5, line_search_fn=ls, tolerance_grad=1e-9, tolerance_change=1e-12
    )
    calls = [0]

    def closure():
        calls[0] += 1
        opt.zero_grad()
        loss = rosen(xy)
        loss.backward()
        return loss

    first = opt.step(closure)
    for _ in range(2):
        opt.step(closure)
    s = opt.state[opt._params[0]]
    print(
        "lbfgs",
        ls,
        round(first.item(), 4),
        round(rosen(xy).item(), 6),
        fmt(xy),
        calls[0] == s["func_evals"],
        s["n_iter"],
        len(s["old_dirs"]),
        sorted(s),
    )
try:
    optim.LBFGS([nn.Parameter(torch.ones(2))], line_search_fn="backtracking")
except ValueError as e:
    print("lbfgs_err", e)

# logistic regression from the same start
Xl = torch.from_numpy(rng.standard_normal((64, 5)).astype(np.float32))
yl = (Xl @ torch.tensor([1.0, -2.0, 0.5, 0.0, 1.5]) > 0).float()
for name in ("SGD_nesterov", "Adam", "NAdam", "RAdam", "Adagrad", "RMSprop", "Rprop"):
    lin = nn.Linear(5, 1)
    with torch.no_grad():
        lin.weight.fill_(0.1)
        lin.bias.zero_()
    opt = OPTS[name](lin.parameters())
    for g in opt.param_groups:
        g["lr"] = g["lr"] * 5
    for _ in range(15):
        opt.zero_grad()
        loss = nn.functional.binary_cross_entropy_with_logits(lin(Xl).squeeze(1), yl)
        loss.backward()
        opt.step()
    acc = ((lin(Xl).squeeze(1) > 0).float() == yl).float().mean()
    print(f"logreg {name:12s} {loss.item():.4f} {acc.item():.4f} {fmt(lin.weight[0])}")

# sparse gradients
idx = torch.tensor([[0, 2, 2], [5, 0, 7]])
for name, make in (
    ("SparseAdam", lambda p: optim.SparseAdam(p, lr=0.1)),
    ("SGD", lambda p: optim.SGD(p, lr=0.5)),
    ("Adagrad", lambda p: optim.Adagrad(p, lr=0.5)),
):
    emb = nn.Embedding(8, 3, sparse=True)
    with torch.no_grad():
        emb.weight.copy_(torch.arange(24.0).reshape(8, 3) / 10)
    opt = make(emb.parameters())
    for _ in range(3):
        opt.zero_grad()
        (emb(idx) ** 2).sum().backward()
        opt.step()
    g = emb.weight.grad
    print("sparse", name, g.is_sparse, g.layout, fmt(emb.weight[[0, 1, 2, 5]].sum(1)), sorted(opt.state[emb.weight]))
emb = nn.Embedding(4, 2)
(emb(torch.tensor([1])) ** 2).sum().backward()
try:
    optim.SparseAdam(emb.parameters()).step()
except RuntimeError as e:
    print("sparseadam_dense", type(e).__name__, e)
emb = nn.Embedding(4, 2, sparse=True)
emb(torch.tensor([1])).sum().backward()
try:
    optim.Adam(emb.parameters()).step()
except RuntimeError as e:
    print("adam_sparse", type(e).__name__, e)

# maximize on a concave objective, tensor lr
w = nn.Parameter(torch.tensor([3.0, -1.0]))
opt = optim.SGD([w], lr=torch.tensor(0.1), momentum=0.5, maximize=True)
for _ in range(5):
    opt.zero_grad()
    (-((w - 1) ** 2).sum()).backward()
    opt.step()
print("maximize", fmt(w), type(opt.param_groups[0]["lr"]).__name__)

# ReduceLROnPlateau with per-group min_lr
a, b = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(2))
opt = optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.01}], lr=0.1)
sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=0, min_lr=[0.02, 0.004], eps=1e-3)
hist = []
for val in [1.0, 0.9, 0.95, 0.95, 0.8, 0.81, 0.82, 0.83, 0.84]:
    opt.step()
    sched.step(val)
    hist.append(tuple(round(g["lr"], 5) for g in opt.param_groups))
print("plateau", hist, sched.get_last_lr(), sched.num_bad_epochs)
print("OK")
