"""Autograd graph and lazy-module plumbing that libraries build on: GradientEdge via get_gradient_edge and
torch.autograd.grad with edges as inputs, Node.metadata and name/next_functions walks, increment_version,
allow_mutation_on_saved_tensors, torch.autograd.grad with is_grads_batched; lazy modules (LazyLinear,
LazyConv2d) with UninitializedParameter, has_uninitialized_params, initialization by a dry run, and the global
module hooks register_module_forward_pre_hook / register_module_forward_hook / full backward hook."""

import torch
from torch import nn
from torch.autograd.graph import allow_mutation_on_saved_tensors, get_gradient_edge, increment_version

torch.set_printoptions(precision=4)


def det(*shape, k=0.7):
    n = 1
    for s in shape:
        n *= s
    return torch.sin(torch.arange(n, dtype=torch.float32) * k + 0.1).reshape(shape)


# gradient edges: gradients w.r.t. an intermediate without retaining it
x = det(3).requires_grad_()
h = x.exp()
edge = get_gradient_edge(h)
print("edge", type(edge).__name__, edge.node.name(), edge.output_nr)
out = (h * h).sum()
(gh,) = torch.autograd.grad(out, edge, retain_graph=True)
print("grad wrt edge", gh, torch.allclose(gh, 2 * h))
(gx,) = torch.autograd.grad(out, x)
print("grad wrt x", gx)

# graph walk with names and metadata
y = torch.relu(det(2, 2).requires_grad_() @ det(2, 2, k=1.3)).sum()
y.grad_fn.metadata["tag"] = "loss"
seen, stack = [], [y.grad_fn]
while stack:
    node = stack.pop()
    if node is None:
        continue
    seen.append(node.name())
    stack.extend(n for n, _ in node.next_functions)
print("walk", seen)
print("metadata", y.grad_fn.metadata)

# increment_version invalidates saved tensors modified behind autograd's back
a = torch.tensor([1.0, 2.0], requires_grad=True)
s = a * 1
t = s.pow(2)
with torch.no_grad():
    s.data.mul_(1)
increment_version(s)
try:
    t.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(";")[0][:120])

# allow_mutation_on_saved_tensors: in-place after save is allowed and the old value is used
with allow_mutation_on_saved_tensors():
    w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = w.clone()
    z = (v * v).sum()
    v.mul_(10)
    z.backward()
    u = torch.tensor([1.0, 2.0], requires_grad=True)
    e = u.exp()
    e.mul_(2)
    e.sum().backward()
print("mutation allowed, grad uses old values", w.grad, v, u.grad)
try:
    with allow_mutation_on_saved_tensors():
        with allow_mutation_on_saved_tensors():
            pass
except RuntimeError as e:
    print("RuntimeError:", e)
with allow_mutation_on_saved_tensors() as ctx:
    q = torch.tensor([0.5], requires_grad=True)
    r = q.sin() * 1
print("ctx", type(ctx).__name__)
try:
    r.backward()
except AssertionError as e:
    print("AssertionError:", e)

# is_grads_batched: rows of a Jacobian in one call
inp = det(3).requires_grad_()
outp = inp.sin() * torch.tensor([1.0, 2.0, 3.0])
(jac,) = torch.autograd.grad(outp, inp, torch.eye(3), is_grads_batched=True)
print("batched grads (Jacobian)", jac)

# lazy modules
lazy = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
print("uninitialized", type(lazy[0].weight).__name__, lazy[0].has_uninitialized_params(),
      isinstance(lazy[0].weight, nn.parameter.UninitializedParameter))
print("repr", lazy[0])
try:
    lazy[0].weight.shape
except RuntimeError as e:
    print("RuntimeError:", str(e)[:100])
lazy(torch.ones(5, 3))
print("after dry run", type(lazy[0]).__name__, lazy[0].weight.shape, lazy[2].weight.shape,
      type(lazy[0].weight).__name__)
print("params", sum(p.numel() for p in lazy.parameters()))
conv = nn.LazyConv2d(8, 3, padding=1)
conv(torch.zeros(2, 5, 6, 6))
print("lazy conv", type(conv).__name__, conv.in_channels, conv.weight.shape)
bn = nn.LazyBatchNorm1d()
bn(torch.ones(4, 7))
print("lazy bn", type(bn).__name__, bn.num_features, bn.running_mean.shape)
try:
    nn.LazyLinear(2).state_dict()["weight"].sum()
except (RuntimeError, ValueError) as e:
    print(type(e).__name__ + ":", str(e)[:100])

# global module hooks
events = []
h1 = nn.modules.module.register_module_forward_pre_hook(lambda m, i: events.append(("pre", type(m).__name__)))
h2 = nn.modules.module.register_module_forward_hook(lambda m, i, o: events.append(("post", type(m).__name__)))
h3 = nn.modules.module.register_module_full_backward_hook(
    lambda m, gi, go: events.append(("bwd", type(m).__name__)))
net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
net(torch.ones(1, 2, requires_grad=True)).sum().backward()
for h in (h1, h2, h3):
    h.remove()
net(torch.ones(1, 2))
print("global hook events", events)
