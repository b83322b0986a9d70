"""The pruning tutorial (torch.nn.utils.prune) as a researcher adapts it: LeNet's conv1 pruned by random_unstructured
and l1_unstructured, the weight_orig parameter and weight_mask buffer, the forward pre-hook, iterative pruning with
ln_structured and its PruningContainer history, state_dict keys, remove, global_unstructured sparsity over several
layers, a custom BasePruningMethod, identity, and the errors of typical mistakes."""

# ruff: noqa: UP008, UP032  (the tutorial's own idioms, kept as written)

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

rng = np.random.default_rng(11)


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, int(x.nelement() / x.shape[0]))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def fill(model):
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    return model


def sparsity(t):
    return round(100.0 * float(torch.sum(t == 0)) / float(t.nelement()), 2)


model = fill(LeNet())
x = torch.from_numpy(rng.standard_normal((2, 1, 28, 28)).astype(np.float32))
module = model.conv1
print(list(n for n, _ in module.named_parameters()))
print(list(module.named_buffers()))

# random pruning: only the mask's count is deterministic across libraries
prune.random_unstructured(module, name="weight", amount=0.3)
print([n for n, _ in module.named_parameters()])
print([n for n, _ in module.named_buffers()])
print("mask zeros", int((module.weight_mask == 0).sum()), module.weight_mask.dtype, module.weight_mask.shape)
print("weight is attr", "weight" in module._parameters, type(module.weight).__name__)
print("pre-hooks", [type(h).__name__ for h in module._forward_pre_hooks.values()])
print("masked equals", torch.equal(module.weight, module.weight_orig * module.weight_mask))

# l1 on the bias: the 3 smallest magnitudes go
bias_before = module.bias.detach().clone()
prune.l1_unstructured(module, name="bias", amount=3)
print("bias mask", module.bias_mask.tolist())
pruned_idx = sorted((module.bias_mask == 0).nonzero().flatten().tolist())
print("smallest pruned", sorted(bias_before.abs().argsort()[:3].tolist()) == pruned_idx)
print("bias", np.round(module.bias.detach().numpy(), 4).tolist())
print("hooks", len(module._forward_pre_hooks))

# iterative pruning: ln_structured on top of random_unstructured
prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
kept = (module.weight_mask.sum(dim=(1, 2, 3)) > 0).tolist()
print("channels kept", sum(kept), len(kept))
for hook in module._forward_pre_hooks.values():
    if hook._tensor_name == "weight":
        break
print(type(hook).__name__, [type(h).__name__ for h in hook], hook._tensor_name)
print(sorted(model.state_dict().keys()))

# make it permanent
out_masked = model(x)
prune.remove(module, "weight")
prune.remove(module, "bias")
print([n for n, _ in module.named_parameters()], list(module.named_buffers()))
print("after remove", torch.allclose(model(x), out_masked), len(module._forward_pre_hooks), sparsity(module.bias))

# prune several parameters, global pruning
new_model = fill(LeNet())
for name, mod in new_model.named_modules():
    if isinstance(mod, torch.nn.Conv2d):
        prune.l1_unstructured(mod, name="weight", amount=0.2)
    elif isinstance(mod, torch.nn.Linear):
        prune.l1_unstructured(mod, name="weight", amount=0.4)
print(dict(new_model.named_buffers()).keys())
layers = (new_model.conv1, new_model.conv2, new_model.fc1, new_model.fc2, new_model.fc3)
print("per-layer", [sparsity(m.weight) for m in layers])

model = fill(LeNet())
parameters_to_prune = (
    (model.conv1, "weight"),
    (model.conv2, "weight"),
    (model.fc1, "weight"),
    (model.fc2, "weight"),
    (model.fc3, "weight"),
)
all_w = torch.cat([m.weight.detach().flatten().abs() for m, _ in parameters_to_prune])
prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
for m, _ in parameters_to_prune:
    print("Sparsity in {}: {:.2f}%".format(type(m).__name__, sparsity(m.weight)))
total_zero = sum(float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune)
total = sum(float(m.weight.nelement()) for m, _ in parameters_to_prune)
print("Global sparsity: {:.2f}%".format(100.0 * total_zero / total))
thr = all_w.sort().values[int(round(0.2 * all_w.numel())) - 1]
kept_ok = all(bool((m.weight.abs()[m.weight_mask == 1] >= thr).all()) for m, _ in parameters_to_prune)
print("threshold respected", kept_ok)
print("is_pruned", prune.is_pruned(model), prune.is_pruned(LeNet()))


# a custom pruning method: every other entry of the flattened tensor
class FooBarPruningMethod(prune.BasePruningMethod):
    """Prune every other entry in a tensor"""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        mask = default_mask.clone()
        mask.view(-1)[::2] = 0
        return mask


def foobar_unstructured(module, name):
    FooBarPruningMethod.apply(module, name)
    return module


model = fill(LeNet())
foobar_unstructured(model.fc3, name="bias")
print(model.fc3.bias_mask)
prune.identity(model.fc2, "bias")
print("identity", int(model.fc2.bias_mask.sum()), model.fc2.bias_mask.numel())
prune.l1_unstructured(model.fc2, "bias", amount=0.25)
print("fc2 bias zeros", int((model.fc2.bias == 0).sum()))

# amounts and typical mistakes
for bad in (1.5, -1, 100):
    try:
        prune.l1_unstructured(nn.Linear(4, 3), "weight", amount=bad)
    except Exception as e:
        print(type(e).__name__, e)
try:
    prune.l1_unstructured(nn.Linear(4, 3), "weights", amount=0.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    prune.remove(nn.Linear(4, 3), "weight")
except Exception as e:
    print(type(e).__name__, e)
lin = fill(nn.Linear(5, 4))
prune.ln_structured(lin, "weight", amount=0.5, n=1, dim=1)
print("cols kept", (lin.weight_mask.sum(0) > 0).int().tolist())
try:
    prune.random_structured(lin, "bias", amount=0.5, dim=0)
except ValueError as e:
    print(type(e).__name__, e)
print("bias restored", [n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()])
prune.random_structured(lin, "weight", amount=0.0, dim=0)
hook = lin._forward_pre_hooks[next(iter(lin._forward_pre_hooks))]
print("zero amount", int(lin.weight_mask.sum()), type(hook).__name__)
lin(torch.ones(2, 5)).sum().backward()
print("grad orig", np.round(lin.weight_orig.grad.numpy(), 4).tolist()[0])
