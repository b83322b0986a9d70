"""RetNet-style retention: per-head decays gamma = 1 - 2^-(5+h), a decay matrix built with tril and pow,
xPos-like rotations through torch.polar, the parallel form against the recurrent form and the chunkwise form."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
B, H, L, Dk = 2, 3, 8, 4
gammas = 1 - torch.pow(2.0, -5.0 - torch.arange(H, dtype=torch.float32))
print("gammas", gammas.round(decimals=6).tolist())

idx = torch.arange(L)
diff = idx[:, None] - idx[None, :]
mask = torch.tril(torch.ones(L, L, dtype=torch.bool))
decay = torch.pow(gammas.view(H, 1, 1), diff.clamp(min=0).float()) * mask
decay = decay.masked_fill(~mask, 0)
print("decay", tuple(decay.shape), decay[0, :3, :3].round(decimals=4).tolist())
print("tril diag", torch.tril(torch.ones(3, 3), diagonal=-1).tolist(), torch.triu(torch.ones(3, 3), 1).tolist())

# rotation with complex polar
theta = 10000 ** (-torch.arange(0, Dk, 2).float() / Dk)
angles = idx[:, None].float() * theta[None]
rot = torch.polar(torch.ones_like(angles), angles)
print("rot", rot.dtype, tuple(rot.shape), rot.abs().mean().item(), torch.angle(rot[1]).round(decimals=4).tolist())


def rotate(x):
    xc = torch.view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
    return torch.view_as_real(xc * rot).flatten(-2)


q = torch.randn(B, H, L, Dk, requires_grad=True)
k = torch.randn(B, H, L, Dk)
v = torch.randn(B, H, L, Dk)
qr, kr = rotate(q), rotate(k)
print("rotate", tuple(qr.shape), qr.grad_fn.__class__.__name__)

# parallel form
scores = qr @ kr.transpose(-1, -2) * decay
par = scores @ v
print("parallel", tuple(par.shape), round(par.sum().item(), 4))

# recurrent form
S = torch.zeros(B, H, Dk, Dk)
rec = []
for t in range(L):
    S = gammas.view(1, H, 1, 1) * S + kr[:, :, t, :, None] * v[:, :, t, None, :]
    rec.append(torch.einsum("bhd,bhde->bhe", qr[:, :, t], S))
rec = torch.stack(rec, dim=2)
print("rec==par", torch.allclose(rec, par, atol=1e-4))

# chunkwise form with chunk size 4
C = 4
outs, S = [], torch.zeros(B, H, Dk, Dk)
inner_decay = decay[:, :C, :C]
pos = torch.arange(C).float()
for qc, kc, vc in zip(qr.split(C, 2), kr.split(C, 2), v.split(C, 2)):
    inner = (qc @ kc.transpose(-1, -2) * inner_decay) @ vc
    cross = (qc * gammas.view(H, 1, 1).pow(pos.view(1, C, 1) + 1)) @ S
    outs.append(inner + cross)
    kdec = kc * gammas.view(H, 1, 1).pow(C - 1 - pos.view(1, C, 1))
    S = gammas.view(1, H, 1, 1) ** C * S + kdec.transpose(-1, -2) @ vc
chunk = torch.cat(outs, dim=2)
print("chunk==par", torch.allclose(chunk, par, atol=1e-4))

# group norm over heads, swish gate
out = F.group_norm(par.transpose(1, 2).reshape(B * L, H * Dk), H)
print("gn", tuple(out.shape), round(out.std().item(), 4))
out.sum().backward()
print("q.grad", round(q.grad.abs().sum().item(), 4))

# decay matrix gradient through gamma
g = torch.tensor([0.9, 0.5], requires_grad=True)
M = torch.pow(g.view(2, 1, 1), diff[:4, :4].clamp(min=0).float()).tril()
M.sum().backward()
print("gamma grad", g.grad.round(decimals=4).tolist())
print("pow int exp", torch.pow(torch.tensor([2, 3]), 2).tolist(), torch.pow(2, torch.tensor([1, 3])).tolist())
print("pow neg", torch.pow(torch.tensor([0.5]), torch.tensor([-2.0])).tolist())
try:
    torch.pow(torch.tensor([2, 3]), -1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.polar(torch.ones(2), torch.ones(2, dtype=torch.float64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.tril(torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)
