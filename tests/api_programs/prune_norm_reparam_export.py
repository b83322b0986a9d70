"""Reparametrised layers before export: weight_norm with dim=None / dim=1 / negative dims, spectral_norm's
power-iteration buffers across train/eval and state_dict round trips, orthogonal maps, then baking the
parametrizations into plain weights with remove_parametrizations for deployment."""

import torch
import torch.nn.utils.parametrize as parametrize
from torch.nn.utils import parametrizations as P

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

x = torch.randn(6, 5)
for dim in (0, 1, -1, None):
    lin = P.weight_norm(nn.Linear(5, 3), name="weight", dim=dim)
    g = lin.parametrizations.weight.original0
    v = lin.parametrizations.weight.original1
    print("weight_norm dim", dim, tuple(g.shape), tuple(v.shape), round(g.sum().item(), 4))
conv = P.weight_norm(nn.Conv1d(3, 4, 3), dim=2)
print("conv g", tuple(conv.parametrizations.weight.original0.shape))

wn = P.weight_norm(nn.Linear(5, 3))
with torch.no_grad():
    wn.parametrizations.weight.original0.mul_(2.0)
print("row norms", wn.weight.norm(dim=1).round(decimals=4).tolist())
print(type(wn.parametrizations.weight[0]).__name__, wn.weight.grad_fn.name())

sn = P.spectral_norm(nn.Linear(5, 4), n_power_iterations=2, eps=1e-10)
print(sorted(sn.state_dict().keys()))
u0 = sn.parametrizations.weight[0]._u.clone()
sn.train()
for _ in range(20):
    _ = sn(x)
print("u moved", not torch.allclose(u0, sn.parametrizations.weight[0]._u))
sigma = torch.linalg.matrix_norm(sn.weight.detach(), ord=2)
print("train sigma", round(sigma.item(), 3))
sn.eval()
w_eval1 = sn.weight.detach().clone()
w_eval2 = sn.weight.detach().clone()
print("eval stable", torch.equal(w_eval1, w_eval2))
copy_sn = P.spectral_norm(nn.Linear(5, 4), n_power_iterations=2, eps=1e-10)
print(copy_sn.load_state_dict(sn.state_dict()))
copy_sn.eval()
print("loaded same", torch.allclose(copy_sn(x), sn(x), atol=1e-5))
try:
    P.spectral_norm(nn.Linear(5, 4), n_power_iterations=0)
except Exception as e:
    print(type(e).__name__, e)

orth_outs = []
for omap in ("matrix_exp", "cayley", "householder"):
    layer = P.orthogonal(nn.Linear(4, 4, bias=False), orthogonal_map=omap)
    w = layer.weight
    print(omap, round((w @ w.T - torch.eye(4)).abs().max().item(), 4), [n for n, _ in layer.named_parameters()])
tall = P.orthogonal(nn.Linear(3, 6), use_trivialization=False)
print("tall", tuple(tall.weight.shape), round((tall.weight.T @ tall.weight - torch.eye(3)).abs().max().item(), 4))
try:
    P.orthogonal(nn.Linear(4, 4), name="bias")
except Exception as e:
    print(type(e).__name__, e)
try:
    P.weight_norm(nn.Linear(4, 4), name="scale")
except Exception as e:
    print(type(e).__name__, str(e)[:80])

# train a small net with all three, then bake them in for export
model = nn.Sequential(
    P.weight_norm(nn.Linear(5, 8)),
    nn.ReLU(),
    P.spectral_norm(nn.Linear(8, 8)),
    nn.ReLU(),
    P.orthogonal(nn.Linear(8, 8)),
    nn.Linear(8, 2),
)
target = torch.randn(6, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(15):
    opt.zero_grad()
    loss = F.mse_loss(model(x), target)
    loss.backward()
    opt.step()
print("loss", round(loss.item(), 4))
model.eval()
ref = model(x).detach()
print(sum(parametrize.is_parametrized(m) for m in model), len(list(model.parameters())))
for m in model:
    if parametrize.is_parametrized(m):
        parametrize.remove_parametrizations(m, "weight", leave_parametrized=True)
print([type(m).__name__ for m in model], len(list(model.parameters())))
print("baked same", torch.allclose(model(x), ref, atol=1e-5), sorted(model.state_dict().keys())[:4])
print("baked sigma", round(torch.linalg.matrix_norm(model[2].weight.detach(), ord=2).item(), 3))
try:
    parametrize.remove_parametrizations(model[0], "weight")
except Exception as e:
    print(type(e).__name__, str(e)[-40:])
