"""A GAN training loop with the habits of real repos: requires_grad_(False) toggling of D during the G step,
n_critic D steps per G step, detach() against reusing the fake batch, zero_grad(set_to_none=False), in-place
LeakyReLU in D, retain_graph when one fake batch feeds two losses, logging with item(), and the autograd errors
these habits provoke when they go wrong."""

import torch
import torch.nn as nn

F = torch.nn.functional
torch.manual_seed(0)

G = nn.Sequential(nn.Linear(3, 16), nn.ReLU(True), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
optG = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999))
optD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
data = torch.randn(64, 2) * 0.5 + torch.tensor([1.0, -1.0])


def toggle(model, flag):
    for p in model.parameters():
        p.requires_grad_(flag)


n_critic, batch = 2, 16
log = []
for it in range(4):
    toggle(D, True)
    for k in range(n_critic):
        idx = torch.arange(batch) + ((it * n_critic + k) * batch) % 48
        real = data[idx]
        fake = G(torch.randn(batch, 3))
        d_real, d_fake = D(real), D(fake.detach())
        lossD = F.softplus(-d_real).mean() + F.softplus(d_fake).mean()
        optD.zero_grad(set_to_none=False)
        lossD.backward()
        optD.step()
    print("G grads after D step", all(p.grad is None for p in G.parameters()))
    toggle(D, False)
    fake = G(torch.randn(batch, 3))
    out = D(fake)
    lossG = F.softplus(-out).mean()
    optG.zero_grad()
    lossG.backward(retain_graph=True)
    feat = F.mse_loss(fake.mean(0), data.mean(0))
    feat.backward()
    optG.step()
    print(
        "D grads frozen",
        [p.grad.abs().sum().item() == 0.0 for p in D.parameters()][:2],
        "G grad",
        round(G[0].weight.grad.norm().item(), 4),
    )
    log.append((round(lossD.item(), 4), round(lossG.item(), 4), round(feat.item(), 4)))
print("log", log)
print("final mean", G(torch.randn(256, 3)).mean(0).round(decimals=2).tolist())
print("state steps", optD.state[D[0].weight]["step"].item(), optG.state[G[0].weight]["step"].item())
print("zeroed not None", D[0].weight.grad is not None, optD.param_groups[0]["betas"])

# Mistakes: backward through D twice, a frozen-then-modified in-place activation, a negative in-place slope.
toggle(D, True)
fake = G(torch.randn(4, 3))
lossD = D(fake).mean()
lossD.backward()
try:
    D(fake).mean().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:110])
h = torch.randn(4, 2, requires_grad=True)
a = D[0](h)
b = D[1](a)
try:
    a.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:160])
neg = nn.LeakyReLU(-0.2, inplace=True)
try:
    neg(torch.randn(3, requires_grad=True) * 1.0).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    F.leaky_relu(torch.randn(3, requires_grad=True), 0.2, inplace=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    optD.step(closure=lambda: None)
    print("closure returning None ok")
except Exception as e:
    print(type(e).__name__, e)
x = torch.randn(4, 3)
with torch.no_grad():
    f2 = G(x)
try:
    f2.sum().backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.optim.Adam([{"params": G.parameters()}, {"params": G[0].parameters()}])
except Exception as e:
    print(type(e).__name__, e)
