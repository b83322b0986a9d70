"""Augmented neural ODEs and invertible residual flows (Dupont et al., Behrmann et al.): a 1-D problem a plain neural
ODE cannot separate, solved once the state is zero-padded with F.pad, an ensemble of vector fields run through
torch.func.stack_module_state/functional_call/vmap, spectral-norm-constrained residual blocks (parametrizations
and power iteration against matrix_norm(ord=2)), fixed-point inversion, and the log-determinant by a truncated
power series with exact Jacobians from jacrev."""

import copy

import torch
from torch.func import functional_call, jacrev, stack_module_state, vmap

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

x = torch.linspace(-1, 1, 32).unsqueeze(-1)
y = torch.where(x.abs() < 0.5, 1.0, -1.0).squeeze(-1)


class Field(nn.Module):
    def __init__(self, dim, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Softplus(beta=2.0), nn.Linear(hidden, dim))

    def forward(self, z):
        return self.net(z)


def flow(f, z, steps=10):
    for _ in range(steps):
        z = z + 0.1 * f(z)
    return z


def train(aug):
    torch.manual_seed(1)
    field = Field(1 + aug)
    head = nn.Linear(1 + aug, 1)
    opt = torch.optim.Adam([*field.parameters(), *head.parameters()], lr=2e-2)
    for _ in range(35):  # later steps amplify float32 rounding chaotically
        opt.zero_grad()
        z = F.pad(x, (0, aug))
        loss = F.soft_margin_loss(head(flow(field, z)).squeeze(-1), y)
        loss.backward()
        opt.step()
    acc = (head(flow(field, F.pad(x, (0, aug)))).squeeze(-1).sign() == y).float().mean()
    return round(loss.item(), 4), acc.item()


print("node", train(0), "anode", train(2))
print("pad", F.pad(x[:2], (0, 2)).tolist(), F.pad(x[:2], (1, 1), value=0.5).tolist())

fields = [Field(3) for _ in range(4)]
params, buffers = stack_module_state(fields)
base = copy.deepcopy(fields[0]).to("meta")
z0 = F.pad(x[:5], (0, 2))
out = vmap(lambda p, b, z: flow(lambda s: functional_call(base, (p, b), (s,)), z), in_dims=(0, 0, None))(
    params, buffers, z0
)
print("ensemble", tuple(out.shape), {k: tuple(v.shape) for k, v in list(params.items())[:2]})
print("member 2 matches", torch.allclose(out[2], flow(fields[2], z0), atol=1e-6))
print("ensemble spread", out.std(0).mean().round(decimals=4).item())


class ResBlock(nn.Module):
    def __init__(self, dim, hidden=8, coeff=0.9):
        super().__init__()
        self.l1 = nn.utils.parametrizations.spectral_norm(nn.Linear(dim, hidden), n_power_iterations=5)
        self.l2 = nn.utils.parametrizations.spectral_norm(nn.Linear(hidden, dim), n_power_iterations=5)
        self.coeff = coeff

    def g(self, z):
        return self.coeff * self.l2(torch.tanh(self.l1(z)))

    def forward(self, z):
        return z + self.g(z)

    def inverse(self, y, iters=60):
        z = y.clone()
        for _ in range(iters):
            z = y - self.g(z)
        return z


blk = ResBlock(2)
for _ in range(20):
    blk(torch.randn(16, 2))  # power iterations settle in training mode
blk.eval()
print(blk.l1)
sig = [torch.linalg.matrix_norm(m.weight, ord=2).item() for m in (blk.l1, blk.l2)]
print("spectral norms <= 1", [round(s, 3) for s in sig], sorted(blk.l1.parametrizations.weight.original.shape))
print("state keys", sorted(blk.l1.state_dict()))
z = torch.randn(5, 2)
with torch.no_grad():
    yb = blk(z)
    print("inverse error < 1e-5", (blk.inverse(yb) - z).abs().max().item() < 1e-5)
J = vmap(jacrev(blk.g))(z)
exact = torch.linalg.slogdet(torch.eye(2) + J)
series = sum(
    (-1) ** (k + 1) / k * torch.diagonal(torch.linalg.matrix_power(J, k), dim1=-2, dim2=-1).sum(-1)
    for k in range(1, 12)
)
print(
    "logdet exact",
    exact.logabsdet.round(decimals=4).tolist(),
    "series close",
    torch.allclose(series, exact.logabsdet, atol=1e-3),
)
print("sign", exact.sign.tolist(), type(exact).__name__)
for call in (
    lambda: F.pad(x, (0, 1, 2)),
    lambda: F.pad(x, (0, -2)),
    lambda: torch.linalg.matrix_norm(x.squeeze(), ord=2),
    lambda: nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), name="bias_missing"),
    lambda: stack_module_state([Field(2), Field(3)]),
):
    try:
        r = call()
        print("ok", tuple(r.shape))
    except Exception as e:
        print(type(e).__name__, e)
