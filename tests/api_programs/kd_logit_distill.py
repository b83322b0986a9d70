"""Logit distillation (Hinton et al.): KL on temperature-softened logits, every reduction and log_target form."""
import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 5))
student = nn.Sequential(nn.Linear(8, 6), nn.Tanh(), nn.Linear(6, 5))
for p in teacher.parameters():
    p.requires_grad_(False)
teacher.eval()

x = torch.randn(16, 8)
y = torch.randint(0, 5, (16,))
T = 4.0

with torch.no_grad():
    t_logits = teacher(x)
s_logits = student(x)
print("teacher requires_grad", t_logits.requires_grad, "student grad_fn", type(s_logits.grad_fn).__name__)

log_p_s = F.log_softmax(s_logits / T, dim=-1)
log_p_t = F.log_softmax(t_logits / T, dim=-1)
p_t = log_p_t.exp()
for red in ["batchmean", "sum", "none"]:
    kl = F.kl_div(log_p_s, p_t, reduction=red)
    print(red, tuple(kl.shape), round(kl.sum().item(), 4))
kl_lt = F.kl_div(log_p_s, log_p_t, reduction="batchmean", log_target=True)
print("log_target", round(kl_lt.item(), 4), type(kl_lt.grad_fn).__name__)
crit = nn.KLDivLoss(reduction="batchmean", log_target=True)
print(crit, round(crit(log_p_s, log_p_t).item(), 4))

# manual KL matches
manual = (p_t * (log_p_t - log_p_s)).sum(-1).mean()
print("manual", round(manual.item(), 4))

# soft cross-entropy with probability targets and label smoothing
soft_ce = F.cross_entropy(s_logits / T, p_t)
print("soft CE", round(soft_ce.item(), 4))
print("soft CE smoothed", round(F.cross_entropy(s_logits / T, p_t, label_smoothing=0.1).item(), 4))
print("hard CE smoothed", round(F.cross_entropy(s_logits, y, label_smoothing=0.1).item(), 4))
w = torch.tensor([1.0, 2.0, 0.5, 1.0, 3.0])
print("weighted soft CE", round(F.cross_entropy(s_logits, p_t, weight=w).item(), 4))
print("none soft CE", F.cross_entropy(s_logits, p_t, reduction="none")[:4].round(decimals=4).tolist())

alpha = 0.7
loss = alpha * T * T * kl_lt + (1 - alpha) * F.cross_entropy(s_logits, y)
loss.backward()
for n, p in student.named_parameters():
    print(n, tuple(p.grad.shape), round(p.grad.abs().sum().item(), 4))
print("teacher grads", [p.grad for p in teacher.parameters()])

# training loop
opt = torch.optim.SGD(student.parameters(), lr=0.5, momentum=0.9)
for step in range(5):
    opt.zero_grad()
    s = student(x)
    kd = F.kl_div(F.log_softmax(s / T, -1), F.softmax(t_logits / T, -1), reduction="batchmean") * T * T
    ce = F.cross_entropy(s, y)
    (0.5 * kd + 0.5 * ce).backward()
    opt.step()
    print(step, round(kd.item(), 4), round(ce.item(), 4))

# agreement
with torch.no_grad():
    agree = (student(x).argmax(1) == t_logits.argmax(1)).float().mean()
print("agreement", round(agree.item(), 4))

# misuse
try:
    F.kl_div(log_p_s, p_t[:, :3], reduction="batchmean")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(s_logits, p_t[:, :4])
except Exception as e:
    print(type(e).__name__, e)
try:
    F.kl_div(log_p_s, p_t, reduction="avg")
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(s_logits, y.float().unsqueeze(1))
except Exception as e:
    print(type(e).__name__, e)
