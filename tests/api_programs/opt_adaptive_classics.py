"""The pre-Adam adaptive optimizers on a Rosenbrock-like objective and a tiny MLP: Adagrad (lr_decay,
initial_accumulator_value), Adadelta (rho, lr), RMSprop plain/centered/momentum, Rprop (etas, step_sizes) and ASGD
(lambd, alpha, t0 with its averaged iterate 'ax'), each with two param groups, foreach on and off, printing the
trajectory and its state entries."""

import torch
from torch import nn, optim

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def rosen(xy):
    return (1 - xy[0]) ** 2 + 5 * (xy[1] - xy[0] ** 2) ** 2


def path(make, steps=25):
    xy = nn.Parameter(torch.tensor([-1.0, 1.5]))
    opt = make([xy])
    for _ in range(steps):
        opt.zero_grad()
        rosen(xy).backward()
        opt.step()
    return xy.detach(), round(rosen(xy).item(), 4), opt


ROSEN = {
    "Adagrad": lambda p: optim.Adagrad(p, lr=0.3),
    "Adagrad lr_decay": lambda p: optim.Adagrad(p, lr=0.3, lr_decay=0.05, initial_accumulator_value=0.1),
    "Adadelta": lambda p: optim.Adadelta(p, lr=1.0, rho=0.9),
    "RMSprop": lambda p: optim.RMSprop(p, lr=0.01),
    "RMSprop centered": lambda p: optim.RMSprop(p, lr=0.01, centered=True, alpha=0.9),
    "RMSprop momentum": lambda p: optim.RMSprop(p, lr=0.005, momentum=0.8, weight_decay=0.01),
    "Rprop": lambda p: optim.Rprop(p, lr=0.05),
    "Rprop etas": lambda p: optim.Rprop(p, lr=0.05, etas=(0.3, 1.5), step_sizes=(1e-4, 0.2)),
    "ASGD": lambda p: optim.ASGD(p, lr=0.01, t0=5),
    "ASGD lambd": lambda p: optim.ASGD(p, lr=0.01, lambd=1e-3, alpha=0.5, t0=3, weight_decay=0.01),
}

for name, make in ROSEN.items():
    xy, f, opt = path(make)
    st = opt.state[opt.param_groups[0]["params"][0]]
    print(f"{name:18s} xy={xy} f={f}")
    for k in sorted(st):
        v = st[k]
        print(f"    {k}: {v if v.dim() else round(v.item(), 4)}")

# an MLP with per-group options, foreach against the loop
X = torch.randn(24, 4)
y = torch.randint(0, 3, (24,))


def mlp_run(make, foreach):
    torch.manual_seed(5)
    m = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
    groups = [{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.005}]
    opt = make(groups, foreach)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(m(X), y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 4))
    flat = torch.cat([p.detach().flatten() for p in m.parameters()])
    return losses, flat


MLP = {
    "Adagrad": lambda g, fe: optim.Adagrad(g, lr=0.05, weight_decay=0.01, foreach=fe),
    "Adadelta": lambda g, fe: optim.Adadelta(g, lr=1.0, weight_decay=0.01, foreach=fe),
    "RMSprop": lambda g, fe: optim.RMSprop(g, lr=0.01, centered=True, momentum=0.5, foreach=fe),
    "Rprop": lambda g, fe: optim.Rprop(g, lr=0.01, foreach=fe),
    "ASGD": lambda g, fe: optim.ASGD(g, lr=0.05, t0=2, foreach=fe),
}
for name, make in MLP.items():
    l0, p0 = mlp_run(make, False)
    l1, p1 = mlp_run(make, True)
    print(f"{name:9s} {l0} same={l0 == l1} maxdiff={(p0 - p1).abs().max().item() < 1e-6} p[:4]={p1[:4]}")

for bad in (lambda: optim.Adagrad([nn.Parameter(torch.zeros(1))], lr_decay=-1),
            lambda: optim.Adadelta([nn.Parameter(torch.zeros(1))], rho=1.5),
            lambda: optim.RMSprop([nn.Parameter(torch.zeros(1))], alpha=-0.1),
            lambda: optim.Rprop([nn.Parameter(torch.zeros(1))], etas=(1.2, 0.5)),
            lambda: optim.Adagrad([nn.Parameter(torch.zeros(1))], initial_accumulator_value=-1)):
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
