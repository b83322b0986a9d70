"""Gradient clipping in a recogniser's training loop as OCR trainers use it: clip_grad_norm_ with norm types 2,
1 and inf, foreach on and off, error_if_nonfinite raising on NaN/inf gradients, a single tensor or a generator of
parameters, parameters without gradients skipped, get_total_norm with clip_grads_with_norm_ split, clip_grad_value_,
and a loop that skips steps whose total norm is not finite."""

import torch
from torch import nn

torch.manual_seed(0)


def make():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv1d(4, 6, 3, padding=1), nn.ReLU(), nn.Conv1d(6, 5, 1))
    x = torch.randn(2, 4, 9)
    m(x).pow(2).sum().mul(10).backward()
    return m


for norm_type in (2.0, 1, float("inf"), 3.0):
    for foreach in (None, True, False):
        m = make()
        total = nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0, norm_type=norm_type, foreach=foreach)
        after = torch.stack([p.grad.norm(norm_type) for p in m.parameters()]).norm(norm_type)
        print(norm_type, foreach, round(total.item(), 4), "after", round(after.item(), 4), total.dtype)

m = make()
w = m[0].weight
t = nn.utils.clip_grad_norm_(w, 0.5)
print("single tensor", round(t.item(), 4), round(w.grad.norm().item(), 4))
m = make()
m[2].bias.grad = None
t = nn.utils.clip_grad_norm_((p for p in m.parameters()), 100.0)
print("generator, big max_norm", round(t.item(), 4), m[2].bias.grad)
print("empty", nn.utils.clip_grad_norm_([], 1.0))

m = make()
grads = [p.grad for p in m.parameters()]
total = nn.utils.get_total_norm(grads, norm_type=2.0)
nn.utils.clip_grads_with_norm_(m.parameters(), 2.0, total)
print("split api", round(total.item(), 4), round(nn.utils.get_total_norm([p.grad for p in m.parameters()]).item(), 4))

m = make()
nn.utils.clip_grad_value_(m.parameters(), clip_value=0.25)
g = torch.cat([p.grad.flatten() for p in m.parameters()])
print("clip value", g.abs().max().item(), round(g.sum().item(), 4), (g.abs() == 0.25).sum().item())

m = make()
m[0].bias.grad[1] = float("nan")
t = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
print("nan total", t.item(), torch.isnan(m[2].weight.grad).all().item())
m = make()
m[0].bias.grad[1] = float("inf")
try:
    nn.utils.clip_grad_norm_(m.parameters(), 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
m = make()
m[0].bias.grad[1] = float("inf")
t = nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type="inf", error_if_nonfinite=False)
print("inf norm_type str", t.item())

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
xs = torch.randn(4, 5, 3)
xs[2, 0, 0] = float("inf")
for step, x in enumerate(xs):
    opt.zero_grad()
    model(x).square().mean().backward()
    try:
        n = nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    except RuntimeError:
        print(step, "skipped non-finite step")
        continue
    opt.step()
    print(step, "norm", round(n.item(), 4), "w", model.weight.sum().round(decimals=4).item())
try:
    nn.utils.clip_grad_value_(model.parameters(), clip_value=-1)
    print("negative clip value accepted", model.weight.grad.sum().item())
except Exception as e:
    print(type(e).__name__, e)
