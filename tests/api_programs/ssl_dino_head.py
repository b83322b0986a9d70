"""DINO's training step as its reference code writes it: a DINOHead whose last layer is weight-normed
(nn.utils.weight_norm with weight_g frozen, and the parametrizations version), trunc_normal_ init, numpy
schedules for teacher temperature, momentum and weight decay, multi-crop views of two resolutions batched
by torch.cat per resolution (unique_consecutive + cumsum), a centred and sharpened teacher, cross entropy between
distributions with log_softmax, cancelling the last layer's gradient in the first epoch, and per-parameter
gradient clipping."""

import numpy as np
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class DINOHead(nn.Module):
    def __init__(self, in_dim, out_dim, hidden=16, bottleneck=8, parametrized=False):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, bottleneck))
        self.apply(self._init_weights)
        last = nn.Linear(bottleneck, out_dim, bias=False)
        if parametrized:
            self.last_layer = nn.utils.parametrizations.weight_norm(last)
            self.last_layer.parametrizations.weight.original0.data.fill_(1)
            self.last_layer.parametrizations.weight.original0.requires_grad = False
        else:
            self.last_layer = nn.utils.weight_norm(last)
            self.last_layer.weight_g.data.fill_(1)
            self.last_layer.weight_g.requires_grad = False

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = F.normalize(self.mlp(x), dim=-1, p=2)
        return self.last_layer(x)


def cosine_scheduler(base, final, epochs, niter, warmup_epochs=0, start_warmup=0):
    warmup = np.linspace(start_warmup, base, warmup_epochs * niter) if warmup_epochs > 0 else np.array([])
    iters = np.arange(epochs * niter - warmup_epochs * niter)
    schedule = final + 0.5 * (base - final) * (1 + np.cos(np.pi * iters / len(iters)))
    return np.concatenate((warmup, schedule))


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)

    def forward(self, crops):
        sizes = torch.tensor([c.shape[-1] for c in crops])
        idx_crops = torch.cumsum(torch.unique_consecutive(sizes, return_counts=True)[1], 0)
        start, out = 0, []
        for end in idx_crops.tolist():
            out.append(F.adaptive_avg_pool2d(self.conv(torch.cat(crops[start:end])), 1).flatten(1))
            start = end
        return torch.cat(out)


student_head, teacher_head = DINOHead(6, 10), DINOHead(6, 10)
teacher_head.load_state_dict(student_head.state_dict())
print(sorted(student_head.state_dict())[-2:], student_head.last_layer.weight_g.shape)
print("trunc", round(student_head.mlp[0].weight.std().item(), 3) < 0.03, student_head.mlp[0].weight.abs().max() <= 0.04)
pm = DINOHead(6, 10, parametrized=True)
print(sorted(pm.state_dict())[-2:], type(pm.last_layer).__name__, pm.last_layer.parametrizations.weight.original0.shape)
print(
    "wn norms",
    pm.last_layer.weight.norm(dim=1)[:3].round(decimals=4).tolist(),
    student_head.last_layer.weight.norm(dim=1)[:3].round(decimals=4).tolist(),
)

student, teacher = Backbone(), Backbone()
teacher.load_state_dict(student.state_dict())
for p in list(teacher.parameters()) + list(teacher_head.parameters()):
    p.requires_grad = False
epochs, niter = 2, 2
teacher_temp = np.concatenate((np.linspace(0.04, 0.07, 1), np.ones(epochs - 1) * 0.07))
momentum = cosine_scheduler(0.996, 1, epochs, niter)
wd = cosine_scheduler(0.04, 0.4, epochs, niter)
lr = cosine_scheduler(0.01, 1e-4, epochs, niter, warmup_epochs=1)
print("schedules", teacher_temp.tolist(), np.round(momentum, 6).tolist(), np.round(lr, 6).tolist())
params = list(student.parameters()) + [p for p in student_head.parameters() if p.requires_grad]
regularized = [p for p in params if p.ndim > 1]
not_reg = [p for p in params if p.ndim <= 1]
opt = torch.optim.AdamW([{"params": regularized}, {"params": not_reg, "weight_decay": 0.0}])
center = torch.zeros(1, 10)
images = torch.rand(2, 3, 12, 12)
for it in range(epochs * niter):
    epoch = it // niter
    for i, g in enumerate(opt.param_groups):
        g["lr"] = lr[it]
        if i == 0:
            g["weight_decay"] = wd[it]
    globals_ = [images, torch.flip(images, dims=[3])]
    locals_ = [
        F.interpolate(images[:, :, 2:10, 2:10], size=(6, 6), mode="bilinear", align_corners=False),
        F.avg_pool2d(images, 2),
    ]
    s_out = student_head(student(globals_ + locals_)) / 0.1
    with torch.no_grad():
        t_out = teacher_head(teacher(globals_))
    t_soft = F.softmax((t_out - center) / teacher_temp[epoch], dim=-1).detach().chunk(2)
    s_chunks = s_out.chunk(4)
    total, n = 0, 0
    for iq, q in enumerate(t_soft):
        for v in range(len(s_chunks)):
            if v == iq:
                continue
            total = total + torch.sum(-q * F.log_softmax(s_chunks[v], dim=-1), dim=-1).mean()
            n += 1
    loss = total / n
    with torch.no_grad():
        center = center * 0.9 + torch.sum(t_out, dim=0, keepdim=True) / len(t_out) * 0.1
    opt.zero_grad()
    loss.backward()
    norms = []
    for name, p in list(student.named_parameters()) + list(student_head.named_parameters()):
        if p.grad is not None:
            param_norm = p.grad.data.norm(2)
            norms.append(param_norm.item())
            clip_coef = 3.0 / (param_norm + 1e-6)
            if clip_coef < 1:
                p.grad.data.mul_(clip_coef)
    if epoch < 1:
        for n_, p in student_head.named_parameters():
            if "last_layer" in n_:
                p.grad = None
    opt.step()
    with torch.no_grad():
        m = momentum[it]
        for ps, pt in zip(
            list(student.parameters()) + list(student_head.parameters()),
            list(teacher.parameters()) + list(teacher_head.parameters()),
        ):
            pt.data.mul_(m).add_((1 - m) * ps.detach().data)
    print(
        it,
        s_out.shape,
        n,
        round(loss.item(), 4),
        round(sum(norms) / 1000, 4),
        student_head.last_layer.weight_v.grad is None,
        center.sum().round(decimals=4).item(),
    )
ent = -(t_soft[0] * t_soft[0].clamp_min(1e-12).log()).sum(-1).mean()
print(
    "teacher entropy",
    round(ent.item(), 4),
    "kl",
    round(F.kl_div(F.log_softmax(s_chunks[1], -1), t_soft[0], reduction="batchmean").item(), 4),
)
try:
    nn.utils.weight_norm(student_head.last_layer)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.utils.remove_weight_norm(pm.last_layer)
except Exception as e:
    print(type(e).__name__, e)
