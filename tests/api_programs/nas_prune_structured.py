"""Structured filter pruning for real speed-ups: ln_structured over output and input channels with every norm
order, the method classes' compute_mask called directly, structured importance scores from BN gammas, masks
turned into a physically smaller Conv-BN-Conv chain, and the pruned network checked against the masked one."""

import torch
from torch.nn.utils import prune

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
conv = nn.Conv2d(3, 6, 3, padding=1)
w = conv.weight.detach().clone()
norms = {n: torch.linalg.vector_norm(w.flatten(1), ord=n, dim=1) for n in [1, 2, float("inf"), float("-inf")]}
for n in [1, 2, float("inf"), float("-inf"), "fro"]:
    method = prune.LnStructured(amount=2, n=n, dim=0)
    try:
        mask = method.compute_mask(w, default_mask=torch.ones_like(w))
        print("n", n, "pruned filters", (mask.flatten(1).sum(1) == 0).nonzero().flatten().tolist())
    except Exception as e:
        print("n", n, type(e).__name__, e)
print("fro over two dims", prune.LnStructured(amount=1, n="fro", dim=0).compute_mask(
    w[:, :, 0], torch.ones_like(w[:, :, 0])).sum(1).tolist())
print("l1 norms", norms[1].round(decimals=4).tolist())
print("method attrs", prune.LnStructured.PRUNING_TYPE, prune.L1Unstructured.PRUNING_TYPE, prune.Identity.PRUNING_TYPE)
rs = prune.RandomStructured(amount=0.5, dim=1)
torch.manual_seed(1)
m = rs.compute_mask(w, torch.ones_like(w))
print("random structured in-channels kept", (m.sum((0, 2, 3)) > 0).int().tolist(), m.dtype)

# a mask already zeroing filters: ln_structured on dim=1 inside a container
prune.ln_structured(conv, "weight", amount=0.34, n=2, dim=0)
print("after dim0", (conv.weight_mask.sum((1, 2, 3)) == 0).int().tolist())
prune.ln_structured(conv, "weight", amount=1, n=1, dim=1)
print("after dim1", (conv.weight_mask.sum((0, 2, 3)) == 0).int().tolist(), int(conv.weight_mask.sum()))
cont = list(conv._forward_pre_hooks.values())[0]
print(type(cont).__name__, [(type(h).__name__, h.dim) for h in cont._pruning_methods])
prune.remove(conv, "weight")


class Net(nn.Module):
    def __init__(self, c1=8, c2=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, c1, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.fc = nn.Linear(c2, 2)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return self.fc(F.relu(self.conv2(x)).mean((2, 3)))


net = Net()
with torch.no_grad():
    net.bn1.weight.copy_(torch.tensor([0.9, 0.05, 1.2, 0.3, 0.01, 0.8, 0.02, 1.1]))
    net.bn1.running_var.uniform_(0.5, 1.5)
net.eval()
scores = net.bn1.weight.detach().abs().view(-1, 1, 1, 1).expand_as(net.conv1.weight)
prune.ln_structured(net.conv1, "weight", amount=3, n=1, dim=0, importance_scores=scores)
keep = net.conv1.weight_mask.flatten(1).any(1)
print("kept filters", keep.nonzero().flatten().tolist())
prune.custom_from_mask(net.bn1, "weight", mask=keep.float())
prune.custom_from_mask(net.bn1, "bias", mask=keep.float())
x = torch.randn(2, 3, 5, 5)
with torch.no_grad():
    masked_out = net(x)
idx = keep.nonzero().flatten()
small = Net(len(idx)).eval()
with torch.no_grad():
    small.conv1.weight.copy_(net.conv1.weight[idx])
    for name in ["weight", "bias", "running_mean", "running_var"]:
        getattr(small.bn1, name).copy_(getattr(net.bn1, name)[idx])
    small.conv2.weight.copy_(net.conv2.weight[:, idx])
    small.conv2.bias.copy_(net.conv2.bias)
    small.fc.load_state_dict(net.fc.state_dict())
    small_out = small(x)
print("pruned == masked", torch.allclose(small_out, masked_out, atol=1e-5), tuple(small.conv2.weight.shape))
count = lambda m: sum(p.numel() for n, p in m.named_parameters())
print("params", count(small), "vs", sum(p.numel() for p in Net().parameters()))
print("buffers", sorted(n for n, _ in net.named_buffers()))
print(prune.is_pruned(net), prune.is_pruned(small))
for call in [lambda: prune.ln_structured(net.conv2, "weight", amount=0.5, n=2, dim=4),
             lambda: prune.ln_structured(net.fc, "bias", amount=1, n=2, dim=0),
             lambda: prune.LnStructured(amount=0.5, n=2, dim=0).compute_mask(w, torch.ones(2)),
             lambda: prune.random_structured(net.conv2, "weight", amount=1.2, dim=0),
             lambda: prune.ln_structured(net.conv2, "weight", amount=0.5, n=2, dim=0,
                                         importance_scores=torch.ones(3))]:
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e)[:140])
