"""Autograd graph internals: saved-tensor hooks, save_on_cpu, grad_fn Node hooks and metadata, next_functions,
activation checkpointing (reentrant and not), and custom Functions with mark_dirty, mark_non_differentiable,
set_materialize_grads, once_differentiable, setup_context + vmap, generate_vmap_rule and double backward."""

import numpy as np
import torch
from torch import nn
from torch.autograd.function import once_differentiable
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

rng = np.random.default_rng(7)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


# saved-tensor hooks: count packs, store in float16 and restore
packed = []


def pack(t):
    packed.append(tuple(t.shape))
    return t.to(torch.float16)


def unpack(t):
    return t.to(torch.float32)


x = T(4).requires_grad_()
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x.sin() * x.exp()).sum()
y.backward()
print("packed", len(packed), packed[0], r(x.grad))
exact = (x.detach().cos() * x.detach().exp() + x.detach().sin() * x.detach().exp())
print("fp16_close", torch.allclose(x.grad, exact, atol=1e-2))
x.grad = None
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    z = (x * x).sum()
z.backward()
print("save_on_cpu", r(x.grad))
x.grad = None
with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            pass
    except RuntimeError as e:
        print("disabled", str(e))

# Node API
a = T(3).requires_grad_()
b = a * 2
c = b.exp().sum()
gf = c.grad_fn
print("node", gf.name(), type(gf).__name__, isinstance(gf, torch.autograd.graph.Node))
chain = []
n = gf
while n is not None:
    chain.append(n.name())
    n = n.next_functions[0][0] if n.next_functions else None
print("chain", chain)
print("acc", type(b.grad_fn.next_functions[0][0]).__name__, b.grad_fn.next_functions[0][0].variable is a)
print("saved", hasattr(b.grad_fn, "_saved_other"), b.grad_fn._saved_other)
seen = []
h1 = b.grad_fn.register_hook(lambda gi, go: seen.append(("post", r(go[0]), r(gi[0]))))
h2 = b.grad_fn.register_prehook(lambda go: seen.append(("pre", r(go[0]))))
b.grad_fn.metadata["tag"] = "scale2"
c.backward()
print("node_hooks", seen)
print("metadata", b.grad_fn.metadata)
h1.remove()
h2.remove()
a.grad = None
d = a * 3
d.grad_fn.register_prehook(lambda go: (go[0] * 10,))
d.sum().backward()
print("prehook_replace", r(a.grad))
a.grad = None

# checkpointing
net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(T(*p.shape) * 0.4)
xi = T(3, 4).requires_grad_()
calls = {"n": 0}


def block(t):
    calls["n"] += 1
    return net[2](net[1](net[0](t)))


ref = net[4](net[3](block(xi))).pow(2).sum()
ref.backward()
g_ref = [p.grad.clone() for p in net.parameters()] + [xi.grad.clone()]
for reentrant in (True, False):
    net.zero_grad()
    xi.grad = None
    calls["n"] = 0
    out = net[4](net[3](checkpoint(block, xi, use_reentrant=reentrant))).pow(2).sum()
    fwd = calls["n"]
    out.backward()
    g = [p.grad for p in net.parameters()] + [xi.grad]
    print("ckpt", reentrant, fwd, calls["n"], all(torch.allclose(u, v, atol=1e-6) for u, v in zip(g, g_ref)))
net.zero_grad()
y2 = checkpoint_sequential(net, 3, xi, use_reentrant=False)
print("ckpt_seq", r(y2), torch.allclose(y2, net(xi)))
with torch.no_grad():
    print("ckpt_nograd", checkpoint(block, xi, use_reentrant=False).requires_grad)
try:
    checkpoint(block, xi, use_reentrant=False, determinism_check="bogus")
except ValueError as e:
    print("determinism", str(e).splitlines()[0])


# custom Functions
class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.mark_dirty(t)
        return t.add_(1)

    @staticmethod
    def backward(ctx, g):
        return g


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        vals, idx = t.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return vals, idx

    @staticmethod
    def backward(ctx, gv, gi):
        (idx,) = ctx.saved_tensors
        out = torch.zeros_like(gv)
        out[idx] = gv
        return out


class TwoOut(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.set_materialize_grads(False)
        return t * 2, t * 3

    @staticmethod
    def backward(ctx, ga, gb):
        res = torch.zeros(3)
        if ga is not None:
            res = res + 2 * ga
        if gb is not None:
            res = res + 3 * gb
        return res


class Cube(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(t):
        return t**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return Cube3(t) * g


def Cube3(t):
    return 3 * t**2


class Frozen(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t.clone()

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        return g * 5


leaf = T(3).requires_grad_()
base = leaf.clone()
res = AddOneInPlace.apply(base)
print("mark_dirty", res is base, base.grad_fn.name().startswith("AddOneInPlace"), base._version)
res.sum().backward()
print("dirty_grad", r(leaf.grad))
try:
    AddOneInPlace.apply(leaf)
except RuntimeError as e:
    print("leaf_inplace", str(e))
vals, idx = SortWithIndex.apply(leaf)
print("sorted", r(vals), idx.tolist(), idx.requires_grad, vals.requires_grad)
leaf.grad = None
(vals * torch.arange(3.0)).sum().backward()
print("sort_grad", r(leaf.grad))
leaf.grad = None
p, q = TwoOut.apply(leaf)
p.sum().backward()
print("materialize_off", r(leaf.grad))
leaf.grad = None
cb = Cube.apply(leaf)
(g1,) = torch.autograd.grad(cb.sum(), leaf, create_graph=True)
(g2,) = torch.autograd.grad(g1.sum(), leaf)
print("double_backward", r(g1), r(g2), r(6 * leaf))
batched = torch.vmap(Cube.apply)(T(2, 3))
print("vmap_rule", tuple(batched.shape))
print("func_grad", r(torch.func.grad(lambda t: Cube.apply(t).sum())(leaf.detach())))
fz = Frozen.apply(leaf)
(gf1,) = torch.autograd.grad(fz.sum(), leaf, create_graph=True)
print("once_diff", r(gf1), gf1.requires_grad)
try:
    torch.autograd.grad(gf1.sum(), leaf)
except RuntimeError as e:
    print("once_err", str(e))


class NoVmap(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


try:
    torch.vmap(NoVmap.apply)(T(2, 3))
except RuntimeError as e:
    print("vmap_err", str(e).splitlines()[0][:90])
print("OK")
