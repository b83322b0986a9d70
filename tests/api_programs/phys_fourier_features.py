"""Fourier-feature and SIREN embeddings for PINNs with high-frequency solutions: a registered Gaussian projection
buffer (persistent and not), sin/cos features, SIREN's first-layer init with omega_0, multi-scale features, and the
derivatives of the embedded network w.r.t. its input, checked against the chain rule by hand."""

import math

import torch

nn = torch.nn
torch.manual_seed(0)


class FourierFeatures(nn.Module):
    def __init__(self, in_dim, n_feat, sigma, persistent=True):
        super().__init__()
        self.register_buffer("B", torch.randn(in_dim, n_feat) * sigma, persistent=persistent)
        self.sigma = sigma

    def forward(self, x):
        proj = 2 * math.pi * x @ self.B
        return torch.cat([torch.cos(proj), torch.sin(proj)], dim=-1)

    def extra_repr(self):
        return f"in_dim={self.B.shape[0]}, n_feat={self.B.shape[1]}, sigma={self.sigma}"


class Sine(nn.Module):
    def __init__(self, fan_in, fan_out, w0=30.0, first=False):
        super().__init__()
        self.w0, self.lin = w0, nn.Linear(fan_in, fan_out)
        bound = 1 / fan_in if first else math.sqrt(6 / fan_in) / w0
        nn.init.uniform_(self.lin.weight, -bound, bound)

    def forward(self, x):
        return torch.sin(self.w0 * self.lin(x))


ff = FourierFeatures(2, 8, sigma=2.0)
print(ff)
print("buffers", [n for n, _ in ff.named_buffers()], list(ff.state_dict()))
ff_np = FourierFeatures(2, 8, sigma=2.0, persistent=False)
print("non-persistent", [n for n, _ in ff_np.named_buffers()], list(ff_np.state_dict()))
model = nn.Sequential(ff, nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
print("B requires_grad", ff.B.requires_grad, "in params", any(p is ff.B for p in model.parameters()))

x = torch.tensor([[0.1, 0.2], [0.4, -0.3], [0.0, 0.0]], requires_grad=True)
emb = ff(x)
print("emb", tuple(emb.shape), emb[2].tolist()[:4], round(emb.pow(2).sum(-1)[0].item(), 4))
J = torch.autograd.grad(emb[:, 0].sum(), x)[0]
proj = 2 * math.pi * x.detach() @ ff.B
by_hand = -torch.sin(proj[:, :1]) * 2 * math.pi * ff.B[:, 0]
print("d cos/dx", torch.allclose(J, by_hand, atol=1e-5))

y = model(x)
dy = torch.autograd.grad(y.sum(), x, create_graph=True)[0]
d2 = torch.autograd.grad(dy[:, 0].sum(), x)[0]
print("dy", dy.shape, dy.norm().item() > 0, "d2", d2.shape)

siren = nn.Sequential(Sine(1, 16, first=True), Sine(16, 16), nn.Linear(16, 1))
w = siren[0].lin.weight
print(
    "siren first bound",
    w.abs().max().item() <= 1.0,
    "hidden bound",
    siren[1].lin.weight.abs().max().item() <= math.sqrt(6 / 16) / 30,
)
xs = torch.linspace(-1, 1, 5).unsqueeze(1).requires_grad_()
ys = siren(xs)
print("siren out", tuple(ys.shape), ys.grad_fn.name(), siren[0](xs).grad_fn.name())

# multiscale features: stack of sigmas, concatenated; then fit a high-frequency target for a few steps
scales = nn.ModuleList([FourierFeatures(1, 4, s) for s in (1.0, 10.0)])
head = nn.Linear(16, 1)
opt = torch.optim.Adam(list(head.parameters()), lr=5e-2)
xt = torch.linspace(0, 1, 64).unsqueeze(1)
target = torch.sin(20 * math.pi * xt) + 0.5 * torch.sin(2 * math.pi * xt)
for step in range(100):
    feats = torch.cat([m(xt) for m in scales], -1)
    loss = nn.functional.mse_loss(head(feats), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("multiscale loss", round(loss.item(), 3) < 0.7, feats.shape)
sd = nn.ModuleDict({"scales": scales, "head": head}).state_dict()
print("keys", list(sd))
try:
    ff(torch.randn(3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    ff.register_buffer("B", torch.zeros(1))
    ff.register_buffer("weight.x", torch.zeros(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    ff.register_buffer("C", [1, 2])
except Exception as e:
    print(type(e).__name__, e)
