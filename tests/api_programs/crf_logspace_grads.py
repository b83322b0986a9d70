"""Gradients at the corners of log-space dynamic programs: logsumexp over all -inf rows, logaddexp at -inf,
max/amax/argmax ties (max() spreads, max(dim) picks one), softmax over fully masked rows, where() with NaN in the
untaken branch, clamp at the boundary, and the float64 path an algorithm checks itself with."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(12)
NEG = float("-inf")

x = torch.tensor([[NEG, NEG, NEG], [0.0, NEG, 1.0], [2.0, 2.0, 2.0]], requires_grad=True)
lse = torch.logsumexp(x, 1)
lse.sum().backward()
print("lse", lse.tolist(), "grad", x.grad.round(decimals=4).tolist())

a = torch.tensor([NEG, 0.0, NEG], requires_grad=True)
b = torch.tensor([NEG, NEG, 1.0], requires_grad=True)
torch.logaddexp(a, b).sum().backward()
print("logaddexp grads", a.grad.tolist(), b.grad.tolist())

t = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], requires_grad=True)
t.max().backward()
print("max() ties", t.grad.tolist())
t.grad = None
t.max(dim=1).values.sum().backward()
print("max(dim) ties", t.grad.tolist())
t.grad = None
t.amax(dim=1).sum().backward()
print("amax ties", t.grad.round(decimals=4).tolist())
t.grad = None
torch.amin(t, dim=(0, 1)).backward()
print("amin all", t.grad.round(decimals=4).tolist())
t.grad = None
t.topk(2, dim=1).values.sum().backward()
print("topk ties", t.grad.tolist())
t.grad = None
t.sort(dim=1, descending=True, stable=True).values[:, 0].sum().backward()
print("sort ties", t.grad.tolist())
t.grad = None
torch.maximum(t[0], t[1]).sum().backward()
print("maximum ties", t.grad.tolist())
t.grad = None
torch.logsumexp(t, dim=1).sum().backward()
print("lse equal", t.grad.round(decimals=4).tolist())

s = torch.randn(2, 4, requires_grad=True)
mask = torch.tensor([[True, True, False, False], [False, False, False, False]])
p = s.masked_fill(~mask, NEG).softmax(-1)
print("masked softmax", p.round(decimals=4).tolist())
p.nan_to_num(0.0).sum().backward()
print("masked softmax grad", s.grad.round(decimals=4).tolist())
lp = s.masked_fill(~mask, NEG).log_softmax(-1)
print("masked log_softmax", lp.round(decimals=4).tolist())

z = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
y = torch.where(z > 0, z.log(), torch.zeros(3))
y.sum().backward()
print("where grad", z.grad.tolist())
z.grad = None
safe = torch.where(z > 0, z, torch.ones(3)).log()
torch.where(z > 0, safe, torch.zeros(3)).sum().backward()
print("double where grad", z.grad.tolist())
z.grad = None
z.clamp(min=1.0, max=4.0).sum().backward()
print("clamp boundary", z.grad.tolist())
z.grad = None
z.clamp_min(1.0).sum().backward()
print("clamp_min", z.grad.tolist())

d = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
print("gradcheck lse", torch.autograd.gradcheck(lambda u: torch.logsumexp(u, 1), (d,)))
print("gradcheck logcumsumexp", torch.autograd.gradcheck(lambda u: torch.logcumsumexp(u, 1), (d,)))
print("gradcheck log_softmax", torch.autograd.gradcheck(lambda u: F.log_softmax(u, 0), (d,)))
print("isfinite", torch.isfinite(lse).tolist(), torch.isneginf(lse).tolist(), lse.nan_to_num(neginf=-1e4).tolist())
print("finfo", torch.finfo(torch.float32).min, torch.finfo(torch.float64).tiny, torch.finfo(torch.float16).max)
