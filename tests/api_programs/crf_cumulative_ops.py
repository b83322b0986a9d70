"""Cumulative ops as decoders and segment models use them: exclusive and reverse cumsum, cumprod of survival
probabilities with its gradient through zeros, logcumsumexp for log-space prefix sums, cummax/cummin with indices,
dtype rules of integer and bool cumsums, out= and in-place forms, and their errors."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(4)

x = torch.randn(2, 6, requires_grad=True)
c = x.cumsum(1)
print("cumsum", c.round(decimals=4).tolist(), c.grad_fn.name())
excl = torch.cat([torch.zeros(2, 1), c[:, :-1]], 1)
print("exclusive", excl.round(decimals=4).tolist())
rev = x.flip(1).cumsum(1).flip(1)
print("reverse", rev.round(decimals=4).tolist())
(c * torch.arange(6.0)).sum().backward()
print("cumsum grad", x.grad.round(decimals=4).tolist())

lcse = torch.logcumsumexp(x, dim=1)
print("logcumsumexp", lcse.round(decimals=4).tolist(), lcse.grad_fn.name())
print("matches", torch.allclose(lcse, x.exp().cumsum(1).log(), atol=1e-5))
g, = torch.autograd.grad(lcse[:, -1].sum(), x)
print("lcse grad = softmax", torch.allclose(g, x.softmax(1), atol=1e-5))
ninf = torch.tensor([float("-inf"), 0.0, float("-inf"), 1.0])
print("logcumsumexp -inf", ninf.logcumsumexp(0).round(decimals=4).tolist())
print("logcumsumexp f64", torch.logcumsumexp(torch.tensor([1000.0, 1000.0], dtype=torch.float64), 0).tolist())

p = torch.tensor([0.9, 0.5, 0.0, 0.7], requires_grad=True)
surv = torch.cumprod(1 - p, dim=0)
print("cumprod", surv.tolist(), surv.grad_fn.name())
q = torch.tensor([0.5, 0.0, 2.0, 0.0, 3.0], requires_grad=True)
cp = q.cumprod(0)
cp.sum().backward()
print("cumprod zeros grad", q.grad.tolist())
stop = p * torch.cat([torch.ones(1), surv[:-1]])
print("stopping probs", stop.round(decimals=4).tolist())

v = torch.tensor([[1, 3, 2, 3, 0], [5, 1, 1, 6, 2]])
m = v.cummax(1)
print("cummax", m.values.tolist(), m.indices.tolist())
print(torch.cummin(v, dim=1))
fv = torch.tensor([1.0, float("nan"), 0.5, 2.0])
print("cummax nan", fv.cummax(0).values.tolist(), fv.cummax(0).indices.tolist())
xm = torch.tensor([[1.0, 4.0, 2.0, 4.0]], requires_grad=True)
xm.cummax(1).values.sum().backward()
print("cummax grad", xm.grad.tolist())

print("int cumsum", torch.tensor([1, 2, 3], dtype=torch.int32).cumsum(0).dtype,
      torch.tensor([True, False, True]).cumsum(0).tolist(), torch.tensor([True, True]).cumsum(0).dtype)
print("uint8 cumsum", torch.tensor([200, 100], dtype=torch.uint8).cumsum(0).dtype,
      torch.tensor([200, 100], dtype=torch.uint8).cumsum(0, dtype=torch.uint8).tolist())
print("cumsum dtype", torch.arange(4).cumsum(0, dtype=torch.float32).tolist(), torch.arange(4).cumprod(0).dtype)
out = torch.empty(4)
torch.cumsum(torch.ones(4), 0, out=out)
print("out", out.tolist())
y = torch.ones(2, 3)
y.cumsum_(dim=1)
print("inplace", y.tolist(), torch.ones(3).cumsum(-1).tolist(), torch.tensor(2.0).cumsum(0).tolist())
print("empty", torch.empty(0, 3).cumsum(0).shape, torch.empty(2, 0).logcumsumexp(1).shape)
lens = torch.tensor([3, 1, 2])
offsets = torch.cumsum(lens, 0) - lens
print("offsets", offsets.tolist(), torch.repeat_interleave(lens).tolist(),
      (torch.arange(lens.sum()) - offsets.repeat_interleave(lens)).tolist())

for bad in [lambda: x.cumsum(2), lambda: torch.tensor([1, 2]).logcumsumexp(0),
            lambda: torch.cumsum(torch.ones(3), 0, out=torch.empty(3, dtype=torch.long)),
            lambda: torch.tensor([1, 2]).cummax(1)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
