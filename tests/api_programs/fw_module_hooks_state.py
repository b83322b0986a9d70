"""nn.Module hooks as libraries use them: forward pre-hooks with_kwargs that rewrite arguments, forward hooks
with_kwargs and always_call, full backward hooks and backward pre-hooks that inspect and rescale gradients,
state_dict pre/post hooks, a _register_load_state_dict_pre_hook that migrates an old checkpoint's keys, a
load_state_dict post hook that edits incompatible keys, and removable handles."""

import torch
from torch import nn

torch.set_printoptions(precision=4)


def det(*shape):
    n = 1
    for s in shape:
        n *= s
    return torch.cos(torch.arange(n, dtype=torch.float32) * 0.7).reshape(shape)


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        with torch.no_grad():
            self.lin.weight.copy_(det(2, 3))
            self.lin.bias.copy_(torch.tensor([0.1, -0.1]))

    def forward(self, x, scale=1.0, *, shift=0.0):
        return self.lin(x) * scale + shift


m = Scaled()
x = det(4, 3) + 0.5
log = []


def pre_kw(mod, args, kwargs):
    log.append(("pre", len(args), sorted(kwargs)))
    kwargs = dict(kwargs)
    kwargs["shift"] = kwargs.get("shift", 0.0) + 1.0
    return args, kwargs


def post_kw(mod, args, kwargs, out):
    log.append(("post", tuple(out.shape), kwargs.get("shift")))
    return out * 2


h1 = m.register_forward_pre_hook(pre_kw, with_kwargs=True)
h2 = m.register_forward_hook(post_kw, with_kwargs=True)
y = m(x, 0.5, shift=0.25)
print("hooked y", y)
print("log", log)
h1.remove()
h2.remove()
print("unhooked", torch.allclose(m(x, 0.5, shift=0.25), m.lin(x) * 0.5 + 0.25))

# plain pre-hook returning a new single input (not a tuple) and a prepended hook
order = []
m.register_forward_pre_hook(lambda mod, args: order.append("second"))
m.register_forward_pre_hook(lambda mod, args: order.append("first"), prepend=True)
hp = m.register_forward_pre_hook(lambda mod, args: args[0] * 0)
print("zeroed input", m(x)[0], order)
hp.remove()


# always_call: the hook runs even when forward raises
class Boom(nn.Module):
    def forward(self, x):
        raise ValueError("boom in forward")


b = Boom()
b.register_forward_hook(lambda mod, args, out: print("  always_call hook ran, out =", out), always_call=True)
try:
    b(torch.ones(1))
except ValueError as e:
    print("ValueError:", e)

# full backward hooks and backward pre-hooks
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(det(*p.shape) * (0.5 + 0.1 * i))
events = []


def bwd_hook(mod, grad_input, grad_output):
    events.append((type(mod).__name__, [None if g is None else tuple(g.shape) for g in grad_input],
                   [round(g.norm().item(), 4) for g in grad_output]))


def bwd_pre(mod, grad_output):
    events.append(("pre " + type(mod).__name__, round(grad_output[0].sum().item(), 4)))
    return (grad_output[0] * 10,)


for layer in net:
    layer.register_full_backward_hook(bwd_hook)
net[2].register_full_backward_pre_hook(bwd_pre)
inp = (det(5, 3) * 0.3).requires_grad_()
net(inp).sum().backward()
for e in events:
    print("  bwd", e)
print("inp.grad", inp.grad[:2])
print("first weight grad norm", round(net[0].weight.grad.norm().item(), 4))


def clip_hook(mod, gin, gout):
    return tuple(None if g is None else g.clamp(-0.01, 0.01) for g in gin)


net2 = nn.Linear(3, 2)
with torch.no_grad():
    net2.weight.copy_(det(2, 3))
net2.register_full_backward_hook(clip_hook)
xi = torch.ones(2, 3, requires_grad=True)
(net2(xi) * 100).sum().backward()
print("clipped input grad", xi.grad)

# state_dict hooks
model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
with torch.no_grad():
    model[0].weight.copy_(det(2, 2))
    model[0].bias.zero_()


def sd_pre(module, prefix, keep_vars):
    print("  state_dict pre hook", type(module).__name__, repr(prefix), keep_vars)


def sd_post(module, state_dict, prefix, local_metadata):
    state_dict[prefix + "format_version"] = torch.tensor(2)


model.register_state_dict_pre_hook(sd_pre)
model[0].register_state_dict_post_hook(sd_post)
sd = model.state_dict()
print("keys", list(sd))


# checkpoint migration: old names "fc.w"/"fc.b" -> "weight"/"bias"
def migrate(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    for old, new in (("w", "weight"), ("b", "bias")):
        if prefix + old in state_dict:
            state_dict[prefix + new] = state_dict.pop(prefix + old)
    state_dict.pop(prefix + "format_version", None)


lin = nn.Linear(2, 2)
lin._register_load_state_dict_pre_hook(migrate)
old_ckpt = {"w": det(2, 2) * 3, "b": torch.tensor([1.0, 2.0]), "format_version": torch.tensor(1)}
print("migrated", lin.load_state_dict(old_ckpt), lin.weight, lin.bias)


def post_load(module, incompatible_keys):
    print("  post hook sees missing", incompatible_keys.missing_keys, "unexpected", incompatible_keys.unexpected_keys)
    incompatible_keys.unexpected_keys[:] = [k for k in incompatible_keys.unexpected_keys if not k.endswith("_ema")]


model2 = nn.Linear(2, 2)
try:
    model.state_dict()["0.weight"].add_(0)
    model[0].register_state_dict_post_hook(lambda *a: {})
    model.state_dict()
except RuntimeError as e:
    print("RuntimeError:", e)
handle = model2.register_load_state_dict_post_hook(post_load)
ck = {"weight": torch.eye(2), "bias": torch.zeros(2), "weight_ema": torch.eye(2)}
print("strict load ok", model2.load_state_dict(ck))
handle.remove()
try:
    model2.load_state_dict(ck)
except RuntimeError as e:
    print("RuntimeError:", str(e).replace("\n", " | ")[:150])
print("hook dicts", len(m._forward_pre_hooks), len(m._forward_hooks), len(net[2]._backward_pre_hooks),
      len(net[0]._backward_hooks))
