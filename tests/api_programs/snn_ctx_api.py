"""The ctx API of custom Functions used by spiking layers: dirty inputs, non-differentiable outputs, materialize."""
import torch

nn = torch.nn
F = torch.nn.functional


class InplaceReset(torch.autograd.Function):
    """Reset the membrane in place where it spiked; the spike mask is non-differentiable."""

    @staticmethod
    def forward(ctx, mem, threshold):
        spk = mem >= threshold
        mem.sub_(spk.to(mem.dtype) * threshold)
        ctx.mark_dirty(mem)
        ctx.mark_non_differentiable(spk)
        ctx.save_for_backward(spk)
        return mem, spk

    @staticmethod
    def backward(ctx, g_mem, g_spk):
        (spk,) = ctx.saved_tensors
        print("  g_spk is None:", g_spk is None, "needs", ctx.needs_input_grad)
        return g_mem, None


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("  g1 None:", g1 is None, "g2 None:", g2 is None)
        out = torch.zeros(3) if g1 is None else g1 * 2
        if g2 is not None:
            out = out + g2 * 3
        return out


class TwoOutMaterialized(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        print("  materialized:", g1.tolist(), g2.tolist())
        return g1 * 2 + g2 * 3


torch.manual_seed(0)
a = torch.tensor([0.5, 1.5, 2.5], requires_grad=True)
m = a * 1.0
m2, spk = InplaceReset.apply(m, 1.0)
print(m2 is m, m2.tolist(), spk.tolist(), spk.dtype, spk.requires_grad)
print(m2.grad_fn.name(), m._version)
(m2 * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("a.grad", a.grad.tolist())

# a leaf that requires grad cannot be modified in place
try:
    InplaceReset.apply(torch.tensor([2.0], requires_grad=True), 1.0)
except Exception as e:
    print(type(e).__name__, e)

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y1, y2 = TwoOut.apply(x)
y1.sum().backward()
print("x.grad", x.grad.tolist())
x.grad = None
y1, y2 = TwoOutMaterialized.apply(x)
y2.sum().backward()
print("x.grad", x.grad.tolist())

# needs_input_grad with a mix of inputs
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, k):
        ctx.save_for_backward(x, w)
        ctx.k = k
        return x * w * k

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        print("  needs_input_grad", ctx.needs_input_grad)
        gx = g * w * ctx.k if ctx.needs_input_grad[0] else None
        gw = (g * x * ctx.k).sum(0) if ctx.needs_input_grad[1] else None
        return gx, gw, None


xs = torch.randn(4, 3)
w = torch.ones(3, requires_grad=True)
Scale.apply(xs, w, 2.0).sum().backward()
print("w.grad", w.grad.round(decimals=4).tolist())

# misuse: too many / too few gradients, wrong shape
class BadCount(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g, g


class BadShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g[:2]


class BadNone(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x + y

    @staticmethod
    def backward(ctx, g):
        return (g,)


for cls in (BadCount, BadShape):
    try:
        cls.apply(torch.ones(3, requires_grad=True)).sum().backward()
    except Exception as e:
        print(cls.__name__, type(e).__name__, e)
try:
    BadNone.apply(torch.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)).sum().backward()
except Exception as e:
    print("BadNone", type(e).__name__, e)

# saving a non-input/non-output intermediate through ctx attributes vs save_for_backward
class SaveIntermediate(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        e = x.exp()
        ctx.save_for_backward(e)
        return e * 2

    @staticmethod
    def backward(ctx, g):
        (e,) = ctx.saved_tensors
        return g * 2 * e


p = torch.tensor([0.0, 1.0], requires_grad=True)
o = SaveIntermediate.apply(p)
o.sum().backward(retain_graph=True)
o.sum().backward()
print("p.grad twice", p.grad.round(decimals=4).tolist())
o = SaveIntermediate.apply(p)
o.sum().backward()
try:
    o.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:120])
