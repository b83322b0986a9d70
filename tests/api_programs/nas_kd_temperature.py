"""Knowledge distillation as compression code writes it: Hinton's temperature-softened KL with T^2 scaling through
F.kl_div in both target forms (log_target False/True) and every reduction, nn.KLDivLoss, FitNets hint regression
through a 1x1 adapter, attention transfer, decoupled KD's target/non-target split, and the teacher frozen."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
s_logits = torch.randn(4, 5, requires_grad=True)
t_logits = torch.randn(4, 5) * 2
T = 4.0
log_p_s = F.log_softmax(s_logits / T, dim=1)
p_t = F.softmax(t_logits / T, dim=1)
log_p_t = F.log_softmax(t_logits / T, dim=1)
for red in ["batchmean", "sum", "none", "mean"]:
    a = F.kl_div(log_p_s, p_t, reduction=red)
    b = F.kl_div(log_p_s, log_p_t, reduction=red, log_target=True)
    print(red, tuple(a.shape), round(a.sum().item(), 4), torch.allclose(a, b, atol=1e-6))
kd = F.kl_div(log_p_s, log_p_t, reduction="batchmean", log_target=True) * T * T
manual = (p_t * (log_p_t - log_p_s)).sum(1).mean() * T * T
print("kd", round(kd.item(), 4), round(manual.item(), 4), type(kd.grad_fn).__name__)
kd.backward()
print("student grad", s_logits.grad.round(decimals=4)[0].tolist(), round(s_logits.grad.sum().item(), 6) == 0.0)
crit = nn.KLDivLoss(reduction="batchmean", log_target=True)
print(crit, round(crit(log_p_s, log_p_t).item(), 4))
print("zero target", F.kl_div(torch.tensor([-1.0, -2.0]), torch.tensor([0.0, 1.0]), reduction="none").tolist())
print("neg target", F.kl_div(torch.tensor([-1.0]), torch.tensor([-0.5]), reduction="sum").item())


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(width, width, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(width, 3)

    def forward(self, x):
        f = self.features(x)
        return self.fc(f.mean((2, 3))), f


teacher, student = Net(8), Net(3)
teacher.eval().requires_grad_(False)
adapter = nn.Conv2d(3, 8, 1, bias=False)
print("teacher trainable", sum(p.requires_grad for p in teacher.parameters()), "student",
      sum(p.numel() for p in student.parameters()))


def at(f, p=2):
    return F.normalize(f.pow(p).mean(1).flatten(1), dim=1)


def dkd(logit_s, logit_t, target, alpha=1.0, beta=8.0, T=4.0):
    gt = F.one_hot(target, logit_s.size(1)).bool()
    p_s, p_t = F.softmax(logit_s / T, 1), F.softmax(logit_t / T, 1)
    b_s = torch.stack([(p_s * gt).sum(1), (p_s * ~gt).sum(1)], 1)
    b_t = torch.stack([(p_t * gt).sum(1), (p_t * ~gt).sum(1)], 1)
    tckd = F.kl_div(b_s.log(), b_t, reduction="batchmean") * T ** 2
    mask = gt.float() * 1000.0
    nckd = F.kl_div(F.log_softmax(logit_s / T - mask, 1), F.log_softmax(logit_t / T - mask, 1),
                    reduction="batchmean", log_target=True) * T ** 2
    return alpha * tckd + beta * nckd, tckd, nckd


X, Y = torch.randn(16, 1, 6, 6), torch.randint(0, 3, (16,))
opt = torch.optim.AdamW(list(student.parameters()) + list(adapter.parameters()), lr=0.01)
for step in range(5):
    with torch.no_grad():
        t_out, t_feat = teacher(X)
    s_out, s_feat = student(X)
    ce = F.cross_entropy(s_out, Y, label_smoothing=0.1)
    soft = F.kl_div(F.log_softmax(s_out / T, 1), F.log_softmax(t_out / T, 1), reduction="batchmean",
                    log_target=True) * T * T
    hint = F.mse_loss(adapter(s_feat), t_feat)
    att = (at(s_feat) - at(t_feat)).pow(2).mean()
    total, tckd, nckd = dkd(s_out, t_out, Y)
    loss = 0.1 * ce + 0.9 * soft + hint + 100 * att + 0.1 * total
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, [round(v.item(), 4) for v in (ce, soft, hint, att, tckd, nckd)])
print("teacher grads none", all(p.grad is None for p in teacher.parameters()), t_out.requires_grad)
agree = (student(X)[0].argmax(1) == teacher(X)[0].argmax(1)).float().mean()
print("agreement", round(agree.item(), 4))
try:
    F.kl_div(log_p_s, p_t[:, :3], reduction="batchmean")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.kl_div(log_p_s, p_t, reduction="avg")
except Exception as e:
    print(type(e).__name__, e)
