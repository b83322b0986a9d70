"""autograd.Function as library authors write it: forward/setup_context split, save_for_backward of inputs and of
outputs, once_differentiable, mark_non_differentiable for index outputs, set_materialize_grads(False) with None
gradients, mark_dirty for in-place ops, needs_input_grad, non-tensor arguments, a jvp staticmethod for forward AD,
a vmap staticmethod, and the errors of misusing ctx."""

import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable
import torch.autograd.forward_ad as fwAD

torch.set_printoptions(precision=4)


class SoftplusSaveOutput(Function):
    """Saves its output: d/dx softplus(x) = 1 - exp(-y)."""

    @staticmethod
    def forward(x, beta):
        return torch.log1p(torch.exp(beta * x)) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, beta = inputs
        ctx.beta = beta
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (1 - torch.exp(-ctx.beta * y)), None

    @staticmethod
    def jvp(ctx, x_t, beta_t):
        (y,) = ctx.saved_tensors
        return x_t * (1 - torch.exp(-ctx.beta * y))


x = torch.linspace(-2, 2, 5, dtype=torch.float64, requires_grad=True)
y = SoftplusSaveOutput.apply(x, 1.5)
print("y", y, type(y.grad_fn).__name__)
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
print("grad", g, g.requires_grad)
(gg,) = torch.autograd.grad(g.sum(), x)
print("second derivative", gg)
print("gradcheck", torch.autograd.gradcheck(lambda t: SoftplusSaveOutput.apply(t, 1.5), (x,)))
print("gradgradcheck", torch.autograd.gradgradcheck(lambda t: SoftplusSaveOutput.apply(t, 1.5), (x,)))
with fwAD.dual_level():
    dual = fwAD.make_dual(x.detach(), torch.ones(5, dtype=torch.float64))
    out = SoftplusSaveOutput.apply(dual, 1.5)
    print("jvp tangent", fwAD.unpack_dual(out).tangent)


class ClampSTE(Function):
    """A straight-through clamp: backward is not differentiable again."""

    @staticmethod
    def forward(ctx, x, lo, hi):
        ctx.save_for_backward(x)
        ctx.lo, ctx.hi = lo, hi
        return x.clamp(lo, hi)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        inside = (x >= ctx.lo) & (x <= ctx.hi)
        return grad * torch.where(inside, 1.0, 0.1), None, None


x = torch.tensor([-3.0, -0.5, 0.5, 3.0], requires_grad=True)
y = ClampSTE.apply(x, -1.0, 1.0)
(g,) = torch.autograd.grad((y * y).sum(), x, create_graph=True)
print("ste grad", g, g.requires_grad, type(g.grad_fn).__name__ if g.grad_fn else None)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)


class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        vals, idx = x.sort(dim=-1, descending=True)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.set_materialize_grads(False)
        return vals, idx

    @staticmethod
    def backward(ctx, gvals, gidx):
        (idx,) = ctx.saved_tensors
        print("  backward got gidx", gidx, "gvals is None:", gvals is None)
        if gvals is None:
            return None
        return torch.zeros_like(gvals).scatter(-1, idx, gvals)


x = torch.tensor([[0.3, -1.2, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
vals, idx = SortWithIndices.apply(x)
print("sorted", vals, idx, idx.requires_grad, vals.requires_grad)
(vals[:, 0] * 2 + vals[:, 2]).sum().backward()
print("x.grad", x.grad)


class MulAdd(Function):
    """Uses needs_input_grad to skip work; returns None for a non-tensor and an unused input."""

    @staticmethod
    def forward(ctx, a, b, scale, c):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a * b * scale + c

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        print("  needs_input_grad", ctx.needs_input_grad)
        ga = grad * b * ctx.scale if ctx.needs_input_grad[0] else None
        gb = grad * a * ctx.scale if ctx.needs_input_grad[1] else None
        gc = grad if ctx.needs_input_grad[3] else None
        return ga, gb, None, gc


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, -1.0])
c = torch.tensor([0.5, 0.5], requires_grad=True)
out = MulAdd.apply(a, b, 2.0, c)
out.sum().backward()
print("a.grad", a.grad, "c.grad", c.grad, "b.grad", b.grad)


class ReluInplace(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        x.clamp_(min=0)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * (y > 0).to(grad.dtype)


leaf = torch.tensor([-1.0, 2.0, -3.0, 4.0], requires_grad=True)
h = leaf * 1.0
v0 = h._version
r = ReluInplace.apply(h)
print("inplace", r is h, h._version > v0, type(r.grad_fn).__name__)
(r * torch.arange(4.0)).sum().backward()
print("leaf.grad", leaf.grad)
try:
    ReluInplace.apply(torch.ones(2, requires_grad=True))
except RuntimeError as e:
    print("RuntimeError:", str(e)[:80])


class ScaleRows(Function):
    generate_vmap_rule = False

    @staticmethod
    def forward(x, w):
        return x * w.unsqueeze(-1)

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad * w.unsqueeze(-1), (grad * x).sum(-1)

    @staticmethod
    def vmap(info, in_dims, x, w):
        xd, wd = in_dims
        x = x.movedim(xd, 0) if xd is not None else x.expand(info.batch_size, *x.shape)
        w = w.movedim(wd, 0) if wd is not None else w.expand(info.batch_size, *w.shape)
        return ScaleRows.apply(x, w), 0


xs = torch.arange(12.0).reshape(2, 3, 2)
w = torch.tensor([1.0, -1.0, 0.5])
print("vmap", torch.func.vmap(ScaleRows.apply, in_dims=(0, None))(xs, w))
print("vmap grad", torch.func.vmap(torch.func.grad(lambda xi: ScaleRows.apply(xi, w).sum()))(xs))


# misuse: saving a non-tensor, returning too many gradients, forgetting setup_context
class BadSave(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x, 3)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g


try:
    BadSave.apply(torch.ones(2, requires_grad=True))
except TypeError as e:
    print("TypeError:", e)


class TooMany(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g, g


try:
    TooMany.apply(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)


class NoCtx(Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g


try:
    NoCtx.apply(torch.ones(2))
except TypeError as e:
    print("TypeError:", e)
