"""A latent ODE for irregularly sampled time series (Rubanova et al.): an ODE-RNN encoder that runs a GRUCell
backwards over observation times with Euler steps between them and a mask for missing values, the union of the
batch's time stamps by torch.unique(return_inverse=True), a reparameterised initial state with a KL term against
a standard Normal, decoding by RK4 onto the union grid, a masked Gaussian likelihood, and a few Adam steps."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
D = torch.distributions

B, T_obs, obs_dim, latent, hidden = 4, 6, 2, 4, 16
times = torch.sort(torch.rand(B, T_obs) * 5, dim=1).values.round(decimals=1)
union, inverse = torch.unique(times, sorted=True, return_inverse=True)
print("union", union.shape, inverse.shape, inverse.dtype, bool((union[inverse] == times).all()))
vals = torch.stack([torch.sin(times + torch.arange(B)[:, None]), torch.cos(0.5 * times)], dim=-1)
mask = (torch.rand(B, T_obs, obs_dim) > 0.25).float()
data = torch.zeros(B, union.numel(), obs_dim)
M = torch.zeros_like(data)
data.scatter_(1, inverse.unsqueeze(-1).expand(-1, -1, obs_dim), vals * mask)
M.scatter_(1, inverse.unsqueeze(-1).expand(-1, -1, obs_dim), mask)
print("observed", int(M.sum().item()), "of", M.numel(), "per series", M.sum((1, 2)).tolist())


class ODEFunc(nn.Module):
    def __init__(self, dim, h):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, h), nn.ELU(), nn.Linear(h, dim))

    def forward(self, z):
        return self.net(z)


class ODERNNEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(2 * obs_dim, hidden)
        self.ode = ODEFunc(hidden, hidden)
        self.to_z0 = nn.Linear(hidden, 2 * latent)

    def forward(self, x, m, t):
        h = torch.zeros(x.shape[0], hidden)
        t_prev = t[-1]
        for i in reversed(range(t.numel())):
            dt = t[i] - t_prev  # negative: the encoder runs backwards in time
            for _ in range(2):
                h = h + 0.5 * dt * self.ode(h)
            obs = m[:, i].amax(-1, keepdim=True) > 0
            h_new = self.cell(torch.cat([x[:, i], m[:, i]], -1), h)
            h = torch.where(obs, h_new, h)
            t_prev = t[i]
        mean, log_std = self.to_z0(h).chunk(2, dim=-1)
        return mean, F.softplus(log_std) + 1e-4


class LatentODE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = ODERNNEncoder()
        self.dyn = ODEFunc(latent, hidden)
        self.dec = nn.Linear(latent, obs_dim)

    def forward(self, x, m, t):
        mean, std = self.enc(x, m, t)
        q = D.Normal(mean, std)
        z = q.rsample()
        zs = [z]
        for dt in t.diff():
            f = self.dyn
            k1 = f(z)
            k2 = f(z + dt / 2 * k1)
            k3 = f(z + dt / 2 * k2)
            k4 = f(z + dt * k3)
            z = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            zs.append(z)
        return self.dec(torch.stack(zs, dim=1)), q


model = LatentODE()
print("cell", model.enc.cell, model.enc.cell.weight_ih.shape, model.enc.cell.bias_hh.shape)
h1 = model.enc.cell(torch.randn(2 * obs_dim))
print("unbatched cell", h1.shape, h1.grad_fn.name())
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
prior = D.Normal(torch.zeros(latent), torch.ones(latent))
obs_std = 0.1
for step in range(15):
    opt.zero_grad()
    pred, q = model(data, M, union)
    ll = (D.Normal(pred, obs_std).log_prob(data) * M).sum((1, 2))
    kl = D.kl_divergence(q, prior).sum(-1)
    loss = -(ll - kl).mean() / M.sum((1, 2)).mean()
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
    opt.step()
    if step % 5 == 4:
        print("step", step, "loss", round(loss.item(), 3), "kl", round(kl.mean().item(), 3), "clip", total.item() > 5)
print("pred", tuple(pred.shape), pred.grad_fn.name(), "q", q)
mse = ((pred - data).pow(2) * M).sum() / M.sum()
print("masked mse", round(mse.item(), 3) < 1.5, "kl shape", tuple(kl.shape))
idx = torch.searchsorted(union, torch.tensor([0.0, 2.5, 10.0]))
print("searchsorted", idx.tolist(), torch.bucketize(torch.tensor([2.5]), union, right=True).tolist())
print("flip", torch.flip(union[:4], dims=(0,)).tolist(), union[:4].fliplr if union.dim() > 1 else "1-d")
try:
    model.enc.cell(torch.randn(3, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    model.enc.cell(torch.randn(3, 4), torch.randn(2, hidden))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.flip(union, dims=(1,))
except Exception as e:
    print(type(e).__name__, e)
try:
    D.Normal(torch.zeros(2), -torch.ones(2))
except Exception as e:
    print(type(e).__name__, str(e).split(" found invalid")[0])
