"""The optimizer mistakes and group bookkeeping that come up when comparing optimizers: each constructor's
argument checks (lr, betas, eps, momentum, rho, etas...) with their exact messages, params given as a set, a
single tensor or a generator used twice, duplicate and non-leaf parameters, add_param_group with overlaps and
missing defaults, per-group options, zero_grad(set_to_none) semantics, and every optimizer hook kind."""

import warnings

import numpy as np
import torch
from torch import nn, optim
from torch.optim.optimizer import register_optimizer_step_pre_hook

rng = np.random.default_rng(3)
w = nn.Parameter(torch.from_numpy(rng.standard_normal((2, 3)).astype(np.float32)))
bias = nn.Parameter(torch.zeros(2))


def err(f):
    try:
        f()
        return "no error"
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


P = [w]
BAD = [
    ("SGD lr", lambda: optim.SGD(P, lr=-0.1)),
    ("SGD momentum", lambda: optim.SGD(P, lr=0.1, momentum=-0.5)),
    ("SGD wd", lambda: optim.SGD(P, lr=0.1, weight_decay=-1)),
    ("SGD nesterov", lambda: optim.SGD(P, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("Adam lr", lambda: optim.Adam(P, lr=-1e-3)),
    ("Adam eps", lambda: optim.Adam(P, eps=-1e-8)),
    ("Adam beta0", lambda: optim.Adam(P, betas=(1.0, 0.999))),
    ("Adam beta1", lambda: optim.Adam(P, betas=(0.9, -0.1))),
    ("Adam wd", lambda: optim.Adam(P, weight_decay=-0.1)),
    ("AdamW beta0", lambda: optim.AdamW(P, betas=(-0.1, 0.9))),
    ("Adamax beta1", lambda: optim.Adamax(P, betas=(0.9, 1.0))),
    ("NAdam momentum_decay", lambda: optim.NAdam(P, momentum_decay=-1.0)),
    ("RAdam eps", lambda: optim.RAdam(P, eps=-1.0)),
    ("Adagrad lr_decay", lambda: optim.Adagrad(P, lr_decay=-0.1)),
    ("Adagrad init", lambda: optim.Adagrad(P, initial_accumulator_value=-1.0)),
    ("Adadelta rho", lambda: optim.Adadelta(P, rho=1.5)),
    ("RMSprop alpha", lambda: optim.RMSprop(P, alpha=-0.1)),
    ("RMSprop momentum", lambda: optim.RMSprop(P, momentum=-0.1)),
    ("Rprop etas", lambda: optim.Rprop(P, etas=(1.2, 0.5))),
    ("Rprop lr", lambda: optim.Rprop(P, lr=-0.01)),
    ("ASGD wd", lambda: optim.ASGD(P, weight_decay=-0.1)),
    ("SparseAdam beta0", lambda: optim.SparseAdam(P, betas=(1.5, 0.9))),
    ("SparseAdam eps", lambda: optim.SparseAdam(P, eps=0.0)),
    ("LBFGS groups", lambda: optim.LBFGS([{"params": [w]}, {"params": [bias]}])),
    ("set", lambda: optim.SGD({w, bias}, lr=0.1)),
    ("tensor", lambda: optim.Adam(w)),
    ("empty", lambda: optim.Adam([])),
    ("non-leaf", lambda: optim.SGD([w * 2], lr=0.1)),
    ("int param", lambda: optim.SGD([torch.zeros(2, dtype=torch.long)], lr=0.1)),
    ("lr tensor numel", lambda: optim.Adam(P, lr=torch.tensor([0.1, 0.2]))),
    ("group not dict", lambda: optim.SGD([{"params": [w]}, [bias]], lr=0.1)),
    ("fused differentiable", lambda: optim.Adam(P, lr=0.1, differentiable=True, fused=True)),
]
for name, f in BAD:
    print(name, "->", err(f))

# a generator is consumed once; the second optimizer gets nothing
m = nn.Linear(3, 2)
gen = m.parameters()
o1 = optim.SGD(gen, lr=0.1)
print("generator", len(o1.param_groups[0]["params"]), err(lambda: optim.SGD(gen, lr=0.1)))

# duplicates warn (and are kept out of the group)
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    o = optim.SGD([w, w, bias], lr=0.1)
print("dup", len(rec), str(rec[0].message)[:60] if rec else None, len(o.param_groups[0]["params"]))

# add_param_group: defaults fill in, overlaps are refused, missing required lr is refused
o = optim.SGD([w], lr=0.1, momentum=0.9)
o.add_param_group({"params": bias, "lr": 0.01})
print("added", [(g["lr"], g["momentum"], len(g["params"])) for g in o.param_groups])
print("overlap", err(lambda: o.add_param_group({"params": [w]})))
o_req = optim.SGD([{"params": [w], "lr": 0.5}])
print("req_default", o_req.defaults["lr"], err(lambda: o_req.add_param_group({"params": [bias]})))
print(
    "add_bad_key",
    err(lambda: o.add_param_group({"params": [nn.Parameter(torch.ones(1))], "custom_tag": "x"})),
    o.param_groups[-1].get("custom_tag"),
)

# per-group options change the update: same gradient, different groups
a, c = nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(3))
o = optim.Adam([{"params": [a], "amsgrad": True, "weight_decay": 0.5}, {"params": [c], "maximize": True}], lr=0.1)
for k in range(3):
    o.zero_grad()
    ((a - 2.0) ** 2 * torch.tensor([1.0, 2.0, 3.0])).sum().add(((c - 2.0) ** 2).sum()).backward()
    o.step()
print(
    "groups",
    np.round(a.detach().double().numpy(), 4).tolist(),
    np.round(c.detach().double().numpy(), 4).tolist(),
    sorted(o.state[a]),
    sorted(o.state[c]),
)

# zero_grad semantics
x = nn.Parameter(torch.ones(2))
o = optim.SGD([x], lr=0.1)
(x * 3).sum().backward()
g_before = x.grad
o.zero_grad(set_to_none=False)
print("zero_false", x.grad, x.grad is g_before)
o.zero_grad()
print("zero_none", x.grad)
o.step()
print("step_without_grad", x.detach().tolist(), len(o.state))

# every hook kind
log = []
o = optim.Adam([x], lr=0.1)
o.register_step_pre_hook(lambda opt, args, kwargs: log.append(("pre", len(args), sorted(kwargs))))
o.register_step_post_hook(lambda opt, args, kwargs: log.append(("post", type(opt).__name__)))
o.register_state_dict_pre_hook(lambda opt: log.append("sd_pre"))


def sd_post(opt, sd):
    sd["note"] = "tagged"
    return sd


o.register_state_dict_post_hook(sd_post)


def load_pre(opt, sd):
    log.append(("load_pre", sorted(sd)))
    sd = dict(sd)
    sd.pop("note")
    return sd


o.register_load_state_dict_pre_hook(load_pre)
o.register_load_state_dict_post_hook(lambda opt: log.append(("load_post", len(opt.state))), prepend=True)
h = register_optimizer_step_pre_hook(lambda opt, args, kwargs: log.append("global_pre"))
x.grad = torch.ones(2)
o.step(closure=None)
h.remove()
sd = o.state_dict()
o.load_state_dict(sd)
o.step()
print("hooks", log)
print("sd_keys", sorted(sd), sd["note"])

# capturable=True (copied from CUDA-graph code) on CPU parameters
for cls in (optim.Adam, optim.NAdam, optim.Adadelta, optim.ASGD):
    q = nn.Parameter(torch.ones(2))
    o = cls([q], capturable=True)
    q.grad = torch.ones(2)
    print("capturable", cls.__name__, err(o.step))
print("OK")
