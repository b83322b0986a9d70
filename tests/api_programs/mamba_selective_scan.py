"""Mamba's selective scan written three ways: a sequential loop, a parallel scan in log space with logcumsumexp
(complex logs for signed inputs), and a chunked scan with split/cat carrying states; forward and backward agree."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
b, l, d, n = 2, 12, 3, 4
x = torch.randn(b, l, d)
dt_raw = torch.randn(b, l, d)
A_log = torch.log(torch.arange(1, n + 1, dtype=torch.float32).repeat(d, 1))
Bm = torch.randn(b, l, n)
Cm = torch.randn(b, l, n)
D = torch.ones(d)


def discretise(dt_raw, A_log, Bm, x):
    dt = F.softplus(dt_raw)
    A = -torch.exp(A_log)
    dA = torch.exp(torch.einsum("bld,dn->bldn", dt, A))
    dBx = torch.einsum("bld,bln,bld->bldn", dt, Bm, x)
    return dA, dBx


def scan_seq(dA, dBx, Cm, h0=None):
    h = dA.new_zeros(dA.shape[0], dA.shape[2], dA.shape[3]) if h0 is None else h0
    ys = []
    for t in range(dA.shape[1]):
        h = dA[:, t] * h + dBx[:, t]
        ys.append((h * Cm[:, t, None, :]).sum(-1))
    return torch.stack(ys, dim=1), h


def scan_log(dA, dBx, Cm):
    log_a = torch.log(dA)
    a_star = torch.cumsum(log_a, dim=1)
    log_b = torch.log(dBx.to(torch.complex64))
    log_h = a_star + torch.logcumsumexp(log_b - a_star, dim=1)
    h = torch.exp(log_h).real
    return torch.einsum("bldn,bln->bld", h, Cm)


def scan_chunked(dA, dBx, Cm, chunk=5):
    ys, h = [], None
    for a, bx, c in zip(dA.split(chunk, 1), dBx.split(chunk, 1), Cm.split(chunk, 1)):
        y, h = scan_seq(a, bx, c, h)
        ys.append(y)
    return torch.cat(ys, dim=1), h


dt_raw.requires_grad_(True)
dA, dBx = discretise(dt_raw, A_log, Bm, x)
print("dA", tuple(dA.shape), dA.grad_fn.__class__.__name__, round(dA.mean().item(), 4))
print("dBx", tuple(dBx.shape), dBx.grad_fn.__class__.__name__, round(dBx.abs().sum().item(), 4))
y1, hl = scan_seq(dA, dBx, Cm)
y1 = y1 + x * D
print("seq", tuple(y1.shape), y1[0, :4, 0].round(decimals=4).tolist(), round(hl.sum().item(), 4))
y2 = scan_log(dA, dBx, Cm) + x * D
print("log==seq", torch.allclose(y1, y2, atol=1e-4), (y1 - y2).abs().max().item() < 1e-3)
y3, h3 = scan_chunked(dA, dBx, Cm)
y3 = y3 + x * D
print("chunk==seq", torch.allclose(y1, y3, atol=1e-5), torch.allclose(hl, h3, atol=1e-5))

(g1,) = torch.autograd.grad(y1.square().sum(), dt_raw, retain_graph=True)
(g2,) = torch.autograd.grad(y2.square().sum(), dt_raw)
print("grad", round(g1.abs().sum().item(), 4), torch.allclose(g1, g2, atol=1e-3, rtol=1e-3))

# logcumsumexp properties
v = torch.tensor([[0.0, -float("inf"), 1.0, 2.0], [3.0, 3.0, -1.0, 0.5]])
print("lcse", torch.logcumsumexp(v, dim=1).round(decimals=4).tolist())
print("lcse dim0", torch.logcumsumexp(v, 0).round(decimals=4).tolist())
vc = torch.log(torch.tensor([1.0, -2.0, 3.0]).to(torch.complex64))
print("clog", vc.real.round(decimals=4).tolist(), vc.imag.round(decimals=4).tolist())
lc = torch.logcumsumexp(vc, 0)
print("lcse complex", lc.dtype, torch.exp(lc).real.round(decimals=4).tolist())
vr = torch.randn(5, requires_grad=True)
torch.logcumsumexp(vr, 0).sum().backward()
print("lcse grad", vr.grad.round(decimals=4).tolist())
print("cumprod", torch.cumprod(torch.tensor([0.5, 2.0, 0.0, 3.0]), 0).tolist())
cp = torch.tensor([0.5, 2.0, 0.0, 3.0], requires_grad=True)
torch.cumprod(cp, 0).sum().backward()
print("cumprod grad", cp.grad.tolist())
print(
    "cumsum dtype",
    torch.cumsum(torch.tensor([1, 2, 3]), 0).dtype,
    torch.cumsum(torch.tensor([1, 2]), 0, dtype=torch.float64).dtype,
)
print("softplus beta", F.softplus(torch.tensor([-1.0, 0.0, 30.0]), beta=2, threshold=10).round(decimals=4).tolist())

try:
    torch.logcumsumexp(torch.tensor([1, 2, 3]), 0)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("bld,dn->bldn", dt_raw, A_log[:2])
except Exception as e:
    print(type(e).__name__, e)
try:
    x.split([5, 5], dim=1)
except Exception as e:
    print(type(e).__name__, e)
