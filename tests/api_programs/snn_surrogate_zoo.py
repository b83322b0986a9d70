"""Surrogate-gradient functions as SNN libraries define them, in the setup_context style, checked by gradcheck."""

import math
import torch

nn = torch.nn
F = torch.nn.functional


class Heaviside(torch.autograd.Function):
    """Base: the forward is a step; subclasses pick the surrogate derivative."""

    @staticmethod
    def forward(x, alpha):
        return torch.heaviside(x, torch.tensor(0.5, dtype=x.dtype))

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, alpha = inputs
        ctx.save_for_backward(x)
        ctx.alpha = alpha


class SigmoidSpike(Heaviside):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.alpha * x)
        return g * ctx.alpha * s * (1 - s), None


class ATanSpike(Heaviside):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.alpha / 2 / (1 + (math.pi / 2 * ctx.alpha * x) ** 2), None


class FastSigmoidSpike(Heaviside):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (ctx.alpha * x.abs() + 1) ** 2, None


class TriangleSpike(Heaviside):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * torch.clamp(1.0 - x.abs() * ctx.alpha, min=0.0) * ctx.alpha, None


class SmoothSigmoid(torch.autograd.Function):
    """A differentiable forward too, so gradcheck can verify the backward."""

    @staticmethod
    def forward(ctx, x, alpha):
        y = torch.sigmoid(alpha * x)
        ctx.save_for_backward(y)
        ctx.alpha = alpha
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * ctx.alpha * y * (1 - y), None


x = torch.linspace(-1.5, 1.5, 7, requires_grad=True)
for fn in (SigmoidSpike, ATanSpike, FastSigmoidSpike, TriangleSpike):
    out = fn.apply(x, 2.0)
    (g,) = torch.autograd.grad(out.sum(), x)
    print(fn.__name__, out.tolist(), g.round(decimals=4).tolist(), out.grad_fn.name())

# heaviside at exactly zero uses the `values` argument
z = torch.tensor([-1.0, 0.0, 0.0, 2.0])
print(torch.heaviside(z, torch.tensor([0.0, 0.5, 1.0, 0.25])).tolist())
try:
    torch.heaviside(z, torch.tensor([0.0, 1.0], dtype=torch.float64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.heaviside(torch.tensor([1, 0]), torch.tensor([0.5]))
except Exception as e:
    print(type(e).__name__, e)

# gradcheck on a smooth function in float64
xd = torch.randn(5, dtype=torch.float64, requires_grad=True)
print("gradcheck", torch.autograd.gradcheck(lambda t: SmoothSigmoid.apply(t, 3.0), (xd,)))
print(
    "gradgradcheck off", torch.autograd.gradcheck(lambda t: SmoothSigmoid.apply(t, 3.0), (xd,), check_backward_ad=True)
)

# gradcheck detects that a surrogate is not the true gradient
try:
    torch.autograd.gradcheck(lambda t: FastSigmoidSpike.apply(t, 1.0), (xd,), atol=1e-4)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(
    "raise_exception=False",
    torch.autograd.gradcheck(lambda t: FastSigmoidSpike.apply(t, 1.0), (xd,), raise_exception=False),
)

# float32 inputs warn/fail in gradcheck
try:
    torch.autograd.gradcheck(lambda t: SmoothSigmoid.apply(t, 3.0), (torch.randn(3, requires_grad=True),))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])

# surrogate spikes in a layer, summed over time
torch.manual_seed(0)
lin = nn.Linear(4, 3)
inp = torch.randn(5, 2, 4)
mem = torch.zeros(2, 3)
total = 0
for t in range(5):
    mem = 0.7 * mem + lin(inp[t])
    s = ATanSpike.apply(mem - 0.5, 2.0)
    mem = mem - s * 0.5
    total = total + s
loss = ((total - 2.0) ** 2).mean()
loss.backward()
print("loss", round(loss.item(), 4), total.tolist())
print("w grad", lin.weight.grad.round(decimals=4).tolist())
print("b grad", lin.bias.grad.round(decimals=4).tolist())
