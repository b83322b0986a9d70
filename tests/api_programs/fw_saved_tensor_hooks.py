"""Memory and gradient plumbing of autograd as libraries use it: saved_tensors_hooks that count, compress to
float16 and offload, save_on_cpu, disable_saved_tensors_hooks, nesting; register_multi_grad_hook in "all" and
"any" modes; Tensor.register_post_accumulate_grad_hook for an optimizer-in-backward; tensor hooks on
intermediates and retain_grad; Node hooks; and the saved-tensor errors after backward."""

import torch
from torch import nn
from torch.autograd.graph import (
    disable_saved_tensors_hooks,
    register_multi_grad_hook,
    save_on_cpu,
    saved_tensors_hooks,
)

torch.set_printoptions(precision=4)


def det(*shape, k=0.7):
    n = 1
    for s in shape:
        n *= s
    return torch.cos(torch.arange(n, dtype=torch.float32) * k).reshape(shape)


# counting what autograd saves
packed = []


def pack(t):
    packed.append((tuple(t.shape), t.dtype))
    return t


def unpack(t):
    return t


x = det(3, 4).requires_grad_()
w = det(4, 2, k=1.1).requires_grad_()
with saved_tensors_hooks(pack, unpack):
    y = torch.tanh(x @ w).pow(2).sum()
print("saved", sorted(packed, key=str))
y.backward()
print("grad with counting hooks", x.grad[0])
ref = x.grad.clone()

# compress saved activations to float16, decompress on use
sizes = []


def pack_half(t):
    sizes.append(t.numel())
    return (t.dtype, t.to(torch.float16))


def unpack_half(p):
    dtype, h = p
    return h.to(dtype)


x.grad = None
with saved_tensors_hooks(pack_half, unpack_half):
    y = torch.tanh(x @ w).pow(2).sum()
y.backward()
print("fp16 saved elements", sum(sizes), "max grad err", (x.grad - ref).abs().max().item() < 1e-2)


# offload to a store keyed by id, as activation-offloading libraries do
store = {}


def pack_store(t):
    key = len(store)
    store[key] = t.detach().clone()
    return key


def unpack_store(key):
    return store[key]


x.grad = None
with saved_tensors_hooks(pack_store, unpack_store):
    y = (x.exp() * x.sin()).sum()
print("stored keys", sorted(store), [tuple(v.shape) for v in store.values()])
y.backward()
print("offloaded grad", torch.allclose(x.grad, x.exp() * x.sin() + x.exp() * x.cos()))

# save_on_cpu on a small MLP (CPU -> CPU is a no-op copy but must give the same gradients)
mlp = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 1))
with torch.no_grad():
    for i, p in enumerate(mlp.parameters()):
        p.copy_(det(*p.shape, k=0.3 + i))
inp = det(5, 4, k=0.9)
mlp(inp).sum().backward()
g_ref = [p.grad.clone() for p in mlp.parameters()]
mlp.zero_grad()
with save_on_cpu(pin_memory=False):
    out = mlp(inp)
out.sum().backward()
print("save_on_cpu same grads", all(torch.allclose(a, p.grad) for a, p in zip(g_ref, mlp.parameters())))

# nesting: the innermost hooks win
trace = []
with saved_tensors_hooks(lambda t: trace.append("outer") or t, lambda t: t):
    with saved_tensors_hooks(lambda t: trace.append("inner") or t, lambda t: t):
        (x * x).sum()
    (x * 3).sum() * x.sum()
print("nesting trace", trace)

try:
    with disable_saved_tensors_hooks("hooks are disabled inside this region"):
        with saved_tensors_hooks(pack, unpack):
            pass
except RuntimeError as e:
    print("RuntimeError:", e)

# register_multi_grad_hook
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor([0.5], requires_grad=True)
seen = []


def all_hook(grads):
    seen.append(("all", [None if g is None else g.tolist() for g in grads]))


def any_hook(grad):
    seen.append(("any", grad.tolist()))


h_all = register_multi_grad_hook((a, b, c), all_hook)
h_any = register_multi_grad_hook((a, b), any_hook, mode="any")
(a.sum() * b).sum().backward()
print("multi grad hooks", seen)
seen.clear()
h_all.remove()
(a * 2).sum().backward()
print("after remove", seen)
h_any.remove()

# post-accumulate-grad hook: optimizer step inside backward
model = nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(det(2, 3))
    model.bias.zero_()
opts = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}
steps = []


def step_hook(p):
    steps.append(tuple(p.shape))
    opts[p].step()
    opts[p].zero_grad()


handles = [p.register_post_accumulate_grad_hook(step_hook) for p in model.parameters()]
before = model.weight.detach().clone()
model(det(4, 3, k=0.4)).pow(2).sum().backward()
print("stepped in backward", steps, model.weight.grad, (model.weight - before).abs().sum().item() > 0)
print("new weight", model.weight)
try:
    (x * 2).register_post_accumulate_grad_hook(step_hook)
except RuntimeError as e:
    print("RuntimeError:", e)
for h in handles:
    h.remove()

# tensor hooks on intermediates, retain_grad, Node hooks
u = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
v = u * 2
v.retain_grad()
v.register_hook(lambda g: g * torch.tensor([1.0, 0.0, 1.0]))
z = v.relu()
node_log = []
z.grad_fn.register_hook(lambda gin, gout: node_log.append(("post", gin[0].tolist(), gout[0].tolist())))
z.grad_fn.register_prehook(lambda gout: node_log.append(("pre", gout[0].tolist())))
(z * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print("v.grad (before its hook)", v.grad, "u.grad", u.grad)
print("node hooks", node_log)

# saved tensors are freed after backward
q = torch.tensor([0.5, 1.5], requires_grad=True)
r = q.exp()
print("saved result is output", torch.equal(r.grad_fn._saved_result, r))
r.sum().backward()
try:
    r.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:100])
try:
    r.grad_fn._saved_result
except RuntimeError as e:
    print("RuntimeError:", str(e)[:100])
