"""DoRA: weight-decomposed low-rank adaptation with a magnitude vector, a detached column norm, and merging."""

import math
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class DoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.scaling = alpha / r
        with torch.no_grad():
            self.magnitude = nn.Parameter(torch.linalg.norm(base.weight, dim=1), requires_grad=True)

    def weight_norm(self, weight, delta):
        w = weight + delta
        return torch.linalg.norm(w, dim=1).to(weight.dtype)

    def forward(self, x):
        delta = self.lora_B @ self.lora_A * self.scaling
        norm = self.weight_norm(self.base.weight, delta).detach()
        mag_scale = (self.magnitude / norm).view(1, -1)
        base_out = F.linear(x, self.base.weight)
        lora_out = F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scaling
        out = (mag_scale - 1) * base_out + mag_scale * lora_out + base_out
        return out + self.base.bias

    @torch.no_grad()
    def merged_weight(self):
        delta = self.lora_B @ self.lora_A * self.scaling
        w = self.base.weight + delta
        return w * (self.magnitude / w.norm(p=2, dim=1)).unsqueeze(1)


base = nn.Linear(10, 6)
layer = DoraLinear(base)
print("magnitude", layer.magnitude.shape, layer.magnitude.requires_grad, round(layer.magnitude.sum().item(), 4))
x = torch.randn(7, 10)
with torch.no_grad():
    print("init equals base", torch.allclose(layer(x), base(x), atol=1e-6))

target = torch.randn(7, 6)
opt = torch.optim.Adam([layer.lora_A, layer.lora_B, layer.magnitude], lr=0.02)
for step in range(5):
    opt.zero_grad()
    out = layer(x)
    loss = F.smooth_l1_loss(out, target, beta=0.5)
    loss.backward()
    print(
        step,
        round(loss.item(), 4),
        "mag grad",
        round(layer.magnitude.grad.norm().item(), 4),
        "B grad",
        round(layer.lora_B.grad.norm().item(), 4),
    )
    opt.step()

with torch.no_grad():
    merged = nn.Linear(10, 6)
    merged.weight.copy_(layer.merged_weight())
    merged.bias.copy_(base.bias)
    print("merged matches", torch.allclose(merged(x), layer(x), atol=1e-5))
    print("row norms == magnitude", torch.allclose(merged.weight.norm(dim=1), layer.magnitude, atol=1e-5))

# the norm helpers DoRA implementations use
w = base.weight.detach()
print(torch.linalg.norm(w, dim=1).round(decimals=4).tolist())
print(torch.linalg.vector_norm(w, ord=2, dim=1, keepdim=True).shape, w.norm(p=2, dim=0).shape)
print(
    round(torch.linalg.matrix_norm(w).item(), 4),
    round(torch.linalg.matrix_norm(w, ord=2).item(), 4),
    round(torch.linalg.norm(w, ord="nuc").item(), 4),
)
print(round(w.norm(p="fro").item(), 4), round(torch.norm(w, p=1).item(), 4), round(w.norm(float("inf")).item(), 4))
# gradient of a norm at zero is zero in PyTorch (subgradient)
z = torch.zeros(3, requires_grad=True)
torch.linalg.vector_norm(z).backward()
print("grad at zero", z.grad.tolist())
z2 = torch.zeros(2, 3, requires_grad=True)
torch.linalg.norm(z2, dim=1).sum().backward()
print("row grad at zero", z2.grad.tolist())
# detach vs no detach: grads differ
A = torch.randn(3, 4, requires_grad=True)
m = torch.ones(3, requires_grad=True)
(m / A.norm(dim=1).detach()).sum().backward()
print("detached grad", A.grad, round(m.grad.sum().item(), 4))
(m / A.norm(dim=1)).sum().backward()
print("full grad", round(A.grad.abs().sum().item(), 4))
try:
    torch.linalg.norm(w, ord="fro", dim=0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.linalg.vector_norm(torch.ones(3, dtype=torch.long))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_norm(torch.ones(3))
except RuntimeError as e:
    print(type(e).__name__, e)
