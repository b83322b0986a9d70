"""torch.nn.utils.prune as compression code uses it: l1_unstructured and random/ln_structured masks, global
unstructured pruning across layers, iterative pruning through the PruningContainer, the orig/mask state dict,
forward pre hooks, is_pruned, remove, custom methods and the errors."""

import torch
from torch import nn
from torch.nn.utils import prune

torch.manual_seed(11)
torch.set_printoptions(precision=4)


def sparsity(t):
    return round(float((t == 0).sum()) / t.numel(), 4)


net = nn.Sequential(nn.Linear(6, 5), nn.ReLU(), nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2))
w0 = net[0].weight.detach().clone()
prune.l1_unstructured(net[0], name="weight", amount=0.3)
print(net[0])
print([n for n, _ in net[0].named_parameters()], [n for n, _ in net[0].named_buffers()])
print(sorted(net.state_dict().keys()))
print("mask zeros", int((net[0].weight_mask == 0).sum()), "sparsity", sparsity(net[0].weight))
kth = w0.abs().flatten().kthvalue(9).values
print("smallest pruned", bool((w0.abs() <= kth).eq(net[0].weight_mask == 0).all()))
print("weight is tensor attr", type(net[0].weight).__name__, "weight" in net[0]._parameters)
print("hooks", [type(h).__name__ for h in net[0]._forward_pre_hooks.values()])
print("is_pruned", prune.is_pruned(net), prune.is_pruned(net[2]))

# iterative pruning on the same tensor builds a PruningContainer
prune.l1_unstructured(net[0], name="weight", amount=0.5)
hook = next(iter(net[0]._forward_pre_hooks.values()))
print(type(hook).__name__, [type(h).__name__ for h in hook])
print("after second", int((net[0].weight_mask == 0).sum()), sparsity(net[0].weight))
prune.ln_structured(net[0], name="weight", amount=1, n=2, dim=0)
print("rows zeroed", (net[0].weight_mask.sum(1) == 0).tolist())
print("after structured", sparsity(net[0].weight))

# random methods draw from the seeded stream
torch.manual_seed(12)
prune.random_unstructured(net[2], name="bias", amount=2)
print("random bias mask", net[2].bias_mask)
prune.random_structured(net[2], name="weight", amount=0.5, dim=1)
print("random cols", net[2].weight_mask.sum(0))

# global unstructured across layers
torch.manual_seed(13)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.Flatten(), nn.Linear(8, 3))
params = [(model[0], "weight"), (model[2], "weight")]
allw = torch.cat([model[0].weight.detach().flatten(), model[2].weight.detach().flatten()])
prune.global_unstructured(params, pruning_method=prune.L1Unstructured, amount=0.4)
total = sum(getattr(m, n).numel() for m, n in params)
zeros = sum(int((getattr(m, n) == 0).sum()) for m, n in params)
print("global", zeros, total, round(zeros / total, 4))
print("per layer", sparsity(model[0].weight), sparsity(model[2].weight))
thr = allw.abs().sort().values[zeros - 1]
print("threshold check", bool((model[2].weight.abs() > thr).eq(model[2].weight_mask.bool()).all()))

# forward uses the masked weight; gradient flows to weight_orig masked
x = torch.randn(2, 1, 4, 4)
out = model(x)
out.sum().backward()
g = model[2].weight_orig.grad
print("grad zero where masked", bool((g[model[2].weight_mask == 0] == 0).all()))
print("out", out)

# remove makes it permanent
prune.remove(model[2], "weight")
print([n for n, _ in model[2].named_parameters()], list(model[2]._forward_pre_hooks))
print("still sparse", sparsity(model[2].weight), type(model[2].weight).__name__)
print(sorted(model.state_dict().keys()))

# importance scores, custom mask, identity
lin = nn.Linear(3, 3)
scores = torch.arange(9.0).view(3, 3)
prune.l1_unstructured(lin, "weight", amount=3, importance_scores=scores)
print("by scores", lin.weight_mask)
prune.custom_from_mask(lin, "bias", mask=torch.tensor([1.0, 0.0, 1.0]))
print("bias", lin.bias_mask, lin.bias[1].item())
idm = nn.Linear(2, 2)
prune.identity(idm, "weight")
print("identity", idm.weight_mask)


class ThresholdPruning(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, threshold):
        self.threshold = threshold

    def compute_mask(self, t, default_mask):
        return default_mask * (t.abs() > self.threshold)


tp = nn.Linear(4, 4)
ThresholdPruning.apply(tp, "weight", threshold=0.3)
print("custom", int(tp.weight_mask.sum()), bool((tp.weight.abs()[tp.weight_mask.bool()] > 0.3).all()))

# errors
for bad in (1.5, -1, 20):
    try:
        prune.l1_unstructured(nn.Linear(3, 3), "weight", amount=bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
try:
    prune.remove(nn.Linear(2, 2), "weight")
except ValueError as e:
    print("ValueError", e)
try:
    prune.l1_unstructured(nn.Linear(2, 2), "nope", amount=1)
except AttributeError as e:
    print("AttributeError", e)
