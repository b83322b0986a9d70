"""Memory-saving training and custom differentiable ops as research code writes them: activation checkpointing
(RNG preservation, kwargs, reentrant restrictions, sequential segments), and custom Functions with differentiable
backward (double backward, gradgradcheck, Hessians, torch.func), vmap rules and set_materialize_grads."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(13)


def T(*s, dtype=np.float32):
    return torch.from_numpy(rng.standard_normal(s).astype(dtype))


def r(x):
    return np.round(x.detach().double().flatten()[:5].numpy(), 4).tolist()


class Block(nn.Module):
    def __init__(self, d, p=0.3):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 2 * d), nn.Linear(2 * d, d)
        self.drop = nn.Dropout(p)

    def forward(self, x, scale=1.0):
        return x + scale * self.fc2(self.drop(F.gelu(self.fc1(x))))


torch.manual_seed(0)
blk = Block(4)
with torch.no_grad():
    for p in blk.parameters():
        p.copy_(T(*p.shape) * 0.3)
x = T(3, 4).requires_grad_()


def grads(fn):
    blk.zero_grad()
    x.grad = None
    torch.manual_seed(123)
    fn().pow(2).sum().backward()
    return [p.grad.clone() for p in blk.parameters()] + [x.grad.clone()]


ref = grads(lambda: blk(x, scale=0.5))
for reentrant in (False, True):
    if reentrant:
        g = grads(lambda: checkpoint(lambda t: blk(t, 0.5), x, use_reentrant=True, preserve_rng_state=True))
    else:
        g = grads(lambda: checkpoint(blk, x, scale=0.5, use_reentrant=False, preserve_rng_state=True))
    print("rng_preserved", reentrant, all(torch.allclose(a, b, atol=1e-6) for a, b in zip(ref, g)))
try:
    checkpoint(blk, x, scale=0.5, use_reentrant=True)
except ValueError as e:
    print("reentrant_kwargs", e)
blk.eval()
out_eval = checkpoint(blk, x, use_reentrant=False)
print("eval_ckpt", torch.allclose(out_eval, blk(x)), out_eval.requires_grad, out_eval.grad_fn is not None)
frozen = T(3, 4)
out_nr = checkpoint(lambda t: t * 2, frozen, use_reentrant=False)
print("no_req", out_nr.requires_grad)
blk.train()

# several outputs, non-tensor outputs, and None gradients
def two_heads(t):
    h = torch.tanh(t)
    return h.sum(-1), h.mean(0), "aux"


x.grad = None
a, b, tag = checkpoint(two_heads, x, use_reentrant=False)
(a.sum() + 0 * b.sum()).backward()
print("multi_out", tag, r(x.grad))
x.grad = None

# sequential segments
deep = nn.Sequential(*[nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(6)])
with torch.no_grad():
    for p in deep.parameters():
        p.copy_(T(*p.shape) * 0.4)
xs = T(2, 4).requires_grad_()
full = deep(xs)
full.sum().backward()
g_full = xs.grad.clone()
for segs in (1, 2, 3, 6):
    xs.grad = None
    y = checkpoint_sequential(deep, segs, xs, use_reentrant=False)
    y.sum().backward()
    print("segments", segs, torch.allclose(y, full), torch.allclose(xs.grad, g_full, atol=1e-6))


# custom Function with a differentiable backward
class SoftplusFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, beta):
        ctx.save_for_backward(t)
        ctx.beta = beta
        return torch.log1p(torch.exp(beta * t)) / beta

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * torch.sigmoid(ctx.beta * t), None


xd = T(4, dtype=np.float64).requires_grad_()
print("gradcheck", torch.autograd.gradcheck(SoftplusFn.apply, (xd, 2.0)))
print("gradgradcheck", torch.autograd.gradgradcheck(SoftplusFn.apply, (xd, 2.0)))
(g1,) = torch.autograd.grad(SoftplusFn.apply(xd, 2.0).sum(), xd, create_graph=True)
(g2,) = torch.autograd.grad(g1.sum(), xd)
sig = torch.sigmoid(2 * xd.detach())
print("double", torch.allclose(g2, 2 * sig * (1 - sig)), r(g2))
H = torch.autograd.functional.hessian(lambda t: SoftplusFn.apply(t, 2.0).sum(), xd.detach())
print("hessian_diag", torch.allclose(H, torch.diag(g2)))
print("matches_F", torch.allclose(SoftplusFn.apply(xd, 2.0), F.softplus(xd, beta=2.0)))


class ScaledTanh(torch.autograd.Function):
    @staticmethod
    def forward(t, k):
        return torch.tanh(t) * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        t, k = inputs
        ctx.save_for_backward(t)
        ctx.k = k

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * ctx.k * (1 - torch.tanh(t) ** 2), None

    @staticmethod
    def vmap(info, in_dims, t, k):
        return ScaledTanh.apply(t, k), in_dims[0]


xb = T(5, 3)
print("vmap_rule", torch.allclose(torch.vmap(ScaledTanh.apply, in_dims=(0, None))(xb, 2.0), 2 * torch.tanh(xb)))
jac = torch.func.jacrev(ScaledTanh.apply)(xb[0], 3.0)
print("jacrev", tuple(jac.shape), torch.allclose(jac, torch.diag(3 * (1 - torch.tanh(xb[0]) ** 2))))
per = torch.func.vmap(torch.func.grad(lambda t: ScaledTanh.apply(t, 1.5).sum()))(xb)
print("vmap_grad", tuple(per.shape), torch.allclose(per, 1.5 * (1 - torch.tanh(xb) ** 2)))


class SplitHalves(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.set_materialize_grads(False)
        n = t.shape[0] // 2
        return t[:n].clone(), t[n:].clone()

    @staticmethod
    def backward(ctx, ga, gb):
        parts = [ga if ga is not None else None, gb]
        print("  got", [p is None for p in parts])
        return torch.cat([p if p is not None else torch.zeros(2) for p in parts])


t4 = T(4).requires_grad_()
lo, hi = SplitHalves.apply(t4)
(hi * 3).sum().backward()
print("materialize", r(t4.grad))
