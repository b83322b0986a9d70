"""Redundancy-reduction objectives: Barlow Twins' cross-correlation of batch-normalized embeddings
(BatchNorm1d(affine=False), off-diagonal extraction by flatten()[:-1].view(n-1, n+1)[:, 1:], torch.diagonal with
add_(-1).pow_(2)), VICReg's variance/invariance/covariance terms (var with correction, the sqrt hinge via F.relu,
torch.cov), W-MSE's Cholesky whitening, and the corner cases of var/std/cov."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def off_diagonal(x):
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


class BarlowTwins(nn.Module):
    def __init__(self, dims=(10, 16, 8), lambd=0.0051):
        super().__init__()
        layers = []
        for i in range(len(dims) - 2):
            layers += [nn.Linear(dims[i], dims[i + 1], bias=False), nn.BatchNorm1d(dims[i + 1]), nn.ReLU(True)]
        layers.append(nn.Linear(dims[-2], dims[-1], bias=False))
        self.projector = nn.Sequential(*layers)
        self.bn = nn.BatchNorm1d(dims[-1], affine=False)
        self.lambd = lambd

    def forward(self, y1, y2):
        z1, z2 = self.projector(y1), self.projector(y2)
        c = self.bn(z1).T @ self.bn(z2)
        c.div_(y1.shape[0])
        on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
        off_diag = off_diagonal(c).pow_(2).sum()
        return on_diag + self.lambd * off_diag, c


def vicreg(x, y, sim_coeff=25.0, std_coeff=25.0, cov_coeff=1.0):
    repr_loss = F.mse_loss(x, y)
    x = x - x.mean(dim=0)
    y = y - y.mean(dim=0)
    std_x = torch.sqrt(x.var(dim=0) + 0.0001)
    std_y = torch.sqrt(y.var(dim=0) + 0.0001)
    std_loss = torch.mean(F.relu(1 - std_x)) / 2 + torch.mean(F.relu(1 - std_y)) / 2
    n, d = x.shape
    cov_x = (x.T @ x) / (n - 1)
    cov_y = (y.T @ y) / (n - 1)
    cov_loss = off_diagonal(cov_x).pow_(2).sum().div(d) + off_diagonal(cov_y).pow_(2).sum().div(d)
    loss = sim_coeff * repr_loss + std_coeff * std_loss + cov_coeff * cov_loss
    return loss, (repr_loss, std_loss, cov_loss), cov_x


x = torch.arange(16.0).view(4, 4)
print("offdiag", off_diagonal(x).tolist(), x.flatten()[:-1].view(3, 5).stride())

model = BarlowTwins()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
data = torch.randn(12, 10)
for step in range(3):
    y1, y2 = data + 0.1 * torch.randn_like(data), data.flip(0).roll(1, 0) * 0 + data * 0.8
    loss, c = model(y1, y2)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        "barlow",
        step,
        round(loss.item(), 4),
        c.shape,
        round(torch.diagonal(c).mean().item(), 4),
        loss.grad_fn.name(),
        c.grad_fn.name(),
    )
print(
    "bn buffers",
    [n for n, _ in model.bn.named_buffers()],
    model.bn.weight,
    model.bn.running_var[:3].round(decimals=4).tolist(),
)

a = torch.randn(16, 6, requires_grad=True)
b = (a.detach() * 0.5 + 0.1 * torch.randn(16, 6)).requires_grad_()
loss, parts, cov = vicreg(a, b)
loss.backward()
print("vicreg", round(loss.item(), 4), [round(p.item(), 4) for p in parts], round(a.grad.norm().item(), 4))
print(
    "cov",
    torch.allclose(cov, torch.cov(a.detach().T), atol=1e-5),
    torch.cov(a.detach().T, correction=0)[0, :3].round(decimals=4).tolist(),
)
w = torch.arange(1, 17)
print(
    "cov w",
    torch.cov(a.detach()[:, :2].T, fweights=w, aweights=torch.linspace(0.5, 1.5, 16)).round(decimals=4).tolist(),
)
print(
    "var",
    a.detach().var(0, correction=0)[:3].round(decimals=4).tolist(),
    a.detach().std(0, unbiased=False)[:3].round(decimals=4).tolist(),
    [t.round(decimals=4).tolist()[:2] for t in torch.var_mean(a.detach(), dim=0, correction=2)],
)
print("std_mean", [t.round(decimals=4).item() for t in torch.std_mean(a.detach()[:, 0])])

# W-MSE: whiten each view with the inverse Cholesky factor of its covariance
z = torch.randn(32, 4) @ torch.tensor([[2.0, 0.5, 0, 0], [0, 1, 0.3, 0], [0, 0, 0.5, 0], [0.1, 0, 0, 1]])
zc = z - z.mean(0, keepdim=True)
sigma = (zc.T @ zc) / (z.shape[0] - 1) + 1e-4 * torch.eye(4)
L = torch.linalg.cholesky(sigma)
W = torch.linalg.solve_triangular(L, torch.eye(4), upper=False)
white = zc @ W.T
print(
    "whitened",
    torch.cov(white.T).round(decimals=3).tolist()[0],
    torch.cholesky_inverse(L).diagonal().round(decimals=4).tolist(),
)

# corner cases
one = torch.randn(1, 4)
print("var n=1", one.var(0).tolist(), one.var(0, correction=0).tolist(), torch.cov(one.T).shape)
for fn in [
    lambda: off_diagonal(torch.zeros(3, 4)),
    lambda: torch.cov(torch.zeros(2, 3, 4)),
    lambda: torch.cov(torch.zeros(2, 5), fweights=torch.ones(5)),
    lambda: torch.cov(torch.zeros(2, 5), aweights=-torch.ones(5)),
    lambda: a.var(0, unbiased=True, correction=1),
    lambda: torch.linalg.cholesky(-torch.eye(3)),
]:
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, e)
