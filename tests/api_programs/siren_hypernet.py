"""SIREN neural fields (sine activations, uniform_ init under no_grad, Laplacian and eikonal losses via
autograd.grad with create_graph) and a hypernetwork producing per-sample weights used via F.linear/F.conv2d groups."""

import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(5)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class SineLayer(nn.Module):
    def __init__(self, in_f, out_f, bias=True, is_first=False, omega_0=30.0):
        super().__init__()
        self.omega_0, self.is_first, self.in_features = omega_0, is_first, in_f
        self.linear = nn.Linear(in_f, out_f, bias=bias)
        self.init_weights()

    def init_weights(self):
        with torch.no_grad():
            bound = 1 / self.in_features if self.is_first else math.sqrt(6 / self.in_features) / self.omega_0
            self.linear.weight.uniform_(-bound, bound)

    def forward(self, x):
        return torch.sin(self.omega_0 * self.linear(x))


class Siren(nn.Module):
    def __init__(self, in_f=2, hidden=16, layers=2, out_f=1):
        super().__init__()
        net = [SineLayer(in_f, hidden, is_first=True)]
        net += [SineLayer(hidden, hidden) for _ in range(layers)]
        final = nn.Linear(hidden, out_f)
        net.append(final)
        self.net = nn.Sequential(*net)

    def forward(self, coords):
        coords = coords.clone().detach().requires_grad_(True)
        return self.net(coords), coords


def gradient(y, x):
    return torch.autograd.grad(y, [x], grad_outputs=torch.ones_like(y), create_graph=True)[0]


def divergence(y, x):
    div = 0.0
    for i in range(y.shape[-1]):
        div += torch.autograd.grad(y[..., i], x, torch.ones_like(y[..., i]), create_graph=True)[0][..., i:i + 1]
    return div


def get_mgrid(side, dim=2):
    tensors = tuple(dim * [torch.linspace(-1, 1, steps=side)])
    mgrid = torch.stack(torch.meshgrid(*tensors, indexing="ij"), dim=-1)
    return mgrid.reshape(-1, dim)


siren = Siren()
bounds = [m.linear.weight.abs().max().item() <= (1 / 2 if m.is_first else math.sqrt(6 / 16) / 30) + 1e-7
          for m in siren.net if isinstance(m, SineLayer)]
print("init within bounds", bounds)
with torch.no_grad():
    for m in siren.net:
        lin = m.linear if isinstance(m, SineLayer) else m
        bound = 1 / lin.in_features if getattr(m, "is_first", False) else math.sqrt(6 / lin.in_features) / 30
        lin.weight.copy_(torch.from_numpy(rng.uniform(-bound, bound, lin.weight.shape).astype(np.float32)))
        lin.bias.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, lin.bias.shape).astype(np.float32)))
coords = get_mgrid(5)
print("mgrid", tuple(coords.shape), r(coords[:3]))
out, c = siren(coords)
grad = gradient(out, c)
lap = divergence(grad, c)
print("field", r(out), "grad", r(grad), "lap", r(lap))
# finite-difference check of the gradient at one point
h = 1e-3
pt = coords[7:8].double()
s64 = Siren().double()
s64.load_state_dict({k: v.double() for k, v in siren.state_dict().items()})
o64, c64 = s64(pt)
g64 = gradient(o64, c64)
fd = [(s64(pt + h * e)[0] - s64(pt - h * e)[0]).item() / (2 * h) for e in torch.eye(2, dtype=torch.float64)]
print("fd grad ok", np.allclose(g64.detach().numpy()[0], fd, atol=1e-4), g64.dtype)

target = torch.sin(3 * coords[:, :1]) * torch.cos(2 * coords[:, 1:])
opt = torch.optim.Adam(siren.parameters(), lr=1e-3)
for step in range(3):
    out, c = siren(coords)
    g = gradient(out, c)
    eik = ((g.norm(dim=-1) - 1) ** 2).mean()
    loss = F.mse_loss(out, target) + 0.1 * eik + 1e-3 * divergence(g, c).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), round(eik.item(), 4),
          round(siren.net[0].linear.weight.grad.norm().item(), 4))
