"""Training tricks of "Attention Is All You Need" (Vaswani et al. 2017) as the annotated reimplementations write
them: label smoothing by hand with KLDivLoss against CrossEntropyLoss(label_smoothing=...), padding ignored, the Noam
learning-rate schedule through LambdaLR, and knowledge distillation (Hinton et al. 2015) with temperature and
log_target, on a tiny encoder layer with deterministic weights."""

import math

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(1706)
PAD, V = 0, 7


def arr(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


class LabelSmoothing(nn.Module):
    """The annotated Transformer's criterion: KL to a smoothed target with the pad column and pad rows zeroed."""

    def __init__(self, size, padding_idx, smoothing):
        super().__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.size, self.padding_idx, self.smoothing = size, padding_idx, smoothing
        self.true_dist = None

    def forward(self, x, target):
        true_dist = x.detach().clone()
        true_dist.fill_(self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), 1.0 - self.smoothing)
        true_dist[:, self.padding_idx] = 0
        mask = torch.nonzero(target == self.padding_idx)
        if mask.dim() > 0:
            true_dist.index_fill_(0, mask.squeeze(), 0.0)
        self.true_dist = true_dist
        return self.criterion(x, true_dist.clone().detach())


logits = arr(5, V, scale=2.0).requires_grad_(True)
target = torch.tensor([2, 1, 0, 3, 6])
crit = LabelSmoothing(V, PAD, 0.4)
loss = crit(logits.log_softmax(-1), target)
loss.backward()
print("annotated", round(loss.item(), 4), r(crit.true_dist[0], 7), r(logits.grad[2], 3))
print("kl_repr", crit.criterion, r(crit.true_dist.sum(1), 5))

for eps in (0.0, 0.1, 0.3):
    ce = nn.CrossEntropyLoss(label_smoothing=eps, ignore_index=PAD)
    x = logits.detach().clone().requires_grad_(True)
    v = ce(x, target)
    v.backward()
    logp = x.detach().log_softmax(-1)
    keep = target != PAD
    manual = -((1 - eps) * logp[keep].gather(1, target[keep, None]).squeeze(1) + eps * logp[keep].mean(1)).mean()
    print("ce_ls", eps, round(v.item(), 4), round(manual.item(), 4), r(x.grad[0], 3), r(x.grad[2], 2))
w = torch.tensor([0.0, 1.0, 2.0, 1.0, 1.0, 0.5, 3.0])
print("ce_weight_ls", round(F.cross_entropy(logits, target, weight=w, label_smoothing=0.2).item(), 4))
print(
    "ce_sum_none",
    r(F.cross_entropy(logits, target, label_smoothing=0.2, reduction="none"), 5),
    round(F.cross_entropy(logits, target, label_smoothing=0.2, reduction="sum", ignore_index=PAD).item(), 4),
)
probs = F.softmax(arr(5, V), dim=-1)
print("ce_probs_ls", round(F.cross_entropy(logits, probs, label_smoothing=0.1).item(), 4))
seq_logits = arr(2, V, 3)
print("ce_seq", round(F.cross_entropy(seq_logits, torch.tensor([[1, 2, 0], [0, 4, 5]]), label_smoothing=0.1).item(), 4))
try:
    nn.CrossEntropyLoss(label_smoothing=1.5)(logits, target)
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, e)


# Noam schedule: lr = d_model^-0.5 * min(step^-0.5, step * warmup^-1.5)
def rate(step, model_size, factor, warmup):
    step = max(step, 1)
    return factor * (model_size ** (-0.5) * min(step ** (-0.5), step * warmup ** (-1.5)))


layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
with torch.no_grad():
    for i, p in enumerate(layer.parameters()):
        p.copy_(torch.from_numpy(np.random.default_rng(i).uniform(-0.3, 0.3, tuple(p.shape)).astype(np.float32)))
head = nn.Linear(8, V)
with torch.no_grad():
    head.weight.copy_(arr(V, 8, scale=0.3)), head.bias.zero_()
emb = nn.Embedding(V, 8, padding_idx=PAD)
with torch.no_grad():
    emb.weight.copy_(arr(V, 8, scale=0.5)), emb.weight[PAD].zero_()
params = [*emb.parameters(), *layer.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, lr=1.0, betas=(0.9, 0.98), eps=1e-9)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda s: rate(s, 8, 1.0, 4))
src = torch.tensor([[1, 2, 3, 4, 0, 0], [5, 6, 2, 1, 3, 0]])
key_pad = src == PAD
crit = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
for step in range(6):
    h = layer(emb(src) * math.sqrt(8), src_key_padding_mask=key_pad)
    out = head(h)
    loss = crit(out.reshape(-1, V), src.roll(-1, dims=1).reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(
        "noam",
        step,
        round(loss.item(), 4),
        round(sched.get_last_lr()[0], 5),
        round(emb.weight.grad[PAD].abs().sum().item(), 4),
    )
print("sched_state", sorted(sched.state_dict()), sched.state_dict()["last_epoch"], sched.state_dict()["_step_count"])
print("rates", [round(rate(s, 512, 1.0, 4000) * 1e4, 4) for s in (1, 100, 4000, 8000)])

# distillation: soft targets at temperature T scaled by T^2, plus hard labels
teacher_logits = arr(6, 5, scale=3.0)
student = nn.Linear(4, 5)
with torch.no_grad():
    student.weight.copy_(arr(5, 4, scale=0.5)), student.bias.zero_()
feats = arr(6, 4)
labels = torch.tensor([0, 1, 2, 3, 4, 0])
T_, alpha = 4.0, 0.7
s_logits = student(feats)
kd_a = nn.KLDivLoss(reduction="batchmean")(F.log_softmax(s_logits / T_, dim=1), F.softmax(teacher_logits / T_, dim=1))
kd_b = nn.KLDivLoss(reduction="batchmean", log_target=True)(
    F.log_softmax(s_logits / T_, dim=1), F.log_softmax(teacher_logits / T_, dim=1)
)
hard = F.cross_entropy(s_logits, labels)
total = alpha * kd_a * T_ * T_ + (1 - alpha) * hard
total.backward()
print(
    "kd",
    round(kd_a.item(), 4),
    round(kd_b.item(), 4),
    round(hard.item(), 4),
    round(total.item(), 4),
    r(student.weight.grad),
)
print(
    "kl_reductions",
    [
        round(F.kl_div(F.log_softmax(s_logits, 1), F.softmax(teacher_logits, 1), reduction=red).item(), 4)
        for red in ("sum", "mean", "batchmean")
    ],
)
print("kl_none", r(F.kl_div(torch.tensor([-1.0, -2.0]), torch.tensor([0.0, 0.5]), reduction="none")))
print("kl_repr", nn.KLDivLoss(reduction="batchmean", log_target=True))
