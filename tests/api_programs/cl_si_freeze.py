"""Synaptic Intelligence path integrals with parameter freezing as continual-learning code writes it: per-step
-grad*delta accumulation keyed by name, importance normalised by squared drift, layers frozen with requires_grad_
between tasks, optimizer state inspected (exp_avg, step) and param groups added for new layers."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.99))
eps, c = 0.1, 0.5

names = [n for n, _ in model.named_parameters()]
start = {n: p.detach().clone() for n, p in model.named_parameters()}
omega = {n: torch.zeros_like(p) for n, p in model.named_parameters()}
W = {n: torch.zeros_like(p) for n, p in model.named_parameters()}
prev = {n: p.detach().clone() for n, p in model.named_parameters()}

tasks = [(torch.randn(30, 5), torch.randint(0, 3, (30,))) for _ in range(3)]
for t, (x, y) in enumerate(tasks):
    if t == 1:
        model[0].requires_grad_(False)
        print("frozen:", [n for n, p in model.named_parameters() if not p.requires_grad])
    if t == 2:
        model.append(nn.Linear(3, 3))
        opt.add_param_group({"params": model[5].parameters(), "lr": 0.05, "betas": (0.9, 0.9)})
        print(
            "groups:",
            len(opt.param_groups),
            opt.param_groups[1]["lr"],
            opt.param_groups[1]["betas"],
            opt.param_groups[1]["weight_decay"],
            sorted(opt.param_groups[1].keys())[:4],
        )
    for step in range(20):
        opt.zero_grad()
        ce = F.cross_entropy(model(x), y)
        surrogate = sum((omega[n] * (p - start[n]) ** 2).sum() for n, p in model.named_parameters() if n in omega)
        loss = ce + c * surrogate
        loss.backward()
        grads = {n: None if p.grad is None else p.grad.detach().clone() for n, p in model.named_parameters()}
        opt.step()
        for n, p in model.named_parameters():
            if n in W and grads[n] is not None:
                W[n] -= grads[n] * (p.detach() - prev[n])
                prev[n] = p.detach().clone()
    for n, p in model.named_parameters():
        if n in omega:
            delta = p.detach() - start[n]
            omega[n] += W[n] / (delta**2 + eps)
            W[n].zero_()
            start[n] = p.detach().clone()
    print(f"task {t}: ce={ce.item():.4f} sur={float(surrogate):.4f}")
    print("  omega sums:", {n: round(o.sum().item(), 4) for n, o in omega.items()})

first = model[0].weight
print("frozen grad:", first.grad)
st = opt.state[model[2].weight]
print("state keys:", sorted(st.keys()), st["step"], st["step"].dtype, tuple(st["exp_avg"].shape))
print("frozen state:", sorted(opt.state[first].keys()), opt.state[first]["step"])
print("new layer state:", opt.state[model[5].weight]["step"].item())
sd = opt.state_dict()
print("sd groups params:", [g["params"] for g in sd["param_groups"]])
print("sd state ids:", sorted(sd["state"].keys()))
print("exp_avg_sq sum:", round(sd["state"][2]["exp_avg_sq"].sum().item(), 6) > 0)
print(
    "trainable:",
    sum(p.numel() for p in model.parameters() if p.requires_grad),
    "total:",
    sum(p.numel() for p in model.parameters()),
)
model.requires_grad_()
print("unfrozen:", all(p.requires_grad for p in model.parameters()))
opt.zero_grad(set_to_none=False)
print(
    "grads after zero_grad(False):",
    [None if p.grad is None else p.grad.abs().sum().item() for p in model.parameters()][:4],
)

for bad in [
    lambda: opt.add_param_group({"params": torch.zeros(2, requires_grad=True), "lr": 0.1}) or "ok",
    lambda: opt.add_param_group({"params": [torch.zeros(2)]}),
    lambda: opt.add_param_group({"params": set([nn.Parameter(torch.zeros(1))])}),
    lambda: opt.add_param_group([nn.Parameter(torch.zeros(1))]),
    lambda: torch.optim.Adam([], lr=0.1),
    lambda: torch.optim.Adam(model.parameters(), lr=-1),
    lambda: torch.optim.Adam(model.parameters(), betas=(1.0, 0.9)),
    lambda: torch.zeros(2, dtype=torch.long).requires_grad_(),
    lambda: model[0].weight.detach().view(-1).requires_grad_(False).is_leaf,
]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
print("groups end:", len(opt.param_groups), [len(g["params"]) for g in opt.param_groups])
