"""Knowledge distillation of a pruned student: Hinton's temperature-scaled KL loss in its common forms
(log_target, batchmean, KLDivLoss module), checked against the cross-entropy identity."""

import warnings

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

T = 4.0
teacher = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5))
student = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 5))
student.load_state_dict(teacher.state_dict())
for layer in (student[0], student[2]):
    prune.ln_structured(layer, "weight", amount=0.5, n=2, dim=0 if layer is student[0] else 1)
print(
    "rows kept",
    int((student[0].weight_mask.sum(1) > 0).sum()),
    "cols kept",
    int((student[2].weight_mask.sum(0) > 0).sum()),
)

x = torch.randn(16, 10)
labels = torch.randint(0, 5, (16,))
with torch.no_grad():
    t_logits = teacher(x)
s_logits = student(x)

log_p = F.log_softmax(s_logits / T, dim=1)
log_q = F.log_softmax(t_logits / T, dim=1)
kd_prob = F.kl_div(log_p, log_q.exp(), reduction="batchmean") * T * T
kd_log = F.kl_div(log_p, log_q, reduction="batchmean", log_target=True) * T * T
print("kd", round(kd_prob.item(), 4), round(kd_log.item(), 4), kd_log.grad_fn.name())
for red in ("sum", "none"):
    out = F.kl_div(log_p, log_q, reduction=red, log_target=True)
    print(red, tuple(out.shape), round(out.sum().item(), 4))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    mean = F.kl_div(log_p, log_q, reduction="mean", log_target=True)
print("mean", round(mean.item(), 6), [str(w.message)[:60] for w in caught])
crit = nn.KLDivLoss(reduction="batchmean", log_target=True)
print(crit, round(crit(log_p, log_q).item(), 4))
# KL = cross entropy with soft targets minus the teacher's entropy
soft_ce = F.cross_entropy(s_logits / T, log_q.exp())
entropy = -(log_q.exp() * log_q).sum(1).mean()
print("identity", round((soft_ce - entropy).item(), 4), round((kd_log / T / T).item(), 4))
try:
    F.kl_div(log_p, log_q[:, :3], reduction="batchmean")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.kl_div(log_p, log_q, reduction="avg")
except Exception as e:
    print(type(e).__name__, e)

opt = torch.optim.SGD(student.parameters(), lr=0.2, momentum=0.9)
alpha = 0.7
for epoch in range(25):
    opt.zero_grad()
    s_logits = student(x)
    kd = (
        F.kl_div(
            F.log_softmax(s_logits / T, -1), F.log_softmax(t_logits / T, -1), reduction="batchmean", log_target=True
        )
        * T**2
    )
    ce = F.cross_entropy(s_logits, labels)
    loss = alpha * kd + (1 - alpha) * ce
    loss.backward()
    opt.step()
    if epoch % 8 == 0:
        print(epoch, round(kd.item(), 4), round(ce.item(), 4))
agree = (student(x).argmax(1) == t_logits.argmax(1)).float().mean()
print("agreement", round(agree.item(), 4))
print("mask untouched", int(torch.sum(student[0].weight_mask == 0)), int((student[0].weight == 0).sum()))
print(
    "orig grad at pruned rows",
    round(student[0].weight_orig.grad[student[0].weight_mask.sum(1) == 0].abs().sum().item(), 4),
)
