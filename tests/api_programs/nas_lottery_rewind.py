"""Lottery-ticket search with late rewinding: iterative global magnitude pruning of a small CNN, rewinding the
surviving weights to their values after k steps by writing weight_orig in place, masks carried across rounds,
per-layer sparsity from named_buffers, and the ticket frozen with prune.remove."""

import torch
from torch.nn.utils import prune

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 8, 3, padding=1),
                    nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3))
X, Y = torch.randn(32, 1, 8, 8), torch.randint(0, 3, (32,))
prunable = [(m, "weight") for m in net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]


def train(steps, lr=0.1, rewind_at=None):
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    snap = None
    for step in range(steps):
        if step == rewind_at:
            snap = {k: v.detach().clone() for k, v in net.state_dict().items()}
        opt.zero_grad()
        loss = F.cross_entropy(net(X), Y)
        loss.backward()
        opt.step()
    return loss.item(), snap


def sparsity():
    out = {}
    for name, buf in net.named_buffers():
        if name.endswith("weight_mask"):
            out[name[:-len(".weight_mask")]] = round(1 - buf.mean().item(), 4)
    return out


def accuracy():
    with torch.no_grad():
        return (net(X).argmax(1) == Y).float().mean().item()


loss, rewind_state = train(12, rewind_at=2)
print("dense", round(loss, 4), round(accuracy(), 4), sorted(rewind_state)[:3])
for rnd in range(3):
    prune.global_unstructured(prunable, pruning_method=prune.L1Unstructured, amount=0.3)
    print("round", rnd, sparsity())
    with torch.no_grad():
        for module, name in prunable:
            key = [k for k, m in net.named_modules() if m is module][0]
            orig = getattr(module, name + "_orig")
            src = rewind_state.get(f"{key}.{name}_orig", rewind_state.get(f"{key}.{name}"))
            orig.copy_(src)
            module.bias.copy_(rewind_state[f"{key}.bias"])
    kept_zero = all(bool((getattr(m, n)[getattr(m, n + "_mask") == 0] == 0).all()) for m, n in prunable)
    loss, _ = train(12)
    still = all(bool((getattr(m, n)[getattr(m, n + "_mask") == 0] == 0).all()) for m, n in prunable)
    grads_masked = all(bool((getattr(m, n + "_orig").grad[getattr(m, n + "_mask") == 0] == 0).all())
                       for m, n in prunable)
    print("  retrain", round(loss, 4), "acc", round(accuracy(), 4), kept_zero, still, grads_masked)

total = sum(getattr(m, n).numel() for m, n in prunable)
zeros = sum(int((getattr(m, n) == 0).sum()) for m, n in prunable)
print("global sparsity", zeros, total, round(zeros / total, 4), round(1 - 0.7 ** 3, 4))
hooks = net[0]._forward_pre_hooks
container = next(iter(hooks.values()))
print(type(container).__name__, len(container._pruning_methods), container._tensor_name)
print("state keys", [k for k in net.state_dict() if k.startswith("0.")])

masks = {k: v.clone() for k, v in net.named_buffers() if k.endswith("_mask")}
for m, n in prunable:
    prune.remove(m, n)
print("after remove", [k for k in net.state_dict() if k.startswith("0.")], prune.is_pruned(net))
print("masks reproduce zeros", all(bool((net.get_submodule(k[:-12]).weight[v == 0] == 0).all())
                                   for k, v in masks.items()))

# random ticket with the same per-layer sparsity for comparison
torch.manual_seed(5)
rand = nn.Linear(8, 3)
prune.random_unstructured(rand, "weight", amount=int((masks["7.weight_mask"] == 0).sum()))
print("random ticket zeros", int((rand.weight_mask == 0).sum()), int((masks["7.weight_mask"] == 0).sum()))
prune.custom_from_mask(rand, "bias", mask=torch.tensor([1.0, 0.0, 1.0]))
print("bias", (rand.bias == 0).tolist(), type(rand.bias).__name__, rand.bias.grad_fn is not None)
try:
    prune.global_unstructured([(net[0], "weight")], pruning_method=prune.L1Unstructured, amount=0.5,
                              importance_scores={(net[0], "weight"): torch.ones(3)})
except Exception as e:
    print(type(e).__name__, str(e)[:90])
try:
    prune.global_unstructured(prunable, pruning_method=prune.L1Unstructured)
except Exception as e:
    print(type(e).__name__, e)
