"""torch.nn.utils.parametrizations as GAN and flow code uses them: weight_norm, spectral_norm and orthogonal
with their state dicts, power-iteration buffers, eval behaviour, removal, and the legacy hook-based versions."""

import torch
from torch import nn
from torch.nn.utils import parametrizations as PZ
import torch.nn.utils.parametrize as P

torch.manual_seed(3)
torch.set_printoptions(precision=4)


def r4(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


# weight_norm: original0 is g, original1 is v
lin = nn.Linear(4, 3)
w_before = lin.weight.detach().clone()
PZ.weight_norm(lin, name="weight", dim=0)
print(lin)
sd = lin.state_dict()
for k, v in sd.items():
    print(k, tuple(v.shape))
g = lin.parametrizations.weight.original0
v = lin.parametrizations.weight.original1
print("g", r4(g))
print("g is row norm", torch.allclose(g.flatten(), w_before.norm(dim=1)))
print("same weight", torch.allclose(lin.weight, w_before, atol=1e-6))
with torch.no_grad():
    g.mul_(2.0)
print("row norms doubled", r4(lin.weight.norm(dim=1)))
x = torch.randn(5, 4)
lin(x).sum().backward()
print("g grad", r4(g.grad))
print("v grad norm", round(v.grad.norm().item(), 4))

conv = nn.Conv2d(2, 3, 3)
PZ.weight_norm(conv, dim=None)
print("dim=None g shape", tuple(conv.parametrizations.weight.original0.shape))

# spectral norm: u, v buffers live on the parametrization module
torch.manual_seed(4)
sn = nn.Linear(5, 4)
PZ.spectral_norm(sn, n_power_iterations=3)
print(sorted(sn.state_dict().keys()))
mod = sn.parametrizations.weight[0]
print(type(mod).__name__, mod.n_power_iterations, mod.dim, mod.eps)
print("u", r4(mod._u), "v", r4(mod._v))
sn.train()
for _ in range(10):
    w = sn.weight
sigma = torch.linalg.matrix_norm(w.detach(), ord=2)
print("sigma after train steps", round(sigma.item(), 3))
sn.eval()
w_eval = sn.weight.detach().clone()
u_eval = mod._u.clone()
_ = sn.weight
print("eval keeps u", torch.equal(u_eval, mod._u), torch.equal(w_eval, sn.weight.detach()))
print("svals", r4(torch.linalg.svdvals(sn.parametrizations.weight.original.detach()).round(decimals=3)))

sn2 = nn.Linear(5, 4)
PZ.spectral_norm(sn2)
print(sn2.load_state_dict(sn.state_dict()))
sn2.eval()
print("loaded weight equal", torch.allclose(sn2.weight, sn.weight))

# orthogonal: a square and a tall weight
torch.manual_seed(5)
q = nn.Linear(4, 4, bias=False)
PZ.orthogonal(q)
W = q.weight
print("orth err", round((W.T @ W - torch.eye(4)).abs().max().item(), 4))
print(sorted(q.state_dict().keys()))
print(q.parametrizations.weight[0])
tall = nn.Linear(3, 6, bias=False)
PZ.orthogonal(tall, orthogonal_map="householder")
Wt = tall.weight
print("maps", q.parametrizations.weight[0].orthogonal_map, tall.parametrizations.weight[0].orthogonal_map)
print("tall cols orthonormal", round((Wt.T @ Wt - torch.eye(3)).abs().max().item(), 4))
opt = torch.optim.SGD(q.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    loss = (q(torch.randn(8, 4)) - 1).pow(2).mean()
    loss.backward()
    opt.step()
W = q.weight
print("still orth", round((W.T @ W - torch.eye(4)).abs().max().item(), 4))

# removing leaves an ordinary parameter with the computed value
wn_value = lin.weight.detach().clone()
P.remove_parametrizations(lin, "weight")
print(lin, torch.allclose(lin.weight, wn_value))
print(sorted(lin.state_dict().keys()))

# the legacy hook-based versions
torch.manual_seed(6)
old = nn.utils.weight_norm(nn.Linear(3, 2))
print(sorted(old.state_dict().keys()))
print("g", r4(old.weight_g), "v shape", tuple(old.weight_v.shape))
old = nn.utils.remove_weight_norm(old)
print(sorted(old.state_dict().keys()))
old_sn = nn.utils.spectral_norm(nn.Linear(3, 2))
print(sorted(old_sn.state_dict().keys()))
nn.utils.remove_spectral_norm(old_sn)
print(sorted(old_sn.state_dict().keys()))
try:
    nn.utils.remove_weight_norm(old)
except ValueError as e:
    print("ValueError", e)
