"""Optimizer objects as a researcher inspects and manipulates them between experiments: the repr of every
optimizer (with groups), optimizers built from named_parameters (param_names in groups and state_dict),
copy.deepcopy and pickle of an optimizer mid-training, resetting one parameter's state, freezing a group by
zeroing its lr, and swapping a group's hyperparameters in place."""

import copy
import io
import pickle

import numpy as np
import torch
from torch import nn, optim

rng = np.random.default_rng(41)
X = torch.from_numpy(rng.standard_normal((20, 3)).astype(np.float32))
Y = torch.from_numpy(rng.standard_normal((20, 1)).astype(np.float32))


def model():
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(np.linspace(-0.5, 0.5, p.numel()).reshape(p.shape).astype(np.float32)))
    return m


def train(m, opt, n=3):
    for _ in range(n):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(X), Y)
        loss.backward()
        opt.step()
    return round(loss.item(), 4)


m = model()
for cls in (
    optim.SGD,
    optim.Adam,
    optim.AdamW,
    optim.Adamax,
    optim.NAdam,
    optim.RAdam,
    optim.Adagrad,
    optim.Adadelta,
    optim.RMSprop,
    optim.Rprop,
    optim.ASGD,
    optim.LBFGS,
    optim.SparseAdam,
):
    kw = {} if cls in (optim.LBFGS, optim.SparseAdam) else {"lr": 0.01}
    print(repr(cls(m.parameters(), **kw)))
print(optim.SGD([{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.5, "momentum": 0.9}], lr=0.1))

# named parameters
m = model()
opt = optim.AdamW(m.named_parameters(), lr=0.01)
print("names", opt.param_groups[0]["param_names"])
train(m, opt)
sd = opt.state_dict()
print("sd_names", sd["param_groups"][0]["param_names"], sd["param_groups"][0]["params"])
opt2 = optim.AdamW(model().named_parameters(), lr=0.5)
opt2.load_state_dict(sd)
print("loaded", opt2.param_groups[0]["lr"], len(opt2.state))
try:
    optim.SGD([("a", nn.Parameter(torch.ones(1))), nn.Parameter(torch.ones(1))], lr=0.1)
except ValueError as e:
    print("mixed", e)
decay = [(n, p) for n, p in m.named_parameters() if n.endswith("weight")]
no_decay = [(n, p) for n, p in m.named_parameters() if n.endswith("bias")]
opt3 = optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=0.01)
print("groups_named", [g["param_names"] for g in opt3.param_groups])

# deepcopy / pickle mid-training continue identically
m = model()
opt = optim.Adam(m.parameters(), lr=0.05, amsgrad=True)
train(m, opt)
m2 = copy.deepcopy(m)
opt_copy = copy.deepcopy(opt)
print(
    "deepcopy_shares_params",
    opt_copy.param_groups[0]["params"][0] is m.state_dict()["0.weight"],
    opt_copy.param_groups[0]["params"][0] is opt.param_groups[0]["params"][0],
)
buf = io.BytesIO()
pickle.dump({"model": m, "opt": opt}, buf)
buf.seek(0)
restored = pickle.load(buf)
m3, opt3 = restored["model"], restored["opt"]
print(
    "pickled_linked",
    opt3.param_groups[0]["params"][0] is m3[0].weight,
    type(opt3).__name__,
    sorted(opt3.state[m3[0].weight]),
)
la, lc = train(m, opt, 2), train(m3, opt3, 2)
print("pickle_continue", la, lc, torch.equal(m[0].weight, m3[0].weight))

# reset one parameter's state, freeze one group, change betas in place
m = model()
opt = optim.Adam([{"params": m[0].parameters()}, {"params": m[2].parameters()}], lr=0.05)
train(m, opt)
opt.state[m[2].weight] = {}
opt.param_groups[0]["lr"] = 0.0
w0 = m[0].weight.detach().clone()
opt.param_groups[1]["betas"] = (0.5, 0.9)
train(m, opt, 2)
print(
    "reset",
    opt.state[m[2].weight]["step"].item(),
    opt.state[m[0].weight]["step"].item(),
    torch.equal(w0, m[0].weight),
    np.round(m[2].weight.detach().double().numpy(), 4).tolist(),
)
print("state_keys", [sorted(v) for v in opt.state_dict()["state"].values()][:2], len(opt.state_dict()["state"]))
print("OK")
