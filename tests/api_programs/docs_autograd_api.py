"""torch.autograd docstring examples: grad with create_graph/allow_unused, backward(inputs=), grad modes,
functional jacobian/hessian/vjp/jvp/hvp, forward-mode dual numbers, and the errors of typical misuse."""

import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x**3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print("grad", g, g.requires_grad, g.grad_fn.name())
(g2,) = torch.autograd.grad(g.sum(), x)
print("second order", g2)
z = torch.tensor(2.0, requires_grad=True)
print("allow_unused", torch.autograd.grad(x.sum(), [x, z], allow_unused=True))
print("materialize", torch.autograd.grad(x.sum(), [x, z], allow_unused=True, materialize_grads=True)[1])
out = x * 2
print("grad_outputs", torch.autograd.grad(out, x, grad_outputs=torch.tensor([1.0, 0.5, 0.0])))
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
(a * b).sum().backward(inputs=[a])
print("backward inputs", a.grad, b.grad)
(a * b).sum().backward(retain_graph=False)
print("accumulates", a.grad, b.grad)
a.grad = None
loss = (a**2).sum()
loss.backward(retain_graph=True)
loss.backward()
print("retain_graph twice", a.grad)
with torch.no_grad():
    n = a * 2
print("no_grad", n.requires_grad, torch.is_grad_enabled())
with torch.enable_grad():
    print("enable_grad", (a * 2).requires_grad)
with torch.set_grad_enabled(False):
    print("set_grad_enabled", (a * 2).requires_grad, torch.is_grad_enabled())
with torch.inference_mode():
    inf = a * 2
print("inference_mode", inf.requires_grad, inf.is_inference(), torch.is_inference_mode_enabled())


@torch.no_grad()
def doubler(t):
    return t * 2


print("no_grad decorator", doubler(a).requires_grad)


def exp_reducer(t):
    return t.exp().sum(dim=1)


inputs = torch.tensor([[0.0, 1.0], [0.5, -1.0]])
print("jacobian", jacobian(exp_reducer, inputs).round(decimals=4).shape)
print("jacobian vals", jacobian(lambda t: t**2, torch.tensor([1.0, 2.0])))
print("jacobian tuple", [j.shape for j in jacobian(lambda p, q: p * q, (torch.ones(2), torch.ones(2)))])
print("jacobian vectorize", jacobian(lambda t: t.sin(), torch.zeros(3), vectorize=True))


def pow_reducer(t):
    return t.pow(3).sum()


print(
    "hessian",
    hessian(pow_reducer, torch.tensor([[1.0, 2.0], [0.5, -1.0]])).shape,
    hessian(pow_reducer, torch.tensor([1.0, 2.0])),
)
v = torch.ones(2)
print("vjp", vjp(lambda t: t**2, torch.tensor([1.0, 3.0]), v))
print("jvp", jvp(lambda t: t**2, torch.tensor([1.0, 3.0]), v))
print("hvp", hvp(pow_reducer, torch.tensor([1.0, 2.0]), v), vhp(pow_reducer, torch.tensor([1.0, 2.0]), v)[1])
primal = torch.tensor([1.0, 2.0])
tangent = torch.tensor([1.0, 0.0])
with fwAD.dual_level():
    dual = fwAD.make_dual(primal, tangent)
    out = dual.sin() * dual
    p, t = fwAD.unpack_dual(out)
    print("forward AD", p.round(decimals=4), t.round(decimals=4), type(fwAD.unpack_dual(out)).__name__)


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


e = torch.tensor([0.0, 1.0], requires_grad=True)
r = MyExp.apply(e)
r.sum().backward()
print("Function", r.grad_fn.name(), e.grad.round(decimals=4))
print(
    "gradcheck",
    torch.autograd.gradcheck(MyExp.apply, (torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True),)),
)
print("detect_anomaly", torch.is_anomaly_enabled())
leaf = torch.ones(2, requires_grad=True)
print("leaf props", leaf.is_leaf, (leaf * 2).is_leaf, leaf.grad_fn, (leaf * 2).grad_fn.next_functions[0][0].name())
for bad in [
    lambda: torch.autograd.grad(x * 2, x),
    lambda: torch.autograd.grad(x.sum(), z),
    lambda: torch.ones(2).sum().backward(),
    lambda: leaf.add_(1),
    lambda: torch.autograd.grad((a * 2).sum(), a, grad_outputs=torch.ones(3)),
    lambda: (lambda l: (l.backward(), l.backward()))((a.exp()).sum()),
    lambda: jacobian(lambda t: t.detach(), torch.ones(2), strict=True),
    lambda: torch.tensor([1, 2], requires_grad=True),
    lambda: torch.ones(2, dtype=torch.int64).requires_grad_(),
    lambda: inf.requires_grad_(),
    lambda: MyExp.apply(torch.ones(1, requires_grad=True)).backward(torch.ones(2)),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as err:
        print(type(err).__name__, ":", str(err).split("\n")[0])
