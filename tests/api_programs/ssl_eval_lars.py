"""Self-supervised training and evaluation utilities: a LARS optimizer subclass (trust ratio with torch.where,
per-group exclusion of biases/norms, state_dict round trip), an EMA teacher through AveragedModel with
get_ema_multi_avg_fn and use_buffers, features collected by forward hooks (RemovableHandle as a context
manager), a weighted kNN monitor (topk on cosine similarity, one_hot votes with scatter_add_), a linear
probe on frozen features, and cast errors of in-place clamps."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn
from torch.utils.hooks import RemovableHandle

rng = np.random.default_rng(17)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class LARS(torch.optim.Optimizer):
    def __init__(self, params, lr=0.0, weight_decay=0.0, momentum=0.9, eta=0.001, exclude=False):
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, eta=eta, lars_exclude=exclude)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                dp = p.grad
                if dp is None:
                    continue
                if not g["lars_exclude"]:
                    dp = dp.add(p, alpha=g["weight_decay"])
                    param_norm, update_norm = torch.norm(p), torch.norm(dp)
                    one = torch.ones_like(param_norm)
                    q = torch.where(
                        param_norm > 0.0, torch.where(update_norm > 0, (g["eta"] * param_norm / update_norm), one), one
                    )
                    dp = dp.mul(q)
                state = self.state[p]
                if "mu" not in state:
                    state["mu"] = torch.zeros_like(p)
                mu = state["mu"]
                mu.mul_(g["momentum"]).add_(dp)
                p.add_(mu, alpha=-g["lr"])


backbone = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 4))
with torch.no_grad():
    for p in backbone.parameters():
        p.copy_(T(*p.shape, scale=0.4))
regular = [p for n, p in backbone.named_parameters() if p.ndim > 1]
excluded = [p for n, p in backbone.named_parameters() if p.ndim == 1]
opt = LARS(
    [{"params": regular}, {"params": excluded, "lars_exclude": True, "weight_decay": 0.0}], lr=0.3, weight_decay=1e-4
)
print(opt)
teacher = AveragedModel(backbone, multi_avg_fn=get_ema_multi_avg_fn(0.8), use_buffers=True)
print("teacher", type(teacher.module).__name__, teacher.n_averaged.item(), [k for k in teacher.state_dict()][:3])
X = T(16, 6)
y = torch.from_numpy(rng.integers(0, 3, 16))
for step in range(3):
    v1, v2 = X + 0.1 * T(16, 6), X + 0.1 * T(16, 6)
    z1, z2 = F.normalize(backbone(v1), dim=1), F.normalize(backbone(v2), dim=1)
    with torch.no_grad():
        t2 = F.normalize(teacher(v2), dim=1)
    loss = (2 - 2 * (z1 * t2).sum(1)).mean() + 0.1 * (2 - 2 * (z1 * z2).sum(1)).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    teacher.update_parameters(backbone)
    print(
        "step",
        step,
        round(loss.item(), 4),
        teacher.n_averaged.item(),
        r(opt.state[regular[0]]["mu"], 4),
        r(teacher.module[1].running_mean, 3),
    )
sd = opt.state_dict()
opt2 = LARS([{"params": regular}, {"params": excluded, "lars_exclude": True, "weight_decay": 0.0}], lr=0.1)
opt2.load_state_dict(sd)
print(
    "resume",
    opt2.param_groups[0]["lr"],
    opt2.param_groups[1]["lars_exclude"],
    sorted(sd["state"])[:4],
    torch.equal(opt2.state[regular[0]]["mu"], opt.state[regular[0]]["mu"]),
)

feats = {}


def save_to(name):
    def hook(module, inputs, output):
        feats[name] = output.detach()

    return hook


h = backbone[2].register_forward_hook(save_to("relu"))
print("handle", isinstance(h, RemovableHandle), type(h).__name__)
backbone.eval()
with h, torch.no_grad():
    out = backbone(X)
print("hooked", tuple(feats["relu"].shape), r(feats["relu"][0]), len(backbone[2]._forward_hooks))
feats.clear()
backbone(X)
print("removed", feats == {})

# weighted kNN monitor
with torch.no_grad():
    bank = F.normalize(teacher(X), dim=1)
    query = F.normalize(teacher(X[:5] + 0.05 * T(5, 6)), dim=1)
sim = query @ bank.T
sim_w, sim_i = sim.topk(k=4, dim=-1)
sim_labels = torch.gather(y.expand(query.size(0), -1), dim=-1, index=sim_i)
sim_w = (sim_w / 0.5).exp()
one_hot = torch.zeros(query.size(0) * 4, 3).scatter_(dim=-1, index=sim_labels.view(-1, 1), value=1.0)
scores = torch.sum(one_hot.view(query.size(0), -1, 3) * sim_w.unsqueeze(dim=-1), dim=1)
pred = scores.argsort(dim=-1, descending=True)
top1 = (pred[:, :1] == y[:5, None]).any(-1).float().mean().item()
print("knn", sim_i.tolist(), r(scores, 6), pred[:, 0].tolist(), top1)
votes = torch.zeros(5, 3).scatter_add_(1, sim_labels, torch.ones_like(sim_labels, dtype=torch.float32))
print("votes", votes.tolist(), F.one_hot(sim_labels, 3).sum(1).tolist() == votes.long().tolist())

# linear probe on frozen features
for p in backbone.parameters():
    p.requires_grad_(False)
probe = nn.Linear(4, 3)
with torch.no_grad():
    probe.weight.copy_(T(3, 4, scale=0.1))
    probe.bias.zero_()
popt = torch.optim.SGD(probe.parameters(), lr=0.5, momentum=0.9, nesterov=True)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(popt, T_max=4)
with torch.no_grad():
    f = backbone(X)
for ep in range(4):
    logits = probe(f)
    loss = F.cross_entropy(logits, y, label_smoothing=0.1)
    popt.zero_grad()
    loss.backward()
    popt.step()
    sched.step()
    print("probe", ep, round(loss.item(), 4), round(sched.get_last_lr()[0], 4), (logits.argmax(1) == y).sum().item())
print("frozen", backbone[0].weight.grad is None, all(not p.requires_grad for p in backbone.parameters()))
for bad in (
    lambda: torch.tensor([1, 5]).clamp_(min=0.5),
    lambda: torch.tensor([3], dtype=torch.uint8).clip_(max=2.5),
    lambda: torch.tensor([1, 5]).clamp_min_(torch.tensor(0.5)),
):
    try:
        bad()
    except RuntimeError as e:
        print("clamp err", e)
print("clamp int ok", torch.tensor([1, 5]).clamp_(2, 4).tolist(), torch.tensor([1.0, 5.0]).clamp_(max=2).tolist())
