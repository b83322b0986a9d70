"""Activation checkpointing as memory-bound training code uses it: torch.utils.checkpoint.checkpoint with
use_reentrant=False around blocks (keyword arguments, several outputs, non-tensor arguments, dropout with the RNG
state preserved), checkpoint_sequential, gradients equal to the plain run, forward recomputation counted, a
context_fn, determinism checks, and the errors and warnings users meet."""

import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(41)
torch.set_printoptions(precision=4)

calls = {"n": 0}


class Block(nn.Module):
    def __init__(self, d, p=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Dropout(p), nn.Linear(2 * d, d))

    def forward(self, x, scale=1.0, mask=None):
        calls["n"] += 1
        h = self.ff(self.norm(x)) * scale
        if mask is not None:
            h = h.masked_fill(~mask, 0.0)
        return x + h


class Net(nn.Module):
    def __init__(self, use_ckpt, p=0.0):
        super().__init__()
        self.blocks = nn.ModuleList([Block(6, p) for _ in range(3)])
        self.head = nn.Linear(6, 2)
        self.use_ckpt = use_ckpt

    def forward(self, x, mask=None):
        for blk in self.blocks:
            if self.use_ckpt and self.training:
                x = checkpoint(blk, x, scale=0.5, mask=mask, use_reentrant=False)
            else:
                x = blk(x, scale=0.5, mask=mask)
        return self.head(x)


def grads_of(model, x, mask=None):
    model.zero_grad()
    out = model(x, mask=mask)
    out.pow(2).mean().backward()
    return out, [p.grad.clone() for p in model.parameters()]


torch.manual_seed(42)
plain = Net(False)
ck = Net(True)
ck.load_state_dict(plain.state_dict())
x = torch.randn(4, 5, 6, requires_grad=True)
mask = torch.rand(4, 5, 1) > 0.3

calls["n"] = 0
o1, g1 = grads_of(plain, x, mask)
gx1 = x.grad.clone()
print("plain forward calls", calls["n"])
x.grad = None
calls["n"] = 0
o2, g2 = grads_of(ck, x, mask)
print("checkpointed forward calls (3 forward + 3 recompute)", calls["n"])
print("same output", torch.equal(o1, o2), "same grads", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(g1, g2)),
      "same input grad", torch.allclose(gx1, x.grad, atol=1e-6))
print("out grad_fn", type(o2.grad_fn).__name__, o2[0, 0])
print("head grad", g2[-1])

# dropout inside a checkpoint: the RNG state is stashed so the recomputation draws the same mask
torch.manual_seed(43)
pd = Net(False, p=0.3)
cd = Net(True, p=0.3)
cd.load_state_dict(pd.state_dict())
torch.manual_seed(0)
od1, gd1 = grads_of(pd, x)
torch.manual_seed(0)
od2, gd2 = grads_of(cd, x)
print("dropout same", torch.equal(od1, od2), all(torch.allclose(a, b, atol=1e-6) for a, b in zip(gd1, gd2)))
torch.manual_seed(0)
blk = Block(6, p=0.5)
y_keep = checkpoint(blk, x, use_reentrant=False, preserve_rng_state=True)
y_keep.sum().backward()
print("dropout block grad", blk.ff[0].bias.grad[:4])

# eval mode takes the plain path
ck.eval()
calls["n"] = 0
with torch.no_grad():
    ck(x)
print("eval calls", calls["n"])
ck.train()

# a function with several outputs and a non-tensor argument
def two_heads(a, b, k):
    return (a * b).sum(-1) * k, torch.tanh(a - b)


a = torch.randn(3, 4, requires_grad=True)
b = torch.randn(3, 4, requires_grad=True)
s, t = checkpoint(two_heads, a, b, 2.0, use_reentrant=False)
(s.sum() + t.pow(2).sum()).backward()
ga, gb = a.grad.clone(), b.grad.clone()
a.grad = b.grad = None
s2, t2 = two_heads(a, b, 2.0)
(s2.sum() + t2.pow(2).sum()).backward()
print("multi-output", torch.allclose(ga, a.grad), torch.allclose(gb, b.grad), s)

# checkpoint_sequential splits a Sequential into segments
torch.manual_seed(44)
seq = nn.Sequential(*[nn.Sequential(nn.Linear(6, 6), nn.Tanh()) for _ in range(6)])
inp = torch.randn(2, 6, requires_grad=True)
ref = seq(inp)
ref.sum().backward()
ref_grads = [p.grad.clone() for p in seq.parameters()]
seq.zero_grad()
out = checkpoint_sequential(seq, 3, inp, use_reentrant=False)
out.sum().backward()
print("sequential same", torch.allclose(out, ref), all(torch.allclose(p.grad, g, atol=1e-6)
                                                       for p, g in zip(seq.parameters(), ref_grads)))
print("segments output", out)

# input without requires_grad: parameters still get gradients with use_reentrant=False
lin = nn.Linear(3, 1)
z = checkpoint(lin, torch.ones(2, 3), use_reentrant=False)
z.sum().backward()
print("param grads without input grad", lin.weight.grad, lin.bias.grad)

# double backward through a checkpointed function
w = torch.tensor([0.5, -1.0], requires_grad=True)
f = checkpoint(lambda v: (v ** 3).sum(), w, use_reentrant=False)
(g,) = torch.autograd.grad(f, w, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), w)
print("grad", g, "second", h)

# the warning when use_reentrant is not passed, and the error for a non-deterministic recomputation
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    try:
        checkpoint(lin, torch.ones(2, 3))
    except Exception as e:  # newer PyTorch may make it an error
        print(type(e).__name__)
print("warned", [str(r.message)[:70] for r in rec])

state = {"k": 0}


def changing(v):
    state["k"] += 1
    return (v * 2).sin() if state["k"] == 1 else (v.repeat(2) * 3).sin()


try:
    out = checkpoint(changing, torch.ones(2, requires_grad=True), use_reentrant=False)
    out.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])


# same shapes but other values: the default check passes, the gradient uses the recomputed values
def rescaled(v):
    state["k"] += 1
    return (v * state["k"]).sin()


state["k"] = 0
v = torch.ones(2, requires_grad=True)
checkpoint(rescaled, v, use_reentrant=False, determinism_check="none").sum().backward()
print("recomputed with k=2", state["k"], v.grad)

# early stop: the recomputation ends once the last saved tensor is back
trace = []


def traced(v):
    trace.append("start")
    y = v.sin()
    trace.append("saved")
    return y * 2


for es in (True, False):
    trace.clear()
    checkpoint(traced, torch.ones(2, requires_grad=True), use_reentrant=False, early_stop=es).sum().backward()
    print("early_stop", es, trace)
