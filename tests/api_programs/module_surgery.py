"""Module surgery and instrumentation: named_modules with prefixes and duplicates, get_submodule/set_submodule/
get_parameter/get_buffer, swapping layers in place, apply-based init, freezing by name, forward pre-hooks and hooks
with kwargs, full backward hooks and pre-hooks (gradient surgery), tensor hooks, hook handles, state_dict and
load_state_dict hooks, and the errors of bad paths."""

import collections
import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(17)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.bn = nn.BatchNorm1d(d)
        self.act = nn.ReLU()

    def forward(self, x, gain=1.0):
        return self.act(self.bn(self.conv(x))) * gain


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv1d(2, 4, 1)
        self.blocks = nn.Sequential(collections.OrderedDict([("b0", Block(4)), ("b1", Block(4))]))
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(4, 3)
        self.shared = self.head  # the same module under two names
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x, gain=1.0):
        h = self.blocks[1](self.blocks[0](self.stem(x), gain=gain))
        return self.head(self.pool(h).flatten(1)) * self.scale


net = Net()
print("named_modules", [n for n, _ in net.named_modules()])
print("with_dups", len(list(net.named_modules(remove_duplicate=False))), len(list(net.modules())))
print("prefixed", [n for n, _ in net.blocks.named_modules(prefix="enc")][:4])
print("children", [n for n, _ in net.named_children()])
print("get_submodule", net.get_submodule("blocks.b1.bn"), net.get_submodule("") is net)
print("get_parameter", net.get_parameter("blocks.b0.conv.bias").shape, net.get_buffer("blocks.b1.bn.running_var").shape)
print("num_batches", net.get_buffer("blocks.b0.bn.num_batches_tracked").dtype)
for bad in (
    lambda: net.get_submodule("blocks.b2"),
    lambda: net.get_submodule("head.weight"),
    lambda: net.get_parameter("blocks.b0.bn.running_mean"),
    lambda: net.get_buffer("head.weight"),
    lambda: net.get_parameter("blocks.b0.conv.nothing"),
):
    try:
        bad()
    except AttributeError as e:
        print("path_err", type(e).__name__, str(e))

# swap layers: set_submodule and setattr on a Sequential child
net.set_submodule("blocks.b0.act", nn.GELU(approximate="tanh"))
setattr(net.blocks.b1, "act", nn.SiLU())
print("swapped", net.blocks.b0.act, type(net.get_submodule("blocks.b1.act")).__name__)
try:
    net.set_submodule("blocks.b9.act", nn.ReLU())
except AttributeError as e:
    print("set_err", type(e).__name__, str(e))
for name, m in net.named_modules():
    if isinstance(m, nn.BatchNorm1d):
        parent, _, child = name.rpartition(".")
        net.get_submodule(parent).register_module(child, nn.GroupNorm(2, m.num_features))
print("bn_to_gn", [type(m).__name__ for m in net.blocks.modules()][3:8])


# initialization through apply
@torch.no_grad()
def init_weights(m):
    if isinstance(m, (nn.Conv1d, nn.Linear)):
        m.weight.copy_(T(*m.weight.shape) * 0.3)
        if m.bias is not None:
            m.bias.fill_(0.01)
    elif isinstance(m, nn.GroupNorm):
        m.weight.fill_(1.5)


ret = net.apply(init_weights)
print("apply", ret is net, r(net.stem.weight, 4), net.blocks.b1.bn.weight.tolist())

# freeze by name, count trainable parameters, param groups by decay
for n, p in net.named_parameters():
    p.requires_grad_(not n.startswith("stem"))
trainable = sum(p.numel() for p in net.parameters() if p.requires_grad)
decay = [p for n, p in net.named_parameters() if p.requires_grad and p.dim() > 1]
no_decay = [p for n, p in net.named_parameters() if p.requires_grad and p.dim() <= 1]
print("trainable", trainable, len(decay), len(no_decay), sum(1 for _ in net.parameters()))

