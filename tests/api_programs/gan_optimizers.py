"""GAN step with two optimizers and detach."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


G = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
Dn = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, 0.0, 0.02)
        nn.init.zeros_(m.bias)


G.apply(init)
Dn.apply(init)
with torch.no_grad():
    for p in list(G.parameters()) + list(Dn.parameters()):
        p.copy_(T(*p.shape) * 0.3)
optG = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
optD = torch.optim.Adam(Dn.parameters(), lr=2e-3, betas=(0.5, 0.999))
crit = nn.BCEWithLogitsLoss()
real = T(64, 2) * 0.5 + 2.0
z = T(64, 4)
for step in range(20):
    fake = G(z)
    optD.zero_grad(set_to_none=True)
    ld = crit(Dn(real), torch.ones(64, 1)) + crit(Dn(fake.detach()), torch.zeros(64, 1))
    ld.backward()
    optD.step()
    optG.zero_grad()
    lg = crit(Dn(fake), torch.ones(64, 1))
    lg.backward()
    optG.step()
    if step in (0, 19):
        print("step", step, round(ld.item(), 4), round(lg.item(), 4))
print(
    "grad_none",
    Dn[0].weight.grad is not None,
    fake.requires_grad,
    fake.detach().requires_grad,
    fake.grad_fn is not None,
)
print("opt_state", sorted(optG.state_dict()["state"][0].keys()), optG.state_dict()["param_groups"][0]["betas"])
print("amsgrad", optG.param_groups[0]["amsgrad"], optG.defaults["eps"])
for cls, kw in [
    (torch.optim.AdamW, {}),
    (torch.optim.RMSprop, {"alpha": 0.9}),
    (torch.optim.Adagrad, {}),
    (torch.optim.Adadelta, {}),
    (torch.optim.Adamax, {}),
    (torch.optim.NAdam, {}),
    (torch.optim.RAdam, {}),
    (torch.optim.SGD, {"momentum": 0.5, "dampening": 0.1}),
    (torch.optim.Rprop, {}),
    (torch.optim.ASGD, {}),
]:
    p = nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
    o = cls([p], lr=0.1, **kw)
    for _ in range(3):
        o.zero_grad()
        (p**2).sum().backward()
        o.step()
    print(cls.__name__, np.round(p.detach().numpy().astype(np.float64), 4).tolist())
print("OK")
