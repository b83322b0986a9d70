"""Custom pruning methods as research code writes them: a structured method with its own `dim`, a
threshold method, Taylor importance scores, N:M masks through custom_from_mask, and exporting the
pruned weights into a dense model's state_dict."""

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class ThresholdPruning(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, threshold):
        self.threshold = threshold

    def compute_mask(self, tensor, default_mask):
        return default_mask * (tensor.abs() > self.threshold).to(default_mask.dtype)


class MeanActivationStructured(prune.BasePruningMethod):
    """Prunes the `amount` output channels whose mean |weight| is smallest."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=0):
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        dims = [d for d in range(t.dim()) if d != self.dim]
        score = t.abs().mean(dim=dims)
        drop = torch.argsort(score)[: self.amount]
        mask = default_mask.clone()
        mask.index_fill_(self.dim, drop, 0)
        return mask


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(2, 6, 3)
        self.conv2 = nn.Conv2d(6, 8, 3)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        return self.head(x.mean(dim=(2, 3)))


net = Net()
x = torch.randn(4, 2, 9, 9)
y = torch.randint(0, 4, (4,))

ThresholdPruning.apply(net.conv1, "weight", threshold=0.1)
print("threshold zeros", int(torch.sum(net.conv1.weight_mask == 0)), net.conv1.weight_mask.dtype)
MeanActivationStructured.apply(net.conv1, "weight", amount=2, dim=0)
hook = next(iter(net.conv1._forward_pre_hooks.values()))
print(type(hook).__name__, [type(m).__name__ for m in hook], len(hook))
print("channel sums", net.conv1.weight_mask.sum(dim=(1, 2, 3)).tolist())
MeanActivationStructured.apply(net.conv1, "weight", amount=1, dim=0)
print("after third", net.conv1.weight_mask.sum(dim=(1, 2, 3)).tolist())

# first-order Taylor importance |w * dL/dw| as importance_scores
loss = F.cross_entropy(net(x), y)
loss.backward()
taylor = (net.conv2.weight * net.conv2.weight.grad).abs().detach()
prune.l1_unstructured(net.conv2, "weight", amount=0.4, importance_scores=taylor)
print("taylor zeros", int(torch.sum(net.conv2.weight_mask == 0)), "of", net.conv2.weight_mask.numel())
kept_by_mag = prune.L1Unstructured(amount=0.4).compute_mask(net.conv2.weight_orig, torch.ones_like(taylor))
print("overlap with magnitude", int(((kept_by_mag == 0) & (net.conv2.weight_mask == 0)).sum()))
prune.ln_structured(
    net.conv2,
    "weight",
    amount=2,
    n=1,
    dim=0,
    importance_scores=taylor.sum(dim=(1, 2, 3), keepdim=True).expand_as(taylor).contiguous(),
)
print("conv2 channel sums", net.conv2.weight_mask.sum(dim=(1, 2, 3)).tolist())

# 2:4 sparsity on the head, built by hand and applied with custom_from_mask
w = net.head.weight.detach()
groups = w.abs().reshape(-1, 4)
idx = groups.topk(2, dim=1).indices
nm_mask = torch.zeros_like(groups).scatter_(1, idx, 1.0).reshape(w.shape)
prune.custom_from_mask(net.head, "weight", mask=nm_mask)
print("2:4 ok", bool((net.head.weight.reshape(-1, 4) != 0).sum(1).le(2).all()), int(net.head.weight_mask.sum()))
try:
    prune.custom_from_mask(net.head, "bias", mask=torch.ones(3))
except Exception as e:
    print(type(e).__name__, e)

# a method used without a module
method = ThresholdPruning(0.2)
t = torch.linspace(-0.5, 0.5, 6)
print("prune()", method.prune(t).round(decimals=4).tolist())
print("prune() scored", method.prune(t, importance_scores=t.flip(0)).round(decimals=4).tolist())
print("identity", prune.identity(nn.Linear(2, 2), "bias").bias_mask.tolist())

# training keeps the masks; export to a plain model
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad()
    F.cross_entropy(net(x), y).backward()
    opt.step()
print("zeros kept", [int((m.weight == 0).sum()) for m in (net.conv1, net.conv2, net.head)])
dense_sd = {}
for name, module in net.named_children():
    for pname in ("weight", "bias"):
        dense_sd[f"{name}.{pname}"] = getattr(module, pname).detach().clone()
plain = Net()
print(plain.load_state_dict(dense_sd))
try:
    plain.load_state_dict(net.state_dict())
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print("same outputs", torch.allclose(plain(x), net(x), atol=1e-6))
for module in (net.conv1, net.conv2, net.head):
    prune.remove(module, "weight")
print(prune.is_pruned(net), sorted(net.state_dict().keys()) == sorted(plain.state_dict().keys()))
total = sum(p.numel() for p in net.parameters())
nonzero = sum(int(torch.count_nonzero(p)) for p in net.parameters())
print("global sparsity", round(1 - nonzero / total, 4))
