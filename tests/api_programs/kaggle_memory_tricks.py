"""Memory and domain tricks from Kaggle kernels: gradient checkpointing of encoder blocks (HF-style
gradient_checkpointing_enable, reentrant and not), gradient accumulation with a no-grad-sync style flag, a gradient
reversal layer (DANN) as a custom autograd Function, a straight-through rounding estimator, and frozen embeddings."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(13)


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(self.ln(x))


class Encoder(nn.Module):
    def __init__(self, vocab=12, d=6, n=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([Block(d) for _ in range(n)])
        self.head = nn.Linear(d, 2)
        self.gradient_checkpointing = False
        self.use_reentrant = False

    def gradient_checkpointing_enable(self, use_reentrant=False):
        self.gradient_checkpointing = True
        self.use_reentrant = use_reentrant

    def forward(self, ids):
        h = self.emb(ids)
        for blk in self.blocks:
            if self.gradient_checkpointing and self.training:
                h = checkpoint(blk, h, use_reentrant=self.use_reentrant)
            else:
                h = blk(h)
        return self.head(h.mean(1)), h


def build():
    m = Encoder()
    pr = np.random.default_rng(2)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy((0.3 * pr.standard_normal(tuple(p.shape))).astype(np.float32)))
    return m


ids = torch.from_numpy(rng.integers(0, 12, (4, 5)))
y = torch.from_numpy(rng.integers(0, 2, 4))
grads = {}
for mode in ("plain", "non-reentrant", "reentrant"):
    m = build()
    if mode != "plain":
        m.gradient_checkpointing_enable(use_reentrant=(mode == "reentrant"))
    m.train()
    logits, h = m(ids)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    grads[mode] = torch.cat([p.grad.flatten() for p in m.parameters()])
    print(mode, "loss", round(loss.item(), 4), "h grad_fn", type(h.grad_fn).__name__, "requires_grad", h.requires_grad)
print("grads match non-reentrant", torch.allclose(grads["plain"], grads["non-reentrant"], atol=1e-6),
      "reentrant", torch.allclose(grads["plain"], grads["reentrant"], atol=1e-6))
x = torch.from_numpy(rng.standard_normal((2, 6)).astype(np.float32)).requires_grad_()
blk = build().blocks[0]
out = checkpoint(blk, x, use_reentrant=False)
print(out.grad_fn.name(), [f[0].name() for f in out.grad_fn.next_functions if f[0] is not None])
seq = nn.Sequential(*build().blocks)
out2 = checkpoint_sequential(seq, 2, x, use_reentrant=False)
out2.sum().backward()
print("sequential", r(out2), "x grad", r(x.grad))
frozen = checkpoint(lambda t: t.detach() * 2, x, use_reentrant=False)
print("detached inside checkpoint requires_grad", frozen.requires_grad)


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.neg() * ctx.alpha, None


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, g):
        return g


feat = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)).requires_grad_()
rev = GradReverse.apply(feat, 0.5)
print(rev.grad_fn.name(), type(rev.grad_fn).__name__, rev.grad_fn.next_functions[0][0].name())
(rev * torch.arange(4.0)).sum().backward()
print("reversed grad", r(feat.grad, 4))
q = RoundSTE.apply(feat * 3)
print("ste", q.grad_fn.name(), r(q, 4))
feat.grad = None
q.sum().backward()
print("ste grad", r(feat.grad, 4))

m = build()
m.emb.weight.requires_grad_(False)
opt = torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-2)
print("trainable tensors", len(opt.param_groups[0]["params"]), "of", len(list(m.parameters())))
ACC = 2
losses = []
for step in range(4):
    logits, _ = m(ids[step % 2 * 2: step % 2 * 2 + 2])
    loss = F.cross_entropy(logits, y[step % 2 * 2: step % 2 * 2 + 2]) / ACC
    loss.backward()
    sync = (step + 1) % ACC == 0
    if sync:
        opt.step()
        opt.zero_grad(set_to_none=True)
    losses.append(round(loss.item() * ACC, 4))
print("losses", losses, "emb grad", m.emb.weight.grad, "head grad after zero", m.head.weight.grad)
try:
    checkpoint(blk, x, use_reentrant=True, extra=1)
except ValueError as e:
    print("ValueError", e)
try:
    GradReverse.apply(feat)
except TypeError as e:
    print("TypeError", e)
