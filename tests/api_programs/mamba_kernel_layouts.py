"""The layout checks a fused selective-scan wrapper makes before calling its kernel (as mamba_ssm's
selective_scan_fn does: stride(-1) == 1 or .contiguous(), B/C made contiguous, dt in (b, d, l)): strides and
contiguity of chunk/split views, transposes, einsum results, norms of transposed inputs, and reshape vs view."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def describe(name, t):
    print(name, tuple(t.shape), t.stride(), t.is_contiguous())


b, l, d, n = 2, 6, 4, 3
xz = torch.randn(b, l, 2 * d, requires_grad=True)
x, z = xz.chunk(2, dim=-1)
describe("x chunk", x)
xt = x.transpose(1, 2)
describe("x^T", xt)
print("stride(-1) != 1", xt.stride(-1) != 1)
xt_c = xt.contiguous() if xt.stride(-1) != 1 else xt
describe("x^T contiguous", xt_c)
print("contiguous grad_fn", xt_c.grad_fn.__class__.__name__, xt.contiguous() is xt, xt_c.contiguous() is xt_c)

proj = torch.randn(b, l, 1 + 2 * n)
dt, B, C = proj.split([1, n, n], dim=-1)
describe("B split", B)
Bt = B.transpose(1, 2)
describe("B^T", Bt)
describe("B^T contiguous", Bt.contiguous())

# einsum results and what reshape does with them
A = -torch.rand(d, n)
u = torch.randn(b, d, l, requires_grad=True)
delta = F.softplus(torch.randn(b, d, l))
dA = torch.einsum("bdl,dn->bdln", delta, A)
describe("deltaA", dA)
dBu = torch.einsum("bdl,bnl,bdl->bdln", delta, Bt, u)
describe("deltaB_u", dBu)
y = torch.einsum("bdn,bn->bd", torch.randn(b, d, n), C[:, 0])
describe("y_t", y)
ssd = torch.einsum(
    "bclhn,bcshn,bhcls,bcshp->bclhp",
    torch.randn(2, 2, 3, 2, 3),
    torch.randn(2, 2, 3, 2, 3),
    torch.randn(2, 2, 2, 3, 3),
    torch.randn(2, 2, 3, 2, 4),
)
describe("ssd Y_diag", ssd)
st = torch.einsum("bhzc,bchpn->bzhpn", torch.randn(2, 2, 3, 3), torch.randn(2, 3, 2, 4, 3))
describe("ssd states", st)
tr = torch.einsum("ij,jk->ki", torch.randn(2, 3), torch.randn(3, 4))
describe("ij,jk->ki", tr)
r = dBu.reshape(b, -1)
print("reshape", r.grad_fn.__class__.__name__, r._base is dBu)
try:
    ssd.view(2, -1)
except Exception as e:
    print(type(e).__name__, e)
print("reshape copy", ssd.reshape(2, -1).is_contiguous(), ssd.flatten(2).shape)

# norms and complex ops of transposed inputs
h = torch.randn(b, d, l).transpose(1, 2)
describe("rms_norm(h^T)", F.rms_norm(h, (d,)))
describe("layer_norm(h^T)", F.layer_norm(h, (d,)))
describe("RMSNorm module", nn.RMSNorm(d)(h))
describe("silu(h^T)", F.silu(h))
zc = torch.randn(d, l, dtype=torch.cfloat).t()
describe("angle(z^T)", torch.angle(zc))
describe("abs(z^T)", zc.abs())
describe("view_as_real(z^T)", torch.view_as_real(zc))
hr = h.detach().clone().requires_grad_()
out = F.rms_norm(hr, (d,))
print("rms_norm grad_fn", out.grad_fn.__class__.__name__)
out.sum().backward()
print("rms grad", tuple(hr.grad.shape), round(hr.grad.abs().sum().item(), 4))

# conv1d output layouts
conv = nn.Conv1d(d, d, 3, groups=d, padding=2)
co = conv(xt)
describe("conv(x^T)", co)
describe("conv trimmed", co[..., :l])
describe("conv trimmed ^T", co[..., :l].transpose(1, 2))
describe("cat", torch.cat([x, z], -1))
describe("stack", torch.stack([x, z], 0))
describe("expand", A.unsqueeze(0).expand(b, d, n))
try:
    A.unsqueeze(0).expand(b, d, n).view(-1)
except Exception as e:
    print(type(e).__name__, e)
print("memory_format", torch.randn(2, 3, 4, 5).contiguous(memory_format=torch.channels_last).stride())
