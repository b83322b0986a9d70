"""LoRA wrapping nn.Linear: A/B init, alpha/r scaling, dropout on the LoRA path, merge/unmerge, and its misuse."""

import math
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class LoraLinear(nn.Module):
    def __init__(
        self, base: nn.Linear, r: int = 4, lora_alpha: float = 16, lora_dropout: float = 0.1, fan_in_fan_out=False
    ):
        super().__init__()
        if r <= 0:
            raise ValueError(f"`r` should be a positive integer value but the value passed is {r}")
        self.base_layer = base
        self.r = r
        self.lora_alpha = lora_alpha
        self.scaling = lora_alpha / r
        self.lora_dropout = nn.Dropout(p=lora_dropout) if lora_dropout > 0 else nn.Identity()
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.merged = False

    def get_delta_weight(self):
        return (self.lora_B.weight @ self.lora_A.weight) * self.scaling

    def merge(self, safe_merge=False):
        if self.merged:
            raise RuntimeError("Already merged. Nothing to do.")
        with torch.no_grad():
            if safe_merge:
                w = self.base_layer.weight.data.clone()
                w += self.get_delta_weight()
                if not torch.isfinite(w).all():
                    raise ValueError("NaNs detected in the merged weights")
                self.base_layer.weight.data = w
            else:
                self.base_layer.weight.data += self.get_delta_weight()
        self.merged = True

    def unmerge(self):
        if not self.merged:
            print("Already unmerged. Nothing to do.")
            return
        self.base_layer.weight.data -= self.get_delta_weight()
        self.merged = False

    def forward(self, x):
        result = self.base_layer(x)
        if self.merged:
            return result
        return result + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling

    def extra_repr(self):
        return f"r={self.r}, lora_alpha={self.lora_alpha}, scaling={self.scaling}"


base = nn.Linear(12, 6)
layer = LoraLinear(base, r=4, lora_alpha=16, lora_dropout=0.1)
print(layer)
print("A", tuple(layer.lora_A.weight.shape), "B", tuple(layer.lora_B.weight.shape), "scaling", layer.scaling)
print("A bound ok", bool(layer.lora_A.weight.abs().max() <= 1 / math.sqrt(12)))
print("B zeros", layer.lora_B.weight.abs().sum().item())
for n, p in layer.named_parameters():
    p.requires_grad_("lora_" in n)
print([(n, p.requires_grad) for n, p in layer.named_parameters()])

x = torch.randn(3, 5, 12)
target = torch.randn(3, 5, 6)
opt = torch.optim.SGD([p for p in layer.parameters() if p.requires_grad], lr=0.05, momentum=0.9)
for step in range(5):
    opt.zero_grad()
    loss = F.mse_loss(layer(x), target)
    loss.backward()
    opt.step()
    print(
        step,
        round(loss.item(), 4),
        "gradA",
        round(layer.lora_A.weight.grad.norm().item(), 4),
        "base.grad",
        layer.base_layer.weight.grad,
    )

layer.eval()
with torch.no_grad():
    y_unmerged = layer(x)
    w0 = layer.base_layer.weight.clone()
    layer.merge(safe_merge=True)
    y_merged = layer(x)
print(
    "merged close",
    torch.allclose(y_unmerged, y_merged, atol=1e-5),
    "max diff < 1e-5",
    bool((y_unmerged - y_merged).abs().max() < 1e-5),
)
print("delta norm", round((layer.base_layer.weight - w0).norm().item(), 4))
print("delta rank", torch.linalg.matrix_rank(layer.get_delta_weight().detach()).item())
try:
    layer.merge()
except RuntimeError as e:
    print(type(e).__name__, e)
layer.unmerge()
layer.unmerge()
print("restored", torch.allclose(layer.base_layer.weight, w0, atol=1e-6))
print("weight grad_fn after data ops", layer.base_layer.weight.grad_fn, layer.base_layer.weight.is_leaf)

# dropout only acts in training mode on the LoRA path
layer.train()
torch.manual_seed(1)
a = layer(x)
torch.manual_seed(1)
b = layer(x)
print("train deterministic under seed", torch.equal(a, b))
layer.eval()
print("eval equal", torch.equal(layer(x), layer(x)))
print("grad_fn", layer(x).grad_fn.name())

try:
    LoraLinear(nn.Linear(4, 4), r=0)
except ValueError as e:
    print(type(e).__name__, e)
try:
    layer(torch.randn(2, 10))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    layer.base_layer.weight += 1.0
except RuntimeError as e:
    print(type(e).__name__, e)
layer.base_layer.weight.requires_grad_(True)
try:
    layer.base_layer.weight.add_(1.0)
except RuntimeError as e:
    print(type(e).__name__, e)
