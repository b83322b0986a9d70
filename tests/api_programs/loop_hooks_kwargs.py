"""Module hooks as training utilities use them: forward pre hooks with_kwargs that rewrite keyword arguments,
forward hooks with_kwargs seeing them, prepend ordering, always_call hooks when forward raises, handles removed
explicitly and as context managers, global module hooks counting calls, backward pre hooks scaling grad_output,
full backward hooks recording gradient norms, and activation statistics collected over a training loop."""

import torch
from torch import nn
from torch.nn.modules import module as module_mod

torch.manual_seed(51)
torch.set_printoptions(precision=4)


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, gate=None, temperature=1.0):
        h = self.lin(x) / temperature
        if gate is not None:
            h = h * gate
        return h


m = Gated()
log = []


def pre_kw(mod, args, kwargs):
    log.append(("pre_kw", sorted(kwargs)))
    kwargs = dict(kwargs)
    kwargs.setdefault("temperature", 2.0)
    if "gate" in kwargs and kwargs["gate"] is not None:
        kwargs["gate"] = kwargs["gate"].clamp(0, 1)
    return args, kwargs


def pre_plain(mod, args):
    log.append(("pre_plain", len(args)))
    return (args[0] * 1.0,)


def post_kw(mod, args, kwargs, output):
    log.append(("post_kw", sorted(kwargs), tuple(output.shape)))
    return output + 0.0


def post_first(mod, args, output):
    log.append(("post_first",))


h1 = m.register_forward_pre_hook(pre_kw, with_kwargs=True)
h2 = m.register_forward_pre_hook(pre_plain, prepend=True)
h3 = m.register_forward_hook(post_kw, with_kwargs=True)
h4 = m.register_forward_hook(post_first, prepend=True)
x = torch.randn(3, 4)
out = m(x, gate=torch.tensor([2.0, -1.0, 0.5, 1.0]))
print(log)
ref = m.lin(x) / 2.0 * torch.tensor([1.0, 0.0, 0.5, 1.0])
print("kwargs rewritten", torch.allclose(out, ref))
log.clear()
out2 = m(x)
print(log, torch.allclose(out2, m.lin(x) / 2.0))
print("hook dicts", len(m._forward_pre_hooks), len(m._forward_hooks), sorted(m._forward_pre_hooks_with_kwargs),
      sorted(m._forward_hooks_with_kwargs) == [h3.id])
for h in (h1, h2, h3, h4):
    h.remove()
h1.remove()  # removing twice is harmless
log.clear()
m(x)
print("after remove", log, len(m._forward_pre_hooks), len(m._forward_hooks))

# a pre hook returning a single non-tuple value is wrapped into a tuple
m.register_forward_pre_hook(lambda mod, args: args[0] * 0)
print("zeroed input", torch.allclose(m(x), m.lin.bias.expand(3, 4)))
m._forward_pre_hooks.clear()

# always_call: the hook runs even when forward raises
class Fails(nn.Module):
    def forward(self, x):
        raise ValueError("bad batch")


f = Fails()
seen = []
f.register_forward_hook(lambda mod, a, o: seen.append("always"), always_call=True)
f.register_forward_hook(lambda mod, a, o: seen.append("normal"))
try:
    f(torch.ones(1))
except ValueError as e:
    print("ValueError", e, seen)

# a handle as a context manager
with m.register_forward_hook(lambda mod, a, o: o * 10):
    inside = m(x)
print("context hook", torch.allclose(inside, m(x) * 10), len(m._forward_hooks))

# global hooks see every module call
counts = {}


def count(mod, args, output):
    counts[type(mod).__name__] = counts.get(type(mod).__name__, 0) + 1


g = module_mod.register_module_forward_hook(count)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
net(x)
g.remove()
net(x)
print("global counts", dict(sorted(counts.items())))

# backward hooks: pre hooks can rescale grad_output, full hooks see grad_input/grad_output
grads = []


def bpre(mod, grad_output):
    grads.append(("pre", tuple(g.shape for g in grad_output)))
    return (grad_output[0] * 0.5,)


def bfull(mod, grad_input, grad_output):
    grads.append(("full", round(grad_output[0].norm().item(), 4), round(grad_input[0].norm().item(), 4)))


lin = nn.Linear(4, 3)
hb1 = lin.register_full_backward_pre_hook(bpre)
hb2 = lin.register_full_backward_hook(bfull)
xi = torch.randn(2, 4, requires_grad=True)
lin(xi).sum().backward()
print(grads)
print("halved weight grad", torch.allclose(lin.weight.grad, 0.5 * xi.detach().sum(0).expand(3, 4)))
print("input grad", [[round(v, 4) for v in row] for row in xi.grad.tolist()])
hb1.remove()
hb2.remove()


# a non-tensor positional argument shows up as None in grad_input; a wrong-size pre-hook result is refused
class Scaled(nn.Module):
    def forward(self, x, scale):
        return x * scale


sc = Scaled()
sc.register_full_backward_hook(lambda mod, gi, go: grads.append(("scaled", len(gi), gi[1])))
sc(torch.ones(2, requires_grad=True), 3.0).sum().backward()
print(grads[-1])
lin.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
try:
    lin(xi).sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)

# activation statistics over a short training loop
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 1))
stats = {}


def record(name):
    def hook(mod, args, output):
        s = stats.setdefault(name, [])
        s.append((round(output.mean().item(), 4), round((output == 0).float().mean().item(), 4)))
    return hook


hooks = [model[i].register_forward_hook(record(f"relu{i}")) for i in (1, 3)]
grad_norms = []
for name, p in model.named_parameters():
    if name.endswith("weight"):
        p.register_hook(lambda g, n=name: grad_norms.append((n, round(g.norm().item(), 4))))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
data = torch.randn(32, 4)
target = data.sum(1, keepdim=True)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(data), target)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), grad_norms[-3:])
for k, v in stats.items():
    print(k, v)
for h in hooks:
    h.remove()
print("hooks left", [len(model[i]._forward_hooks) for i in (1, 3)])
