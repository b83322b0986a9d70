"""Lottery-ticket style iterative magnitude pruning with weight rewinding: global L1 pruning over the
conv and linear weights, rewinding the survivors to their early-training values through state_dict."""

import copy

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.fc1 = nn.Linear(4 * 4 * 4, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def sparsity(model):
    zeros = total = 0
    for name, buf in model.named_buffers():
        if name.endswith("_mask"):
            zeros += int(torch.sum(buf == 0))
            total += buf.numel()
    return round(zeros / max(total, 1), 4)


x = torch.randn(32, 1, 8, 8)
y = torch.randint(0, 3, (32,))
model = SmallNet()
rewind_state = None
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(6):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    if step == 1:
        rewind_state = copy.deepcopy(model.state_dict())
print("dense loss", round(loss.item(), 4))

targets = [(model.conv, "weight"), (model.fc1, "weight"), (model.fc2, "weight")]
for rnd in range(3):
    prune.global_unstructured(targets, pruning_method=prune.L1Unstructured, amount=0.3)
    hooks = [type(h).__name__ for h in model.fc1._forward_pre_hooks.values()]
    print("round", rnd, "sparsity", sparsity(model), hooks)
    per_layer = [(n, int(torch.sum(getattr(m, n + "_mask") == 0)), getattr(m, n + "_mask").numel()) for m, n in targets]
    print(" per layer", per_layer)
    # rewind: the surviving weights restart from their step-1 values; masks are kept
    rewound = {
        k + "_orig" if k.endswith("weight") and k.split(".")[0] in ("conv", "fc1", "fc2") else k: v
        for k, v in rewind_state.items()
    }
    result = model.load_state_dict(rewound, strict=False)
    print(" missing", sorted(result.missing_keys), "unexpected", sorted(result.unexpected_keys))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(4):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    print(
        " loss",
        round(loss.item(), 4),
        "pruned grads zero",
        bool((model.fc1.weight_orig.grad[model.fc1.weight_mask == 0] == 0).all()),
    )

container = list(model.fc1._forward_pre_hooks.values())[0]
print(
    type(container).__name__,
    container._tensor_name,
    len(container._pruning_methods),
    [type(m).__name__ for m in container._pruning_methods],
)
print(sorted(model.state_dict().keys()))
print([n for n, _ in model.named_parameters()])

# a generator is read twice by global_unstructured, so PyTorch finds no masks
try:
    prune.global_unstructured(((m, "bias") for m in (model.fc1, model.fc2)), prune.L1Unstructured, amount=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    prune.global_unstructured(targets, pruning_method=prune.RandomStructured, amount=0.1, dim=0)
except Exception as e:
    print(type(e).__name__, e)
try:
    copy.deepcopy(model)
except Exception as e:
    print(type(e).__name__, str(e)[:70])

for m, n in targets:
    prune.remove(m, n)
print("is_pruned", prune.is_pruned(model), sorted(model.state_dict().keys())[:3])
print("final nonzero", [int(torch.count_nonzero(m.weight)) for m, _ in targets], [m.weight.numel() for m, _ in targets])
clone = copy.deepcopy(model)
print("clone ok", torch.allclose(clone(x), model(x)), round(model(x).sum().item(), 4))
