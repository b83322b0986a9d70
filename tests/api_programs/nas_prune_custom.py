"""torch.nn.utils.prune extended as compression libraries extend it: a custom BasePruningMethod with its
PRUNING_TYPE, compute_mask chaining inside a PruningContainer, importance_scores, apply_mask, the _orig/_mask
naming in parameters, buffers and state_dict, save/load of a pruned model into a pruned and an unpruned one, and
the errors prune raises."""

import copy
import io

import torch

from torch.nn.utils import prune

nn = torch.nn

torch.manual_seed(0)


class ThresholdPruning(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, threshold):
        self.threshold = threshold

    def compute_mask(self, t, default_mask):
        return default_mask * (t.abs() > self.threshold).to(default_mask.dtype)


class EveryOther(prune.BasePruningMethod):
    PRUNING_TYPE = "structured"
    dim = 0

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask[::2] = 0
        return mask


def threshold_prune(module, name, threshold):
    ThresholdPruning.apply(module, name, threshold=threshold)
    return module


net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
threshold_prune(net[0], "weight", 0.2)
m = net[0]
print("kept", int(m.weight_mask.sum()), "of", m.weight_mask.numel(), m.weight_mask.dtype)
print("params", [n for n, _ in m.named_parameters()], "buffers", [n for n, _ in m.named_buffers()])
hook = list(m._forward_pre_hooks.values())[0]
print(type(hook).__name__, hook._tensor_name, hook.threshold, isinstance(hook, prune.BasePruningMethod))
print("apply_mask equals weight", torch.equal(hook.apply_mask(m), m.weight))

# a second method on the same tensor forms a container; the structured one sees only unpruned slices
EveryOther.apply(m, "weight")
hook = list(m._forward_pre_hooks.values())[0]
print(type(hook).__name__, len(hook._pruning_methods), [type(h).__name__ for h in hook._pruning_methods])
print("rows alive", (m.weight_mask.sum(1) > 0).int().tolist())
prune.l1_unstructured(m, "weight", amount=3)
print("after l1 container", len(hook._pruning_methods), int(m.weight_mask.sum()))

# importance scores decide the mask; the weight itself is untouched until forward
scores = torch.arange(24.0).view(3, 8)
prune.l1_unstructured(net[2], "weight", amount=0.25, importance_scores=scores)
print("importance mask zeros at", (net[2].weight_mask == 0).nonzero().tolist())
prune.identity(net[2], "bias")
print("identity bias mask", net[2].bias_mask.tolist())

sd = net.state_dict()
print("state keys", list(sd.keys()))
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
clone = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
r = clone.load_state_dict(torch.load(buf), strict=False)
print("missing", r.missing_keys)
print("unexpected", r.unexpected_keys)
buf.seek(0)
try:
    clone.load_state_dict(torch.load(buf))
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
pruned_clone = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
prune.identity(pruned_clone[0], "weight")
prune.identity(pruned_clone[2], "weight")
prune.identity(pruned_clone[2], "bias")
buf.seek(0)
print(pruned_clone.load_state_dict(torch.load(buf)))
x = torch.randn(4, 6)
print("pruned clone forward equal", torch.allclose(pruned_clone(x), net(x)))

# deepcopy refuses the computed (non-leaf) weight attribute; remove makes pruning permanent
try:
    copy.deepcopy(net)
except Exception as e:
    print(type(e).__name__, str(e)[:95])
twin = pruned_clone
print("deepcopy pruned", prune.is_pruned(twin), len(twin[0]._forward_pre_hooks))
for mod, name in [(net[0], "weight"), (net[2], "weight"), (net[2], "bias")]:
    prune.remove(mod, name)
print("removed", prune.is_pruned(net), [n for n, _ in net.named_parameters()])
print("sparsity", round(float((net[0].weight == 0).float().mean()), 4), type(net[0].weight).__name__)
print("hooks left", len(net[0]._forward_pre_hooks), list(net.state_dict().keys())[:2])
print("forward equal after remove", torch.allclose(twin(x), net(x)))

for call in [lambda: prune.remove(net[0], "weight"),
             lambda: prune.l1_unstructured(net[0], "weight", amount=1.5),
             lambda: prune.l1_unstructured(net[0], "weight", amount=100),
             lambda: prune.l1_unstructured(net[0], "weight", amount=-1),
             lambda: prune.random_unstructured(net[0], "missing", amount=0.1),
             lambda: prune.ln_structured(net[0], "weight", amount=0.5, n=2, dim=3),
             lambda: prune.global_unstructured([(net[0], "weight")], pruning_method=prune.LnStructured, amount=0.1),
             lambda: prune.custom_from_mask(net[0], "bias", mask=torch.ones(3))]:
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
