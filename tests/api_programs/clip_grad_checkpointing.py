"""Gradient checkpointing in a CLIP transformer: torch.utils.checkpoint.checkpoint with use_reentrant=False around
each block, set_grad_checkpointing toggles, checkpoint_sequential over segments, kwargs and non-tensor arguments,
identical losses and gradients with and without it, and the errors and warnings of misuse."""

import warnings

import torch
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x, attn_mask=None):
        h = self.ln_1(x)
        x = x + self.attn(h, h, h, need_weights=False, attn_mask=attn_mask)[0]
        return x + self.mlp(self.ln_2(x))


class Transformer(nn.Module):
    def __init__(self, d=16, layers=3):
        super().__init__()
        self.resblocks = nn.ModuleList([Block(d) for _ in range(layers)])
        self.grad_checkpointing = False
        self.calls = 0

    def set_grad_checkpointing(self, enable=True):
        self.grad_checkpointing = enable

    def forward(self, x, attn_mask=None):
        for r in self.resblocks:
            self.calls += 1
            if self.grad_checkpointing and not torch.jit.is_scripting():
                x = checkpoint(r, x, attn_mask, use_reentrant=False)
            else:
                x = r(x, attn_mask=attn_mask)
        return x


model = Transformer()
x = torch.randn(2, 5, 16)
mask = torch.full((5, 5), float("-inf")).triu(1)


def run(ckpt):
    model.zero_grad(set_to_none=True)
    model.set_grad_checkpointing(ckpt)
    model.calls = 0
    out = model(x, attn_mask=mask)
    loss = out.pow(2).mean()
    loss.backward()
    grads = torch.cat([p.grad.flatten() for p in model.parameters()])
    return loss.item(), grads, model.calls, out.grad_fn.__class__.__name__


l0, g0, c0, fn0 = run(False)
l1, g1, c1, fn1 = run(True)
print("loss", round(l0, 4), round(l1, 4), "calls", c0, c1)
print("grad_fn", fn0, fn1)
print("grads equal", torch.allclose(g0, g1, atol=1e-6), round(g0.norm().item(), 4), g0.numel())


# counting recomputation with a forward hook
counts = {"fwd": 0}
h = model.resblocks[0].register_forward_hook(lambda m, i, o: counts.__setitem__("fwd", counts["fwd"] + 1))
run(True)
print("block0 forwards with checkpointing", counts["fwd"])
counts["fwd"] = 0
run(False)
print("block0 forwards without", counts["fwd"])
h.remove()


# checkpoint with kwargs and a function, not a module
def ffn(a, b, *, scale=1.0):
    return torch.tanh(a @ b) * scale


a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(4, 2, requires_grad=True)
y = checkpoint(ffn, a, b, scale=2.0, use_reentrant=False)
y.sum().backward()
print("fn ckpt", round(y.sum().item(), 4), a.grad.sum().round(decimals=4).item(), tuple(b.grad.shape))

# checkpoint_sequential over an nn.Sequential
seq = nn.Sequential(*[nn.Sequential(nn.Linear(8, 8), nn.ReLU()) for _ in range(4)])
inp = torch.randn(3, 8, requires_grad=True)
out = checkpoint_sequential(seq, 2, inp, use_reentrant=False)
out.sum().backward()
ref_grad = inp.grad.clone()
inp.grad = None
seq(inp).sum().backward()
print("seq", tuple(out.shape), torch.allclose(ref_grad, inp.grad), round(out.sum().item(), 4))

# no grad needed: output does not require grad
with torch.no_grad():
    z = checkpoint(ffn, a, b, use_reentrant=False)
print("no_grad", z.requires_grad)
z2 = checkpoint(ffn, a.detach(), b.detach(), use_reentrant=False)
print("detached inputs", z2.requires_grad)

# determinism check with dropout and preserve_rng_state
drop = nn.Dropout(0.5)
torch.manual_seed(1)
q = torch.ones(4, 6, requires_grad=True)
o = checkpoint(lambda t: drop(t) * 3, q, use_reentrant=False, preserve_rng_state=True)
o.sum().backward()
print(
    "dropout mask reused",
    torch.equal((o != 0).float() * 6.0, q.grad * (o != 0).float() * 1.0) or bool(((q.grad != 0) == (o != 0)).all()),
)

with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        checkpoint(ffn, a, b)
    except Exception as e:
        print(type(e).__name__, e)
    print("warned", len(w) > 0)
try:
    checkpoint(ffn, a, b, use_reentrant=True, scale=2.0)
except Exception as e:
    print(type(e).__name__, e)
try:
    checkpoint_sequential(seq, 2, inp, use_reentrant=False, bogus=1)
except Exception as e:
    print(type(e).__name__, e)
