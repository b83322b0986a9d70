"""Higher-order derivatives through custom Functions: a backward written in differentiable ops (double backward,
gradgradcheck), grad-of-grad with torch.func, forward-mode through a Function's jvp, Node hooks, and Taylor
coefficients by repeated differentiation."""

import math

import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.func import grad, hessian, jacfwd, jvp

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


class Softplus(Function):
    """log(1 + e^x); backward uses ops that are themselves differentiable, so double backward works."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x, beta):
        return torch.log1p(torch.exp(beta * x)) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta = inputs
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        ctx.beta = beta

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * torch.sigmoid(ctx.beta * x), None

    @staticmethod
    def jvp(ctx, x_t, beta_t):
        (x,) = ctx.saved_tensors
        return x_t * torch.sigmoid(ctx.beta * x)


x = torch.linspace(-2, 2, 5, dtype=dt, requires_grad=True)
y = Softplus.apply(x, 1.5)
print("softplus", y.detach(), "matches F", torch.allclose(y, torch.nn.functional.softplus(x, beta=1.5)))
(g1,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
(g3,) = torch.autograd.grad(g2.sum(), x)
s = torch.sigmoid(1.5 * x.detach())
print("d1", g1.detach())
print("d2", g2.detach(), "analytic", 1.5 * s * (1 - s))
print("d3", g3, "analytic", 2.25 * s * (1 - s) * (1 - 2 * s))
print("gradcheck", gradcheck(lambda t: Softplus.apply(t, 1.5), (x,)))
print("gradgradcheck", gradgradcheck(lambda t: Softplus.apply(t, 1.5), (x,)))

# torch.func over the Function (needs setup_context)
xd = x.detach()
print("func grad", grad(lambda t: Softplus.apply(t, 1.5).sum())(xd))
print("hessian diag", hessian(lambda t: Softplus.apply(t, 1.5).sum())(xd).diagonal())
_, tangent = jvp(lambda t: Softplus.apply(t, 1.5), (xd,), (torch.ones(5, dtype=dt),))
print("jvp", tangent)
print("jacfwd diag", jacfwd(lambda t: Softplus.apply(t, 1.5))(xd).diagonal())

# forward-mode AD through a Function that only defines jvp
class ScaleFwd(Function):
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def jvp(ctx, x_t, k_t):
        return x_t * ctx.k


with fwAD.dual_level():
    d = fwAD.make_dual(torch.tensor([1.0, 2.0], dtype=dt), torch.tensor([0.5, -1.0], dtype=dt))
    out = ScaleFwd.apply(d, 3.0)
    print("forward-only jvp", fwAD.unpack_dual(out).tangent)
show("jacfwd without vmap rule", lambda: jacfwd(lambda t: ScaleFwd.apply(t, 2.0))(torch.ones(2, dtype=dt)))
show("backward of forward-only", lambda: ScaleFwd.apply(torch.ones(2, requires_grad=True), 2.0).sum().backward())


# Taylor coefficients of exp(sin(t)) at 0 by nested grad
def f(t):
    return torch.exp(torch.sin(t))


t0 = torch.tensor(0.0, dtype=dt)
coeffs = []
h = f
for k in range(5):
    coeffs.append(round(h(t0).item() / math.factorial(k), 6))
    h = grad(h)
print("taylor", coeffs)

# Node hooks on grad_fn: inspect and rescale gradients flowing through a node
a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
b = (a * 2).exp()
events = []
node = b.grad_fn
node.register_prehook(lambda grad_outputs: events.append(("pre", grad_outputs[0].shape)))
node.register_hook(lambda grad_inputs, grad_outputs: events.append(("post", len(grad_inputs))))
b.sum().backward()
print("node", node.name(), "events", events)
print("a.grad", a.grad)

# a hook that replaces the incoming gradient
a.grad = None
c = (a ** 2)
c.grad_fn.register_prehook(lambda go: (go[0] * 0.5,))
c.sum().backward()
print("halved", a.grad)

# second derivatives of a norm: the gradient of ||x|| is x/||x||, its Hessian (I - uu^T)/||x||
v = torch.tensor([3.0, 4.0], dtype=dt, requires_grad=True)
(gn,) = torch.autograd.grad(v.norm(), v, create_graph=True)
Hrows = [torch.autograd.grad(gn[i], v, retain_graph=True)[0] for i in range(2)]
print("norm hessian", torch.stack(Hrows))
u = v.detach() / 5
print("analytic", (torch.eye(2, dtype=dt) - torch.outer(u, u)) / 5)
