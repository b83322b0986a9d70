"""A neural controlled differential equation (Kidger et al.) as torchcde writes it: natural cubic spline
coefficients of an irregular, partly missing multichannel path (forward fill with cummax indices, a tridiagonal
system assembled with diag_embed and solved batched), spline evaluation with bucketize and gather, the CDE
dz = f(z) dX/dt dt stepped with RK4 through a matrix-valued vector field reshaped with unflatten, logsignature-like
increments, and a short classification run with cross entropy."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

B, L, C = 6, 9, 2
t = torch.linspace(0, 1, L)
signal = torch.stack([torch.sin(6 * t + torch.arange(B)[:, None] * 0.5), torch.cos(3 * t) * torch.ones(B, 1)], -1)
x = torch.cat([t.expand(B, L).unsqueeze(-1), signal], dim=-1)  # time as a channel, as torchcde advises
missing = torch.rand(B, L) < 0.2
missing[:, 0] = False
x[..., 1][missing] = float("nan")
print("nan count", int(torch.isnan(x).sum().item()), x.shape)

# forward fill: the index of the last observed sample via cummax
idx = torch.where(~torch.isnan(x[..., 1]), torch.arange(L).expand(B, L), torch.zeros(B, L, dtype=torch.long))
last = idx.cummax(dim=1).values
x[..., 1] = torch.gather(x[..., 1], 1, last)
print("filled", bool(~torch.isnan(x).any()), last[0].tolist())


def natural_cubic_coeffs(t, x):
    """Second derivatives M of a natural cubic spline through (t, x) along dim -2."""
    h = t.diff()
    n = t.numel()
    main = torch.cat([torch.ones(1), 2 * (h[:-1] + h[1:]), torch.ones(1)])
    upper = torch.cat([torch.zeros(1), h[1:]])
    lower = torch.cat([h[:-1], torch.zeros(1)])
    A = torch.diag_embed(main) + torch.diag_embed(upper, offset=1) + torch.diag_embed(lower, offset=-1)
    dx = x.diff(dim=-2) / h[:, None]
    rhs = torch.zeros(*x.shape[:-2], n, x.shape[-1])
    rhs[..., 1:-1, :] = 6 * (dx[..., 1:, :] - dx[..., :-1, :])
    return torch.linalg.solve(A, rhs), A


M, A = natural_cubic_coeffs(t, x)
print("tridiagonal", tuple(A.shape), torch.diagonal(A, offset=1)[:3].round(decimals=4).tolist(), tuple(M.shape))
print("natural ends", M[:, 0].abs().max().item(), M[:, -1].abs().max().item())


def spline_derivative(s):
    i = (torch.bucketize(s, t) - 1).clamp(0, L - 2)
    h = t[i + 1] - t[i]
    a, b = (t[i + 1] - s) / h, (s - t[i]) / h
    xi, xj, Mi, Mj = x[:, i], x[:, i + 1], M[:, i], M[:, i + 1]
    return (xj - xi) / h + (-(3 * a**2 - 1) * Mi + (3 * b**2 - 1) * Mj) * h / 6


def spline_value(s):
    i = (torch.bucketize(s, t) - 1).clamp(0, L - 2)
    h = t[i + 1] - t[i]
    a, b = (t[i + 1] - s) / h, (s - t[i]) / h
    return a * x[:, i] + b * x[:, i + 1] + ((a**3 - a) * M[:, i] + (b**3 - b) * M[:, i + 1]) * h**2 / 6


knots = spline_value(t[3])
print(
    "interpolates",
    torch.allclose(knots, x[:, 3], atol=1e-5),
    "dX/dt time channel",
    spline_derivative(torch.tensor(0.37))[:, 0].round(decimals=4).tolist()[:3],
)


class CDEFunc(nn.Module):
    def __init__(self, hidden, channels):
        super().__init__()
        self.hidden, self.channels = hidden, channels
        self.net = nn.Sequential(nn.Linear(hidden, 32), nn.ReLU(), nn.Linear(32, hidden * channels), nn.Tanh())

    def forward(self, z):
        return self.net(z).unflatten(-1, (self.hidden, self.channels))


class NeuralCDE(nn.Module):
    def __init__(self, hidden=8, classes=2):
        super().__init__()
        self.initial = nn.Linear(C + 1, hidden)
        self.func = CDEFunc(hidden, C + 1)
        self.readout = nn.Linear(hidden, classes)

    def forward(self, steps=8):
        z = self.initial(spline_value(t[:1]).squeeze(1))
        grid = torch.linspace(0, 1, steps + 1)
        for s0, s1 in zip(grid[:-1], grid[1:]):
            h = s1 - s0
            g = lambda z, s: torch.einsum("bhc,bc->bh", self.func(z), spline_derivative(s.reshape(1)).squeeze(1))
            k1 = g(z, s0)
            k2 = g(z + h / 2 * k1, s0 + h / 2)
            k3 = g(z + h / 2 * k2, s0 + h / 2)
            k4 = g(z + h * k3, s1)
            z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return self.readout(z)


labels = torch.tensor([0, 1, 0, 1, 0, 1])
model = NeuralCDE()
print("vector field", model.func(torch.zeros(B, 8)).shape)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
for step in range(10):
    opt.zero_grad()
    logits = model()
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    opt.step()
print("loss", round(loss.item(), 4), "acc", (logits.argmax(-1) == labels).float().mean().item(), logits.grad_fn.name())
incr = x.diff(dim=1)
levy = 0.5 * (x[:, :-1, 1] * incr[:, :, 2] - x[:, :-1, 2] * incr[:, :, 1]).sum(1)
print("levy area", levy.round(decimals=4).tolist())
for call in (
    lambda: torch.diag_embed(torch.ones(3), offset=1, dim1=0, dim2=0),
    lambda: torch.bucketize(torch.tensor([0.5]), torch.tensor([[0.0, 1.0]])),
    lambda: torch.zeros(2, 6).unflatten(1, (4, -1)),
    lambda: torch.gather(x[..., 1], 1, last.float()),
):
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