hvp = torch.autograd.functional.hessian(lambda p: s64.net(p).sum(), pt)
print("hessian", tuple(hvp.shape), r(hvp), round((hvp[0, 0, 0, 0] + hvp[0, 1, 0, 1]).item(), 4))
jac = torch.autograd.functional.jacobian(lambda p: s64.net(p), pt, strict=True)
print("jacobian", tuple(jac.shape), torch.allclose(jac[0, 0], g64[0].detach()))
for bad in (lambda: torch.autograd.functional.jacobian(lambda p: s64(p)[0], pt, strict=True),
            lambda: torch.autograd.functional.hessian(lambda p: s64.net[-1](p.repeat(1, 8)).sum(), pt, strict=True),
            lambda: torch.autograd.functional.vjp(lambda p, q: s64.net(p), (pt, pt.clone()), torch.ones(1, 1),
                                                  strict=True)):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)


class HyperNet(nn.Module):
    """Produces the weights of a small target MLP from a per-sample embedding."""

    def __init__(self, z_dim, in_f, hid, out_f):
        super().__init__()
        self.shapes = [(hid, in_f), (hid,), (out_f, hid), (out_f,)]
        sizes = [math.prod(s) for s in self.shapes]
        self.sizes = sizes
        self.head = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, sum(sizes)))

    def forward(self, z):
        flat = self.head(z)
        return [chunk.view(z.shape[0], *s) for chunk, s in zip(torch.split(flat, self.sizes, dim=-1), self.shapes)]


hyper = HyperNet(4, 2, 8, 1)
with torch.no_grad():
    for p in hyper.parameters():
        p.copy_(T(*p.shape) * 0.3)
z = T(3, 4)
w1, b1, w2, b2 = hyper(z)
print("hyper shapes", [tuple(t.shape) for t in (w1, b1, w2, b2)])
pts = T(3, 5, 2)
hdn = torch.relu(torch.bmm(pts, w1.transpose(1, 2)) + b1.unsqueeze(1))
y_b = torch.baddbmm(b2.unsqueeze(1), hdn, w2.transpose(1, 2))
y_l = torch.stack([F.linear(F.relu(F.linear(pts[i], w1[i], b1[i])), w2[i], b2[i]) for i in range(3)])
print("bmm == per-sample F.linear", torch.allclose(y_b, y_l, atol=1e-5), r(y_b))
y_b.pow(2).mean().backward()
print("hyper grads", r(hyper.head[0].weight.grad), hyper.head[2].weight.grad.shape)

# per-sample conv kernels via groups
B, C, O, K = 3, 2, 4, 3
kern_net = nn.Linear(4, O * C * K * K)
with torch.no_grad():
    kern_net.weight.copy_(T(*kern_net.weight.shape) * 0.2)
    kern_net.bias.zero_()
kernels = kern_net(z).view(B * O, C, K, K)
img = T(B, C, 6, 6)
out = F.conv2d(img.view(1, B * C, 6, 6), kernels, padding=1, groups=B).view(B, O, 6, 6)
ref = torch.stack([F.conv2d(img[i:i + 1], kernels.view(B, O, C, K, K)[i], padding=1)[0] for i in range(B)])
print("grouped conv", tuple(out.shape), torch.allclose(out, ref, atol=1e-5), r(out))
out.sum().backward()
print("kern grad", r(kern_net.weight.grad), round(kern_net.bias.grad.abs().sum().item(), 4))
try:
    F.conv2d(img.view(1, B * C, 6, 6), kernels, groups=2)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.autograd.grad(out.sum(), [img])
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.linear(pts[0], w1)
except RuntimeError as e:
    print("RuntimeError", e)
