"""torch.autograd.grad's options (grad_outputs, allow_unused, materialize_grads, is_grads_batched), double backward,
register_hook / retain_grad, and gradcheck/gradgradcheck on small float64 functions."""

import torch
from torch.autograd import gradcheck, gradgradcheck

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, "|", str(e).splitlines()[0])


x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
unused = torch.randn(2, requires_grad=True)
y = (x * w).sin()

# grad_outputs weights a non-scalar output
g = torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 0.0, 2.0]), retain_graph=True)[0]
print("weighted", g)
show("non-scalar no grad_outputs", lambda: torch.autograd.grad(y, x, retain_graph=True))
show("unused input", lambda: torch.autograd.grad(y.sum(), [x, unused], retain_graph=True))
gx, gu = torch.autograd.grad(y.sum(), [x, unused], allow_unused=True, retain_graph=True)
print("allow_unused", gu)
gx, gu = torch.autograd.grad(y.sum(), [x, unused], materialize_grads=True, retain_graph=True)
print("materialize_grads", gu)
show("materialize without allow_unused=False", lambda: torch.autograd.grad(y.sum(), [unused], allow_unused=False,
                                                                            materialize_grads=True, retain_graph=True))

# is_grads_batched: a whole Jacobian in one call
eye = torch.eye(3)
(J,) = torch.autograd.grad(y, x, grad_outputs=eye, is_grads_batched=True, retain_graph=True)
print("batched jacobian", J)
print("diag == w cos(xw)", torch.allclose(J.diag(), (w * (x * w).cos()).detach()))
show("batched wrong shape", lambda: torch.autograd.grad(y, x, grad_outputs=torch.ones(3), is_grads_batched=True,
                                                        retain_graph=True))

# double backward: gradient penalty and Hessian-vector products
loss = (x ** 3 * w).sum()
(gx,) = torch.autograd.grad(loss, x, create_graph=True)
print("first", gx, gx.grad_fn is not None)
penalty = gx.pow(2).sum()
hx, hw = torch.autograd.grad(penalty, [x, w])
print("penalty grads", hx, hw)
v = torch.tensor([1.0, -1.0, 0.5])
(hv,) = torch.autograd.grad(torch.autograd.grad((x ** 3).sum(), x, create_graph=True)[0], x, grad_outputs=v)
print("hvp", hv, "analytic", (6 * x * v).detach())

# freed graphs
z = (x * 2).exp().sum()
z.backward()
show("backward twice", lambda: z.backward())

# hooks: register_hook modifies, retain_grad keeps non-leaf grads
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
b.retain_grad()
seen = []
h = b.register_hook(lambda g: seen.append(g.clone()) or g * 10)
c = (b ** 2).sum()
c.backward()
print("b.grad (before hook)", b.grad, "a.grad (scaled)", a.grad, "seen", len(seen))
h.remove()
a.grad = None
(a * 2).pow(2).sum().backward()
print("after remove", a.grad)
leaf_hook = a.register_hook(lambda g: g.clamp(max=5.0))
a.grad = None
(a * 3).sum().backward()
print("leaf hook clamps", a.grad)
leaf_hook.remove()
show("hook on non-grad", lambda: torch.ones(2).register_hook(lambda g: g))
show("retain_grad leaf ok", lambda: a.retain_grad())
q = torch.ones(2, requires_grad=True) * 3
q.sum().backward()
print("non-leaf .grad without retain_grad", q.grad)

# gradcheck / gradgradcheck
def softplus_mix(p, r):
    return torch.nn.functional.softplus(p * r) + p.sin() * r


p = torch.randn(4, dtype=torch.float64, requires_grad=True)
r = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("gradcheck", gradcheck(softplus_mix, (p, r)))
print("gradgradcheck", gradgradcheck(softplus_mix, (p, r)))
print("fast_mode", gradcheck(softplus_mix, (p, r), fast_mode=True))


class BadGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t.exp()

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * t.exp() * 1.01


print("raise_exception=False", gradcheck(BadGrad.apply, (p,), raise_exception=False))
show("bad grad", lambda: gradcheck(BadGrad.apply, (p,)))
show("float32 warning", lambda: gradcheck(torch.sin, (torch.randn(2, requires_grad=True),)))
show("no requires_grad", lambda: gradcheck(torch.sin, (torch.randn(2, dtype=torch.float64),)))