# hooks: pre-hook with kwargs rewrites the gain, forward hook with kwargs sees it
log = []


def pre(mod, args, kwargs):
    log.append(("pre", type(mod).__name__, tuple(args[0].shape), kwargs.get("gain")))
    return args, {**kwargs, "gain": 0.5}


def post(mod, args, kwargs, out):
    log.append(("post", kwargs["gain"], tuple(out.shape)))
    return out + 1.0


h1 = net.blocks.b0.register_forward_pre_hook(pre, with_kwargs=True)
h2 = net.blocks.b0.register_forward_hook(post, with_kwargs=True)
h3 = net.register_forward_pre_hook(lambda m, a: (a[0] * 2,))
x = T(3, 2, 7)
y = net(x)
print("hooked", y.shape, r(y), log)
for h in (h1, h2, h3):
    h.remove()
y_plain = net(x)
print("unhooked", r(y_plain), len(net.blocks.b0._forward_pre_hooks), len(net._forward_pre_hooks))
h1.remove()  # removing twice is harmless
print("always_call", len(log))

# backward hooks: record grad norms per layer, scale the gradient flowing into the head
norms = {}


def record(name):
    def hook(mod, grad_input, grad_output):
        norms[name] = (round(grad_output[0].norm().item(), 4), [None if g is None else tuple(g.shape)
                                                                 for g in grad_input])
    return hook


handles = [m.register_full_backward_hook(record(n)) for n, m in net.named_modules() if isinstance(m, nn.Conv1d)]
handles.append(net.head.register_full_backward_pre_hook(lambda m, go: (go[0] * 0.1,)))
handles.append(net.head.register_full_backward_hook(lambda m, gi, go: (gi[0] * 3,)))
xg = x.clone().requires_grad_(True)
out = net(xg)
out.sum().backward()
print("bw_norms", sorted(norms.items()))
print("bw_grads", r(net.head.weight.grad, 4), r(xg.grad, 4), net.stem.weight.grad)
# tensor hooks on activations
acts = {}
h_act = net.blocks.b1.register_forward_hook(lambda m, a, o: acts.__setitem__("b1", o))
out = net(xg)
acts["b1"].register_hook(lambda g: print("act_grad", tuple(g.shape), round(g.abs().sum().item(), 4)))
acts["b1"].retain_grad()
out.pow(2).mean().backward()
print("retained", acts["b1"].grad.shape, acts["b1"].is_leaf, acts["b1"].retains_grad)
for h in handles + [h_act]:
    h.remove()

# state_dict hooks: drop the shared alias on save, rename old keys on load
sd = net.state_dict()
print("sd_keys", [k for k in sd if "head" in k or "shared" in k], "scale" in sd)
net.register_load_state_dict_pre_hook(
    lambda module, state_dict, prefix, *rest: state_dict.update(
        {k.replace("classifier", "head"): state_dict.pop(k) for k in [k for k in state_dict if "classifier" in k]})
)
old = {k.replace("head", "classifier"): v.clone() + 1 for k, v in sd.items()}
res = net.load_state_dict(old, strict=False)
print("load_renamed", res.missing_keys, res.unexpected_keys, r(net.head.bias))
post_calls = []
net.register_load_state_dict_post_hook(lambda module, keys: post_calls.append(len(keys.missing_keys)))
res = net.load_state_dict({"scale": torch.tensor(3.0)}, strict=False)
print("post_hook", post_calls, len(res.missing_keys), net.scale.item())
try:
    net.load_state_dict({"scale": torch.tensor(3.0), "extra": torch.zeros(1)})
except RuntimeError as e:
    print("strict_err", str(e).splitlines()[0], len(str(e).splitlines()))
try:
    net.load_state_dict({**net.state_dict(), "head.weight": torch.zeros(2, 4)})
except RuntimeError as e:
    print("shape_err", str(e).splitlines()[-1].strip())
print("OK")
