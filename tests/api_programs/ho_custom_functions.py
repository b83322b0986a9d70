"""Custom torch.autograd.Function as library authors write them: the setup_context form, save_for_backward,
mark_non_differentiable outputs, set_materialize_grads, needs_input_grad, once_differentiable (and the error a
double backward through it raises), a Function whose backward is itself differentiable, and gradcheck/
gradgradcheck on each."""

import torch
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.function import once_differentiable

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def show(label, fn):
    try:
        print(label, "->", fn())
    except Exception as e:
        print(label, "->", type(e).__name__ + ":", str(e).splitlines()[0])


class SmoothAbs(Function):
    """sqrt(x^2 + eps): a double-backward-able Function (its backward uses differentiable ops only)."""

    @staticmethod
    def forward(x, eps):
        return torch.sqrt(x * x + eps)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, eps = inputs
        ctx.save_for_backward(x, output)
        ctx.eps = eps

    @staticmethod
    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        return grad * x / out, None


class SortWithIndices(Function):
    """Sorted values and their indices; the indices are marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        vals, idx = torch.sort(x)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.n = x.shape[0]
        return vals, idx

    @staticmethod
    def backward(ctx, g_vals, g_idx):
        (idx,) = ctx.saved_tensors
        out = torch.zeros(ctx.n, dtype=g_vals.dtype)
        out[idx] = g_vals
        return out


class TwoHeads(Function):
    """Two outputs; with set_materialize_grads(False) an unused output's gradient arrives as None."""

    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        ctx.seen = []
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, ga, gb):
        ctx.seen.append((ga is None, gb is None))
        total = 0
        if ga is not None:
            total = total + 2 * ga
        if gb is not None:
            total = total + 3 * gb
        return total, None


class ScaledMatmul(Function):
    """Uses needs_input_grad to skip work, and records which gradients it computed."""

    computed = []

    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a @ b * scale

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        ga = gb = None
        ScaledMatmul.computed.append(ctx.needs_input_grad)
        if ctx.needs_input_grad[0]:
            ga = grad @ b.T * ctx.scale
        if ctx.needs_input_grad[1]:
            gb = a.T @ grad * ctx.scale
        return ga, gb, None


class NumpyCube(Function):
    """Backward computed in numpy: once_differentiable forbids a double backward through it."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.from_numpy(x.detach().numpy() ** 3)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return torch.from_numpy(3 * x.numpy() ** 2 * grad.numpy())


x = torch.tensor([-1.5, -0.2, 0.0, 0.7], dtype=torch.float64, requires_grad=True)

y = SmoothAbs.apply(x, 1e-2)
print("smooth abs:", y.detach(), "grad_fn:", type(y.grad_fn).__name__)
print("saved tensors:", [tuple(t.shape) for t in y.grad_fn.saved_tensors], "eps:", y.grad_fn.eps)
(g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), x)
print("d1:", g.detach(), "\nd2:", h, "\nd2 == eps/out^3:", torch.allclose(h, 1e-2 / y.detach() ** 3))
show("saved tensors after grad", lambda: y.grad_fn.saved_tensors)
print("gradcheck:", gradcheck(lambda t: SmoothAbs.apply(t, 1e-2), (x,)),
      "gradgradcheck:", gradgradcheck(lambda t: SmoothAbs.apply(t, 1e-2), (x,)))

vals, idx = SortWithIndices.apply(x)
print("sorted:", vals.detach(), idx, "idx requires_grad:", idx.requires_grad, "vals:", vals.requires_grad)
(vals * torch.arange(4, dtype=torch.float64)).sum().backward()
print("grad through sort:", x.grad)
x.grad = None
print("gradcheck sort:", gradcheck(lambda t: SortWithIndices.apply(t)[0], (x,)))

for mat in [True, False]:
    xa = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = TwoHeads.apply(xa, mat)
    a.sum().backward()
    print(f"materialize={mat}: grad {xa.grad.tolist()} (grad None?) {a.grad_fn.seen}")

A = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
B = torch.randn(3, 2, dtype=torch.float64)
ScaledMatmul.apply(A, B, 0.5).sum().backward()
ScaledMatmul.apply(A.detach(), B.requires_grad_(), 0.5).sum().backward()
print("needs_input_grad seen:", ScaledMatmul.computed)
print("A.grad:\n", A.grad, "\nB.grad:\n", B.grad)
print("gradcheck matmul:", gradcheck(ScaledMatmul.apply, (A, B, 0.5)))

c = NumpyCube.apply(x)
(gc,) = torch.autograd.grad(c.sum(), x, create_graph=True)
print("numpy cube grad:", gc, "requires_grad:", gc.requires_grad, "grad_fn:", type(gc.grad_fn).__name__)
show("double backward through once_differentiable", lambda: torch.autograd.grad(gc.sum(), x))
print("gradcheck cube:", gradcheck(NumpyCube.apply, (x,)))
show("gradgradcheck cube", lambda: gradgradcheck(NumpyCube.apply, (x,)))

# errors library authors hit
class WrongCount(Function):
    @staticmethod
    def forward(ctx, a, b):
        return a + b

    @staticmethod
    def backward(ctx, g):
        return g


class WrongShape(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g[:1]


p = torch.ones(3, requires_grad=True)
show("too few grads", lambda: WrongCount.apply(p, p).sum().backward())
show("wrong grad shape", lambda: WrongShape.apply(p).sum().backward())
show("call forward directly", lambda: SmoothAbs()(p, 0.1))
show("apply without setup_context ctx", lambda: round(SmoothAbs.apply(p, 0.1).sum().item(), 4))
show("mark_dirty missing", lambda: SortWithIndices.apply(p.detach())[1].requires_grad)
