"""Custom autograd.Function the modern way: setup_context, jvp, vmap/generate_vmap_rule, once_differentiable,
mark_non_differentiable, set_materialize_grads, needs_input_grad, save_for_forward, and their misuse."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable
from torch.func import grad, jacrev, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


class Cube(Function):
    """x^3 with setup_context, so it works with torch.func transforms."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x ** 3, 3 * x ** 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        ctx.save_for_backward(x, output[1])
        ctx.save_for_forward(output[1])
        ctx.mark_non_differentiable(output[1])

    @staticmethod
    def backward(ctx, grad_out, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_out * dx

    @staticmethod
    def jvp(ctx, x_t):
        dx, = ctx.saved_tensors
        return dx * x_t, None


x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y, dy = Cube.apply(x)
print("y", y, "dy requires_grad", dy.requires_grad)
y.sum().backward()
print("x.grad", x.grad)
print("grad transform", grad(lambda t: Cube.apply(t)[0].sum())(x.detach()))
print("vmap", vmap(lambda t: Cube.apply(t)[0])(torch.arange(6.0).view(3, 2)))
print("jacrev", jacrev(lambda t: Cube.apply(t)[0])(torch.tensor([1.0, 2.0])))
print("vmap(grad)", vmap(grad(lambda t: Cube.apply(t)[0]))(torch.tensor([1.0, 2.0, 3.0])))


class ScaledSum(Function):
    """needs_input_grad and set_materialize_grads with an explicit vmap staticmethod."""

    @staticmethod
    def forward(a, b, scale):
        return (a * scale).sum() + b.sum(), a * 0 + 1

    @staticmethod
    def setup_context(ctx, inputs, output):
        a, b, scale = inputs
        ctx.scale = scale
        ctx.shapes = (a.shape, b.shape)
        ctx.set_materialize_grads(False)

    @staticmethod
    def backward(ctx, g, g_ones):
        print("  needs_input_grad", ctx.needs_input_grad, "g_ones is None", g_ones is None)
        ga = gb = None
        if ctx.needs_input_grad[0]:
            ga = g.expand(ctx.shapes[0]) * ctx.scale
        if ctx.needs_input_grad[1]:
            gb = g.expand(ctx.shapes[1])
        return ga, gb, None

    @staticmethod
    def vmap(info, in_dims, a, b, scale):
        a_bdim, b_bdim, _ = in_dims
        a = a.movedim(a_bdim, 0) if a_bdim is not None else a.expand(info.batch_size, *a.shape)
        b = b.movedim(b_bdim, 0) if b_bdim is not None else b.expand(info.batch_size, *b.shape)
        out = (a * scale).flatten(1).sum(1) + b.flatten(1).sum(1)
        return (out, a * 0 + 1), (0, 0)


a = torch.randn(2, 3, requires_grad=True)
b = torch.randn(4)
s, ones = ScaledSum.apply(a, b, 2.5)
print("scaled sum", round(s.item(), 4))
s.backward()
print("a.grad", a.grad)
b.requires_grad_(True)
s, _ = ScaledSum.apply(a, b, 2.5)
torch.autograd.grad(s, [b])
print("batched", vmap(lambda p, q: ScaledSum.apply(p, q, 2.0)[0], in_dims=(0, None))(torch.ones(5, 3), torch.ones(2)))


class ClampGrad(Function):
    """Old-style forward(ctx, ...) with once_differentiable: no double backward."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi)

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        mask = (x >= ctx.lo) & (x <= ctx.hi)
        return g * mask, None, None


z = torch.linspace(-2, 2, 5, requires_grad=True)
out = ClampGrad.apply(z, -1.0, 1.0)
print("clamp", out, out.grad_fn.name())
(gz,) = torch.autograd.grad(out.pow(2).sum(), z, create_graph=True)
print("gz", gz, gz.requires_grad)
show("double backward", lambda: gz.sum().backward())

# misuse caught and printed
class NoSetup(Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


show("no setup_context", lambda: NoSetup.apply(torch.ones(2)))
show("no vmap rule", lambda: vmap(lambda t: ClampGrad.apply(t, 0.0, 1.0))(torch.ones(3, 2)))
show("functorch needs setup", lambda: grad(lambda t: ClampGrad.apply(t, 0.0, 1.0).sum())(torch.ones(2)))


class WrongCount(Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y

    @staticmethod
    def backward(ctx, g):
        return g


show("wrong grad count", lambda: WrongCount.apply(torch.ones(2, requires_grad=True), torch.ones(2)).sum().backward())


class WrongShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum()

    @staticmethod
    def backward(ctx, g):
        return torch.ones(5)


show("wrong grad shape", lambda: WrongShape.apply(torch.ones(2, 2, requires_grad=True)).backward())
show("instantiate+call", lambda: WrongShape()(torch.ones(2)))
show("backward of non-differentiable output", lambda: Cube.apply(torch.ones(2, requires_grad=True))[1].sum().backward())
