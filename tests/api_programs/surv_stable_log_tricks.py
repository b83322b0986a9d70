"""The numerically stable log-space tricks of survival losses: log1mexp by the expm1/log1p switch, its gradient
through torch.where, logaddexp/logsumexp with -inf, log_ndtr, logit/expit with eps, and float16/bfloat16 behaviour."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def log1mexp(x):
    """log(1 - exp(x)) for x <= 0 (Maechler 2012)."""
    return torch.where(x > -math.log(2), torch.log(-torch.expm1(x)), torch.log1p(-torch.exp(x)))


def log1mexp_masked(x):
    mask = x > -math.log(2)
    out = torch.empty_like(x)
    out[mask] = torch.log(-torch.expm1(x[mask]))
    out[~mask] = torch.log1p(-torch.exp(x[~mask]))
    return out


x = torch.tensor([-1e-20, -1e-8, -0.1, -0.6931, -0.7, -5.0, -40.0, -800.0, 0.0, -float("inf")], dtype=torch.float64)
print("naive", torch.log(1 - torch.exp(x)))
print("stable", log1mexp(x))
print("masked", log1mexp_masked(x))
xf = x.float()
print("float32", log1mexp(xf))
print("float16", log1mexp(x.half()), log1mexp(x.half()).dtype)
print("bfloat16", log1mexp(x.to(torch.bfloat16)))

g = x.clone().requires_grad_()
log1mexp(g).sum().backward()
print("grad where", g.grad)
g2 = x[1:8].clone().requires_grad_()
log1mexp_masked(g2).sum().backward()
print("grad masked", g2.grad)
print("analytic", -1 / torch.expm1(-x[1:8]))
g3 = x[1:8].clone().requires_grad_()
safe = torch.where(g3 > -math.log(2), g3, torch.full_like(g3, -1.0))
torch.where(g3 > -math.log(2), torch.log(-torch.expm1(safe)), torch.log1p(-torch.exp(g3))).sum().backward()
print("double-where grad", g3.grad)

# logaddexp / logsumexp edge cases
a = torch.tensor([-float("inf"), -float("inf"), 0.0, float("inf"), 1e30, float("nan")])
b = torch.tensor([-float("inf"), 0.0, 0.0, float("inf"), 1e30, 0.0])
print(torch.logaddexp(a, b))
print(torch.logaddexp2(a, b))
print(torch.logsumexp(torch.stack([a, b]), 0))
print(torch.logsumexp(torch.full((3,), -float("inf")), 0), torch.logsumexp(torch.tensor([float("inf"), 1.0]), 0))
ga = torch.tensor([-float("inf"), -float("inf")], requires_grad=True)
torch.logsumexp(ga, 0).backward()
print("lse grad all -inf", ga.grad)
gb = torch.tensor([0.0, -float("inf")], requires_grad=True)
torch.logaddexp(gb[0], gb[1]).backward()
print("logaddexp grad", gb.grad)
print(torch.logsumexp(torch.tensor([[1, 2], [3, 4]]), 1))
print(torch.special.logsumexp(torch.tensor([1.0, 2.0, 3.0]), 0, keepdim=True))
print(torch.logsumexp(torch.randn(2, 3, 4).abs().log(), dim=(0, 2)).shape)

# survival from hazards in log-space
log_h = torch.tensor([[-2.0, -1.0, 0.0, 3.0]], dtype=torch.float64)
log_S = -torch.cumsum(torch.exp(log_h), 1)
print("log S", log_S, "log F", log1mexp(log_S))
print("log pmf", log1mexp(-torch.exp(log_h)) + F.pad(log_S[:, :-1], (1, 0)))

# log_ndtr / ndtr / ndtri / erfcx
z = torch.tensor([-1e3, -38.5, -10.0, -1.0, 0.0, 1.0, 10.0, 40.0], dtype=torch.float64)
print(torch.special.log_ndtr(z))
print(torch.special.ndtr(z))
print(torch.special.ndtri(torch.tensor([0.0, 1e-300, 0.025, 0.5, 0.975, 1.0], dtype=torch.float64)))
print(torch.special.erfcx(torch.tensor([-30.0, -1.0, 0.0, 1.0, 30.0, 1e10])))
print(torch.special.log_ndtr(z.float()))
try:
    torch.special.log_ndtr(torch.tensor([-5.0], dtype=torch.half))
except NotImplementedError as e:
    print(type(e).__name__, e)
gz = torch.tensor([-40.0, -5.0, 0.0, 5.0], dtype=torch.float64, requires_grad=True)
torch.special.log_ndtr(gz).sum().backward()
print("log_ndtr grad", gz.grad)

# logit / expit / log_sigmoid
p = torch.tensor([0.0, 1e-8, 0.5, 1.0])
print(torch.logit(p), torch.logit(p, eps=1e-6), torch.special.logit(p, 1e-3))
print(torch.special.expit(torch.tensor([-100.0, 0.0, 100.0])), torch.sigmoid(torch.tensor([-100.0]).double()))
gp = p.clone().requires_grad_()
torch.logit(gp, eps=0.1).sum().backward()
print("logit eps grad", gp.grad)
print(F.logsigmoid(torch.tensor([-1000.0, -30.0, 0.0, 30.0])))
print(torch.special.xlog1py(torch.tensor([0.0, 1.0, 2.0]), torch.tensor([-1.0, -1.0, float("nan")])))
print(torch.special.xlogy(torch.tensor([0.0, 0.0, 1.0]), torch.tensor([0.0, float("nan"), 0.0])))
print(torch.special.entr(torch.tensor([0.0, 0.5, 1.0, -1.0])))
print(torch.log1p(torch.tensor([-1.0, -1e-10, 1e-10])).tolist())
print(torch.expm1(torch.tensor([1e-10], dtype=torch.float64)).item(), torch.exp(torch.tensor([1e-10])).sub(1).item())
print(torch.special.log1p(torch.tensor(-2.0)), torch.special.expm1(torch.tensor(710.0, dtype=torch.float64)))
print(
    torch.finfo(torch.float16).tiny, torch.finfo(torch.bfloat16).eps, torch.finfo().min, torch.finfo(torch.float64).max
)
try:
    torch.logaddexp(torch.tensor([-1.0, 0.5]), 0.0)  # softplus written as logaddexp(x, 0)
except TypeError as e:
    print(type(e).__name__, e)
print(torch.logaddexp(torch.tensor([-1.0, 0.5]), torch.tensor(0.0)), F.softplus(torch.tensor([-1.0, 0.5])))
