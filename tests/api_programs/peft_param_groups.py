"""Optimizer param groups for adapters: no-decay lists, LoRA+ learning-rate ratios, add_param_group and its errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class LoRA(nn.Module):
    def __init__(self, d_in, d_out, r=2):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.lora_A = nn.Parameter(torch.randn(r, d_in) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(d_out, r))

    def forward(self, x):
        return self.base(x) + x @ self.lora_A.T @ self.lora_B.T * 2.0


model = nn.Sequential(LoRA(6, 6), nn.LayerNorm(6), LoRA(6, 3))
model[0].base.requires_grad_(False)
model[2].base.weight.requires_grad_(False)

decay, no_decay, lora_b = [], [], []
names = {}
for n, p in model.named_parameters():
    if not p.requires_grad:
        continue
    names[id(p)] = n
    if n.endswith("lora_B"):
        lora_b.append(p)
    elif p.ndim < 2 or n.endswith("bias"):
        no_decay.append(p)
    else:
        decay.append(p)
groups = [
    {"params": decay, "weight_decay": 0.1},
    {"params": no_decay, "weight_decay": 0.0},
    {"params": lora_b, "weight_decay": 0.1, "lr": 16 * 1e-2, "name": "lora_B"},
]
opt = torch.optim.AdamW(groups, lr=1e-2, betas=(0.9, 0.99))
for i, g in enumerate(opt.param_groups):
    print(i, [names[id(p)] for p in g["params"]], g["lr"], g["weight_decay"], g.get("name"), g["amsgrad"], g["foreach"])
print(opt.defaults["weight_decay"], sorted(opt.defaults)[:5])

x = torch.randn(8, 6)
y = torch.randn(8, 3)
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lr_lambda=[lambda s: 1.0, lambda s: 0.5**s, lambda s: min(1.0, (s + 1) / 3)]
)
for step in range(4):
    opt.zero_grad(set_to_none=True)
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    sched.step()
    print(step, round(loss.item(), 4), [round(g["lr"], 5) for g in opt.param_groups])
print("last_lr", [round(v, 5) for v in sched.get_last_lr()])
print("frozen grad", model[0].base.weight.grad, "state entries", len(opt.state))
sd = opt.state_dict()
print([g["params"] for g in sd["param_groups"]], sorted(sd["state"][0]), sd["state"][0]["step"])
print(sd["param_groups"][2]["name"], sd["param_groups"][2]["initial_lr"])

# the frozen bias joins later with its own lr
model[2].base.bias.requires_grad_(True)
try:
    opt.add_param_group({"params": model[2].base.bias})
except ValueError as e:
    print(type(e).__name__, e)
try:
    opt.add_param_group({"params": [model[0].lora_A]})
except ValueError as e:
    print(type(e).__name__, e)
try:
    opt.add_param_group({"params": {model[0].base.weight}})
except TypeError as e:
    print(type(e).__name__, e)
try:
    opt.add_param_group({"params": [model[0].base.weight * 2]})
except ValueError as e:
    print(type(e).__name__, e)
print(len(opt.param_groups), opt.param_groups[-1]["lr"], opt.param_groups[-1]["betas"])

try:
    torch.optim.AdamW([{"params": decay}, {"params": decay}])
except ValueError as e:
    print(type(e).__name__, e)
try:
    torch.optim.AdamW([])
except ValueError as e:
    print(type(e).__name__, e)
try:
    torch.optim.AdamW(decay, lr=-1.0)
except ValueError as e:
    print(type(e).__name__, e)
try:
    torch.optim.AdamW(decay, betas=(1.0, 0.9))
except ValueError as e:
    print(type(e).__name__, e)
try:
    torch.optim.SGD(decay, lr=0.1, nesterov=True)
except ValueError as e:
    print(type(e).__name__, e)

# named parameters into the optimizer
opt2 = torch.optim.SGD([(n, p) for n, p in model.named_parameters() if p.requires_grad], lr=0.1)
print(opt2.param_groups[0]["param_names"][:3])
print(list(opt2.state_dict()["param_groups"][0].keys()))
# grouping by a regex as HF's Trainer does
import re  # noqa: E402

lora_params = [p for n, p in model.named_parameters() if re.search(r"lora_[AB]$", n)]
print(len(lora_params), sum(p.numel() for p in lora_params))
print(repr(opt).splitlines()[:6])
