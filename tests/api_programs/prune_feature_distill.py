"""Feature distillation into a thinner student: FitNets hints through a 1x1 regressor, attention transfer
on spatial maps, and soft-target KD, with the teacher's features captured by forward hooks."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def make(width):
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1),
        nn.BatchNorm2d(width),
        nn.ReLU(),
        nn.Conv2d(width, 2 * width, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(2 * width, 4),
    )


teacher, student = make(8), make(4)
teacher.eval()
feats = {}


def grab(name):
    def hook(module, inputs, output):
        feats[name] = output

    return hook


handles = [teacher[4].register_forward_hook(grab("t")), student[4].register_forward_hook(grab("s"))]
regressor = nn.Conv2d(8, 16, 1, bias=False)


def attention(f, p=2):
    return F.normalize(f.pow(p).mean(1).flatten(1), dim=1)


x = torch.randn(8, 3, 8, 8)
y = torch.randint(0, 4, (8,))
print(
    "teacher params",
    sum(p.numel() for p in teacher.parameters()),
    "student params",
    sum(p.numel() for p in student.parameters()),
)
opt = torch.optim.SGD(list(student.parameters()) + list(regressor.parameters()), lr=0.05, momentum=0.9)
T = 3.0
for step in range(12):
    with torch.no_grad():
        t_logits = teacher(x)
    s_logits = student(x)
    hint = F.mse_loss(regressor(feats["s"]), feats["t"])
    at = (attention(feats["s"]) - attention(feats["t"])).pow(2).mean()
    kd = F.kl_div(F.log_softmax(s_logits / T, 1), F.softmax(t_logits / T, 1), reduction="batchmean") * T * T
    ce = F.cross_entropy(s_logits, y)
    loss = ce + 0.5 * kd + hint + 100 * at
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0:
        print(step, [round(v.item(), 4) for v in (ce, kd, hint, at)], loss.grad_fn.name())
print(
    "feature shapes",
    tuple(feats["t"].shape),
    tuple(feats["s"].shape),
    feats["t"].requires_grad,
    feats["s"].requires_grad,
)
print("attention map", tuple(attention(feats["t"]).shape), round(attention(feats["t"]).norm(dim=1).mean().item(), 4))
try:
    F.mse_loss(feats["s"], feats["t"])
except Exception as e:
    print(type(e).__name__, e)
for h in handles:
    h.remove()
feats.clear()
student(x)
print("hooks removed", feats == {}, len(student[4]._forward_hooks))
student.eval()
agree = (student(x).argmax(1) == teacher(x).argmax(1)).float().mean()
print("agreement", round(agree.item(), 4))
print("bn running mean", student[1].running_mean.round(decimals=4).tolist())
