"""Seeded ensembles as uncertainty papers train them: members initialised one after another from the global
stream, stacked with torch.func.stack_module_state and run under vmap (randomness 'same' and 'different' for
dropout and noise), bootstrap resamples per member from randint, MC dropout, and the predictive statistics."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(2718)

N, D, M = 64, 3, 4
X = torch.randn(N, D)
y = torch.sin(X[:, :1] * 2) + 0.5 * X[:, 1:2] + 0.1 * torch.randn(N, 1)
print("data", round(X.mean().item(), 4), round(y.std().item(), 4))


class Member(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.fc1 = nn.Linear(D, 24)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(24, 1)

    def forward(self, x):
        return self.fc2(self.drop(torch.tanh(self.fc1(x))))


members = [Member() for _ in range(M)]
print("member fc1 sums", [round(m.fc1.weight.sum().item(), 4) for m in members])
params, buffers = stack_module_state(members)
print("stacked", {k: tuple(v.shape) for k, v in params.items()})
base = copy.deepcopy(members[0]).to("meta")


def call(p, b, x):
    return functional_call(base, (p, b), (x,))


for rnd in ("same", "different"):
    torch.manual_seed(1)
    out = vmap(call, in_dims=(0, 0, None), randomness=rnd)(params, buffers, X[:5])
    print(f"vmap randomness={rnd}", tuple(out.shape), [round(v, 4) for v in out[:, 0, 0].tolist()])
torch.manual_seed(1)
noisy = vmap(lambda x: x + 0.1 * torch.randn_like(x), randomness="different")(X[:3])
print("vmap noise", noisy - X[:3])

boot_idx = torch.randint(0, N, (M, N))
print("bootstrap unique counts", [len(torch.unique(b)) for b in boot_idx])
opts = [torch.optim.Adam(m.parameters(), lr=0.02) for m in members]
for epoch in range(40):
    losses = []
    for m, opt, idx in zip(members, opts, boot_idx):
        m.train()
        loss = F.mse_loss(m(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    if epoch % 10 == 9:
        print(f"epoch {epoch} member losses {[round(v, 4) for v in losses]}")

Xt = torch.linspace(-3, 3, 7).unsqueeze(1).repeat(1, D)
with torch.no_grad():
    for m in members:
        m.eval()
    preds = torch.stack([m(Xt) for m in members])
print("ensemble mean", preds.mean(0).squeeze(1))
print("ensemble std", preds.std(0).squeeze(1))
params, buffers = stack_module_state(members)
base.eval()
with torch.no_grad():
    vm = vmap(call, in_dims=(0, 0, None))(params, buffers, Xt)
print("vmap matches loop", torch.allclose(vm, preds, atol=1e-6))

torch.manual_seed(3)
m0 = members[0]
m0.train()
with torch.no_grad():
    mc = torch.stack([m0(Xt) for _ in range(30)])
print("mc dropout mean", mc.mean(0).squeeze(1))
print("mc dropout std", mc.std(0).squeeze(1))
with torch.no_grad():
    torch.manual_seed(4)
    mc_vmap = vmap(lambda _: m0(Xt), randomness="different")(torch.zeros(30))
print("mc vmap", tuple(mc_vmap.shape), round(mc_vmap.std(0).mean().item(), 4))
nll = 0.5 * (torch.log(2 * torch.pi * preds.var(0) + 1e-6)
             + (torch.sin(Xt[:, :1] * 2) + 0.5 * Xt[:, 1:2] - preds.mean(0)) ** 2 / (preds.var(0) + 1e-6))
print("gaussian nll", round(nll.mean().item(), 4))
snapshot = torch.get_rng_state()
noise_a = torch.randn(3)
torch.set_rng_state(snapshot)
print("state replay", torch.equal(noise_a, torch.randn(3)), noise_a)
