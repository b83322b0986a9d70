"""Spectral normalisation as GAN and Lipschitz-network code uses it: nn.utils.spectral_norm (hook-based) and
parametrizations.spectral_norm, power-iteration buffers, eval vs train, conv weights with dim=, removal, the exact
sigma from linalg.matrix_norm(ord=2)/svdvals, and a hand-written power iteration."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations, parametrize

torch.manual_seed(0)
lin = nn.Linear(6, 4)
sigma = torch.linalg.matrix_norm(lin.weight.detach(), ord=2)
print("sigma", round(sigma.item(), 4), torch.linalg.svdvals(lin.weight.detach()).round(decimals=4).tolist())
print(
    "norms",
    round(torch.linalg.matrix_norm(lin.weight.detach(), ord=-2).item(), 4),
    round(torch.linalg.matrix_norm(lin.weight.detach(), ord="nuc").item(), 4),
    round(torch.linalg.norm(lin.weight.detach(), 2).item(), 4),
)

sn = nn.utils.spectral_norm(lin, n_power_iterations=3)
print("hook names", sorted(n for n, _ in sn.named_parameters()), sorted(n for n, _ in sn.named_buffers()))
print("u v", tuple(sn.weight_u.shape), tuple(sn.weight_v.shape), round(sn.weight_u.norm().item(), 4))
x = torch.randn(5, 6)
y = sn(x)
w_sig = torch.linalg.matrix_norm(sn.weight.detach(), ord=2)
print("after", round(w_sig.item(), 3), type(sn.weight).__name__, sn.weight.requires_grad)
for _ in range(10):
    sn(x)
print("converged", round(torch.linalg.matrix_norm(sn.weight.detach(), ord=2).item(), 4))
sn.eval()
u_before = sn.weight_u.clone()
sn(x)
print("eval keeps u", torch.equal(u_before, sn.weight_u))
y.sum().backward()
print("grad orig", tuple(sn.weight_orig.grad.shape), round(sn.weight_orig.grad.abs().sum().item(), 4))
nn.utils.remove_spectral_norm(sn)
print("removed", sorted(n for n, _ in sn.named_parameters()), isinstance(sn.weight, nn.Parameter))

torch.manual_seed(0)
lin2 = parametrizations.spectral_norm(nn.Linear(6, 4))
print(lin2)
print("param names", sorted(n for n, _ in lin2.named_parameters()), sorted(n for n, _ in lin2.named_buffers()))
print("is_parametrized", parametrize.is_parametrized(lin2), parametrize.is_parametrized(lin2, "bias"))
lin2.train()
for _ in range(15):
    w = lin2.weight
print("param sigma", round(torch.linalg.matrix_norm(w.detach(), ord=2).item(), 4))
sd = lin2.state_dict()
print("state keys", sorted(sd.keys()))
lin2(x).pow(2).mean().backward()
print("grad", round(lin2.parametrizations.weight.original.grad.abs().sum().item(), 4))
parametrize.remove_parametrizations(lin2, "weight")
print(
    "after remove", type(lin2.weight).__name__, round(torch.linalg.matrix_norm(lin2.weight.detach(), ord=2).item(), 4)
)

torch.manual_seed(0)
conv = nn.utils.spectral_norm(nn.Conv2d(3, 8, 3))
print("conv u v", tuple(conv.weight_u.shape), tuple(conv.weight_v.shape))
convT = nn.utils.spectral_norm(nn.ConvTranspose2d(8, 3, 4), dim=1)
print("convT u v", tuple(convT.weight_u.shape), tuple(convT.weight_v.shape))
convT2 = parametrizations.spectral_norm(nn.ConvTranspose2d(8, 3, 4))
print("convT param u", tuple(convT2.parametrizations.weight[0]._u.shape), convT2.parametrizations.weight[0].dim)
img = torch.randn(2, 3, 8, 8)
print("conv out", tuple(conv(img).shape), round(conv(img).std().item(), 2) > 0)


def power_iteration(W, iters=50):
    u = F.normalize(torch.ones(W.shape[0]), dim=0)
    for _ in range(iters):
        v = F.normalize(W.t() @ u, dim=0)
        u = F.normalize(W @ v, dim=0)
    return torch.dot(u, W @ v)


W = torch.randn(5, 7)
print("power", round(power_iteration(W).item(), 4), round(torch.linalg.matrix_norm(W, 2).item(), 4))
Wb = torch.randn(3, 4, 4)
print(
    "batched",
    torch.linalg.matrix_norm(Wb, ord=2).round(decimals=4).tolist(),
    torch.linalg.matrix_norm(Wb, ord=2, dim=(0, 2)).shape,
)
Wc = torch.randn(4, 4, dtype=torch.cfloat)
print("complex", round(torch.linalg.matrix_norm(Wc, ord=2).item(), 4), torch.linalg.matrix_norm(Wc, ord=2).dtype)
Wg = W.clone().requires_grad_(True)
torch.linalg.matrix_norm(Wg, ord=2).backward()
U, S, Vh = torch.linalg.svd(W)
print("sigma grad", torch.allclose(Wg.grad.abs(), torch.outer(U[:, 0], Vh[0]).abs(), atol=1e-5))

for name, fn in [
    ("twice", lambda: nn.utils.spectral_norm(nn.utils.spectral_norm(nn.Linear(2, 2)))),
    ("remove missing", lambda: nn.utils.remove_spectral_norm(nn.Linear(2, 2))),
    ("bad name", lambda: nn.utils.spectral_norm(nn.Linear(2, 2), name="kernel")),
    ("ord 3", lambda: torch.linalg.matrix_norm(W, ord=3)),
    ("1d", lambda: torch.linalg.matrix_norm(torch.ones(3), ord=2)),
    ("param 1d", lambda: parametrizations.spectral_norm(nn.Linear(2, 2), name="bias")),
]:
    try:
        r = fn()
        print(name, "ok", type(r).__name__)
    except Exception as e:
        print(name, type(e).__name__, e)
