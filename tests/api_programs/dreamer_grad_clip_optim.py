"""Dreamer's per-module optimisers: Adam with eps=1e-5 and weight decay, clip_grad_norm_ (inf/2-norms, foreach,
error_if_nonfinite, None grads), get_total_norm/clip_grads_with_norm_, clip_grad_value_, and the optimiser state."""

import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_

torch.manual_seed(0)
torch.set_printoptions(precision=4)
model = nn.Sequential(nn.Linear(4, 8), nn.ELU(), nn.Linear(8, 2))
unused = nn.Linear(3, 3)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-5, weight_decay=1e-6)
print(opt)
print(sorted(opt.defaults.keys()))
x = torch.randn(16, 4)
loss = model(x).pow(2).mean()
loss.backward()
norm = clip_grad_norm_(model.parameters(), max_norm=0.1)
print(norm, norm.dtype, norm.requires_grad)
print(get_total_norm([p.grad for p in model.parameters()]))
print(
    clip_grad_norm_(model.parameters(), 100.0, norm_type="inf"), clip_grad_norm_(model.parameters(), 100.0, norm_type=1)
)
print(clip_grad_norm_(list(model.parameters()) + list(unused.parameters()), 1.0, foreach=True))
print(clip_grad_norm_([], 1.0), clip_grad_norm_(unused.parameters(), 1.0))
print(clip_grad_norm_(model[0].weight, 1.0, norm_type=3.0))
g = [torch.tensor([3.0, 4.0]), torch.tensor([[12.0]])]
print(get_total_norm(g), get_total_norm(g, norm_type=float("inf")), get_total_norm(g, norm_type=0))
ps = [torch.zeros(2, requires_grad=True), torch.zeros(1, 1, requires_grad=True)]
for p, gg in zip(ps, g):
    p.grad = gg.clone()
clip_grads_with_norm_(ps, 6.5, torch.tensor(13.0))
print(ps[0].grad, ps[1].grad)
clip_grad_value_(ps, 1.0)
print(ps[0].grad, ps[1].grad)
ps[0].grad = torch.tensor([float("nan"), 1.0])
try:
    clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("RuntimeError", e)
print(clip_grad_norm_(ps, 1.0), ps[1].grad)
ps[0].grad = torch.tensor([float("inf"), 1.0])
print(clip_grad_norm_(ps, 1.0), ps[0].grad)
try:
    clip_grad_value_(ps, clip_value=None)
except Exception as e:
    print(type(e).__name__, e)
h = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
h.grad = torch.tensor([3.0, 4.0], dtype=torch.float64)
t = torch.tensor([1.0], requires_grad=True)
t.grad = torch.tensor([12.0])
print(clip_grad_norm_([h, t], 1.0))
print(h.grad, t.grad)

# one optimisation step and the state
opt.zero_grad()
print(model[0].weight.grad)
model(x).pow(2).mean().backward()
clip_grad_norm_(model.parameters(), 100.0)
opt.step()
sd = opt.state_dict()
print(sorted(sd["state"][0].keys()), sd["state"][0]["step"], sd["param_groups"][0]["params"])
print(sorted(k for k in sd["param_groups"][0] if k != "params"))
print(sd["state"][3]["exp_avg_sq"].shape, sd["state"][1]["exp_avg"][:3])
opt.zero_grad(set_to_none=False)
print(model[2].bias.grad)
opt2 = torch.optim.AdamW([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 3e-4}], eps=1e-5)
print([g["lr"] for g in opt2.param_groups], opt2.param_groups[1]["weight_decay"])
for bad in [
    lambda: torch.optim.Adam(model.parameters(), lr=-1),
    lambda: torch.optim.Adam(model.parameters(), eps=-1e-5),
    lambda: torch.optim.Adam(model.parameters(), betas=(1.0, 0.999)),
    lambda: torch.optim.Adam([]),
    lambda: torch.optim.Adam([model[0].weight, model[0].weight]),
    lambda: torch.optim.Adam(model[0].weight),
]:
    try:
        bad()
        print("ok")
    except Exception as e:
        print(type(e).__name__, e)
