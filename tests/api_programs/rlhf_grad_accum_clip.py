"""Gradient accumulation and clipping as large-batch RLHF steps do them: micro-batches whose losses are scaled by
the global token count so the accumulated grad equals the full-batch grad, clip_grad_norm_ with 2/inf/1 norms,
foreach on and off and error_if_nonfinite, get_total_norm and clip_grads_with_norm_ as FSDP-style code splits them,
clip_grad_value_, per-parameter grad hooks, skipping a step on a non-finite norm, and the error messages."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
V, D = 9, 8


def make():
    torch.manual_seed(1)
    return nn.Sequential(nn.Embedding(V, D), nn.Linear(D, D), nn.SiLU(), nn.Linear(D, V))


ids = torch.randint(0, V, (6, 5))
labels = ids.roll(-1, dims=1)
labels[:, -1] = -100
labels[0, 2:] = -100
n_tokens = (labels != -100).sum()
print("tokens:", n_tokens.item(), "ignored:", (labels == -100).sum().item())

full = make()
loss = F.cross_entropy(full(ids).view(-1, V), labels.view(-1), ignore_index=-100, reduction="sum") / n_tokens
loss.backward()
print("full loss:", round(loss.item(), 4))

acc = make()
total = 0.0
for mb_ids, mb_lab in zip(ids.chunk(3), labels.chunk(3)):
    mb = F.cross_entropy(acc(mb_ids).flatten(0, 1), mb_lab.flatten(), reduction="sum") / n_tokens
    mb.backward()
    total += mb.item()
print(
    "accumulated loss:",
    round(total, 4),
    "grads equal:",
    all(torch.allclose(a.grad, b.grad, atol=1e-6) for a, b in zip(full.parameters(), acc.parameters())),
)
naive = make()
for mb_ids, mb_lab in zip(ids.chunk(3), labels.chunk(3)):
    (F.cross_entropy(naive(mb_ids).flatten(0, 1), mb_lab.flatten()) / 3).backward()
print("per-micro-batch mean differs:", not torch.allclose(naive[0].weight.grad, full[0].weight.grad))

params = list(acc.parameters())
grads = [p.grad for p in params]
for nt in [2.0, float("inf"), 1.0, 3]:
    print(
        f"norm {nt}:",
        round(nn.utils.get_total_norm(grads, norm_type=nt).item(), 4),
        round(nn.utils.get_total_norm(grads, norm_type=nt, foreach=False).item(), 4),
    )
saved = [g.clone() for g in grads]
tn = nn.utils.clip_grad_norm_(params, max_norm=0.1, foreach=True)
after = nn.utils.get_total_norm([p.grad for p in params])
print("clip returned:", round(tn.item(), 4), "after:", round(after.item(), 4), tn.dtype, tn.shape)
for p, g in zip(params, saved):
    p.grad = g.clone()
nn.utils.clip_grads_with_norm_(params, 0.1, tn)
print("split clip equal:", round(nn.utils.get_total_norm([p.grad for p in params]).item(), 4))
nn.utils.clip_grad_norm_(params, max_norm=10.0)
print("no-op clip (norm < max):", round(nn.utils.get_total_norm([p.grad for p in params]).item(), 4))
nn.utils.clip_grad_value_(params, clip_value=0.001)
print("value clip max:", max(p.grad.abs().max().item() for p in params))
print("single tensor:", round(nn.utils.clip_grad_norm_(params[1], 1.0, norm_type="inf").item(), 6))

m = make()
hooks = [p.register_hook(lambda g: g.clamp(-0.01, 0.01)) for p in m.parameters()]
F.cross_entropy(m(ids).flatten(0, 1), labels.flatten()).backward()
print("hooked max:", max(p.grad.abs().max().item() for p in m.parameters()))
for h in hooks:
    h.remove()

opt = torch.optim.AdamW(m.parameters(), lr=1e-2)
before = m[1].weight.detach().clone()
m[1].weight.grad[0, 0] = float("nan")
gn = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
if not torch.isfinite(gn):
    print("skip step, norm:", gn.item())
    opt.zero_grad()
else:
    opt.step()
print("weights untouched:", torch.equal(before, m[1].weight))
m[1].weight.grad = torch.full_like(m[1].weight, float("inf"))
for kw in [dict(error_if_nonfinite=True), dict(error_if_nonfinite=True, foreach=False)]:
    try:
        nn.utils.clip_grad_norm_(m.parameters(), 1.0, **kw)
    except Exception as e:
        print(type(e).__name__, e)
for bad in [
    lambda: nn.utils.clip_grad_norm_(m.parameters(), 1.0, norm_type="fro"),
    lambda: nn.utils.get_total_norm([torch.ones(2), torch.ones(3, dtype=torch.float64)]),
    lambda: nn.utils.clip_grad_value_(m.parameters(), clip_value=-1.0),
    lambda: F.cross_entropy(m(ids).flatten(0, 1), labels.flatten()[:-1]),
    lambda: F.cross_entropy(m(ids).flatten(0, 1), labels.flatten().clamp(min=0) + V),
]:
    try:
        r = bad()
        print("ok", r if not isinstance(r, torch.Tensor) else round(r.item(), 4))
    except Exception as e:
        print(type(e).__name__, e)
