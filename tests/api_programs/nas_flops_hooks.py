"""FLOP and parameter counting as efficiency papers do it: forward hooks per module type (grouped and depthwise
convs, transposed convs, linear, norms, pooling, activations), global module hooks, hooks with kwargs, handles
removed afterwards, torch.utils.flop_counter.FlopCounterMode as the cross-check, and a per-layer table."""

import torch
from torch.utils.flop_counter import FlopCounterMode

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, c, e=4):
        super().__init__()
        h = c * e
        self.pw1 = nn.Conv2d(c, h, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(h)
        self.dw = nn.Conv2d(h, h, 3, padding=1, groups=h, bias=False)
        self.bn2 = nn.BatchNorm2d(h)
        self.act = nn.Hardswish()
        self.pw2 = nn.Conv2d(h, c, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = self.act(self.bn1(self.pw1(x)))
        y = self.act(self.bn2(self.dw(y)))
        return x + self.bn3(self.pw2(y))


model = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True), Block(8),
                      nn.Conv2d(8, 16, 3, padding=1, groups=2), nn.GELU(), nn.MaxPool2d(2),
                      nn.ConvTranspose2d(16, 8, 2, stride=2), nn.GroupNorm(4, 8), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(8, 10), nn.LayerNorm(10))
model.eval()
macs, table = {}, []


def conv_hook(m, inp, out):
    k = m.kernel_size[0] * m.kernel_size[1]
    if isinstance(m, nn.ConvTranspose2d):
        n = inp[0].numel() // inp[0].shape[1] * m.in_channels * m.out_channels // m.groups * k
    else:
        n = out.numel() * (m.in_channels // m.groups) * k
    return n + (out.numel() if m.bias is not None else 0)


def count(m, inp, out):
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        n = conv_hook(m, inp, out)
    elif isinstance(m, nn.Linear):
        n = inp[0].numel() * m.out_features + (out.numel() if m.bias is not None else 0)
    elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm, nn.LayerNorm)):
        n = 2 * out.numel()
    elif isinstance(m, (nn.ReLU, nn.GELU, nn.Hardswish)):
        n = out.numel()
    elif isinstance(m, (nn.MaxPool2d, nn.AdaptiveAvgPool2d)):
        n = inp[0].numel()
    else:
        return
    macs[m] = macs.get(m, 0) + n
    params = sum(p.numel() for p in m.parameters(recurse=False))
    table.append((type(m).__name__, tuple(out.shape), n, params))


handles = [m.register_forward_hook(count) for m in model.modules() if not list(m.children())]
x = torch.randn(1, 3, 16, 16)
with torch.no_grad():
    y = model(x)
for row in table:
    print(row)
print("total MACs", sum(macs.values()), "params", sum(p.numel() for p in model.parameters()))
print("hardswish called", sum(1 for r in table if r[0] == "Hardswish"), "entries", len(table))
for h in handles:
    h.remove()
table.clear()
model(x)
print("after remove", len(table), len(model[0]._forward_hooks))

# global hooks see every module call, including containers
seen = []
g = nn.modules.module.register_module_forward_hook(lambda m, i, o: seen.append(type(m).__name__))
model(x)
g.remove()
print("global", len(seen), seen[-1], seen.count("Block"))


# a kwargs hook: the module receives a keyword argument
class Scaled(nn.Module):
    def forward(self, x, scale=1.0):
        return x * scale


s = Scaled()
calls = []
hk = s.register_forward_hook(lambda m, args, kwargs, out: calls.append((len(args), sorted(kwargs), out.sum().item())),
                             with_kwargs=True)
pre = s.register_forward_pre_hook(lambda m, args, kwargs: (args, {**kwargs, "scale": 2.0}), with_kwargs=True)
print("kwargs out", s(torch.ones(3), scale=5.0).tolist(), calls)
hk.remove()
pre.remove()

# FlopCounterMode counts 2 * MACs of the matmul-like ops it knows
lin = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
with FlopCounterMode(display=False) as fc:
    lin(torch.randn(5, 16))
print("flop counter", fc.get_total_flops(), 2 * 5 * (16 * 32 + 32 * 4))
counts = fc.get_flop_counts()
print("modules", sorted(counts)[:3], {str(k): v for k, v in counts["Global"].items()})
conv = nn.Conv2d(3, 6, 3, padding=1, groups=3)
with FlopCounterMode(display=False) as fc:
    conv(torch.randn(2, 3, 8, 8)).sum().backward()
print("conv fwd+bwd", fc.get_total_flops(), {str(k): v for k, v in fc.get_flop_counts()["Global"].items()})
try:
    model[0].register_forward_hook(lambda m, i, o: None, with_kwargs=True)(None)
except Exception as e:
    print(type(e).__name__, e)
