"""Parametrizations moved between models, as fine-tuning and distillation code does: transfer_parametrizations_
and_params into a fresh copy, type_before_parametrizations, functional_call through a parametrized module,
deepcopy and state dicts of parametrized models, a LoRA-style parametrization trained while the base weight is
frozen, merging it with remove_parametrizations, and custom prune methods next to parametrizations."""

import copy

import torch
from torch import nn
from torch.func import functional_call
from torch.nn.utils import parametrize, prune

torch.manual_seed(61)
torch.set_printoptions(precision=4)


class LoRA(nn.Module):
    def __init__(self, out_f, in_f, rank=2, alpha=4.0):
        super().__init__()
        self.A = nn.Parameter(torch.randn(rank, in_f) * 0.1)
        self.B = nn.Parameter(torch.zeros(out_f, rank))
        self.scale = alpha / rank

    def forward(self, W):
        return W + self.B @ self.A * self.scale


class Clamp(nn.Module):
    def forward(self, W):
        return W.clamp(-0.3, 0.3)


base = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 2))
parametrize.register_parametrization(base[0], "weight", LoRA(6, 5))
parametrize.register_parametrization(base[2], "weight", Clamp())
print("types", [type(m).__name__ for m in base], parametrize.type_before_parametrizations(base[0]).__name__)
print(sorted(base.state_dict().keys()))

# freeze the base weights, train only the LoRA factors
for name, p in base.named_parameters():
    p.requires_grad = "parametrizations.weight.0" in name
trainable = [n for n, p in base.named_parameters() if p.requires_grad]
print("trainable", trainable)
opt = torch.optim.Adam([p for p in base.parameters() if p.requires_grad], lr=0.05)
X = torch.randn(16, 5)
Y = torch.randn(16, 2)
W0 = base[0].parametrizations.weight.original.clone()
for step in range(4):
    opt.zero_grad()
    loss = nn.functional.mse_loss(base(X), Y)
    loss.backward()
    opt.step()
    print("lora step", step, round(loss.item(), 4), round(base[0].parametrizations.weight[0].B.norm().item(), 4))
print("base frozen", torch.equal(W0, base[0].parametrizations.weight.original))
print("delta rank", torch.linalg.matrix_rank((base[0].weight - W0).detach()).item())

# functional_call with a replacement for the original tensor and the LoRA factors
params = dict(base.named_parameters())
params["0.parametrizations.weight.original"] = torch.zeros(6, 5)
out_f = functional_call(base, params, (X[:2],))
lora = base[0].parametrizations.weight[0]
manual = torch.tanh(X[:2] @ (lora.B @ lora.A * lora.scale).T + base[0].bias) @ base[2].weight.T + base[2].bias
print("functional_call", torch.allclose(out_f, manual, atol=1e-6), out_f)
print("module untouched", torch.equal(base[0].parametrizations.weight.original, W0))

# transfer the parametrizations to a fresh model of the same shape
target = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 2))
parametrize.transfer_parametrizations_and_params(base[0], target[0])
parametrize.transfer_parametrizations_and_params(base[2], target[2], "weight")
print("transferred", [type(m).__name__ for m in target], parametrize.is_parametrized(target[0], "weight"))
print("same weights", torch.equal(target[0].weight, base[0].weight), torch.equal(target[2].weight, base[2].weight))
print("shared lora module", target[0].parametrizations.weight[0] is base[0].parametrizations.weight[0])
print("bias not transferred", torch.equal(target[0].bias, base[0].bias))

# deepcopy keeps the parametrized class and makes independent parameters
twin = copy.deepcopy(base)
print(type(twin[0]).__name__, twin[0].parametrizations.weight.original is base[0].parametrizations.weight.original)
with torch.no_grad():
    twin[0].parametrizations.weight[0].B.fill_(0.0)
print("twin reset", torch.equal(twin[0].weight, twin[0].parametrizations.weight.original),
      not torch.equal(base[0].weight, base[0].parametrizations.weight.original))

# merge: leave_parametrized=True bakes W + BA into a plain Parameter
merged_out = base(X[:3])
parametrize.remove_parametrizations(base[0], "weight", leave_parametrized=True)
print(type(base[0]).__name__, type(base[0].weight).__name__, base[0].weight.requires_grad)
print("merged equal", torch.allclose(base(X[:3]), merged_out, atol=1e-6))
print(sorted(base.state_dict().keys()))


# a custom pruning method next to a parametrized layer
class ThresholdPruning(prune.BasePruningMethod):
    PRUNING_TYPE = "unstructured"

    def __init__(self, threshold):
        self.threshold = threshold

    def compute_mask(self, t, default_mask):
        return default_mask * (t.abs() > self.threshold)


def threshold_prune(module, name, threshold):
    ThresholdPruning.apply(module, name, threshold=threshold)
    return module


threshold_prune(base[0], "weight", 0.2)
print("thresholded", round(float((base[0].weight == 0).float().mean()), 4), sorted(base[0].state_dict().keys()))
threshold_prune(base[0], "weight", 0.3)
hook = next(iter(base[0]._forward_pre_hooks.values()))
print(type(hook).__name__, [type(h).__name__ for h in hook], round(float((base[0].weight == 0).float().mean()), 4))
prune.global_unstructured([(base[0], "bias"), (target[0], "bias")], pruning_method=ThresholdPruning, threshold=0.25)
print("global custom", base[0].bias_mask, target[0].bias_mask)
try:
    parametrize.register_parametrization(base[0], "weight", Clamp())
except Exception as e:
    print(type(e).__name__, str(e)[:80])
