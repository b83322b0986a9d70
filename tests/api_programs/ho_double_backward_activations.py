"""Double backward through activations as curvature and PINN code needs it: second derivatives of tanh, softplus,
sigmoid, log_softmax, gelu, silu, elu and friends via autograd.grad(create_graph=True), checked against closed forms,
with the grad_fn names of the first-derivative graph."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

x = torch.linspace(-2.0, 2.0, 7, dtype=torch.float64, requires_grad=True)


def d1_d2(fn):
    y = fn(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    return y.detach(), g, h


t = x.detach()
cases = {
    "tanh": (torch.tanh, lambda: (1 - t.tanh() ** 2, -2 * t.tanh() * (1 - t.tanh() ** 2))),
    "sigmoid": (torch.sigmoid, lambda: (t.sigmoid() * (1 - t.sigmoid()),
                                        t.sigmoid() * (1 - t.sigmoid()) * (1 - 2 * t.sigmoid()))),
    "softplus": (F.softplus, lambda: (t.sigmoid(), t.sigmoid() * (1 - t.sigmoid()))),
    "exp": (torch.exp, lambda: (t.exp(), t.exp())),
    "sin": (torch.sin, lambda: (t.cos(), -t.sin())),
    "silu": (F.silu, lambda: (t.sigmoid() * (1 + t * (1 - t.sigmoid())),
                              t.sigmoid() * (1 - t.sigmoid()) * (2 + t * (1 - 2 * t.sigmoid())))),
    "log1p_sq": (lambda v: torch.log1p(v * v), lambda: (2 * t / (1 + t * t), (2 - 2 * t * t) / (1 + t * t) ** 2)),
}
for name, (fn, ref) in cases.items():
    y, g, h = d1_d2(fn)
    g_ref, h_ref = ref()
    print(f"{name:9s} d1 ok={torch.allclose(g.detach(), g_ref)} d2 ok={torch.allclose(h, h_ref)}",
          "d1 grad_fn:", type(g.grad_fn).__name__)
    print("   d2:", h)

# activations whose second derivative is piecewise
for name, fn in [("relu", F.relu), ("elu", F.elu), ("leaky", lambda v: F.leaky_relu(v, 0.1)),
                 ("gelu", F.gelu), ("gelu_tanh", lambda v: F.gelu(v, approximate="tanh")),
                 ("softsign", F.softsign), ("mish", F.mish), ("selu", F.selu), ("celu", lambda v: F.celu(v, 0.5)),
                 ("hardtanh", F.hardtanh), ("logsigmoid", F.logsigmoid)]:
    y, g, h = d1_d2(fn)
    print(f"{name:10s} d1={[round(v, 4) for v in g.tolist()]}")
    print(f"{'':10s} d2={[round(v, 4) for v in h.tolist()]}")

# gelu's exact second derivative: phi(x) (2 - x^2)
_, _, h = d1_d2(F.gelu)
phi = torch.exp(-t * t / 2) / math.sqrt(2 * math.pi)
print("gelu d2 closed form:", torch.allclose(h, phi * (2 - t * t)))

# log_softmax: the Hessian of logsumexp is diag(p) - p p^T
z = torch.tensor([0.5, -1.0, 2.0, 0.0], dtype=torch.float64, requires_grad=True)
lse = torch.logsumexp(z, 0)
(gz,) = torch.autograd.grad(lse, z, create_graph=True)
H = torch.stack([torch.autograd.grad(gz[i], z, retain_graph=True)[0] for i in range(4)])
p = torch.softmax(z.detach(), 0)
print("softmax from grad:", gz.detach())
print("lse hessian:\n", H)
print("diag(p)-pp^T:", torch.allclose(H, torch.diag(p) - torch.outer(p, p)))

target = torch.tensor([2])
nll = -F.log_softmax(z.unsqueeze(0), dim=1)[0, target].sum()
(gn,) = torch.autograd.grad(nll, z, create_graph=True)
print("nll grad:", gn.detach(), "== p - onehot:", torch.allclose(gn.detach(), p - F.one_hot(target, 4)[0]))
print("nll grad grad_fn:", type(gn.grad_fn).__name__)
(hz,) = torch.autograd.grad((gn ** 2).sum(), z)
print("grad of |grad|^2:", hz)

# third derivative, chained create_graph
u = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
f = torch.tanh(u)
derivs = []
for k in range(4):
    (f,) = torch.autograd.grad(f, u, create_graph=True)
    derivs.append(round(f.item(), 4))
print("tanh derivatives 1..4 at 0.3:", derivs)
tt = math.tanh(0.3)
print("closed form d3:", round(-2 * (1 - tt ** 2) * (1 - 3 * tt ** 2), 4))

# a Laplacian as PINN code writes it: u(x, y) = tanh(net)
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
pts = torch.rand(5, 2, dtype=torch.float64, requires_grad=True)
u_out = net(pts)
(du,) = torch.autograd.grad(u_out.sum(), pts, create_graph=True)
lap = 0
for i in range(2):
    (d2,) = torch.autograd.grad(du[:, i].sum(), pts, create_graph=True)
    lap = lap + d2[:, i]
print("u:", u_out.detach().squeeze(1))
print("laplacian:", lap.detach())
residual = (lap ** 2).mean()
residual.backward()
print("residual:", round(residual.item(), 6), "w0 grad norm:", round(net[0].weight.grad.norm().item(), 4))
print("grad_fns:", type(du.grad_fn).__name__, type(lap.grad_fn).__name__)
