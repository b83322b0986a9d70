"""Surrogate spike Functions made ready for torch.func: vmap rules, generate_vmap_rule, jvp and once_differentiable."""

import torch
from torch.autograd.function import once_differentiable

nn = torch.nn
F = torch.nn.functional


class SpikeAuto(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x, alpha):
        return (x > 0).to(x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, alpha = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        ctx.alpha = alpha

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.alpha * x)
        return g * ctx.alpha * s * (1 - s), None

    @staticmethod
    def jvp(ctx, x_t, alpha_t):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(ctx.alpha * x)
        return x_t * ctx.alpha * s * (1 - s)


class SpikeVmap(torch.autograd.Function):
    @staticmethod
    def forward(x, alpha):
        return (x > 0).to(x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.alpha = inputs[1]

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / (1 + ctx.alpha * x.abs()) ** 2, None

    @staticmethod
    def vmap(info, in_dims, x, alpha):
        return SpikeVmap.apply(x, alpha), in_dims[0]


torch.manual_seed(0)
x = torch.randn(4, 5)

ys = torch.func.vmap(SpikeAuto.apply, in_dims=(0, None))(x, 2.0)
print("vmap auto", ys.shape, ys.sum().item())
ys = torch.func.vmap(SpikeVmap.apply, in_dims=(1, None))(x, 2.0)
print("vmap custom", ys.shape, ys.sum().item())

g = torch.func.grad(lambda t: SpikeAuto.apply(t, 2.0).sum())(x[0])
print("grad", g.round(decimals=4).tolist())
pg = torch.func.vmap(torch.func.grad(lambda t: SpikeVmap.apply(t, 1.0).sum()))(x)
print("per-sample grad", pg.shape, round(pg.sum().item(), 4))

out, tangent = torch.func.jvp(lambda t: SpikeAuto.apply(t, 2.0), (x[0],), (torch.ones(5),))
print("jvp", out.tolist(), tangent.round(decimals=4).tolist())

import torch.autograd.forward_ad as fwAD  # noqa: E402

with fwAD.dual_level():
    d = fwAD.make_dual(x[1], torch.ones(5))
    o = SpikeAuto.apply(d, 2.0)
    p, t = fwAD.unpack_dual(o)
    print("forward_ad", p.tolist(), t.round(decimals=4).tolist())

try:
    with fwAD.dual_level():
        d = fwAD.make_dual(x[1], torch.ones(5))
        SpikeVmap.apply(d, 2.0)
except Exception as e:
    print(type(e).__name__, str(e)[:110])


class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(-1, 1)

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).to(g.dtype)


xx = torch.tensor([-2.0, -0.5, 0.5, 2.0], requires_grad=True)
y = Clip.apply(xx) ** 2
(gx,) = torch.autograd.grad(y.sum(), xx)
print("once", gx.tolist(), gx.requires_grad)
y = Clip.apply(xx) ** 2
(gx,) = torch.autograd.grad(y.sum(), xx, create_graph=True)
print("once create_graph", gx.requires_grad, type(gx.grad_fn).__name__)
try:
    gx.sum().backward()
except Exception as e:
    print(type(e).__name__, e)


# an old-style function without setup_context cannot be vmapped
class OldStyle(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


try:
    torch.func.vmap(OldStyle.apply)(x)
except Exception as e:
    print(type(e).__name__, str(e)[:140])


# a setup_context function without a vmap rule
class NoRule(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g * 2


try:
    torch.func.vmap(NoRule.apply)(x)
except Exception as e:
    print(type(e).__name__, str(e)[:140])
