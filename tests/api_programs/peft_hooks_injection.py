"""Adapters injected with forward hooks and pre-hooks (with_kwargs, prepend, always_call), removed by their handles."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, ids, scale=1.0):
        h = self.emb(ids).mean(1)
        return self.fc2(torch.relu(self.fc1(h))) * scale


net = Net().requires_grad_(False)
ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
base_out = net(ids)

down = nn.Linear(8, 2, bias=False)
up = nn.Linear(2, 8, bias=False)
nn.init.normal_(up.weight, std=0.1)
log = []


def adapter_hook(module, args, output):
    log.append(("adapter", type(module).__name__, len(args), tuple(output.shape)))
    return output + up(down(output))


def pre_hook(module, args):
    log.append(("pre", args[0].shape[-1]))
    return (args[0] * 0.5,)


def kw_pre_hook(module, args, kwargs):
    log.append(("kwpre", sorted(kwargs)))
    kwargs = dict(kwargs, scale=2.0)
    return args, kwargs


def kw_hook(module, args, kwargs, output):
    log.append(("kwpost", kwargs.get("scale")))
    return None


h1 = net.fc1.register_forward_hook(adapter_hook)
h2 = net.fc1.register_forward_pre_hook(pre_hook)
h3 = net.register_forward_pre_hook(kw_pre_hook, with_kwargs=True)
h4 = net.register_forward_hook(kw_hook, with_kwargs=True)
out = net(ids, scale=1.0)
print(log)
print(out.shape, out.requires_grad, out.grad_fn.name())
out.sum().backward()
print("down grad", round(down.weight.grad.abs().sum().item(), 4), "fc1 grad", net.fc1.weight.grad)
print(type(h1).__name__, h1.id >= 0, len(net.fc1._forward_hooks), len(net.fc1._forward_pre_hooks))

# ordering: prepend puts a hook first
order = []
a = net.fc2.register_forward_hook(lambda m, i, o: order.append("a"))
b = net.fc2.register_forward_hook(lambda m, i, o: order.append("b"), prepend=True)
c = net.fc2.register_forward_pre_hook(lambda m, i: order.append("pre_c"), prepend=True)
d = net.fc2.register_forward_pre_hook(lambda m, i: order.append("pre_d"))
net(ids)
print(order)
for h in (a, b, c, d):
    h.remove()
b.remove()

# always_call runs even when forward raises
called = []
net.fc2.register_forward_hook(lambda m, i, o: called.append(o is None), always_call=True)
try:
    net.fc2(torch.randn(2, 5))
except RuntimeError as e:
    print(type(e).__name__, e)
print("always_call", called)
net.fc2._forward_hooks.clear()

for h in (h1, h2, h3, h4):
    h.remove()
print("removed", len(net.fc1._forward_hooks), len(net._forward_pre_hooks))
print("back to base", torch.equal(net(ids), base_out))


# enable_input_require_grads: make embedding outputs require grad for checkpointing a frozen model
def make_inputs_require_grad(module, input, output):
    output.requires_grad_(True)


handle = net.emb.register_forward_hook(make_inputs_require_grad)
e = net.emb(ids)
print("emb out requires grad", e.requires_grad, e.is_leaf, e.grad_fn)
handle.remove()

# a hook that returns a wrong type is used as the output
net.fc2.register_forward_hook(lambda m, i, o: "oops")
print(repr(net.fc2(torch.randn(1, 8))))
net.fc2._forward_hooks.clear()

# a pre-hook returning a non-tuple is wrapped into a tuple
net.fc1.register_forward_pre_hook(lambda m, args: args[0] + 1.0)
print(net.fc1(torch.zeros(1, 8)).shape)
net.fc1._forward_pre_hooks.clear()

# kwargs-pre-hook with the wrong return arity
bad = net.register_forward_pre_hook(lambda m, a, k: a, with_kwargs=True)
try:
    net(ids)
except RuntimeError as e:
    print(type(e).__name__, e)
bad.remove()

# global hooks
g = nn.modules.module.register_module_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
seen = []
net(ids)
g.remove()
print(seen)
net(ids)
print(len(seen))

# full backward hook on a frozen layer still sees grad_input/grad_output shapes
bw = []
net.fc2.register_full_backward_hook(
    lambda m, gi, go: bw.append(([None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go]))
)
x = torch.randn(3, 8, requires_grad=True)
net.fc2(x).sum().backward()
print(bw)
