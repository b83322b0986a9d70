"""Differentiable closed-form heads for few-shot classification (R2D2, MetaOptNet-RR): ridge regression solved in the
Woodbury (support-size) form with torch.linalg.solve, cholesky and cholesky_solve, learnable regularization and
logit scale, gradients flowing through the solver into the embedding, a check against the primal form and
torch.linalg.lstsq, and the solvers' errors on singular and mismatched inputs."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
WAY, SHOT, QUERY, D = 5, 2, 3, 12


class R2D2Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_lam = nn.Parameter(torch.tensor(0.0))
        self.scale = nn.Parameter(torch.tensor(1.0))
        self.bias = nn.Parameter(torch.tensor(0.0))

    def forward(self, zs, ys_onehot, zq):
        # W = Zs^T (Zs Zs^T + lam I)^-1 Y: an (S x S) system instead of (D x D)
        S = zs.shape[0]
        K = zs @ zs.T + self.log_lam.exp() * torch.eye(S)
        alpha = torch.linalg.solve(K, ys_onehot)
        W = zs.T @ alpha
        return self.scale * (zq @ W) + self.bias, W


embed = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, D))
head = R2D2Head()
opt = torch.optim.SGD([{"params": embed.parameters()}, {"params": head.parameters(), "lr": 0.05}], lr=0.1,
                      momentum=0.9, nesterov=True)
centers = torch.randn(20, 8)


def episode():
    cls = torch.randperm(20)[:WAY]
    xs = centers[cls].repeat_interleave(SHOT, 0) + 0.4 * torch.randn(WAY * SHOT, 8)
    xq = centers[cls].repeat_interleave(QUERY, 0) + 0.4 * torch.randn(WAY * QUERY, 8)
    return xs, torch.arange(WAY).repeat_interleave(SHOT), xq, torch.arange(WAY).repeat_interleave(QUERY)


for it in range(6):
    xs, ys, xq, yq = episode()
    logits, W = head(embed(xs), F.one_hot(ys, WAY).float(), embed(xq))
    loss = F.cross_entropy(logits, yq)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == yq).float().mean().item()
    print(f"it {it} loss {loss.item():.4f} acc {acc:.4f} lam {head.log_lam.exp().item():.4f} "
          f"scale {head.scale.item():.4f}")
print("W", tuple(W.shape), W.grad_fn.name(), "log_lam grad", round(head.log_lam.grad.item(), 4))

# the dual (Woodbury) solution equals the primal one; cholesky paths agree
torch.set_default_dtype(torch.float64)
zs = torch.randn(WAY * SHOT, D)
Y = F.one_hot(torch.arange(WAY).repeat_interleave(SHOT), WAY).double()
lam = 0.7
W_dual = zs.T @ torch.linalg.solve(zs @ zs.T + lam * torch.eye(WAY * SHOT), Y)
W_primal = torch.linalg.solve(zs.T @ zs + lam * torch.eye(D), zs.T @ Y)
L = torch.linalg.cholesky(zs @ zs.T + lam * torch.eye(WAY * SHOT))
W_chol = zs.T @ torch.cholesky_solve(Y, L)
print("dual == primal", torch.allclose(W_dual, W_primal), "cholesky == solve", torch.allclose(W_dual, W_chol))
print("L lower", torch.equal(L, L.tril()), "diag positive", bool((L.diagonal() > 0).all()))
aug = torch.cat([zs, lam ** 0.5 * torch.eye(D)])
W_ls = torch.linalg.lstsq(aug, torch.cat([Y, torch.zeros(D, WAY)])).solution
print("ridge as lstsq", torch.allclose(W_ls, W_primal))

# gradient through the solve w.r.t. lambda vs finite differences
lam_t = torch.tensor(lam, requires_grad=True)
f = lambda l: (zs.T @ torch.linalg.solve(zs @ zs.T + l * torch.eye(WAY * SHOT), Y)).pow(2).sum()
(g,) = torch.autograd.grad(f(lam_t), lam_t)
fd = (f(torch.tensor(lam + 1e-6)) - f(torch.tensor(lam - 1e-6))) / 2e-6
print("d/dlam", round(g.item(), 6), "finite diff", round(fd.item(), 6))
torch.set_default_dtype(torch.float32)

ex = torch.linalg.cholesky_ex(torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
print("cholesky_ex info", ex.info.item())
for bad in [lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
            lambda: torch.linalg.solve(torch.zeros(3, 3), torch.ones(3)),
            lambda: torch.linalg.solve(torch.eye(3), torch.ones(4, 2)),
            lambda: torch.linalg.solve(torch.ones(2, 3), torch.ones(2)),
            lambda: torch.cholesky_solve(torch.ones(3, 2), torch.eye(2))]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
