"""Cumulative ops as sequence and probability code uses them: cumsum/cumprod (with zeros, whose gradient is the
tricky case), cummax/cummin with their indices and ties, logcumsumexp with -inf and large values, all with gradients."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

x = torch.tensor([2.0, 3.0, 0.5, 4.0])
print("cumsum", torch.cumsum(x, 0), x.cumsum(-1).dtype)
print("cumprod", torch.cumprod(x, 0))
print("cumsum int -> int64", torch.tensor([1, 2, 3], dtype=torch.int32).cumsum(0).dtype)
print("cumsum dtype=", torch.tensor([1, 2, 3]).cumsum(0, dtype=torch.float64))
print("cumprod bool", torch.tensor([True, True, False, True]).cumprod(0))
a23 = torch.arange(6.0).reshape(2, 3)
print("cumsum 2-d dim 0/1", a23.cumsum(0), a23.cumsum(1), sep="\n")
print("cumsum empty", torch.empty(0).cumsum(0), torch.ones(2, 0).cumprod(1).shape)
print("cumsum 0-dim", torch.tensor(3.0).cumsum(0))


def grad_of(f, v, w=None):
    t = v.clone().requires_grad_()
    out = f(t)
    out.backward(torch.ones_like(out) if w is None else w)
    return t.grad


w = torch.tensor([1.0, -1.0, 2.0, 0.5])
print("cumsum grad (reverse cumsum)", grad_of(lambda t: t.cumsum(0), x, w))
print("cumprod grad no zeros", grad_of(lambda t: t.cumprod(0), x, w))
for z in ([0.0, 2.0, 3.0, 4.0], [2.0, 0.0, 3.0, 4.0], [2.0, 3.0, 4.0, 0.0], [2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 1.0, 1.0]):
    zt = torch.tensor(z)
    print(f"cumprod {z}", zt.cumprod(0), "grad", grad_of(lambda t: t.cumprod(0), zt, w))
# finite-difference check of the zero case in float64
zt = torch.tensor([1.5, 0.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
print("gradcheck cumprod with zero:", torch.autograd.gradcheck(lambda t: t.cumprod(0), (zt,)))
print("gradgradcheck cumprod with zero:", torch.autograd.gradgradcheck(lambda t: t.cumprod(0), (zt,)))
m = torch.tensor([[1.0, 0.0, 2.0], [3.0, 4.0, 0.0]], requires_grad=True)
m.cumprod(1).sum().backward()
print("cumprod 2-d grad", m.grad)
print("prod grad with one zero", grad_of(lambda t: t.prod(), torch.tensor([2.0, 0.0, 3.0])))
print("prod grad with two zeros", grad_of(lambda t: t.prod(), torch.tensor([0.0, 0.0, 3.0])))

# cummax / cummin
s = torch.tensor([1.0, 3.0, 2.0, 3.0, 5.0, 0.0, 5.0])
cm = torch.cummax(s, 0)
print("cummax", cm.values, cm.indices)
print("cummax repr", cm)
vals, idx = s.cummin(0)
print("cummin", vals, idx)
print("cummax ties take the last index:", cm.indices.tolist())
nan_s = torch.tensor([1.0, float("nan"), 0.5, 2.0])
print("cummax nan", torch.cummax(nan_s, 0))
print("cummin nan", torch.cummin(nan_s, 0))
print("cummax int", torch.tensor([3, 1, 4, 1, 5, 9, 2, 6]).cummax(0))
print("cummax 2-d dim=1", torch.tensor([[1, 5, 2], [7, 0, 9]]).cummax(dim=1).indices)
print("cummax bool", torch.tensor([False, True, False]).cummax(0).values)
out_v = torch.empty(0)
out_i = torch.empty(0, dtype=torch.long)
torch.cummax(s, 0, out=(out_v, out_i))
print("cummax out=", out_v, out_i)
print("cummax grad (scatter to argmax)", grad_of(lambda t: t.cummax(0).values, s))
print("cummin grad", grad_of(lambda t: t.cummin(0).values, s, torch.arange(7.0)))
# running max drawdown, as in finance code
prices = torch.tensor([100.0, 105.0, 102.0, 110.0, 95.0, 99.0, 120.0])
peak = prices.cummax(0).values
dd = (prices - peak) / peak
print("drawdown", dd, "max drawdown", round(dd.min().item(), 4))

# logcumsumexp
lx = torch.tensor([0.0, 1.0, -2.0, 3.0])
print("logcumsumexp", torch.logcumsumexp(lx, 0))
print("naive", torch.log(torch.cumsum(lx.exp(), 0)))
big = torch.tensor([1000.0, 1000.0, -1000.0])
print("logcumsumexp large", torch.logcumsumexp(big, 0), "naive", big.exp().cumsum(0).log())
ninf = torch.tensor([float("-inf"), 0.0, float("-inf"), 1.0])
print("logcumsumexp -inf", torch.logcumsumexp(ninf, 0))
print("logcumsumexp all -inf", torch.logcumsumexp(torch.full((3,), float("-inf")), 0))
print("logcumsumexp inf", torch.logcumsumexp(torch.tensor([0.0, float("inf"), 1.0]), 0))
print("logcumsumexp grad", grad_of(lambda t: t.logcumsumexp(0), lx, w))
print("logcumsumexp grad -inf", grad_of(lambda t: t.logcumsumexp(0), ninf))
l2 = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
print("gradcheck logcumsumexp:", torch.autograd.gradcheck(lambda t: t.logcumsumexp(1), (l2,)))
print("logcumsumexp complex", torch.logcumsumexp(torch.tensor([0.0 + 1j, 1.0 - 1j]), 0))
try:
    torch.logcumsumexp(torch.tensor([1, 2]), 0)
except RuntimeError as e:
    print("logcumsumexp int:", e)

# reverse cumulative sums (survival functions) and exclusive scans
p = torch.tensor([0.1, 0.2, 0.3, 0.4])
print("survival", p.flip(0).cumsum(0).flip(0))
print("exclusive cumsum", torch.cat([torch.zeros(1), p.cumsum(0)[:-1]]))
print("stick breaking", torch.cumprod(1 - p, 0))
# discounted returns by cumsum over a geometric kernel
r = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0])
gamma = 0.9
g = gamma ** torch.arange(5.0)
ret = (r * g).flip(0).cumsum(0).flip(0) / g
print("discounted returns", ret)
# log-space cumulative product of probabilities
lp = torch.log(torch.tensor([0.9, 0.8, 0.5]))
print("cumulative log prob", lp.cumsum(0).exp())

try:
    x.cumsum(1)
except IndexError as e:
    print("cumsum dim:", e)
try:
    torch.cummax(x, 2)
except IndexError as e:
    print("cummax dim:", e)
