"""SIREN as its reference code initialises it: first-layer uniform(-1/n, 1/n) and hidden uniform(+-sqrt(6/n)/omega_0)
ranges under torch.no_grad, omega_0 scaling, nn.init with seeded generators, fan computations and gains, the
distribution of pre-activations, gradients and Laplacians of the fitted signal by autograd, and a Poisson-style fit
on image gradients."""

import math

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


class SineLayer(nn.Module):
    def __init__(self, in_features, out_features, bias=True, is_first=False, omega_0=30.0, generator=None):
        super().__init__()
        self.omega_0, self.is_first, self.in_features = omega_0, is_first, in_features
        self.linear = nn.Linear(in_features, out_features, bias=bias)
        with torch.no_grad():
            bound = 1 / in_features if is_first else math.sqrt(6 / in_features) / omega_0
            self.linear.weight.uniform_(-bound, bound, generator=generator)

    def extra_repr(self):
        return f"omega_0={self.omega_0}, is_first={self.is_first}"

    def forward(self, x):
        return torch.sin(self.omega_0 * self.linear(x))


class Siren(nn.Module):
    def __init__(self, hidden=32, layers=2, out=1, generator=None):
        super().__init__()
        net = [SineLayer(2, hidden, is_first=True, generator=generator)]
        net += [SineLayer(hidden, hidden, generator=generator) for _ in range(layers)]
        final = nn.Linear(hidden, out)
        with torch.no_grad():
            b = math.sqrt(6 / hidden) / 30.0
            nn.init.uniform_(final.weight, -b, b, generator=generator)
        self.net = nn.Sequential(*net, final)

    def forward(self, coords):
        coords = coords.clone().detach().requires_grad_(True)
        return self.net(coords), coords


g = torch.Generator().manual_seed(42)
model = Siren(generator=g)
print(model)
w0 = model.net[0].linear.weight
w1 = model.net[1].linear.weight
print("ranges", round(w0.abs().max().item(), 4) <= 0.5, round(w1.abs().max().item(), 4) <= math.sqrt(6 / 32) / 30,
      r(w0[0], 2), r(w1[0], 3))
print("fans", nn.init._calculate_fan_in_and_fan_out(w1), nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)))
print("gains", nn.init.calculate_gain("relu"), round(nn.init.calculate_gain("leaky_relu", 0.2), 6),
      nn.init.calculate_gain("tanh"), nn.init.calculate_gain("selu"), nn.init.calculate_gain("conv2d"))
t = torch.empty(64, 64)
nn.init.kaiming_uniform_(t, a=0, mode="fan_in", nonlinearity="relu", generator=torch.Generator().manual_seed(0))
print("kaiming_bound", round(t.abs().max().item(), 4), round(math.sqrt(6 / 64), 4))
nn.init.xavier_normal_(t, gain=nn.init.calculate_gain("tanh"), generator=torch.Generator().manual_seed(1))
print("xavier_std", round(t.std().item(), 2), round(5 / 3 * math.sqrt(2 / 128), 4))
nn.init.trunc_normal_(t, std=0.02, a=-0.04, b=0.04, generator=torch.Generator().manual_seed(2))
print("trunc", bool(t.abs().max() <= 0.04), round(t.std().item(), 3))
nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="linear", generator=torch.Generator().manual_seed(3))
print("kaiming_normal_std", round(t.std().item(), 2))
try:
    nn.init.kaiming_uniform_(t, mode="fan_avg")
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.init.calculate_gain("gelu")
except Exception as e:
    print(type(e).__name__, e)

H = W = 8
lin = torch.linspace(-1, 1, H)
grid = torch.stack(torch.meshgrid(lin, lin, indexing="ij"), -1).reshape(-1, 2)
with torch.no_grad():
    pre = model.net[1].linear(model.net[0](grid)) * 30
print("preact", round(pre.mean().item(), 2), round(pre.std().item(), 1))
out, coords = model(grid)
(grad,) = torch.autograd.grad(out, coords, torch.ones_like(out), create_graph=True)
lap = sum(torch.autograd.grad(grad[:, i], coords, torch.ones_like(grad[:, i]), create_graph=True)[0][:, i]
          for i in range(2))
print("out", tuple(out.shape), r(out), "grad", r(grad[0]), "lap", r(lap, 3))

img = torch.sin(3 * grid[:, :1]) * torch.cos(2 * grid[:, 1:])
gt_grad = torch.cat([3 * torch.cos(3 * grid[:, :1]) * torch.cos(2 * grid[:, 1:]),
                     -2 * torch.sin(3 * grid[:, :1]) * torch.sin(2 * grid[:, 1:])], -1)
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
for step in range(5):
    out, coords = model(grid)
    (grad,) = torch.autograd.grad(out.sum(), coords, create_graph=True)
    loss = F.mse_loss(out, img) + 0.1 * ((grad - gt_grad) ** 2).sum(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
psnr = -10 * torch.log10(F.mse_loss(model(grid)[0].detach(), img))
print("psnr", round(psnr.item(), 2), model.net[1].extra_repr())
