"""Training-library plumbing around the optimizer: a custom LRScheduler subclass (get_lr, closed form, chained
base_lrs), optimizer step pre/post hooks feeding a logger, optimizer-in-backward through
register_post_accumulate_grad_hook, foreach-based EMA and gradient clipping, AveragedModel with use_buffers,
state_dict(keep_vars, prefix) and load_state_dict(assign=True), and the errors of misconfigured param groups."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import LRScheduler
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

rng = np.random.default_rng(41)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(t, n=4):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup, total, min_ratio=0.1, last_epoch=-1):
        self.warmup, self.total, self.min_ratio = warmup, total, min_ratio
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e = self.last_epoch
        if e < self.warmup:
            return [b * (e + 1) / self.warmup for b in self.base_lrs]
        t = (e - self.warmup) / max(1, self.total - self.warmup)
        scale = self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * min(t, 1.0)))
        return [b * scale for b in self.base_lrs]


def make_model():
    m = nn.Sequential(nn.Linear(4, 8, bias=False), nn.BatchNorm1d(8), nn.GELU(), nn.Linear(8, 2))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(npt(*p.shape, scale=0.5))
    return m


model = make_model()
opt = torch.optim.AdamW([{"params": model[0].parameters(), "lr": 0.02},
                         {"params": list(model[1].parameters()) + list(model[3].parameters())}], lr=0.01)
sched = WarmupCosine(opt, warmup=2, total=6)
log = []
pre = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", round(o.param_groups[0]["lr"], 5))))
post = opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", len(o.state))))
X, Y = npt(16, 4), torch.from_numpy(rng.integers(0, 2, 16))
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.8), use_buffers=True)
norms = []
for step in range(6):
    loss = F.cross_entropy(model(X), Y)
    opt.zero_grad()
    loss.backward()
    norms.append(nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=True))
    opt.step()
    sched.step()
    ema.update_parameters(model)
print("lrs", [round(v, 5) for v in sched.get_last_lr()], sched.last_epoch, sched._step_count)
print("norms", [n.item() > 0 for n in norms], norms[0].dtype, r(torch.stack(norms), 6))
print("hook log", log[:4], len(log))
pre.remove()
post.remove()
opt.step()
print("after remove", len(log), type(pre).__name__)
print("ema", ema.n_averaged.item(), r(ema.module[0].weight), r(ema.module[1].running_mean))
print("ema buffers", sorted(n for n, _ in ema.named_buffers()))

grads = [torch.full((2,), 3.0), torch.full((2,), 3.0)]
print("total norm", nn.utils.get_total_norm(grads), nn.utils.get_total_norm(grads, norm_type=1.0),
      nn.utils.get_total_norm(grads, norm_type=math.inf))
p = [nn.Parameter(torch.ones(2)), nn.Parameter(torch.ones(3))]
for q in p:
    q.grad = torch.full_like(q, 2.0)
print("clip foreach", nn.utils.clip_grad_norm_(p, 1.0, foreach=True), r(p[0].grad), r(p[1].grad))
print("foreach norms", torch._foreach_norm([q.grad for q in p]), torch._foreach_norm([q.grad for q in p], 1))
ema_p = [q.detach().clone() for q in p]
torch._foreach_mul_(ema_p, 0.9)
torch._foreach_add_(ema_p, [q.detach() for q in p], alpha=0.1)
torch._foreach_lerp_(ema_p, [torch.zeros_like(q) for q in p], 0.5)
print("foreach ema", [r(t) for t in ema_p])
try:
    torch._foreach_add_(ema_p, [torch.ones(2)])
except RuntimeError as e:
    print("RuntimeError", e)

fused_model = make_model()
opt_dict = {q: torch.optim.SGD([q], lr=0.1, momentum=0.9) for q in fused_model.parameters()}
stepped = []


def optimizer_hook(param):
    opt_dict[param].step()
    opt_dict[param].zero_grad()
    stepped.append(tuple(param.shape))


handles = [q.register_post_accumulate_grad_hook(optimizer_hook) for q in fused_model.parameters()]
ref_model = make_model()
ref_model.load_state_dict(fused_model.state_dict())
ref_opt = torch.optim.SGD(ref_model.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    F.cross_entropy(fused_model(X), Y).backward()
    ref_opt.zero_grad()
    F.cross_entropy(ref_model(X), Y).backward()
    ref_opt.step()
same = all(torch.allclose(a, b, atol=1e-6) for a, b in zip(fused_model.parameters(), ref_model.parameters()))
print("in-backward", same, len(stepped), stepped[:4], fused_model[0].weight.grad)
for h in handles:
    h.remove()

sd = model.state_dict(keep_vars=True)
print("keep_vars", type(sd["0.weight"]).__name__, sd["0.weight"].requires_grad, sd["1.num_batches_tracked"].dtype)
print("prefix", list(model[3].state_dict(prefix="head."))[:2])
fresh = nn.Linear(4, 8)
w = torch.ones(8, 4)
res = fresh.load_state_dict({"weight": w, "bias": torch.zeros(8)}, assign=True)
print("assign", res, fresh.weight is w, type(fresh.weight).__name__, fresh.weight.requires_grad)
res = fresh.load_state_dict({"weight": torch.zeros(8, 4)}, strict=False)
print("partial", res.missing_keys, res.unexpected_keys, fresh.weight.sum().item())

try:
    opt.add_param_group({"params": model[0].weight})
except ValueError as e:
    print("ValueError", e)
try:
    opt.add_param_group({"params": {nn.Parameter(torch.zeros(1))}})
except TypeError as e:
    print("TypeError", e)
try:
    torch.optim.AdamW([], lr=0.1)
except ValueError as e:
    print("ValueError", e)
try:
    torch.autograd.grad(F.cross_entropy(model(X), Y), [model[0].weight, nn.Parameter(torch.ones(2))])
except RuntimeError as e:
    print("RuntimeError", e)
g = torch.autograd.grad(F.cross_entropy(model(X), Y), [model[3].bias, nn.Parameter(torch.ones(2))],
                        allow_unused=True, materialize_grads=True)
print("materialized", r(g[0]), g[1])
print("lerp long", end=" ")
try:
    torch.zeros(2, dtype=torch.long).lerp_(torch.ones(2, dtype=torch.long), 0.5)
except RuntimeError as e:
    print("RuntimeError", e)
