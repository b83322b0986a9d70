"""Structured and mask-based pruning before quantization: ln_structured channel pruning of a conv, importance
scores, custom_from_mask, identity and random_structured, the masks in state_dict and loading them into a fresh
pruned model, per-output-channel int8 scales computed on the surviving channels, and PyTorch's pruning errors."""

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def make():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 4, 3), nn.Flatten(), nn.LazyLinear(2))


net = make()
x = torch.randn(2, 3, 6, 6)
net(x)
print("lazy materialized", net[4].weight.shape)
conv = net[0]
prune.ln_structured(conv, "weight", amount=0.25, n=2, dim=0)
norms = conv.weight_orig.detach().flatten(1).norm(dim=1)
kept = conv.weight_mask.flatten(1).any(1)
print("L2 norms", norms.round(decimals=3).tolist())
print("pruned channels", (~kept).nonzero().flatten().tolist(), "lowest norms", norms.argsort()[:2].tolist())
print("mask dtype", conv.weight_mask.dtype, "shape", conv.weight_mask.shape)

# a second structured round along dim=1 on the next conv, scored by an external importance
imp = torch.arange(8.0).view(1, 8, 1, 1).expand(4, 8, 3, 3)
prune.ln_structured(net[2], "weight", amount=3, n=1, dim=1, importance_scores=imp)
print("input channels zeroed", (net[2].weight.abs().sum(dim=(0, 2, 3)) == 0).nonzero().flatten().tolist())
prune.custom_from_mask(net[2], "bias", mask=torch.tensor([1.0, 0.0, 1.0, 1.0]))
print("bias", net[2].bias.detach().round(decimals=4).tolist())
prune.identity(net[4], "weight")
print("identity mask all ones", bool(net[4].weight_mask.all()))
prune.random_structured(net[4], "weight", amount=0.5, dim=0)
print("random_structured rows kept", int(net[4].weight_mask.any(1).sum()))

sd = net.state_dict()
print("state_dict keys", [k for k in sd if "mask" in k or "orig" in k])
fresh = make()
fresh(x)
for mod, names in ((fresh[0], ["weight"]), (fresh[2], ["weight", "bias"]), (fresh[4], ["weight"])):
    for n in names:
        prune.identity(mod, n)
fresh.load_state_dict(sd)
print("reloaded equal", torch.equal(fresh(x), net(x)))
print("hooks after identity+random", [type(h).__name__ for h in net[4]._forward_pre_hooks.values()])
print("container history", [type(m).__name__ for m in net[4]._forward_pre_hooks[next(iter(net[4]._forward_pre_hooks))]])

# fold masks permanently, then quantize per output channel (pruned channels keep scale 1)
for mod, n in ((conv, "weight"), (net[2], "weight"), (net[2], "bias"), (net[4], "weight")):
    prune.remove(mod, n)
w = conv.weight.detach()
amax = w.abs().amax(dim=(1, 2, 3))
scale = torch.where(amax > 0, amax / 127, torch.ones_like(amax))
wq = torch.clamp(torch.round(w / scale.view(-1, 1, 1, 1)), -127, 127).to(torch.int8)
print("scales", scale.round(decimals=5).tolist())
print("int8 zero channels", (wq.flatten(1) == 0).all(1).nonzero().flatten().tolist())
deq = wq.float() * scale.view(-1, 1, 1, 1)
print("conv err", round((F.conv2d(x, deq, conv.bias, padding=1) - conv(x)).abs().max().item(), 4))
sparsity = sum(int((p == 0).sum()) for n, p in net.named_parameters() if n.endswith("weight"))
total = sum(p.numel() for n, p in net.named_parameters() if n.endswith("weight"))
print("global weight sparsity", round(sparsity / total, 4), "is_pruned", prune.is_pruned(net))

bad = [
    lambda: prune.ln_structured(nn.Linear(3, 3), "weight", amount=0.5, n=2, dim=2),
    lambda: prune.l1_unstructured(nn.Linear(3, 3), "weight", amount=-0.1),
    lambda: prune.l1_unstructured(nn.Linear(3, 3), "weight", amount=10),
    lambda: prune.custom_from_mask(nn.Linear(3, 3), "weight", mask=torch.ones(2, 3)),
    lambda: prune.l1_unstructured(nn.Linear(3, 3), "nonexistent", amount=0.5),
    lambda: prune.global_unstructured([(nn.Linear(3, 3), "weight")], pruning_method=prune.L1Unstructured),
    lambda: prune.ln_structured(nn.Linear(3, 3), "weight", amount=0.5, n=2, dim=0, importance_scores=torch.ones(2, 2)),
]
for fn in bad:
    try:
        fn()
        print("accepted")
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
