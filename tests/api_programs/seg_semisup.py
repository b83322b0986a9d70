"""Semi-supervised segmentation (mean teacher, FixMatch/UniMatch style): a teacher updated by torch._foreach_lerp_
and buffer copies, confidence-thresholded pseudo labels with 255 ignore, CutMix of images and label maps through
box masks, a feature-perturbation branch with Dropout2d, unsupervised losses normalised by the kept-pixel ratio,
and the teacher's state kept out of the optimizer."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
C, TAU = 3, 0.4


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.drop = nn.Dropout2d(0.5)
        self.head = nn.Conv2d(8, C, 1)

    def forward(self, x, perturb=False):
        f = self.enc(x)
        if perturb:
            return self.head(f), self.head(self.drop(f))
        return self.head(f)


student = Net()
teacher = copy.deepcopy(student)
for p in teacher.parameters():
    p.requires_grad_(False)
print("teacher grads", any(p.requires_grad for p in teacher.parameters()), len(list(teacher.buffers())))


@torch.no_grad()
def ema_update(teacher, student, m):
    tp = [p for p in teacher.parameters()]
    sp = [p.detach() for p in student.parameters()]
    torch._foreach_lerp_(tp, sp, 1 - m)
    for tb, sb in zip(teacher.buffers(), student.buffers()):
        tb.copy_(sb)


def box_mask(h, w, lam, cy, cx):
    ch, cw = int(h * (1 - lam) ** 0.5), int(w * (1 - lam) ** 0.5)
    m = torch.zeros(h, w, dtype=torch.bool)
    y1, y2 = max(cy - ch // 2, 0), min(cy + ch // 2, h)
    x1, x2 = max(cx - cw // 2, 0), min(cx + cw // 2, w)
    m[y1:y2, x1:x2] = True
    return m


opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
xl = torch.randn(2, 3, 10, 10)
yl = torch.randint(0, C, (2, 10, 10))
xu = torch.randn(4, 3, 10, 10)
for it in range(3):
    teacher.eval()
    with torch.no_grad():
        prob = teacher(xu).softmax(1)
        conf, pseudo = prob.max(1)
        pseudo = torch.where(conf >= TAU, pseudo, torch.full_like(pseudo, 255))
    box = box_mask(10, 10, 0.5, 3 + it, 5)
    perm = torch.tensor([1, 0, 3, 2])
    xmix = torch.where(box, xu[perm], xu)
    ymix = torch.where(box, pseudo[perm], pseudo)
    student.train()
    sup = F.cross_entropy(student(xl), yl)
    logits_u, logits_fp = student(xmix, perturb=True)
    ce_u = F.cross_entropy(logits_u, ymix, ignore_index=255, reduction="none")
    keep = (ymix != 255).float()
    unsup = (ce_u * keep).sum() / keep.numel()
    fp = F.cross_entropy(logits_fp, ymix, ignore_index=255)
    loss = sup + 0.5 * unsup + 0.5 * torch.nan_to_num(fp)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema_update(teacher, student, 0.99)
    print(
        it,
        "kept",
        round(keep.mean().item(), 4),
        "box",
        int(box.sum()),
        "sup",
        r(sup),
        "unsup",
        r(unsup),
        "fp",
        r(torch.nan_to_num(fp)),
    )
drift = sum((a - b).abs().sum() for a, b in zip(teacher.parameters(), student.parameters()))
print("teacher drift", r(drift), "bn", r(teacher.enc[1].running_mean.sum()), teacher.enc[1].num_batches_tracked.item())
print(
    "opt params",
    sum(len(g["params"]) for g in opt.param_groups),
    "teacher in opt",
    any(p is q for g in opt.param_groups for p in g["params"] for q in teacher.parameters()),
)

a = [torch.ones(2), torch.zeros(3)]
torch._foreach_lerp_(a, [torch.zeros(2), torch.ones(3)], 0.25)
print("foreach lerp", [t.tolist() for t in a])
b = torch._foreach_mul([torch.ones(2), torch.full((1,), 2.0)], 3.0)
print("foreach mul", [t.tolist() for t in b])
torch._foreach_add_(a, [torch.ones(2), torch.ones(3)], alpha=2.0)
print("foreach add", [t.tolist() for t in a])
print("lerp tensor weight", torch.lerp(torch.zeros(3), torch.ones(3), torch.tensor([0.0, 0.5, 1.0])).tolist())
d = nn.Dropout2d(0.5)
print(d, d(torch.ones(1, 4, 2, 2)).shape)
print("entropy map", r(-(prob * prob.clamp_min(1e-8).log()).sum(1).mean()))

for bad in [
    lambda: torch._foreach_lerp_([torch.ones(2)], [torch.ones(3)], 0.5),
    lambda: torch._foreach_lerp_([torch.ones(2)], [torch.ones(2), torch.ones(2)], 0.5),
    lambda: torch.where(box, xu[perm], pseudo),
    lambda: torch.where(box.int(), xu, xu),
    lambda: next(teacher.parameters()).mul_(torch.ones(2)),
]:
    try:
        r_ = bad()
        print("ok", type(r_).__name__)
    except Exception as e:
        print(type(e).__name__, e)
