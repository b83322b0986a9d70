"""Activation checkpointing in diffusion UNets as training scripts switch it on: torch.utils.checkpoint with
use_reentrant=False around resnet/attention blocks (kwargs and non-tensor args), dropout recomputed under
preserve_rng_state, checkpoint_sequential over a decoder, gradients equal to the plain run, the reentrant variant's
restrictions, and a gradient_checkpointing flag toggled per module."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)


def r(t, n=5):
    return [round(v, 4) for v in t.detach().double().flatten()[:n].tolist()]


class ResBlock(nn.Module):
    def __init__(self, ch, p=0.0):
        super().__init__()
        self.norm = nn.GroupNorm(2, ch)
        self.conv = nn.Conv2d(ch, ch, 3, padding=1)
        self.drop = nn.Dropout(p)
        self.calls = 0

    def forward(self, x, temb=None, scale=1.0):
        self.calls += 1
        h = self.conv(self.drop(F.silu(self.norm(x))))
        if temb is not None:
            h = h + temb[:, :, None, None]
        return x + scale * h


class UNetMid(nn.Module):
    def __init__(self, ch=4, p=0.0):
        super().__init__()
        self.blocks = nn.ModuleList([ResBlock(ch, p) for _ in range(3)])
        self.gradient_checkpointing = False

    def forward(self, x, temb):
        for blk in self.blocks:
            if self.gradient_checkpointing and torch.is_grad_enabled():
                x = checkpoint(blk, x, temb, use_reentrant=False, scale=0.5)
            else:
                x = blk(x, temb, scale=0.5)
        return x


def init_(m):
    with torch.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(0.2 * torch.sin(torch.arange(p.numel(), dtype=p.dtype) * 0.47 + k).view_as(p))


x = torch.randn(2, 4, 5, 5)
temb = torch.randn(2, 4)
grads = {}
for ckpt in [False, True]:
    m = UNetMid()
    init_(m)
    m.gradient_checkpointing = ckpt
    xi, ti = x.clone().requires_grad_(), temb.clone().requires_grad_()
    out = m(xi, ti)
    out.pow(2).mean().backward()
    grads[ckpt] = (xi.grad, ti.grad, m.blocks[0].conv.weight.grad)
    print("ckpt" if ckpt else "plain", round(out.sum().item(), 4), out.grad_fn.name(),
          "calls:", [b.calls for b in m.blocks])
print("same grads:", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(grads[False], grads[True])))
with torch.no_grad():
    m.blocks[0].calls = 0
    m(x, temb)
print("no_grad skips checkpoint:", m.blocks[0].calls)

# dropout inside a checkpointed block replays the same mask
blk = ResBlock(4, p=0.5)
init_(blk)
xi = x.clone().requires_grad_()
torch.manual_seed(5)
y1 = checkpoint(blk, xi, use_reentrant=False, preserve_rng_state=True)
y1.sum().backward()
g_ckpt = xi.grad.clone()
xi.grad = None
torch.manual_seed(5)
y2 = blk(xi)
y2.sum().backward()
print("dropout replay:", torch.equal(y1, y2), torch.allclose(g_ckpt, xi.grad, atol=1e-6))

# checkpoint_sequential over a plain Sequential
seq = nn.Sequential(*[nn.Sequential(nn.Conv2d(4, 4, 3, padding=1), nn.SiLU()) for _ in range(4)])
init_(seq)
xi = x.clone().requires_grad_()
ys = checkpoint_sequential(seq, 2, xi, use_reentrant=False)
ys.sum().backward()
g_seq = xi.grad.clone()
xi.grad = None
seq(xi).sum().backward()
print("sequential:", tuple(ys.shape), round(ys.sum().item(), 4), torch.allclose(g_seq, xi.grad, atol=1e-6))

# reentrant checkpoint: tensor args only, kwargs refused
xi = x.clone().requires_grad_()
y = checkpoint(blk.eval(), xi, use_reentrant=True)
print("reentrant grad_fn:", y.grad_fn.name(), round(y.sum().item(), 4))
try:
    checkpoint(blk, xi, use_reentrant=True, scale=0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    checkpoint(blk, xi, use_reentrant=False, bogus_flag=True)
except Exception as e:
    print(type(e).__name__, e)

# a checkpointed function returning a tuple and a non-tensor
def two_heads(h, k):
    return h * k, h.sum(), k
xi = x.clone().requires_grad_()
a, b, k = checkpoint(two_heads, xi, 3, use_reentrant=False)
(a.mean() + b).backward()
print("tuple outputs:", tuple(a.shape), round(b.item(), 4), k, r(xi.grad))
