"""gradcheck and gradgradcheck as researchers verify their own derivatives: many small float64 functions (matrix
ops, norms, special functions, a soft-sort, a log-det), fast_mode, raise_exception=False, and the reports a wrong
backward produces (GradcheckError's first line)."""

import warnings

import torch
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.gradcheck import GradcheckError

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def r(*shape):
    return torch.randn(*shape, dtype=torch.float64, requires_grad=True)


A = r(3, 3)
spd = (A @ A.T + 3 * torch.eye(3, dtype=torch.float64)).detach().requires_grad_()
v = r(3)
B = r(3, 2)
cases = {
    "matmul chain": (lambda a, b: (a @ b).tanh() @ b.T, (A, B)),
    "logdet spd": (lambda m: torch.logdet(m), (spd,)),
    "cholesky solve": (lambda m, b: torch.cholesky_solve(b, torch.linalg.cholesky((m + m.T) / 2)), (spd, B)),
    "inverse": (lambda m: torch.linalg.inv(m), (spd,)),
    "norm ord 3": (lambda x: torch.linalg.vector_norm(x, ord=3), (v,)),
    "logsumexp": (lambda x: torch.logsumexp(x, 0), (A,)),
    "softmax-weighted": (lambda x: (x.softmax(0) * x).sum(), (v,)),
    "erf/lgamma": (lambda x: torch.erf(x) + torch.lgamma(x.abs() + 1), (v,)),
    "cumprod": (lambda x: torch.cumprod(x, 0), (v,)),
    "atan2": (lambda y, x: torch.atan2(y, x), (v, r(3))),
    "where": (lambda x: torch.where(x > 0, x ** 2, torch.sin(x)), (v,)),
    "gather": (lambda x: x.gather(1, torch.tensor([[0, 2], [1, 1], [2, 0]])), (A,)),
    "index_add": (lambda x, s: x.index_add(0, torch.tensor([0, 2, 0]), s), (A, r(3, 3))),
    "pad+conv1d": (lambda x, w: torch.nn.functional.conv1d(torch.nn.functional.pad(x, (1, 1)), w),
                   (r(1, 2, 5), r(3, 2, 3))),
    "layer_norm": (lambda x, g: torch.nn.functional.layer_norm(x, (3,), g), (A, v)),
    "pairwise dist": (lambda x, y: (x.unsqueeze(1) - y.unsqueeze(0)).pow(2).sum(-1).sqrt(), (r(4, 2), r(3, 2))),
    "soft sort": (lambda x: torch.softmax(-(x.unsqueeze(0) - x.unsqueeze(1)).abs() / 0.5, 1) @ x, (v,)),
    "det": (lambda m: torch.linalg.det(m), (A,)),
    "complex abs": (lambda z: (z * z.conj()).real.sum() + z.abs().sum(),
                    (torch.randn(3, dtype=torch.complex128, requires_grad=True),)),
}
for name, (fn, inputs) in cases.items():
    ok1 = gradcheck(fn, inputs)
    ok2 = gradgradcheck(fn, inputs)
    ok3 = gradcheck(fn, inputs, fast_mode=True)
    print(f"{name:16s} gradcheck {ok1} gradgradcheck {ok2} fast {ok3}")


class BadSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # missing the factor 2


class GoodSquareBadSecond(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * g * x.detach()  # right value, but blocks the second derivative w.r.t. x


x = r(4)
print("bad square, raise_exception=False:", gradcheck(BadSquare.apply, (x,), raise_exception=False))
try:
    gradcheck(BadSquare.apply, (x,))
except GradcheckError as e:
    print("GradcheckError:", str(e).splitlines()[0])
    print("is RuntimeError:", isinstance(e, RuntimeError))
print("good first order:", gradcheck(GoodSquareBadSecond.apply, (x,)))
print("gradgradcheck catches it:", gradgradcheck(GoodSquareBadSecond.apply, (x,), raise_exception=False))
try:
    gradgradcheck(GoodSquareBadSecond.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__ + ":", str(e).splitlines()[0])

# tolerances and eps: a float32 function passes only with looser settings
x32 = torch.randn(4, requires_grad=True)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loose = gradcheck(lambda t: t.sin(), (x32,), eps=1e-3, atol=1e-2, rtol=1e-2)
    print("float32 loose gradcheck:", loose, "warned:", len(caught), str(caught[0].message)[:58])

# explicit grad_outputs for gradgradcheck and inputs that do not require grad
w = torch.randn(3, dtype=torch.float64)
print("mixed inputs:", gradcheck(lambda a, b: a * b, (v, w)))
go = torch.randn(3, dtype=torch.float64, requires_grad=True)
print("explicit grad_outputs:", gradgradcheck(lambda a: a.exp() * a, (v,), (go,)))
print("non-differentiable output ignored:", gradcheck(lambda a: (a.sin(), a.argmax()), (v,)))
try:
    gradcheck(lambda a: a.round(), (v,))
    print("round passes gradcheck (zero Jacobians agree)")
except RuntimeError as e:
    print("round:", str(e).splitlines()[0])
