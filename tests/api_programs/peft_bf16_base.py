"""A bfloat16 frozen base with float32 LoRA adapters: casts on the adapter path, merges rounded back to bf16."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class LoraLinear(nn.Module):
    def __init__(self, base, r=4, alpha=8):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False, dtype=torch.float32)
        self.lora_B = nn.Linear(r, base.out_features, bias=False, dtype=torch.float32)
        nn.init.normal_(self.lora_B.weight, std=0.02)
        self.scaling = alpha / r

    def forward(self, x):
        result = self.base(x)
        torch_result_dtype = result.dtype
        x = x.to(self.lora_A.weight.dtype)
        result = result + self.lora_B(self.lora_A(x)) * self.scaling
        return result.to(torch_result_dtype)


base = nn.Linear(16, 8).to(torch.bfloat16)
print(base.weight.dtype, base.bias.dtype, base)
layer = LoraLinear(base.requires_grad_(False))
print({n: (p.dtype, p.requires_grad) for n, p in layer.named_parameters()})
x = torch.randn(4, 16).to(torch.bfloat16)
out = layer(x)
print(out.dtype, out.grad_fn.name(), out.grad_fn.next_functions[0][0].name())
print("out sum", round(out.float().sum().item(), 2))

try:
    base(torch.randn(4, 16))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.randn(2, 3) @ torch.randn(3, 2, dtype=torch.bfloat16)
except RuntimeError as e:
    print(type(e).__name__, e)
mix = torch.randn(2, 3) + torch.ones(2, 3, dtype=torch.bfloat16)
print(
    "promotion",
    mix.dtype,
    (torch.ones(2, dtype=torch.bfloat16) * 2.5).dtype,
    torch.result_type(torch.ones(1, dtype=torch.bfloat16), torch.ones(1, dtype=torch.float16)),
)

target = torch.randn(4, 8)
opt = torch.optim.AdamW([p for p in layer.parameters() if p.requires_grad], lr=1e-2)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(layer(x).float(), target)
    loss.backward()
    print(step, round(loss.item(), 3), layer.lora_A.weight.grad.dtype, base.weight.grad)
    opt.step()

# merging: compute the delta in fp32, add, round to bf16
with torch.no_grad():
    delta = (layer.lora_B.weight @ layer.lora_A.weight) * layer.scaling
    w32 = base.weight.float() + delta
    merged = w32.to(torch.bfloat16)
    err = (merged.float() - w32).abs().max().item()
    print("rounding error within bf16 eps", err <= torch.finfo(torch.bfloat16).eps * w32.abs().max().item())
    print("delta dtype", delta.dtype, "merged", merged.dtype)
    y_before = layer(x).float()
    base.weight.copy_(w32)
    print("copy_ casts", base.weight.dtype)
    y_merged = base(x).float()
print("merge deviation small", (y_before - y_merged).abs().max().item() < 0.1)

# bf16 facts peft code relies on
fi = torch.finfo(torch.bfloat16)
print(fi.eps, fi.max, fi.tiny, fi.bits, fi.resolution)
t = torch.tensor([1.0, 1.00390625, 1.0078125, 256.0, 257.0, 3.14159], dtype=torch.float32)
print(t.to(torch.bfloat16).tolist())
print(t.to(torch.bfloat16))
print(torch.tensor([0.1, 1e-3, 65504.0 * 2]).bfloat16())
print(
    torch.tensor([1.0, 2.0], dtype=torch.bfloat16).element_size(),
    torch.bfloat16.itemsize,
    torch.bfloat16.is_floating_point,
)
s = torch.ones(1000, dtype=torch.bfloat16).sum()
print("sum", s.item(), s.dtype, torch.ones(1000, dtype=torch.bfloat16).cumsum(0)[-1].item())
print("mean", torch.full((300,), 0.1, dtype=torch.bfloat16).mean().item())

# model.to(dtype) casts floating params only, buffers included
m = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
m.to(torch.bfloat16)
print({k: v.dtype for k, v in m.state_dict().items()})
m.half()
print(m[0].weight.dtype, m[1].num_batches_tracked.dtype)
m.float()
print(m[1].running_mean.dtype)
# params with mixed dtypes in one optimizer
p1 = nn.Parameter(torch.ones(3, dtype=torch.bfloat16))
p2 = nn.Parameter(torch.ones(3))
o = torch.optim.SGD([p1, p2], lr=0.1)
(p1.float().sum() + p2.sum()).backward()
o.step()
print(p1, p2.dtype, p1.grad.dtype)
with torch.autocast("cpu", dtype=torch.bfloat16):
    a = nn.Linear(4, 2)(torch.randn(3, 4))
    print("autocast", a.dtype, torch.get_autocast_dtype("cpu"))
