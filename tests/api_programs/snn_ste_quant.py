"""Straight-through estimators as binary and quantized networks write them: round, sign, binarize, detach trick."""
import torch

nn = torch.nn
F = torch.nn.functional


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


class SignSTE(torch.autograd.Function):
    """BinaryConnect / XNOR-Net: sign forward, hard-tanh window backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.where(x >= 0, torch.ones_like(x), -torch.ones_like(x))

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


def round_detach(x):
    return x + (x.round() - x).detach()


def quantize(x, bits=4, lo=-1.0, hi=1.0):
    levels = 2 ** bits - 1
    scale = (hi - lo) / levels
    q = torch.clamp(x, lo, hi)
    return round_detach((q - lo) / scale) * scale + lo


x = torch.tensor([-1.7, -0.5, -0.49, 0.0, 0.5, 1.5, 2.5, 0.51], requires_grad=True)
for name, fn in [("round", torch.round), ("RoundSTE", RoundSTE.apply), ("detach", round_detach),
                 ("sign", torch.sign), ("SignSTE", SignSTE.apply), ("trunc", torch.trunc),
                 ("floor", torch.floor), ("ceil", torch.ceil)]:
    y = fn(x)
    (g,) = torch.autograd.grad((y * torch.arange(1.0, 9.0)).sum(), x)
    print(name, y.tolist(), g.tolist(), type(y.grad_fn).__name__)

print("round decimals", torch.round(torch.tensor([1.2345, -2.5555, 0.125]), decimals=2).tolist())
xr = torch.tensor([1.2345, 2.5], requires_grad=True)
yr = torch.round(xr, decimals=1)
print(yr.grad_fn.name(), torch.autograd.grad(yr.sum(), xr)[0].tolist())

q = quantize(x, bits=2)
print("quant2", q.round(decimals=4).tolist(), type(q.grad_fn).__name__)
(gq,) = torch.autograd.grad(q.sum(), x)
print("quant2 grad", gq.tolist())


class BinaryLinear(nn.Linear):
    def forward(self, inp):
        wb = SignSTE.apply(self.weight)
        alpha = self.weight.abs().mean(dim=1, keepdim=True)
        return F.linear(SignSTE.apply(inp), wb * alpha, self.bias)


torch.manual_seed(0)
net = nn.Sequential(BinaryLinear(6, 8), nn.BatchNorm1d(8), nn.Hardtanh(), BinaryLinear(8, 2))
print(net)
data = torch.randn(32, 6)
target = (data[:, 0] * data[:, 1] > 0).long()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for epoch in range(5):
    out = net(data)
    loss = F.cross_entropy(out, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for m in net:
            if isinstance(m, BinaryLinear):
                m.weight.clamp_(-1, 1)
    print(epoch, round(loss.item(), 4), round(net[0].weight.grad.norm().item(), 4))
print("binary weights", SignSTE.apply(net[0].weight).unique().tolist())

# sign of special values and its gradient is zero everywhere
s = torch.tensor([float("nan"), -0.0, 0.0, float("inf"), -3.0], requires_grad=True)
print(torch.sign(s).tolist(), torch.sgn(s.detach()).tolist(), torch.signbit(s.detach()).tolist())
print(torch.autograd.grad(torch.sign(s).sum(), s)[0].tolist())

# round on integer tensors and the errors around it
print(torch.round(torch.tensor([1, 2, 3])).dtype)
try:
    torch.round(torch.tensor([1, 2, 3]), decimals=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    RoundSTE.apply(torch.tensor([1, 2])).requires_grad_()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.tensor([1, 2], requires_grad=True)
except Exception as e:
    print(type(e).__name__, e)
