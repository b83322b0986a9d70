"""TabNet's sparsemax and entmax-1.5 written by hand (sort, cumsum, gather, scatter) as autograd Functions."""

import torch

torch.manual_seed(0)


class Sparsemax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z, dim=-1):
        z = z - z.max(dim=dim, keepdim=True).values
        zs, _ = torch.sort(z, dim=dim, descending=True)
        k = torch.arange(1, z.size(dim) + 1, dtype=z.dtype).view(
            [-1 if i == dim % z.dim() else 1 for i in range(z.dim())]
        )
        cum = zs.cumsum(dim) - 1
        support = k * zs > cum
        k_z = support.sum(dim=dim, keepdim=True)
        tau = cum.gather(dim, k_z - 1) / k_z.to(z.dtype)
        out = torch.clamp(z - tau, min=0)
        ctx.dim = dim
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        dim = ctx.dim
        nz = out > 0
        g = grad * nz
        v = g.sum(dim, keepdim=True) / nz.sum(dim, keepdim=True).to(grad.dtype)
        return torch.where(nz, grad - v, torch.zeros_like(grad)), None


def entmax15(z, dim=-1, n_iter=40):
    """Entmax-1.5 by bisection on the threshold tau."""
    z = z / 2
    mx = z.max(dim, keepdim=True).values
    lo, hi = mx - 1, mx - (1 / z.size(dim)) ** 0.5
    for _ in range(n_iter):
        tau = (lo + hi) / 2
        p = torch.clamp(z - tau, min=0) ** 2
        too_big = p.sum(dim, keepdim=True) >= 1
        lo = torch.where(too_big, tau, lo)
        hi = torch.where(too_big, hi, tau)
    p = torch.clamp(z - (lo + hi) / 2, min=0) ** 2
    return p / p.sum(dim, keepdim=True)


z = torch.tensor(
    [[1.0, 0.8, 0.1, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, -2.0, 1.5, 2.9]], dtype=torch.float64, requires_grad=True
)
p = Sparsemax.apply(z, -1)
print(
    "sparsemax",
    p.round(decimals=4).tolist(),
    p.grad_fn.name() if hasattr(p.grad_fn, "name") else type(p.grad_fn).__name__,
)
print("sums", p.sum(-1).tolist(), "zeros", (p == 0).sum().item())
(p * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
print("grad", z.grad.round(decimals=4).tolist())
print(
    "gradcheck",
    torch.autograd.gradcheck(
        lambda t: Sparsemax.apply(t, -1), (torch.randn(3, 5, dtype=torch.float64, requires_grad=True),)
    ),
)

# along dim 0 and on a 3-D tensor (feature masks: batch x steps x features)
z3 = torch.randn(2, 3, 6)
p0 = Sparsemax.apply(z3, 1)
print("dim1 sums", p0.sum(1).round(decimals=4).tolist())
p2 = Sparsemax.apply(z3, -1)
print("sparsity", (p2 == 0).float().mean().item(), tuple(p2.shape))

e = entmax15(z.detach())
print("entmax15", e.round(decimals=4).tolist())
print("softmax", torch.softmax(z.detach(), -1).round(decimals=4).tolist()[0])

# the same support found with topk + scatter: a hard top-2 mask
x = torch.randn(4, 6)
top = x.topk(2, dim=1)
mask = torch.zeros_like(x).scatter_(1, top.indices, 1.0)
print("topk mask", mask.sum(1).tolist(), top.indices.tolist())
hard = torch.zeros_like(x).scatter(1, top.indices, torch.softmax(top.values, 1))
print("sparse softmax", hard.round(decimals=4).tolist()[0])
print("scatter add", torch.zeros(6).scatter_add(0, top.indices.flatten(), torch.ones(8)).tolist())
print("scatter reduce", torch.zeros(4, 6).scatter(1, top.indices, 2.0, reduce="add").sum().item())

# TabNet prior: features used at earlier steps are damped by gamma
gamma = 1.3
prior = torch.ones(4, 6)
masks = []
for step in range(3):
    logits = torch.randn(4, 6) * prior
    m = Sparsemax.apply(logits, -1)
    prior = prior * (gamma - m)
    masks.append(m)
M = torch.stack(masks)
entropy = (-M * torch.log(M + 1e-15)).sum(-1).mean()
print("masks", tuple(M.shape), round(entropy.item(), 4), round(prior.min().item(), 4))
print("feature importance", (M.sum(0) / M.sum()).sum(0).round(decimals=4).tolist())

# sort variants used for thresholds
v = torch.tensor([0.3, 0.1, 0.3, 0.2])
print(
    "stable", torch.sort(v, stable=True).indices.tolist(), torch.sort(v, descending=True, stable=True).indices.tolist()
)
print("argsort", torch.argsort(v, descending=True, stable=True).tolist(), torch.msort(v.view(2, 2)).tolist())
print(
    "cummax",
    torch.cummax(v, 0).indices.tolist(),
    torch.cummin(v, 0).values.tolist(),
    torch.logcumsumexp(v, 0).round(decimals=4).tolist(),
)
try:
    Sparsemax.apply(z3, 5)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(3).gather(0, torch.tensor([1.0]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.zeros(2, 3).scatter_(1, torch.tensor([[3]]), 1.0)
except Exception as e:
    print(type(e).__name__, e)
