"""Fine-tuning schedules: layer-wise LR decay groups, gradual unfreezing with add_param_group, optimizer state dicts."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
layers = nn.ModuleList([nn.Linear(6, 6) for _ in range(3)])
head = nn.Linear(6, 2)
model = nn.ModuleDict({"layers": layers, "head": head})


def forward(x):
    for layer in model["layers"]:
        x = torch.tanh(layer(x))
    return model["head"](x)


x, y = torch.randn(16, 6), torch.randint(0, 2, (16,))
# LLRD: the head gets the base lr, each layer below it lr * decay^depth; no decay on biases
base_lr, decay = 0.1, 0.5
groups = [
    {"params": [head.weight], "lr": base_lr, "name": "head.w"},
    {"params": [head.bias], "lr": base_lr, "weight_decay": 0.0, "name": "head.b"},
]
for depth, layer in enumerate(reversed(layers), start=1):
    groups.append({"params": [layer.weight], "lr": base_lr * decay**depth, "name": f"l{len(layers) - depth}.w"})
    groups.append(
        {"params": [layer.bias], "lr": base_lr * decay**depth, "weight_decay": 0.0, "name": f"l{len(layers) - depth}.b"}
    )
opt = torch.optim.AdamW(groups, lr=1.0, weight_decay=0.05)
print([(g["name"], g["lr"], g["weight_decay"]) for g in opt.param_groups])
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / 3))
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(forward(x), y)
    loss.backward()
    opt.step()
    sched.step()
    print(step, round(loss.item(), 4), [round(lr, 4) for lr in sched.get_last_lr()[:3]])

# gradual unfreezing: start with only the head, add one layer per stage
for p in layers.parameters():
    p.requires_grad_(False)
opt2 = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
print("stage 0 trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
for stage, layer in enumerate(reversed(layers), start=1):
    layer.requires_grad_(True)
    opt2.add_param_group({"params": layer.parameters(), "lr": 0.1 * 0.5**stage})
    for _ in range(2):
        opt2.zero_grad(set_to_none=True)
        F.cross_entropy(forward(x), y).backward()
        opt2.step()
    print(
        "stage",
        stage,
        "groups",
        len(opt2.param_groups),
        "state",
        len(opt2.state),
        "trainable",
        sum(p.numel() for p in model.parameters() if p.requires_grad),
    )
sd = opt2.state_dict()
print(sorted(sd), [g["params"] for g in sd["param_groups"]], sd["param_groups"][1]["lr"])
print(sorted(sd["state"][0]), round(sd["state"][0]["momentum_buffer"].abs().sum().item(), 4))

fresh = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9)
try:
    fresh.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
mismatch = torch.optim.SGD(
    [
        {"params": head.parameters()},
        {"params": layers[2].weight},
        {"params": layers[1].parameters()},
        {"params": layers[0].parameters()},
    ],
    lr=0.1,
)
try:
    mismatch.load_state_dict(sd)
except Exception as e:
    print(type(e).__name__, e)
same = torch.optim.SGD(
    [{"params": head.parameters()}] + [{"params": l.parameters()} for l in reversed(layers)], lr=1.0, momentum=0.9
)
same.load_state_dict(sd)
print("loaded lrs", [g["lr"] for g in same.param_groups], len(same.state))

# frozen parameters inside an optimizer are skipped (no grad), not decayed
frozen = nn.Linear(2, 2)
frozen.weight.requires_grad_(False)
before = frozen.weight.clone()
o = torch.optim.AdamW(frozen.parameters(), lr=0.1, weight_decay=0.5)
frozen(torch.ones(1, 2)).sum().backward()
o.step()
print(
    "frozen kept",
    torch.equal(before, frozen.weight),
    "bias state",
    sorted(o.state[frozen.bias]),
    frozen.weight in o.state,
)

# counting with lazy modules
lazy = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.Linear(4, 2))
try:
    print(sum(p.numel() for p in lazy.parameters()))
except Exception as e:
    print(type(e).__name__, str(e)[:80])
print([type(p).__name__ for p in lazy.parameters()], nn.parameter.is_lazy(lazy[0].weight))
lazy(torch.ones(1, 5))
print(sum(p.numel() for p in lazy.parameters()), lazy[0])
