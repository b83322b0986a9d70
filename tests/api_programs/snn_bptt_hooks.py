"""Inspecting BPTT through a spiking layer: tensor hooks on membrane states, retain_grad, node hooks,
multi-grad hooks."""

import torch

nn = torch.nn
F = torch.nn.functional


class Spike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u):
        ctx.save_for_backward(u)
        return (u > 0).float()

    @staticmethod
    def backward(ctx, g):
        (u,) = ctx.saved_tensors
        return g * 0.3 * torch.clamp(1 - u.abs(), min=0)


torch.manual_seed(0)
fc = nn.Linear(3, 4)
x = torch.randn(6, 2, 3) * 2
mem = torch.zeros(2, 4)
mems, grads_seen = [], {}
for t in range(6):
    mem = 0.9 * mem + fc(x[t])
    mem.retain_grad()
    mems.append(mem)
    mem.register_hook(lambda g, t=t: grads_seen.__setitem__(t, round(g.abs().sum().item(), 4)))
    spk = Spike.apply(mem - 1.0)
    mem = mem - spk
out = mem.sum()
out.backward()
print("hook order", list(grads_seen.keys()))
print("hook sums", [grads_seen[t] for t in range(6)])
print("retained", [round(m.grad.sum().item(), 4) for m in mems])
print("is_leaf", mems[0].is_leaf, mems[0].retains_grad, fc.weight.retains_grad)

# a hook that rescales the gradient: gradient clipping through time
fc.zero_grad()
mem = torch.zeros(2, 4)
for t in range(6):
    mem = 0.9 * mem + fc(x[t])
    mem.register_hook(lambda g: g.clamp(-0.5, 0.5))
    mem = mem - Spike.apply(mem - 1.0)
mem.pow(2).sum().backward()
print("clipped w grad", fc.weight.grad.round(decimals=4).tolist())

# truncated BPTT: detach the state every k steps
fc.zero_grad()
mem = torch.zeros(2, 4)
losses = []
for t in range(6):
    if t % 3 == 0:
        mem = mem.detach()
        print("detached at", t, mem.requires_grad, mem.grad_fn)
    mem = 0.9 * mem + fc(x[t])
    mem = mem - Spike.apply(mem - 1.0)
    losses.append(mem.mean())
    if t % 3 == 2:
        torch.stack(losses).sum().backward()
        losses = []
print("tbptt w grad", round(fc.weight.grad.sum().item(), 4))

# node hooks: pre-hooks see the incoming gradient, hooks see both sides
a = torch.tensor([0.5, 1.5, -0.2], requires_grad=True)
u = a * 2
s = Spike.apply(u - 1.0)
node = s.grad_fn
print(node.name(), [type(n).__name__ if n is not None else None for n, _ in node.next_functions])
h1 = node.register_prehook(lambda gout: print("  prehook", [g.tolist() for g in gout]))
h2 = node.register_hook(
    lambda gin, gout: print("  hook in", [g.tolist() for g in gin if g is not None], "out", [g.tolist() for g in gout])
)
s.sum().backward(retain_graph=True)
h1.remove()
h2.remove()
s.sum().backward()
print("a.grad", a.grad.tolist())

# a pre-hook that replaces the gradient
h = node.register_prehook(lambda gout: (gout[0] * 10,))
a.grad = None
u = a * 2
s = Spike.apply(u - 1.0)
s.grad_fn.register_prehook(lambda gout: (gout[0] * 10,))
s.sum().backward()
print("scaled a.grad", a.grad.tolist())

# a multi-grad hook fires once all listed tensors have their gradient
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = torch.tensor([3.0], requires_grad=True)
seen = []
handle = torch.autograd.graph.register_multi_grad_hook(
    (p, q), lambda gs: seen.append([None if g is None else g.tolist() for g in gs])
)
(p.sum() * q).sum().backward()
print("multi", seen)
handle.remove()
any_seen = []
torch.autograd.graph.register_multi_grad_hook((p, q), lambda g: any_seen.append(g.tolist()), mode="any")
(p * 2).sum().backward()
print("any", any_seen)

# hooks on tensors that do not require grad, and removed handles
try:
    torch.zeros(2).register_hook(lambda g: g)
except Exception as e:
    print(type(e).__name__, e)
w = torch.ones(2, requires_grad=True)
hh = w.register_hook(lambda g: g * 100)
hh.remove()
hh.remove()
(w * 3).sum().backward()
print("after remove", w.grad.tolist())
try:
    torch.zeros(2).retain_grad()
except Exception as e:
    print(type(e).__name__, e)
y = w * 1
print("non-leaf .grad", y.grad)
