"""Forward-mode AD through custom autograd.Functions with their own jvp: forward_ad dual levels, torch.func.jvp,
jacfwd and hessian, forward-mode autograd.functional.jacobian, gradcheck's forward check, and PyTorch's errors."""
import torch
import torch.autograd.forward_ad as fwAD

torch.manual_seed(0)
D = torch.float64


class SoftClip(torch.autograd.Function):
    """y = scale * tanh(x / scale), a jvp and a backward that agree."""
    generate_vmap_rule = True

    @staticmethod
    def forward(x, scale):
        return scale * torch.tanh(x / scale)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, scale = inputs
        ctx.save_for_backward(output)
        ctx.save_for_forward(output)
        ctx.scale = scale

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - (y / ctx.scale) ** 2), None

    @staticmethod
    def jvp(ctx, tx, tscale):
        (y,) = ctx.saved_tensors
        return tx * (1 - (y / ctx.scale) ** 2)


class BadJvp(SoftClip):
    """The same op whose jvp forgot the tanh derivative: forward mode shows it, reverse mode does not."""

    @staticmethod
    def jvp(ctx, tx, tscale):
        return tx * 1.0


x = torch.randn(4, dtype=D)
t = torch.linspace(-1, 1, 4, dtype=D)
with fwAD.dual_level():
    y = SoftClip.apply(fwAD.make_dual(x, t), 2.0)
    z = (y * y).sum()
    print("dual tangent", fwAD.unpack_dual(y).tangent.round(decimals=4).tolist())
    print("downstream", round(fwAD.unpack_dual(z).tangent.item(), 4))
    yb = BadJvp.apply(fwAD.make_dual(x, t), 2.0)
    print("bad jvp tangent", fwAD.unpack_dual(yb).tangent.round(decimals=4).tolist())

p, tan = torch.func.jvp(lambda a: SoftClip.apply(a, 2.0), (x,), (t,))
print("func.jvp", p.round(decimals=4).tolist(), tan.round(decimals=4).tolist())
_, tan_bad = torch.func.jvp(lambda a: BadJvp.apply(a, 2.0), (x,), (t,))
print("func.jvp bad", tan_bad.round(decimals=4).tolist())
print("jacfwd bad", torch.func.jacfwd(lambda a: BadJvp.apply(a, 2.0))(x[:3]).round(decimals=4).tolist())
print("jacrev bad", torch.func.jacrev(lambda a: BadJvp.apply(a, 2.0))(x[:3]).round(decimals=4).tolist())
J = torch.autograd.functional.jacobian(lambda a: BadJvp.apply(a, 2.0), x[:2], strategy="forward-mode",
                                       vectorize=True)
print("functional forward jacobian", J.round(decimals=4).tolist())
H = torch.func.hessian(lambda a: SoftClip.apply(a, 2.0).pow(2).sum())(x[:3])
print("hessian", H.round(decimals=4).tolist())

xr = x.clone().requires_grad_()
print("gradcheck good", torch.autograd.gradcheck(lambda a: SoftClip.apply(a, 2.0), (xr,), check_forward_ad=True))
try:
    torch.autograd.gradcheck(lambda a: BadJvp.apply(a, 2.0), (xr,), check_forward_ad=True)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print("gradcheck bad, backward only", torch.autograd.gradcheck(lambda a: BadJvp.apply(a, 2.0), (xr,)))

# structural zeros of forward-mode Jacobians carry the sign of their column's product
w = torch.tensor([0.5, -2.0, 4.0], dtype=D)
jz = torch.func.jacfwd(lambda v: torch.sin(w) * v)(torch.ones(3, dtype=D))
print("signbits", torch.signbit(jz).tolist())


class Pair(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable(mask := x > 0)
        return x * 3, mask

    @staticmethod
    def backward(ctx, g, gm):
        return g * 3

    @staticmethod
    def jvp(ctx, tx):
        return tx * 3, None


with fwAD.dual_level():
    a, m = Pair.apply(fwAD.make_dual(x, t))
    print("pair", fwAD.unpack_dual(a).tangent.round(decimals=4).tolist(), fwAD.unpack_dual(m).tangent, m.dtype)


def wrong(jvp):
    class W(SoftClip):
        pass
    W.jvp = staticmethod(jvp)
    try:
        with fwAD.dual_level():
            W.apply(fwAD.make_dual(x, t), 2.0)
        print("accepted")
    except Exception as e:
        print(type(e).__name__, e)


wrong(lambda ctx, tx, ts: (tx, tx))
wrong(lambda ctx, tx, ts: tx[:2])
wrong(lambda ctx, tx, ts: "tangent")
wrong(lambda ctx, tx, ts: (tx * 2,))


class NoJvp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.exp()

    @staticmethod
    def backward(ctx, g):
        return g


try:
    with fwAD.dual_level():
        NoJvp.apply(fwAD.make_dual(x, t))
except Exception as e:
    print(type(e).__name__, e)

# a closed-over weight: the primal output is an alias, the tangent trains the weight
wt = torch.tensor([1.5, -0.5, 2.0, 1.0], dtype=D, requires_grad=True)
p, tan = torch.func.jvp(lambda a: SoftClip.apply(a * wt, 2.0), (x,), (t,))
print(p.grad_fn.name(), tan.requires_grad)
tan.pow(2).sum().backward()
print("weight grad", wt.grad.round(decimals=4).tolist())
