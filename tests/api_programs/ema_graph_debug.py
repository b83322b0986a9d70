"""Training utilities of generative-model code: EMA via AveragedModel and lerp with tensor weights, walking the
autograd graph to debug a cross-attention block, a complex-valued spectral layer (Module.to(complex64)), and the
dtype mistakes researchers make with samplers, clamp_ and Module.to."""

import warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributions as D
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

rng = np.random.default_rng(31)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class CrossAttnBlock(nn.Module):
    def __init__(self, dim, ctx_dim, heads=2):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(ctx_dim, 2 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, ctx):
        b, n, d = x.shape
        q = self.to_q(self.norm(x)).view(b, n, self.heads, -1).transpose(1, 2)
        k, v = self.to_kv(ctx).chunk(2, dim=-1)
        k = k.reshape(b, -1, self.heads, d // self.heads).transpose(1, 2)
        v = v.reshape(b, -1, self.heads, d // self.heads).transpose(1, 2)
        h = F.scaled_dot_product_attention(q, k, v)
        return x + self.proj(h.transpose(1, 2).reshape(b, n, d))


def walk(fn, depth=0, seen=None, out=None):
    seen = set() if seen is None else seen
    out = [] if out is None else out
    if fn is None or fn in seen or depth > 2:
        return out
    seen.add(fn)
    out.append("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1, seen, out)
    return out


block = CrossAttnBlock(8, 6)
with torch.no_grad():
    for p in block.parameters():
        p.copy_(T(*p.shape) * 0.3)
x, ctx = T(2, 5, 8), T(2, 3, 6)
y = block(x, ctx)
print("block", tuple(y.shape), r(y))
print("top nodes", y.grad_fn.name(), y.grad_fn.next_functions[1][0].name())
attn_out = F.scaled_dot_product_attention(*(T(2, 2, 5, 4).requires_grad_() for _ in range(3)))
print("sdpa node", type(attn_out.grad_fn).__name__, attn_out.requires_grad)
print("proj node", block.proj(T(2, 5, 8)).grad_fn.name(), block.proj(T(5, 8)).grad_fn.name(),
      block.proj(T(5, 2, 8).transpose(0, 1)).grad_fn.name())
print("\n".join(walk(block.to_kv(ctx).chunk(2, -1)[0].grad_fn)))
ema_w = torch.zeros(3, requires_grad=True)
print("lerp nodes", torch.lerp(ema_w, torch.ones(3), 0.1).grad_fn.name(),
      torch.lerp(ema_w, torch.ones(3), torch.full((3,), 0.1)).grad_fn.name(),
      ema_w.clamp_min(0.5).grad_fn.name(), ema_w.clamp_max(torch.ones(3)).grad_fn.name(),
      ema_w.clamp(0, 1).grad_fn.name())
pts = T(4, 3).requires_grad_()
print("dist nodes", F.pdist(pts).grad_fn.name(), torch.cdist(pts, pts).grad_fn.name(),
      torch.cdist(T(30, 3).requires_grad_(), pts).grad_fn.name(), torch.polar(pts.abs(), pts).grad_fn.name())

# EMA of the block with AveragedModel and a hand-rolled per-parameter decay via lerp
ema = AveragedModel(block, multi_avg_fn=get_ema_multi_avg_fn(0.9))
opt = torch.optim.Adam(block.parameters(), lr=1e-2)
shadow = {n: p.detach().clone() for n, p in block.named_parameters()}
for step in range(3):
    loss = block(x, ctx).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.update_parameters(block)
    warm = torch.tensor(min(0.9, (1 + step) / (10 + step)))
    with torch.no_grad():
        for n, p in block.named_parameters():
            shadow[n].lerp_(p, 1 - warm.expand_as(p))
    print("ema", step, round(loss.item(), 4), ema.n_averaged.item(), r(ema.module.proj.bias, 3),
          r(shadow["proj.bias"], 3))
print("ema keys", list(ema.state_dict())[:2], len(ema.state_dict()))
print("ema differs", not torch.equal(ema.module.proj.weight, block.proj.weight), ema.module.proj.weight.requires_grad)


# complex-valued spectral layer, as in Fourier neural fields
class SpectralMix(nn.Module):
    def __init__(self, n, modes):
        super().__init__()
        self.modes = modes
        self.weight = nn.Parameter(T(modes, modes) * 0.5)

    def forward(self, x):
        xf = torch.fft.rfft(x, dim=-1)[..., : self.modes]
        mixed = xf @ self.weight.T
        return torch.fft.irfft(mixed, n=x.shape[-1], dim=-1)


layer = SpectralMix(8, 3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer.to(torch.complex64)
print("complex module", layer.weight.dtype, type(layer.weight).__name__, [str(w.message)[:40] for w in caught])
with torch.no_grad():
    layer.weight.imag.copy_(T(3, 3) * 0.1)
sig = T(2, 8)
out = layer(sig)
out.pow(2).sum().backward()
print("spectral", out.dtype, r(out), layer.weight.grad.dtype, r(torch.view_as_real(layer.weight.grad)))

for bad in (lambda: torch.randn(2, dtype=torch.long), lambda: torch.rand(3, dtype=torch.uint8),
            lambda: torch.empty(2, dtype=torch.int32).exponential_(),
            lambda: torch.empty(2, dtype=torch.long).cauchy_(),
            lambda: torch.arange(4).clamp_(0.5, 2.5), lambda: torch.bernoulli(torch.tensor([0.2, 1.3])),
            lambda: nn.Linear(2, 2).to(torch.int64), lambda: torch.cdist(pts, pts, p=-1.0),
            lambda: F.linear(T(2, 3), T(2, 4, 3)), lambda: nn.init.kaiming_uniform_(T(3, 3), mode="fan_avg")):
    try:
        bad()
    except (RuntimeError, TypeError, ValueError, NotImplementedError) as e:
        print(type(e).__name__, e)
print(D.RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.3])), D.OneHotCategorical(logits=T(2, 3)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    h = (T(3).requires_grad_() * 2)
    g = h.grad
    msg = str(caught[0].message)
    print("non-leaf grad", g, msg[:40], "pull/30531" in msg, "retain_grad" in msg)
