"""Anatomy of every optimizer's state_dict as a researcher inspects it when writing a comparison table: the
state entries with their dtypes and shapes, 'step' stored as a tensor, every default each param_group lists,
a few steps on a fixed least-squares problem (parameters to four decimals), load_state_dict into a fresh
optimizer that continues bit-identically, and the hyperparameters some options imply (capturable, differentiable,
fused, foreach)."""

import copy

import numpy as np
import torch
from torch import nn, optim

rng = np.random.default_rng(7)
A = torch.from_numpy(rng.standard_normal((12, 5)).astype(np.float32))
b = torch.from_numpy(rng.standard_normal(12).astype(np.float32))
x0 = torch.from_numpy(rng.standard_normal(5).astype(np.float32)) * 0.5
s0 = torch.from_numpy(np.linspace(-1, 1, 3).astype(np.float32))


def params():
    return [nn.Parameter(x0.clone()), nn.Parameter(s0.clone())]


def loss_fn(ps):
    x, s = ps
    return 0.5 * ((A @ x - b) ** 2).mean() + (s**2).sum() * 0.1 + (x[:3] * s).sum() * 0.05


def run(opt, ps, n):
    for _ in range(n):
        opt.zero_grad()
        loss_fn(ps).backward()
        opt.step()
    return round(loss_fn(ps).item(), 4)


def describe_state(st):
    out = []
    for k in sorted(st):
        v = st[k]
        if torch.is_tensor(v):
            out.append((k, str(v.dtype).replace("torch.", ""), tuple(v.shape)))
        else:
            out.append((k, type(v).__name__, v))
    return out


def group_view(g):
    return {k: (v if not torch.is_tensor(v) else ("tensor", v.item())) for k, v in sorted(g.items()) if k != "params"}


CASES = [
    ("SGD", lambda p: optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.2, maximize=False)),
    ("SGD_nesterov_max", lambda p: optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True, maximize=True)),
    ("Adam", lambda p: optim.Adam(p, lr=0.02, weight_decay=0.05)),
    ("Adam_amsgrad_max", lambda p: optim.Adam(p, lr=0.02, amsgrad=True, maximize=True)),
    ("AdamW_amsgrad", lambda p: optim.AdamW(p, lr=0.02, amsgrad=True)),
    ("Adamax", lambda p: optim.Adamax(p, lr=0.05, weight_decay=0.01)),
    ("NAdam", lambda p: optim.NAdam(p, lr=0.02, momentum_decay=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
    ("RAdam", lambda p: optim.RAdam(p, lr=0.02, decoupled_weight_decay=True, weight_decay=0.1)),
    ("Adagrad", lambda p: optim.Adagrad(p, lr=0.1, lr_decay=0.05, initial_accumulator_value=0.5)),
    ("Adadelta", lambda p: optim.Adadelta(p, lr=0.5, rho=0.7, weight_decay=0.01)),
    ("RMSprop", lambda p: optim.RMSprop(p, lr=0.01, alpha=0.9, centered=True, momentum=0.3)),
    ("Rprop", lambda p: optim.Rprop(p, lr=0.02, etas=(0.3, 1.5), step_sizes=(1e-3, 0.1))),
    ("ASGD", lambda p: optim.ASGD(p, lr=0.05, lambd=1e-3, alpha=0.5, t0=2)),
]

for name, make in CASES:
    pa = params()
    oa = make(pa)
    l3 = run(oa, pa, 3)
    sd = oa.state_dict()
    print(name, "loss", l3, "x", np.round(pa[0].detach().double().numpy(), 4).tolist())
    print("  state", describe_state(sd["state"][0]))
    print("  step", sd["state"][1]["step"] if "step" in sd["state"][1] else None)
    print("  group", group_view(sd["param_groups"][0]), sd["param_groups"][0]["params"])
    pb = [nn.Parameter(p.detach().clone()) for p in pa]
    ob = make(pb)
    ob.load_state_dict(copy.deepcopy(sd))
    run(oa, pa, 2)
    run(ob, pb, 2)
    same = all(torch.equal(p, q) for p, q in zip(pa, pb))
    print("  resumed_same", same, np.round(pb[1].detach().double().numpy(), 4).tolist())

# state is keyed by parameter object; state_dict renumbers in param_groups order
p1, p2, p3 = nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(1))
o = optim.Adam([{"params": [p3]}, {"params": [p1, p2], "lr": 0.5}], lr=0.1)
(p1.sum() + 2 * p2.sum()).backward()
o.step()
sd = o.state_dict()
print("renumber", sorted(sd["state"]), [g["params"] for g in sd["param_groups"]], p3 in o.state, len(o.state))
print("step_tensor", type(o.state[p1]["step"]).__name__, o.state[p1]["step"].dtype, o.state[p1]["step"].shape)

# state_dict is a shallow copy: state tensors are shared, group lists are not
sd["param_groups"][1]["lr"] = 123.0
print("lr_after_edit", o.param_groups[1]["lr"], sd["state"][1]["exp_avg"] is o.state[p1]["exp_avg"])
o2 = optim.Adam(
    [{"params": [nn.Parameter(torch.ones(1))]}, {"params": [nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3))]}]
)
o2.load_state_dict(o.state_dict())
p1b = o2.param_groups[1]["params"][0]
print(
    "load_aliases",
    o2.state[p1b]["exp_avg"] is o.state[p1]["exp_avg"],
    o2.state[p1b]["step"] is o.state[p1]["step"],
    o2.param_groups[1]["lr"],
    o2.param_groups[0]["lr"],
)

# loading casts state to the parameter's dtype (except step), and keeps it on the param
q = nn.Parameter(torch.ones(3, dtype=torch.float64))
oq = optim.Adam([q], lr=0.1)
sd32 = {
    "state": {0: {"step": torch.tensor(4.0), "exp_avg": torch.full((3,), 0.5), "exp_avg_sq": torch.full((3,), 0.25)}},
    "param_groups": [dict(o.state_dict()["param_groups"][0], params=[0])],
}
oq.load_state_dict(sd32)
st = oq.state[q]
print("cast", st["exp_avg"].dtype, st["step"].dtype, st["step"].item(), oq.param_groups[0]["lr"])
q.grad = torch.ones(3, dtype=torch.float64)
oq.step()
print(
    "cast_step",
    np.round(q.detach().numpy(), 4).tolist(),
    st["step"].item() if "step" in st else oq.state[q]["step"].item(),
)

# defaults as PyTorch lists them
for cls in (optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad, optim.LBFGS, optim.SparseAdam):
    o = cls([nn.Parameter(torch.zeros(1))], lr=0.01)
    print(cls.__name__, sorted(o.defaults))
print("OK")
