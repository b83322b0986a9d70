"""DINO self-distillation: multi-crop views made with interpolate (bilinear/bicubic, antialias), a student/teacher
ViT-ish backbone run per resolution via unique_consecutive + cumsum over crop sizes, a weight-normed last layer
(parametrizations.weight_norm with a frozen g), a centering buffer updated by EMA, sharpened softmax cross-entropy,
cosine schedules, cancel-last-layer gradients, and clip_grad_norm_ per parameter."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(1)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class DINOHead(nn.Module):
    def __init__(self, in_dim, out_dim, bottleneck=4):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, 8), nn.GELU(), nn.Linear(8, bottleneck))
        self.last_layer = nn.utils.parametrizations.weight_norm(nn.Linear(bottleneck, out_dim, bias=False))
        self.last_layer.parametrizations.weight.original0.data.fill_(1)
        self.last_layer.parametrizations.weight.original0.requires_grad = False

    def forward(self, x):
        x = self.mlp(x)
        x = F.normalize(x, dim=-1, p=2)
        return self.last_layer(x)


class Backbone(nn.Module):
    def __init__(self, dim=6):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.norm = nn.LayerNorm(dim, eps=1e-6)

    def forward(self, x):
        t = self.patch(x).flatten(2).transpose(1, 2)
        return self.norm(t).mean(dim=1)


class MultiCropWrapper(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, x):
        if not isinstance(x, list):
            x = [x]
        idx_crops = torch.cumsum(torch.unique_consecutive(torch.tensor([inp.shape[-1] for inp in x]),
                                                          return_counts=True)[1], 0)
        start, output = 0, torch.empty(0).to(x[0].device)
        for end_idx in idx_crops:
            _out = self.backbone(torch.cat(x[start:end_idx]))
            output = torch.cat((output, _out))
            start = end_idx
        return self.head(output)


def init(m, scale=0.4):
    with torch.no_grad():
        for n, p in m.named_parameters():
            if p.requires_grad:
                p.copy_(T(*p.shape) * scale)
    return m


student = init(MultiCropWrapper(Backbone(), DINOHead(6, 10)))
teacher = MultiCropWrapper(Backbone(), DINOHead(6, 10))
teacher.load_state_dict(student.state_dict())
for p in teacher.parameters():
    p.requires_grad = False
print("keys", [k for k in student.state_dict() if "last_layer" in k])
print("wn", student.head.last_layer, tuple(student.head.last_layer.weight.shape))
print("wn norm", r(student.head.last_layer.weight.norm(dim=1)))


class DINOLoss(nn.Module):
    def __init__(self, out_dim, ncrops, warmup_teacher_temp=0.04, teacher_temp=0.07, warmup_epochs=2, nepochs=4,
                 student_temp=0.1, center_momentum=0.9):
        super().__init__()
        self.student_temp, self.center_momentum, self.ncrops = student_temp, center_momentum, ncrops
        self.register_buffer("center", torch.zeros(1, out_dim))
        self.teacher_temp_schedule = np.concatenate((np.linspace(warmup_teacher_temp, teacher_temp, warmup_epochs),
                                                     np.ones(nepochs - warmup_epochs) * teacher_temp))

    def forward(self, student_output, teacher_output, epoch):
        student_out = (student_output / self.student_temp).chunk(self.ncrops)
        temp = self.teacher_temp_schedule[epoch]
        teacher_out = F.softmax((teacher_output - self.center) / temp, dim=-1).detach().chunk(2)
        total_loss, n_loss_terms = 0, 0
        for iq, q in enumerate(teacher_out):
            for v in range(len(student_out)):
                if v == iq:
                    continue
                loss = torch.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1)
                total_loss += loss.mean()
                n_loss_terms += 1
        self.update_center(teacher_output)
        return total_loss / n_loss_terms

    @torch.no_grad()
    def update_center(self, teacher_output):
        batch_center = torch.sum(teacher_output, dim=0, keepdim=True) / len(teacher_output)
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)


def cosine_scheduler(base, final, epochs, niter, warmup_epochs=0, start_warmup=0):
    warmup = np.linspace(start_warmup, base, warmup_epochs * niter) if warmup_epochs > 0 else np.array([])
    iters = np.arange(epochs * niter - warmup_epochs * niter)
    sched = final + 0.5 * (base - final) * (1 + np.cos(np.pi * iters / len(iters)))
    return np.concatenate((warmup, sched))


img = torch.from_numpy(rng.uniform(0, 1, (2, 3, 20, 20)).astype(np.float32))
g1 = F.interpolate(img[..., 1:19, 2:20], size=(16, 16), mode="bilinear", align_corners=False)
g2 = F.interpolate(torch.flip(img, dims=[-1]), size=16, mode="bicubic", align_corners=False).clamp(0, 1)
l1 = F.interpolate(img[..., :12, :12], size=(8, 8), mode="bilinear", antialias=True)
l2 = F.interpolate(img[..., 8:, 8:], scale_factor=0.5, mode="area")
crops = [g1, g2, l1, l2]
print("crops", [tuple(c.shape) for c in crops], r(l2.mean(dim=(0, 2, 3))), r(g2.amax(dim=(1, 2, 3))))
print("unique", torch.unique_consecutive(torch.tensor([16, 16, 8, 8]), return_counts=True))
dino = DINOLoss(10, ncrops=4)
params = [p for p in student.parameters() if p.requires_grad]
print("trainable", len(params), sum(p.numel() for p in params))
opt = torch.optim.AdamW(params, lr=0.01)
lr_sched = cosine_scheduler(0.01, 1e-4, 4, 1, warmup_epochs=1)
mom_sched = cosine_scheduler(0.9, 1.0, 4, 1)
print("scheds", np.round(lr_sched, 5).tolist(), np.round(mom_sched, 4).tolist())
for epoch in range(4):
    for g in opt.param_groups:
        g["lr"] = lr_sched[epoch]
    t_out = teacher(crops[:2])
    s_out = student(crops)
    loss = dino(s_out, t_out, epoch)
    opt.zero_grad()
    loss.backward()
    norms = []
    for name, p in student.named_parameters():
        if p.grad is not None:
            norms.append(p.grad.data.norm(2).item())
            clip_coef = 3.0 / (norms[-1] + 1e-6)
            if clip_coef < 1:
                p.grad.data.mul_(clip_coef)
    if epoch < 1:
        for n, p in student.named_parameters():
            if "last_layer" in n:
                p.grad = None
    opt.step()
    with torch.no_grad():
        m = mom_sched[epoch]
        for ps, pt in zip(student.parameters(), teacher.parameters()):
            pt.data.mul_(m).add_((1 - m) * ps.detach().data)
    print("epoch", epoch, tuple(s_out.shape), round(loss.item(), 4), round(max(norms), 4), r(dino.center, 3))
print("center", dino.center.requires_grad, dino.center.is_leaf, [n for n, _ in dino.named_buffers()])
p_t = F.softmax(t_out / 0.04, dim=-1)
ent = -(p_t * torch.log(p_t + 1e-12)).sum(-1)
print("sharpen", r(ent), r(F.softmax(t_out / 1.0, -1).amax(-1)))
print("kl", round(F.kl_div(F.log_softmax(s_out[:4], -1), p_t, reduction="batchmean").item(), 4))
print("wn g", student.head.last_layer.parametrizations.weight.original0.requires_grad,
      r(student.head.last_layer.parametrizations.weight.original0.flatten(), 3))
print("teacher", r(teacher.backbone.patch.bias), r(teacher.head.mlp[0].weight))
rm = nn.utils.parametrize.remove_parametrizations(student.head.last_layer, "weight")
print("removed", type(rm).__name__, sorted(n for n, _ in rm.named_parameters()), r(rm.weight.norm(dim=1)))
try:
    F.interpolate(img, size=(8, 8), mode="bicubic", antialias=True, align_corners=True, scale_factor=2)
except ValueError as e:
    print("interp err", type(e).__name__, e)
try:
    F.interpolate(img[0, 0], size=(8, 8), mode="bilinear")
except (ValueError, NotImplementedError) as e:
    print("interp dim err", type(e).__name__, str(e)[:100])
print("antialias down", r(F.interpolate(img, size=(5, 5), mode="bicubic", antialias=True)[0, 0, 0]))
print("nearest-exact", r(F.interpolate(img, size=(7, 7), mode="nearest-exact")[0, 0, 0]),
      r(F.interpolate(img, scale_factor=0.3, mode="nearest", recompute_scale_factor=True)[0, 0, 0]))
print("math", round(math.cos(math.pi * 0.25), 4))
old = nn.utils.weight_norm(nn.Linear(4, 10, bias=False))  # an old DINO checkpoint's head
with torch.no_grad():
    old.weight_v.copy_(T(10, 4))
    old.weight_g.fill_(1.0)
head = DINOHead(6, 10)
res = head.last_layer.load_state_dict(old.state_dict())
print("old wn ckpt", sorted(old.state_dict()), res, r(head.last_layer.weight.norm(dim=1), 4),
      torch.allclose(head.last_layer.weight, old.weight))
for bad in (lambda: F.gelu(img, approximate="fast"), lambda: nn.init.kaiming_uniform_(torch.empty(2, 2), mode="in")):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print("err", type(e).__name__, e)
