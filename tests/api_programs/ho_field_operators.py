"""Differential operators of neural fields as PINN and continuous-flow code computes them: exact divergence of a
vector field by is_grads_batched and by a loop over outputs, FFJORD's Hutchinson estimator, the Laplacian and a
fourth derivative through nested create_graph, curl in 3-D, and the same quantities through torch.func."""

import torch
import torch.nn as nn
from torch.func import hessian, jacrev, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class Field(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 16), nn.Softplus(beta=2.0), nn.Linear(16, 16), nn.Tanh(),
                                 nn.Linear(16, d))

    def forward(self, x):
        return self.net(x)


field = Field(3).double()
x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
f = field(x)

# exact divergence: one backward per output dimension
div_loop = 0
for i in range(3):
    (gi,) = torch.autograd.grad(f[:, i].sum(), x, create_graph=True)
    div_loop = div_loop + gi[:, i]
print("divergence (loop):", div_loop.detach())

# exact divergence with is_grads_batched: all output dims at once
eye = torch.eye(3, dtype=torch.float64).unsqueeze(1).expand(3, 5, 3)
(J,) = torch.autograd.grad(f, x, eye, is_grads_batched=True, retain_graph=True)
print("batched jacobian shape:", tuple(J.shape))
div_batched = torch.einsum("ibi->b", J)
print("divergence (batched):", div_batched, "same:", torch.allclose(div_batched, div_loop.detach()))

# Hutchinson's estimator with Rademacher probes (FFJORD)
torch.manual_seed(1)
ests = []
for _ in range(300):
    e = torch.randint(0, 2, x.shape, dtype=torch.float64) * 2 - 1
    (ej,) = torch.autograd.grad(f, x, e, retain_graph=True)
    ests.append((ej * e).sum(1))
est = torch.stack(ests).mean(0)
print("hutchinson divergence:", est, "max err:", round((est - div_batched).abs().max().item(), 2) < 0.5)

# the divergence is trainable: its gradient w.r.t. the parameters
div_loop.pow(2).mean().backward()
print("d|div|^2/dW0 norm:", round(field.net[0].weight.grad.norm().item(), 6))

# torch.func: jacobian per sample with vmap(jacrev)
single = lambda p: field(p.unsqueeze(0)).squeeze(0)  # noqa: E731
Jf = vmap(jacrev(single))(x.detach())
print("vmap(jacrev) == batched grad:", torch.allclose(Jf, J.permute(1, 0, 2)), tuple(Jf.shape))
print("trace via func:", torch.diagonal(Jf, dim1=1, dim2=2).sum(1))

# curl of the 3-D field
curl = torch.stack([Jf[:, 2, 1] - Jf[:, 1, 2], Jf[:, 0, 2] - Jf[:, 2, 0], Jf[:, 1, 0] - Jf[:, 0, 1]], 1)
print("curl:\n", curl)
grad_field = lambda p: torch.func.grad(lambda q: (q ** 2).sum() * q[0])(p)  # noqa: E731
Jg = vmap(jacrev(grad_field))(x.detach())
curl_g = torch.stack([Jg[:, 2, 1] - Jg[:, 1, 2], Jg[:, 0, 2] - Jg[:, 2, 0], Jg[:, 1, 0] - Jg[:, 0, 1]], 1)
print("curl of a gradient field is zero:", torch.allclose(curl_g, torch.zeros_like(curl_g), atol=1e-12))

# scalar potential: Laplacian and the biharmonic term through nested create_graph
pot = nn.Sequential(nn.Linear(2, 12), nn.Tanh(), nn.Linear(12, 1)).double()
p = torch.rand(4, 2, dtype=torch.float64, requires_grad=True)
u = pot(p).squeeze(1)
(du,) = torch.autograd.grad(u.sum(), p, create_graph=True)
(uxx_full,) = torch.autograd.grad(du[:, 0].sum(), p, create_graph=True)
(uyy_full,) = torch.autograd.grad(du[:, 1].sum(), p, create_graph=True)
lap = uxx_full[:, 0] + uyy_full[:, 1]
print("laplacian:", lap.detach())
(l1,) = torch.autograd.grad(lap.sum(), p, create_graph=True)
(lxx,) = torch.autograd.grad(l1[:, 0].sum(), p, create_graph=True)
(lyy,) = torch.autograd.grad(l1[:, 1].sum(), p, create_graph=True)
biharm = lxx[:, 0] + lyy[:, 1]
print("biharmonic:", biharm.detach())
H = vmap(hessian(lambda q: pot(q.unsqueeze(0)).squeeze()))(p.detach())
print("func hessian trace == laplacian:", torch.allclose(torch.diagonal(H, dim1=1, dim2=2).sum(1), lap.detach()))
print("mixed partial uxy == uyx:", torch.allclose(uxx_full[:, 1], uyy_full[:, 0]))

# a PINN-style residual for Poisson's equation, one optimizer step through 2nd derivatives
opt = torch.optim.LBFGS(pot.parameters(), lr=0.5, max_iter=5)
src = torch.sin(p.detach()[:, 0] * 3.1416) * torch.sin(p.detach()[:, 1] * 3.1416)


def closure():
    opt.zero_grad()
    q = p.detach().requires_grad_()
    uq = pot(q).squeeze(1)
    (g1,) = torch.autograd.grad(uq.sum(), q, create_graph=True)
    lap_q = sum(torch.autograd.grad(g1[:, i].sum(), q, create_graph=True)[0][:, i] for i in range(2))
    loss = (lap_q + src).pow(2).mean()
    loss.backward()
    return loss


first = closure().item()
opt.step(closure)
print("poisson residual:", round(first, 6), "->", round(closure().item(), 6))
