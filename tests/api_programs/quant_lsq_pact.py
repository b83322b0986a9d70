"""Learnable quantizers from the papers: PACT's clipping level alpha trained through the clip, LSQ's step size
with its gradient scale 1/sqrt(N*Qp), the built-in _fake_quantize_learnable ops against a hand-written LSQ, and a
small QAT regression that learns its step sizes."""

import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def grad_scale(x, s):
    return (x - x * s).detach() + x * s


def round_pass(x):
    return (x.round() - x).detach() + x


def lsq(x, step, qn, qp):
    g = 1.0 / math.sqrt(x.numel() * qp)
    s = grad_scale(step, g)
    return round_pass(torch.clamp(x / s, -qn, qp)) * s


class PACT(nn.Module):
    def __init__(self, bits=4, alpha=6.0):
        super().__init__()
        self.alpha = nn.Parameter(torch.tensor(alpha))
        self.levels = 2**bits - 1

    def forward(self, x):
        y = torch.clamp(x, min=0)
        y = torch.where(y < self.alpha, y, self.alpha)
        scale = self.levels / self.alpha
        return round_pass(y * scale) / scale


x = torch.linspace(-1, 8, 10, requires_grad=True)
pact = PACT(bits=2, alpha=4.0)
y = pact(x)
print("pact", y.detach().round(decimals=4).tolist())
y.sum().backward()
print("x grad", x.grad.tolist(), "alpha grad", round(pact.alpha.grad.item(), 4))

# LSQ by hand vs the built-in learnable op
torch.manual_seed(1)
v = torch.randn(16)
s1 = torch.tensor([0.2], requires_grad=True)
v1 = v.clone().requires_grad_()
out1 = lsq(v1, s1, 8, 7)
(out1 * torch.arange(16.0)).sum().backward()
s2 = torch.tensor([0.2], requires_grad=True)
z2 = torch.tensor([0.0], requires_grad=True)
v2 = v.clone().requires_grad_()
out2 = torch._fake_quantize_learnable_per_tensor_affine(v2, s2, z2, -8, 7, 1.0 / math.sqrt(16 * 7))
(out2 * torch.arange(16.0)).sum().backward()
print("forward equal", torch.allclose(out1, out2))
print("x grads equal", torch.equal(v1.grad, v2.grad))
print("step grads", round(s1.grad.item(), 4), round(s2.grad.item(), 4), "zp grad", round(z2.grad.item(), 4))
print("grad_fn", type(out2.grad_fn).__name__)

# per-channel learnable
w = torch.randn(3, 5, requires_grad=True)
sc = (w.detach().abs().amax(1) / 7).requires_grad_()
zc = torch.zeros(3, requires_grad=True)
wq = torch._fake_quantize_learnable_per_channel_affine(w, sc, zc, 0, -8, 7, 1.0)
wq.pow(2).sum().backward()
print("per-channel scale grad", sc.grad.round(decimals=4).tolist(), "zp grad", zc.grad.round(decimals=4).tolist())


class QLinear(nn.Linear):
    def __init__(self, i, o, bits=4):
        super().__init__(i, o)
        self.qp = 2 ** (bits - 1) - 1
        self.step = nn.Parameter(2 * self.weight.detach().abs().mean() / math.sqrt(self.qp))

    def forward(self, x):
        return F.linear(x, lsq(self.weight, self.step, self.qp + 1, self.qp), self.bias)


X = torch.randn(128, 6)
Y = X @ torch.linspace(-1, 1, 6).unsqueeze(1) + 0.1
model = nn.Sequential(QLinear(6, 12), nn.ReLU(), PACT(bits=4, alpha=3.0), QLinear(12, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for it in range(40):
    loss = F.mse_loss(model(X), Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 10 == 9:
        steps = [round(m.step.item(), 4) for m in (model[0], model[3])]
        print("iter", it, "loss", round(loss.item(), 4), "steps", steps, "alpha", round(model[2].alpha.item(), 4))
levels = torch.unique(torch.round(model[0].weight / model[0].step).clamp(-8, 7))
print("used levels", levels.numel(), levels.min().item(), levels.max().item())
for bad in (
    lambda: torch._fake_quantize_learnable_per_tensor_affine(v, s2, z2, 7, -8),
    lambda: torch._fake_quantize_learnable_per_channel_affine(w, sc, zc[:2], 0, -8, 7),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
