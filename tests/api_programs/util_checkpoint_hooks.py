"""Activation checkpointing and hook handles as training libraries wire them: torch.utils.checkpoint with
use_reentrant=False (values and grads equal to the plain run, kwargs, non-tensor outputs, a function that
calls dropout-free layers twice), checkpoint_sequential over segments, the warning-free explicit flag,
RemovableHandle from module and tensor hooks (remove twice, as a context manager, id ordering),
torch.utils.hooks.RemovableHandle on a plain dict, and the counts of forward calls recomputation costs."""

import collections
import warnings

import numpy as np
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential
from torch.utils.hooks import RemovableHandle


def r4(t):
    return [round(v, 4) for v in t.detach().flatten().tolist()]


def set_weights(module, seed):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.norm = nn.LayerNorm(d)
        self.calls = 0

    def forward(self, x, scale=1.0):
        self.calls += 1
        return x + scale * torch.tanh(self.norm(self.lin(x)))


rng = np.random.default_rng(0)
x0 = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32))
block = Block(4)
set_weights(block, 1)

x = x0.clone().requires_grad_()
ref = block(x, scale=0.5)
ref.pow(2).sum().backward()
ref_grads = [p.grad.clone() for p in block.parameters()] + [x.grad.clone()]
block.zero_grad()
block.calls = 0

x = x0.clone().requires_grad_()
out = checkpoint(block, x, use_reentrant=False, scale=0.5)
print("ckpt_forward", r4(out)[:4], out.requires_grad, type(out.grad_fn).__name__ != "NoneType", block.calls)
out.pow(2).sum().backward()
grads = [p.grad for p in block.parameters()] + [x.grad]
print("ckpt_calls_after_backward", block.calls)
print("ckpt_grads_equal", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(ref_grads, grads)))
print("x_grad", r4(x.grad)[:6])


def two_outputs(a, b):
    return a * b, (a - b).sum(), "tag"


a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
prod, diff, tag = checkpoint(two_outputs, a, b, use_reentrant=False)
(prod.sum() + 3 * diff).backward()
print("multi_out", prod.tolist(), diff.item(), tag, a.grad.tolist(), b.grad.tolist())

c = torch.tensor([2.0], requires_grad=True)
y = checkpoint(lambda t, k: t ** k, c, 3, use_reentrant=False)
y.backward()
print("nontensor_arg", y.item(), c.grad.item())

with torch.no_grad():
    z = checkpoint(block, x0, use_reentrant=False)
print("under_no_grad", z.requires_grad, z.grad_fn is None)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    checkpoint(block, x0.clone().requires_grad_(), use_reentrant=False)
print("explicit_flag_warnings", len(w))

seq = nn.Sequential(*[nn.Linear(4, 4) for _ in range(4)], nn.Tanh())
set_weights(seq, 2)
xs = x0.clone().requires_grad_()
seq(xs).sum().backward()
g_plain = xs.grad.clone()
w_plain = seq[0].weight.grad.clone()
seq.zero_grad()
xs = x0.clone().requires_grad_()
o = checkpoint_sequential(seq, 2, xs, use_reentrant=False)
o.sum().backward()
print("sequential", tuple(o.shape), torch.allclose(xs.grad, g_plain, atol=1e-6),
      torch.allclose(seq[0].weight.grad, w_plain, atol=1e-6), r4(o)[:3])

# hooks and their handles
lin = nn.Linear(2, 2)
set_weights(lin, 3)
log = []
h1 = lin.register_forward_hook(lambda m, i, o: log.append(("fwd1", tuple(o.shape))))
h2 = lin.register_forward_pre_hook(lambda m, i: log.append(("pre", len(i))))
h3 = lin.register_forward_hook(lambda m, i, o: log.append(("fwd2", round(o.sum().item(), 4))))
lin(torch.ones(1, 2))
print("hook_order", log)
print("handle_types", type(h1).__name__, isinstance(h1, RemovableHandle), h1.id < h3.id)
h1.remove()
h1.remove()
log.clear()
lin(torch.ones(1, 2))
print("after_remove", log, len(lin._forward_hooks), len(lin._forward_pre_hooks))
with lin.register_forward_hook(lambda m, i, o: o * 0) as h4:
    print("ctx_hook", r4(lin(torch.ones(1, 2))), len(lin._forward_hooks))
print("ctx_removed", r4(lin(torch.ones(1, 2))), len(lin._forward_hooks))
h2.remove()
h3.remove()

t = torch.tensor([1.0, -2.0], requires_grad=True)
th = t.register_hook(lambda g: g * 10)
(t * t).sum().backward()
print("tensor_hook", t.grad.tolist(), type(th).__name__)
th.remove()
t.grad = None
(t * t).sum().backward()
print("tensor_hook_removed", t.grad.tolist())

store = collections.OrderedDict()
hd = RemovableHandle(store)
store[hd.id] = "callback"
print("plain_dict_handle", list(store.values()), hd.id in store)
hd.remove()
print("plain_dict_after", store)
ex = RemovableHandle(store, extra_dict=collections.OrderedDict())
print("extra_dict", ex.extra_dict_ref is not None, RemovableHandle(store).id > ex.id)
