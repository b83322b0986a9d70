"""Neural implicit surfaces (IGR/NeuS/VolSDF): geometric initialisation of an SDF MLP with weight norm and
softplus(beta=100), the eikonal loss through autograd.grad(create_graph=True), surface normals, sphere tracing,
NeuS' logistic density with a learnable inverse standard deviation, and VolSDF's Laplace-CDF density."""

import math

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def r(t, n=6):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


class SDFNet(nn.Module):
    def __init__(self, d_in=3, width=32, depth=4, radius=0.5):
        super().__init__()
        dims = [d_in] + [width] * depth + [1]
        self.layers = nn.ModuleList()
        for i in range(len(dims) - 1):
            lin = nn.Linear(dims[i], dims[i + 1])
            if i == len(dims) - 2:
                nn.init.normal_(lin.weight, mean=math.sqrt(math.pi) / math.sqrt(dims[i]), std=1e-4)
                nn.init.constant_(lin.bias, -radius)
            else:
                nn.init.constant_(lin.bias, 0.0)
                nn.init.normal_(lin.weight, 0.0, math.sqrt(2) / math.sqrt(dims[i + 1]))
            self.layers.append(nn.utils.parametrizations.weight_norm(lin))
        self.act = nn.Softplus(beta=100)

    def forward(self, x):
        for i, lin in enumerate(self.layers):
            x = lin(x)
            if i < len(self.layers) - 1:
                x = self.act(x)
        return x


net = SDFNet()
wn = net.layers[0].parametrizations.weight
print(net.act, wn.original0.shape, wn.original1.shape)
print("params", [n for n, _ in net.named_parameters()][:3])
pts = torch.tensor([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 1.0, 0.0], [0.3, 0.3, 0.3]])
with torch.no_grad():
    sdf0 = net(pts)
print("init_sdf", r(sdf0), "sphere_like", bool(sdf0[0] < 0) and bool(sdf0[2] > 0))


def gradient(y, x):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True, retain_graph=True,
                               only_inputs=True)[0]


x = (torch.rand(64, 3) * 2 - 1).requires_grad_(True)
y = net(x)
g = gradient(y, x)
eik = ((g.norm(2, dim=-1) - 1) ** 2).mean()
print("eikonal", round(eik.item(), 4), g.grad_fn is not None, g.requires_grad, tuple(g.shape))
normals = F.normalize(g, dim=-1)
print("normals", r(normals.norm(dim=-1), 4))

# Train a few steps towards the unit sphere of radius 0.5 plus the eikonal term.
opt = torch.optim.Adam(net.parameters(), lr=5e-3)
target = x.detach().norm(dim=-1, keepdim=True) - 0.5
for step in range(6):
    opt.zero_grad()
    xs = x.detach().requires_grad_(True)
    pred = net(xs)
    grad = gradient(pred, xs)
    loss = (pred - target).abs().mean() + 0.1 * ((grad.norm(dim=-1) - 1) ** 2).mean()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
# Second-order: Laplacian of the SDF (mean curvature term) by a double autograd.grad.
xs = pts.clone().requires_grad_(True)
grad = gradient(net(xs), xs)
lap = sum(torch.autograd.grad(grad[:, i].sum(), xs, create_graph=True)[0][:, i] for i in range(3))
print("laplacian", tuple(lap.shape), lap.grad_fn is not None)

# Sphere tracing on an analytic SDF.
def sdf_sphere(p):
    return p.norm(dim=-1) - 0.5


o = torch.tensor([[0.0, 0.0, -2.0], [0.2, 0.1, -2.0], [1.0, 1.0, -2.0]])
d = F.normalize(torch.tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), dim=-1)
t = torch.zeros(3)
active = torch.ones(3, dtype=torch.bool)
for it in range(20):
    dist = sdf_sphere(o + t[:, None] * d)
    active = active & (dist.abs() > 1e-4) & (t < 4.0)
    t = torch.where(active, t + dist, t)
print("trace", r(t), active.tolist(), r(sdf_sphere(o + t[:, None] * d)))

# NeuS logistic density: alpha from sdf at section ends, with s = exp(10 * variance).
variance = nn.Parameter(torch.tensor(0.3))
inv_s = torch.exp(variance * 10.0).clip(1e-6, 1e6)
sdf = torch.linspace(0.4, -0.4, 9)
prev_cdf, next_cdf = torch.sigmoid(sdf[:-1] * inv_s), torch.sigmoid(sdf[1:] * inv_s)
alpha = ((prev_cdf - next_cdf + 1e-5) / (prev_cdf + 1e-5)).clip(0.0, 1.0)
print("neus", round(inv_s.item(), 4), r(alpha, 8))
alpha.sum().backward()
print("neus_grad", round(variance.grad.item(), 4))

# VolSDF: density = alpha * Psi_beta(-sdf), Psi the Laplace CDF.
beta = torch.tensor(0.1)
s = -sdf
psi = 0.5 + 0.5 * s.sign() * torch.expm1(-s.abs() / beta)
dens = (1 / beta) * psi
print("volsdf", r(dens, 9), r(torch.sign(torch.tensor([-2.0, 0.0, 3.0]))), r(torch.special.expm1(torch.tensor([1e-8]))))
try:
    torch.autograd.grad(net(pts), pts)
except Exception as e:
    print(type(e).__name__, e)
try:
    xs = pts.clone().requires_grad_(True)
    torch.autograd.grad(net(xs), xs)
except Exception as e:
    print(type(e).__name__, e)
