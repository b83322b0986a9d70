"""timm/Lightning training utilities written inline: AverageMeter, top-k accuracy, adaptive gradient clipping with
unitwise norms, mixup and cutmix targets with soft-target and label-smoothing cross entropies, a ModelSummary built
from forward hooks, freezing with FrozenBatchNorm2d conversion, inference_mode in validation, and GradScaler on CPU."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(29)


def npt(*shape, scale=1.0):
    return torch.from_numpy((rng.standard_normal(shape) * scale).astype(np.float32))


def r(t, n=6):
    return np.round(torch.as_tensor(t).detach().double().flatten()[:n].numpy(), 4).tolist()


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def accuracy(output, target, topk=(1,)):
    maxk = min(max(topk), output.size()[1])
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.reshape(1, -1).expand_as(pred))
    return [correct[: min(k, maxk)].reshape(-1).float().sum(0) * 100.0 / batch_size for k in topk]


def unitwise_norm(x, norm_type=2.0):
    if x.ndim <= 1:
        return x.norm(norm_type)
    return x.norm(norm_type, dim=tuple(range(1, x.ndim)), keepdim=True)


def adaptive_clip_grad(parameters, clip_factor=0.01, eps=1e-3, norm_type=2.0):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    for p in parameters:
        if p.grad is None:
            continue
        p_data = p.detach()
        g_data = p.grad.detach()
        max_norm = unitwise_norm(p_data, norm_type=norm_type).clamp_(min=eps).mul_(clip_factor)
        grad_norm = unitwise_norm(g_data, norm_type=norm_type)
        clipped_grad = g_data * (max_norm / grad_norm.clamp(min=1e-6))
        new_grads = torch.where(grad_norm < max_norm, g_data, clipped_grad)
        p.grad.detach().copy_(new_grads)


def one_hot(x, num_classes, on_value=1.0, off_value=0.0):
    x = x.long().view(-1, 1)
    return torch.full((x.size()[0], num_classes), off_value, device=x.device).scatter_(1, x, on_value)


def mixup_target(target, num_classes, lam=1.0, smoothing=0.0):
    off_value = smoothing / num_classes
    on_value = 1.0 - smoothing + off_value
    y1 = one_hot(target, num_classes, on_value=on_value, off_value=off_value)
    y2 = one_hot(target.flip(0), num_classes, on_value=on_value, off_value=off_value)
    return y1 * lam + y2 * (1.0 - lam)


def rand_bbox(img_shape, lam, margin=0.0):
    ratio = np.sqrt(1 - lam)
    img_h, img_w = img_shape[-2:]
    cut_h, cut_w = int(img_h * ratio), int(img_w * ratio)
    cy, cx = 2, 3
    yl, yh = np.clip(cy - cut_h // 2, 0, img_h), np.clip(cy + cut_h // 2, 0, img_h)
    xl, xh = np.clip(cx - cut_w // 2, 0, img_w), np.clip(cx + cut_w // 2, 0, img_w)
    return yl, yh, xl, xh


class SoftTargetCrossEntropy(nn.Module):
    def forward(self, x, target):
        return torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1).mean()


class LabelSmoothingCrossEntropy(nn.Module):
    def __init__(self, smoothing=0.1):
        super().__init__()
        self.smoothing, self.confidence = smoothing, 1.0 - smoothing

    def forward(self, x, target):
        logprobs = F.log_softmax(x, dim=-1)
        nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
        smooth_loss = -logprobs.mean(dim=-1)
        return (self.confidence * nll_loss + self.smoothing * smooth_loss).mean()


logits = npt(8, 6)
target = torch.from_numpy(rng.integers(0, 6, 8))
top1, top3 = accuracy(logits, target, topk=(1, 3))
print("accuracy", r(top1), r(top3), top1.dtype, accuracy(logits[:, :2], target.clamp(max=1), topk=(1, 5))[1].item())
meter = AverageMeter()
for k, n in [(0.5, 4), (0.25, 2), (1.0, 2)]:
    meter.update(torch.tensor(k).item(), n)
print("meter", meter.val, round(meter.avg, 4), meter.count)

lsce = LabelSmoothingCrossEntropy(0.1)
print("label smoothing", r(lsce(logits, target)), r(F.cross_entropy(logits, target, label_smoothing=0.1)))
lam = 0.7
soft = mixup_target(target, 6, lam, smoothing=0.1)
print("mixup target", soft.shape, r(soft[0]), r(soft.sum(1), 3))
images = npt(8, 3, 5, 6)
mixed = images.mul(lam).add_(images.flip(0).mul_(1.0 - lam))
print("mixup images", r(mixed[0, 0, 0], 3), torch.allclose(mixed[3], lam * images[3] + (1 - lam) * images[4]))
yl, yh, xl, xh = rand_bbox(images.shape, 0.6)
cut = images.clone()
cut[:, :, yl:yh, xl:xh] = images.flip(0)[:, :, yl:yh, xl:xh]
lam_adj = 1 - (yh - yl) * (xh - xl) / float(images.shape[-2] * images.shape[-1])
print("cutmix", (yl, yh, xl, xh), round(float(lam_adj), 4),
      torch.equal(cut[0, :, yl:yh, xl:xh], images[7, :, yl:yh, xl:xh]))
stce = SoftTargetCrossEntropy()
print("soft ce", r(stce(logits, soft)), r(F.cross_entropy(logits, soft)),
      r(F.cross_entropy(logits, soft, label_smoothing=0.2)))


class FrozenBatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        for n in ("weight", "bias", "running_mean", "running_var"):
            self.register_buffer(n, torch.ones(num_features) if n in ("weight", "running_var") else
                                 torch.zeros(num_features))

    def forward(self, x):
        scale = self.weight * (self.running_var + self.eps).rsqrt()
        bias = self.bias - self.running_mean * scale
        return x * scale.reshape(1, -1, 1, 1) + bias.reshape(1, -1, 1, 1)

    def extra_repr(self):
        return f"{self.weight.shape[0]}, eps={self.eps}"


def freeze_batch_norm_2d(module):
    res = module
    if isinstance(module, nn.BatchNorm2d):
        res = FrozenBatchNorm2d(module.num_features, module.eps)
        with torch.no_grad():
            res.weight.copy_(module.weight)
            res.bias.copy_(module.bias)
            res.running_mean.copy_(module.running_mean)
            res.running_var.copy_(module.running_var)
    else:
        for name, child in module.named_children():
            new_child = freeze_batch_norm_2d(child)
            if new_child is not child:
                res.add_module(name, new_child)
    return res


net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                    nn.Sequential(nn.Conv2d(4, 4, 3, stride=2), nn.BatchNorm2d(4)), nn.AdaptiveAvgPool2d(1),
                    nn.Flatten(), nn.Linear(4, 6))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(npt(*p.shape, scale=0.5))
net.train()
net(images)

summary = []
hooks = [m.register_forward_hook(lambda m, i, o, name=name: summary.append(
    (name, type(m).__name__, list(i[0].shape), list(o.shape), sum(p.numel() for p in m.parameters(recurse=False)))))
    for name, m in net.named_modules() if name and not isinstance(m, nn.Sequential)]
with torch.inference_mode():
    out = net.eval()(images)
    print("inference", out.is_inference(), out.requires_grad, torch.is_inference_mode_enabled())
for h in hooks:
    h.remove()
for row in summary:
    print(" ", *row)
total = sum(p.numel() for p in net.parameters())
size_mb = sum(p.numel() * p.element_size() for p in net.parameters()) / 1e6
print("total params", total, f"{size_mb:,.3f} MB", len(net[0]._forward_hooks))
try:
    out.add_(1)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    F.cross_entropy(net.train()(images), target).backward()
    F.cross_entropy(out, target).backward()
except RuntimeError as e:
    print("RuntimeError", e)

frozen = freeze_batch_norm_2d(net)
print(frozen[1], frozen[3][1], type(frozen[3]).__name__)
with torch.no_grad():
    print("frozen same", torch.allclose(frozen.eval()(images), net.eval()(images), atol=1e-5))
print("frozen params", sum(p.numel() for p in frozen.parameters()), len(list(frozen.buffers())))

for p in net.parameters():
    p.grad = None
net.train()
F.cross_entropy(net(images), target).backward()
g_before = net[0].weight.grad.clone()
adaptive_clip_grad(net.parameters(), clip_factor=0.02)
uw = unitwise_norm(net[0].weight.detach())
print("agc", uw.shape, r(uw.flatten(), 4), r(unitwise_norm(net[0].weight.grad).flatten(), 4))
print("agc scaled", r(net[0].weight.grad.flatten(1).norm(dim=1) / g_before.flatten(1).norm(dim=1), 4))

net[0].requires_grad_(False)
print("frozen grads", [n for n, p in net.named_parameters() if not p.requires_grad])
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, net.parameters()), lr=0.1)
print("trainable", sum(len(g["params"]) for g in opt.param_groups))
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=2)
for step in range(3):
    opt.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = F.cross_entropy(net(images), target)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    gn = nn.utils.clip_grad_norm_([p for p in net.parameters() if p.requires_grad], 5.0)
    scaler.step(opt)
    scaler.update()
    print("amp step", step, loss.dtype, scaler.get_scale(), gn.dtype, net[0].weight.grad is None)
print("scaler state", sorted(scaler.state_dict()))
