"""custom autograd.Function, gradcheck, tensor hooks, higher-order grads."""

import torch
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable


class MyExp(Function):
    @staticmethod
    def forward(ctx, x, scale=1.0):
        y = torch.exp(x) * scale
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y, None


class Clamp(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.mark_non_differentiable
        return x.clamp(-1, 1)

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        return g


class Split2(Function):
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def forward(x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        return ga * 2 + gb * 3


x = torch.randn(4, dtype=torch.float64, requires_grad=True)
print("gradcheck", gradcheck(MyExp.apply, (x,), eps=1e-6, atol=1e-4))
print("gradgradcheck", gradgradcheck(lambda t: (t**3).sum(), (x,)))
y = MyExp.apply(x, 2.0)
print("gradfn", type(y.grad_fn).__name__)
y.sum().backward()
print("grad_ok", torch.allclose(x.grad, 2 * torch.exp(x)))
a, b = Split2.apply(x)
print("multi", torch.allclose(torch.autograd.grad((a + b).sum(), x)[0], torch.full_like(x, 5.0)))
z = Clamp.apply(torch.tensor([2.0, 0.5], requires_grad=True))
print("clamp", z.tolist())
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
seen = []
h = w.register_hook(lambda g: seen.append(g.clone()) or g * 2)
(w**2).sum().backward()
print("hook", seen[0].tolist(), w.grad.tolist())
h.remove()
w.grad = None
v = w * 2
v.retain_grad()
v.sum().backward()
print("retain", v.grad.tolist(), v.is_leaf, w.is_leaf, v.requires_grad)
t = torch.tensor(2.0, requires_grad=True)
(g1,) = torch.autograd.grad(t**3, t, create_graph=True)
(g2,) = torch.autograd.grad(g1, t)
print("higher", g1.item(), g2.item())
q = torch.tensor([1.0, 2.0], requires_grad=True)
out = q * 3
out.backward(torch.tensor([1.0, 0.5]))
print("vjp_backward", q.grad.tolist())
try:
    out.backward(torch.tensor([1.0, 0.5]))
except RuntimeError as e:
    print("double_backward_err", "second time" in str(e))
try:
    torch.tensor([1.0, 2.0], requires_grad=True).mul(2).backward()
except RuntimeError as e:
    print("nonscalar_err", str(e))
J = torch.autograd.functional.jacobian(lambda t: t**2, torch.tensor([1.0, 2.0]))
H = torch.autograd.functional.hessian(lambda t: (t**3).sum(), torch.tensor([1.0, 2.0]))
print("jac", J.tolist(), H.tolist())
print(
    "vjp",
    [
        t.tolist()
        for t in torch.autograd.functional.vjp(lambda t: t**2, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))
    ],
)
with torch.enable_grad():
    with torch.no_grad():
        print("nograd", (w * 2).requires_grad, torch.is_grad_enabled())
    with torch.inference_mode():
        iv = w * 2
        print("inference", iv.requires_grad, torch.is_inference_mode_enabled(), iv.is_inference())
torch.set_grad_enabled(False)
print("set_grad", (w * 2).requires_grad)
torch.set_grad_enabled(True)


@torch.no_grad()
def f(t):
    return t * 2


print("decor", f(w).requires_grad)
with torch.autograd.set_detect_anomaly(True):
    (w * 2).sum().backward()
print("anomaly", torch.is_anomaly_enabled())


class Sq(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def jvp(ctx, t):
        return t


print("needs_input_grad", Sq.apply(torch.tensor(3.0, requires_grad=True)).grad_fn is not None)
print("detect", torch.autograd.grad(w.sum(), [w], allow_unused=True)[0].tolist())
print("OK")
