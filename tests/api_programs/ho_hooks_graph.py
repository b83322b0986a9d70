"""Tensor hooks and graph introspection as debugging and memory-saving code uses them: register_hook that
rescales or clips, retain_grad on non-leaves, register_post_accumulate_grad_hook for an in-backward optimizer,
saved_tensors_hooks that pack to float16 or count bytes, save_on_cpu, and a walk over grad_fn.next_functions with
the nodes' _saved_ attributes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

# register_hook: gradient reversal (DANN) and clipping on an intermediate
x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(3, 2, requires_grad=True)
feat = x @ w
feat.retain_grad()
rev = feat.view_as(feat)
rev.register_hook(lambda g: -0.5 * g)
clip_seen = []


def clip_hook(g):
    clip_seen.append(round(g.abs().max().item(), 4))
    return g.clamp(-0.1, 0.1)


h = feat.register_hook(clip_hook)
out = (rev.tanh() * torch.tensor([1.0, -2.0])).sum()
out.backward()
print("feat.grad (retained, after its hooks):", feat.grad)
print("clip saw max:", clip_seen, "x.grad:\n", x.grad)
print("feat.is_leaf:", feat.is_leaf, "retains_grad:", feat.retains_grad, "rev.retains_grad:", rev.retains_grad)
h.remove()

# hooks run in registration order, a None return keeps the gradient
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
order = []
b.register_hook(lambda g: order.append(("first", g.tolist())))
b.register_hook(lambda g: g * 10)
b.register_hook(lambda g: order.append(("third", g.tolist())))
b.sum().backward()
print("hook order:", order, "a.grad:", a.grad)

# post-accumulate-grad hooks: an optimizer step fused into backward
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
opts = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}
stepped = []


def step_hook(p):
    opts[p].step()
    opts[p].zero_grad()
    stepped.append(tuple(p.shape))


handles = [p.register_post_accumulate_grad_hook(step_hook) for p in model.parameters()]
before = model[0].weight.detach().clone()
data, target = torch.randn(8, 3), torch.randn(8, 1)
F.mse_loss(model(data), target).backward()
print("stepped in backward:", stepped)
print("grads cleared:", [p.grad for p in model.parameters()])
print("weight moved:", (model[0].weight - before).abs().sum().item() > 0)
for hd in handles:
    hd.remove()
try:
    (x @ w).register_post_accumulate_grad_hook(lambda p: None)
except RuntimeError as e:
    print("RuntimeError:", e)

# saved_tensors_hooks: count what is saved, and pack to float16
saved = []


def pack(t):
    saved.append((tuple(t.shape), str(t.dtype)))
    return t.to(torch.float16)


def unpack(t):
    return t.to(torch.float32)


inp = torch.randn(5, 3, requires_grad=True)
lin = nn.Linear(3, 2)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = torch.sigmoid(lin(inp)).pow(2).sum()
print("packed:", saved)
y.backward()
print("inp.grad with fp16 saves:\n", inp.grad)
inp2 = inp.detach().clone().requires_grad_()
torch.sigmoid(lin(inp2)).pow(2).sum().backward()
print("max diff vs fp32 saves < 1e-3:", (inp.grad - inp2.grad).abs().max().item() < 1e-3)

inp3 = inp2.detach().clone().requires_grad_()
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    (inp3.exp() * inp3).sum().backward()
print("save_on_cpu grad == e^x (x + 1):", torch.allclose(inp3.grad, inp3.detach().exp() * (inp3.detach() + 1)))

with torch.autograd.graph.disable_saved_tensors_hooks("no hooks in this region"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            pass
    except RuntimeError as e:
        print("RuntimeError:", e)

# walking the graph
p = torch.randn(3, requires_grad=True)
q = torch.randn(3, requires_grad=True)
r = (p * q).exp().sum() + (p ** 2).mean() + torch.clamp(q, min=0.0).max()


def walk(fn, depth=0, seen=None):
    seen = set() if seen is None else seen
    if fn is None or fn in seen:
        return
    seen.add(fn)
    attrs = {}
    for k in ["_saved_self", "_saved_other", "_saved_result", "_saved_alpha", "_saved_self_sym_sizes",
              "_saved_exponent", "_saved_min", "_saved_max"]:
        if hasattr(fn, k) and (k != "_saved_result" or fn.name() != "PowBackward0"):
            v = getattr(fn, k)
            attrs[k[7:]] = tuple(v.shape) if isinstance(v, torch.Tensor) else v
    print("  " * depth + fn.name(), attrs)
    for nxt, idx in fn.next_functions:
        walk(nxt, depth + 1, seen)


walk(r.grad_fn)
mul = r.grad_fn.next_functions[0][0].next_functions[0][0].next_functions[0][0].next_functions[0][0]
print("mul node:", mul.name(), "saved self is p:", torch.equal(mul._saved_self, p),
      "saved other is q:", torch.equal(mul._saved_other, q))
pw = r.grad_fn.next_functions[0][0].next_functions[1][0].next_functions[0][0]
print("pow node:", pw.name(), "exponent:", pw._saved_exponent, "self shape:", tuple(pw._saved_self.shape))
acc = mul.next_functions[0][0]
print("leaf node:", type(acc).__name__, "variable is p:", acc.variable is p)
print("metadata dict:", r.grad_fn.metadata)
r.backward(retain_graph=True)
print("p.grad:", p.grad, "q.grad:", q.grad)

# node-level hooks: pre-hook replaces the incoming gradient, post hook observes
events = []
node = r.grad_fn
node.register_prehook(lambda gout: events.append(("pre", [round(g.item(), 4) for g in gout])))
node.register_hook(lambda gin, gout: events.append(("post", len(gin), len(gout))))
p.grad = None
r.backward(torch.tensor(2.0))
print("node hooks:", events, "p.grad doubled:", p.grad)
