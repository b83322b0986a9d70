"""DoReFa-Net's quantizers: k-bit weights through tanh normalization, k-bit activations on [0, 1], and k-bit
gradients with uniform noise applied by a tensor hook (register_hook), plus 8-bit gradient compression for
communication with per-tensor scales, error feedback, and the effect on a few training steps."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def quantize_k(x, k):
    n = float(2**k - 1)
    return x + (torch.round(x * n) / n - x).detach()


def dorefa_w(w, k):
    if k == 32:
        return w
    t = torch.tanh(w)
    return 2 * quantize_k(t / (2 * t.abs().max()) + 0.5, k) - 1


def dorefa_a(x, k):
    return quantize_k(torch.clamp(x, 0, 1), k)


class GradQuant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, gen):
        ctx.k, ctx.gen = k, gen
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        dims = tuple(range(1, g.dim()))
        mx = g.abs().amax(dim=dims, keepdim=True).clamp(min=1e-12)
        n = float(2**ctx.k - 1)
        noise = (torch.rand(g.shape, generator=ctx.gen) - 0.5) / n
        q = 2 * mx * (quantize_k(g / (2 * mx) + 0.5 + noise, ctx.k) - 0.5)
        return q, None, None


w = torch.randn(4, 6)
for k in (1, 2, 4):
    q = dorefa_w(w, k)
    print("w bits", k, "levels", torch.unique(q).numel(), "range", round(q.min().item(), 4), round(q.max().item(), 4))
a = torch.linspace(-0.5, 1.5, 9, requires_grad=True)
qa = dorefa_a(a, 2)
qa.sum().backward()
print("act", qa.detach().round(decimals=4).tolist(), "grad", a.grad.tolist())

gen = torch.Generator().manual_seed(7)
x = torch.randn(5, 3, requires_grad=True)
y = GradQuant.apply(x, 2, gen)
print("view grad_fn", type(y.grad_fn).__name__)
(y * torch.arange(15.0).view(5, 3)).sum().backward()
print("quantized grads per row", [torch.unique(r).numel() for r in x.grad])

seen = []
h = torch.randn(3, requires_grad=True)
handle = h.register_hook(lambda g: seen.append(g.clone()) or torch.round(g * 4) / 4)
(h * torch.tensor([0.3, -0.61, 1.12])).sum().backward()
print("hook saw", seen[0].round(decimals=4).tolist(), "grad after hook", h.grad.tolist())
handle.remove()
h.grad = None
(h * 2).sum().backward()
print("after remove", h.grad.tolist(), type(handle).__name__)


def compress(g, err):
    g = g + err
    s = g.abs().max() / 127
    q = torch.clamp(torch.round(g / s), -127, 127).to(torch.int8)
    out = q.float() * s
    return q, s, out, g - out


class Net(nn.Module):
    def __init__(self, wb=2, ab=4):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(8, 16), nn.Linear(16, 1)
        self.wb, self.ab = wb, ab

    def forward(self, x):
        h = dorefa_a(F.linear(x, dorefa_w(self.fc1.weight, self.wb), self.fc1.bias), self.ab)
        return F.linear(h, dorefa_w(self.fc2.weight, self.wb), self.fc2.bias)


X = torch.randn(64, 8)
Y = torch.sin(X[:, :1]) + X[:, 1:2] * 0.5
net = Net()
errs = {n: torch.zeros_like(p) for n, p in net.named_parameters()}
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(25):
    loss = F.mse_loss(net(X), Y)
    opt.zero_grad()
    loss.backward()
    wire = 0
    for n, p in net.named_parameters():
        q, s, deq, errs[n] = compress(p.grad, errs[n])
        wire += q.numel() * q.element_size() + 4
        p.grad.copy_(deq)
    opt.step()
    if step % 8 == 0 or step == 24:
        print(
            "step",
            step,
            "loss",
            round(loss.item(), 4),
            "wire bytes",
            wire,
            "fp32 bytes",
            sum(p.numel() * 4 for p in net.parameters()),
        )
print("residual norms", {n: round(e.norm().item(), 5) for n, e in errs.items()})
try:
    h.register_hook(lambda g: g[:1])
    (h * 2).sum().backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randn(2).register_hook(lambda g: g)
except Exception as e:
    print(type(e).__name__, e)
