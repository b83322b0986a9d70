"""RealNVP on 2-D data: affine coupling layers, log-det-Jacobians checked with slogdet of autograd Jacobians."""
import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t):
    return t.detach().round(decimals=4).tolist()


class Coupling(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 4))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        xm = x * self.mask
        s, t = self.net(xm).chunk(2, dim=-1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * s.exp() + t)
        return y, s.sum(-1)

    def inverse(self, y):
        ym = y * self.mask
        s, t = self.net(ym).chunk(2, dim=-1)
        s = torch.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        return ym + (1 - self.mask) * ((y - t) * (-s).exp())


class RealNVP(nn.Module):
    def __init__(self, n=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n)]
        self.layers = nn.ModuleList(Coupling(m) for m in masks)
        self.base = D.MultivariateNormal(torch.zeros(2), torch.eye(2))

    def forward(self, x):
        logdet = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet

    def inverse(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z

    def log_prob(self, x):
        z, logdet = self(x)
        return self.base.log_prob(z) + logdet


torch.manual_seed(0)
n = 512
theta = torch.rand(n) * 3.1416
data = torch.stack([theta.cos(), theta.sin() - 0.3], -1) * 2 + 0.1 * torch.randn(n, 2)
flow = RealNVP()
print("buffers", [k for k, _ in flow.named_buffers()])
print("init log_prob equals base", torch.allclose(flow.log_prob(data[:5]), flow.base.log_prob(data[:5])))
opt = torch.optim.Adam(flow.parameters(), lr=5e-3)
start = -flow.log_prob(data).mean().item()
for it in range(200):
    opt.zero_grad()
    loss = -flow.log_prob(data).mean()
    loss.backward()
    opt.step()
print("nll improved", loss.item() < start - 0.3)

# log-det from the coupling layers agrees with slogdet of the full Jacobian
x0 = data[:3]
_, ld = flow(x0)
for i in range(3):
    J = torch.autograd.functional.jacobian(lambda v: flow(v.unsqueeze(0))[0].squeeze(0), x0[i])
    sign, logabs = torch.linalg.slogdet(J)
    print("point", i, "sign", sign.item(), "match", abs(logabs.item() - ld[i].item()) < 1e-4,
          "logdet match", abs(torch.logdet(J).item() - ld[i].item()) < 1e-4)
with torch.no_grad():
    z, _ = flow(x0)
    print("invertible", torch.allclose(flow.inverse(z), x0, atol=1e-5))
    torch.manual_seed(1)
    samples = flow.inverse(flow.base.sample((2000,)))
    print("sample mean", r(samples.mean(0).round(decimals=0)), samples.shape)

# slogdet / logdet conventions on batches and singular/negative matrices
M = torch.tensor([[[2.0, 1.0], [1.0, 3.0]], [[0.0, 1.0], [1.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]]])
res = torch.linalg.slogdet(M)
print(type(res).__name__, r(res.sign), r(res.logabsdet))
sign, lad = torch.slogdet(M)
print("torch.slogdet", r(sign), r(lad))
print("logdet", r(torch.logdet(M)), "det", r(torch.det(M)), r(torch.linalg.det(M)))
Mg = M[:2].clone().requires_grad_()
torch.linalg.slogdet(Mg).logabsdet.sum().backward()
print("slogdet grad = inv^T", torch.allclose(Mg.grad, torch.linalg.inv(M[:2]).mT))
print("double", torch.linalg.slogdet(M.double()).logabsdet.dtype)
try:
    torch.linalg.slogdet(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.logdet(torch.ones(3, dtype=torch.int64))
except Exception as e:
    print(type(e).__name__, e)

# the same flow as a TransformedDistribution built from torch transforms
aff = D.transforms.AffineTransform(torch.tensor([1.0, -1.0]), torch.tensor([2.0, 0.5]), event_dim=1)
td = D.TransformedDistribution(D.MultivariateNormal(torch.zeros(2), torch.eye(2)), [aff])
pt = torch.tensor([[1.0, -1.0], [3.0, 0.0]])
print("affine flow", r(td.log_prob(pt)), td.event_shape, r(aff.log_abs_det_jacobian(pt, aff(pt))))
