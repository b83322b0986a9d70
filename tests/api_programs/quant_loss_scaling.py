"""Mixed-precision training with loss scaling written by hand, as pre-AMP apex code did: float16 model copies
with float32 master weights, a dynamic scale that backs off on inf/nan gradients and grows after a streak,
isfinite/isinf/isnan checks, nan_to_num, the fused _amp_foreach_non_finite_check_and_unscale_ and
_amp_update_scale_ kernels, and GradScaler's state for comparison."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

g = torch.tensor([1.0, float("inf"), float("nan"), -float("inf"), 3e38, 70000.0])
print("isfinite", torch.isfinite(g).tolist())
print("isinf/isnan", torch.isinf(g).tolist(), torch.isnan(g).tolist())
print("posinf/neginf", torch.isposinf(g).tolist(), torch.isneginf(g).tolist())
print("half overflow", g.half().tolist())
print("nan_to_num", torch.nan_to_num(g).tolist())
print("nan_to_num half", torch.nan_to_num(g.half(), nan=0.0, posinf=1.0).tolist())
print("any non-finite", bool((~torch.isfinite(g)).any()), torch.isfinite(g).all().item())

# fused unscale: multiplies by inv_scale and flags any non-finite value
grads = [torch.tensor([2.0, 4.0]), torch.tensor([[8.0, float("inf")]])]
found = torch.zeros(1)
inv = torch.tensor([0.5])
torch._amp_foreach_non_finite_check_and_unscale_(grads, found, inv)
print("unscaled", [t.tolist() for t in grads], "found_inf", found.item())

scale = torch.tensor([1024.0])
tracker = torch.zeros(1, dtype=torch.int32)
for step, inf in enumerate([0.0, 0.0, 1.0, 0.0, 0.0, 0.0]):
    torch._amp_update_scale_(scale, tracker, torch.tensor([inf]), 2.0, 0.5, 3)
    print("update", step, scale.item(), tracker.item())


class DynamicScaler:
    def __init__(self, init=2.0**15, factor=2.0, window=4):
        self.scale, self.factor, self.window, self.good = init, factor, window, 0

    def has_overflow(self, params):
        return any(not torch.isfinite(p.grad).all() for p in params if p.grad is not None)

    def update(self, overflow):
        if overflow:
            self.scale = max(self.scale / self.factor, 1.0)
            self.good = 0
        else:
            self.good += 1
            if self.good % self.window == 0:
                self.scale *= self.factor


model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
master = [p.detach().clone().float() for p in model.parameters()]
half_model = copy.deepcopy(model).half()
print("half dtypes", {str(p.dtype) for p in half_model.parameters()})
X = torch.randn(32, 8)
Y = X.sum(1, keepdim=True) * 0.3
scaler = DynamicScaler(init=2.0**20, window=3)
lr = 0.05
for step in range(10):
    for p in half_model.parameters():
        p.grad = None
    out = half_model(X.half())
    loss = F.mse_loss(out.float(), Y)
    (loss * scaler.scale).backward()
    overflow = scaler.has_overflow(half_model.parameters())
    if not overflow:
        with torch.no_grad():
            for m, p in zip(master, half_model.parameters()):
                m -= lr * p.grad.float() / scaler.scale
                p.copy_(m)
    print(step, "loss", round(loss.item(), 4), "scale", scaler.scale, "skipped" if overflow else "applied")
    scaler.update(overflow)
print("master dtype", master[0].dtype, "copy kept half", half_model[0].weight.dtype)
drift = max((m - p.float()).abs().max().item() for m, p in zip(master, half_model.parameters()))
print("master vs half max diff", round(drift, 5))

# GradScaler's bookkeeping on the CPU with float32 grads
w = nn.Parameter(torch.tensor([1.0, -2.0]))
opt = torch.optim.SGD([w], lr=0.1)
gs = torch.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
for k in range(4):
    opt.zero_grad()
    loss = (w**2).sum() * (1e38 if k == 1 else 1.0)
    gs.scale(loss).backward()
    gs.step(opt)
    gs.update()
    print("GradScaler", k, gs.get_scale(), w.detach().tolist())
print(gs.state_dict())
for bad in (
    lambda: torch._amp_update_scale_(scale, tracker.float(), torch.zeros(1), 2.0, 0.5, 3),
    lambda: torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(2)], torch.zeros(1), torch.ones(2)),
):
    try:
        bad()
        print("accepted")
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
