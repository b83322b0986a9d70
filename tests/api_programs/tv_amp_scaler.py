"""Mixed precision the way torchvision's references write it, on CPU: an enabled GradScaler (scale, unscale_ before
clipping, skipped steps on inf, backoff and growth, state_dict round trip), bfloat16 autocast with float32 master
weights and gradients, and the gradient-norm utilities (get_total_norm, clip_grads_with_norm_, error_if_nonfinite)."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(3)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def init_weights(m):
    if isinstance(m, (nn.Conv2d, nn.Linear)):
        with torch.no_grad():
            m.weight.copy_(T(*m.weight.shape, scale=0.3))
            if m.bias is not None:
                m.bias.zero_()


model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, stride=2), nn.ReLU(),
                      nn.Flatten(), nn.Linear(16, 3))
model.apply(init_weights)
vec = nn.utils.parameters_to_vector(model.parameters())
print("vector", vec.shape, vec.dtype, round(vec.abs().sum().item(), 4))

X, Y = T(6, 3, 6, 6), torch.tensor([0, 1, 2, 0, 1, 2])
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8, growth_factor=2.0, backoff_factor=0.5, growth_interval=2)
print("scaler", scaler.is_enabled(), scaler.get_scale(), scaler.get_growth_interval(), scaler.get_backoff_factor())

for step in range(5):
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(X)
        loss = F.cross_entropy(out, Y)
    scaled = scaler.scale(loss)
    scaled.backward()
    if step == 2:
        model[5].weight.grad[0, 0] = float("inf")
    w_before = model[5].weight.detach().clone()
    scaler.unscale_(opt)
    grads = [p.grad for p in model.parameters()]
    total = nn.utils.get_total_norm(grads, norm_type=2.0)
    finite = bool(torch.isfinite(total))
    if finite:
        nn.utils.clip_grads_with_norm_(model.parameters(), max_norm=1.0, total_norm=total)
    scaler.step(opt)
    scaler.update()
    print("step", step, out.dtype, loss.dtype, scaled.dtype, round(scaled.item() / loss.item(), 1),
          model[0].weight.grad.dtype, finite, scaler.get_scale(), torch.equal(w_before, model[5].weight))

print("grad dtypes", {p.grad.dtype for p in model.parameters()}, {p.dtype for p in model.parameters()})
sd = scaler.state_dict()
print("scaler state", sorted(sd), sd["scale"], sd["_growth_tracker"])
s2 = torch.amp.GradScaler("cpu")
s2.load_state_dict(sd)
print("loaded", s2.get_scale(), s2.get_growth_interval(), s2.get_growth_factor())
off = torch.amp.GradScaler("cpu", enabled=False)
lt = torch.tensor(1.5)
print("disabled", off.scale(lt) is lt, off.get_scale(), off.state_dict())

with torch.no_grad():
    model.eval()
    ref = model(X)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        low = model(X)
print("bf16 vs fp32", low.dtype, (low.float() - ref).abs().max().item() < 0.05, ref.argmax(1).tolist())

g = [T(3), T(2, 2)]
print("total norms", round(nn.utils.get_total_norm(g).item(), 4), round(nn.utils.get_total_norm(g, 1.0).item(), 4),
      round(nn.utils.get_total_norm(g, float("inf")).item(), 4))
p = nn.Parameter(torch.ones(3))
p.grad = torch.tensor([1.0, float("nan"), 2.0])
try:
    nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print("nonfinite", str(e).split(".")[0])
p.grad = torch.tensor([3.0, 4.0, 0.0])
n = nn.utils.clip_grad_norm_([p], 1.0, foreach=False)
print("clip", n.item(), p.grad.tolist())
nn.utils.clip_grad_value_([p], 0.5)
print("clip value", p.grad.tolist())
