"""torchvision reference-script utilities: SmoothedValue/MetricLogger medians over a deque, an ExponentialMovingAverage
subclass of AveragedModel, SequentialLR of LinearLR warmup and CosineAnnealingLR, mixup with one-hot targets, CPU
autocast's bfloat16 op policy, frozen backbones, and checkpoints that carry argparse args under weights_only."""

import argparse
import io
import pickle
from collections import defaultdict, deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.swa_utils import AveragedModel

rng = np.random.default_rng(11)


def T(*s, scale=1.0):
    return torch.from_numpy((rng.standard_normal(s) * scale).astype(np.float32))


class SmoothedValue:
    def __init__(self, window_size=20, fmt="{median:.4f} ({global_avg:.4f})"):
        self.deque = deque(maxlen=window_size)
        self.total, self.count, self.fmt = 0.0, 0, fmt

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def median(self):
        return torch.tensor(list(self.deque)).median().item()

    @property
    def avg(self):
        return torch.tensor(list(self.deque), dtype=torch.float32).mean().item()

    @property
    def global_avg(self):
        return self.total / self.count

    def __str__(self):
        return self.fmt.format(median=self.median, avg=self.avg, global_avg=self.global_avg)


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            if isinstance(v, torch.Tensor):
                v = v.item()
            self.meters[k].update(v)

    def __str__(self):
        return self.delimiter.join(f"{name}: {meter}" for name, meter in self.meters.items())


class ExponentialMovingAverage(AveragedModel):
    def __init__(self, model, decay, device="cpu"):
        def ema_avg(avg_model_param, model_param, num_averaged):
            return decay * avg_model_param + (1 - decay) * model_param

        super().__init__(model, device, ema_avg, use_buffers=True)


net = nn.Sequential(nn.Conv2d(2, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                    nn.Flatten(), nn.Linear(24, 3))
with torch.no_grad():
    for p in net.parameters():
        p.copy_(T(*p.shape, scale=0.3))
for p in net[0].parameters():
    p.requires_grad_(False)
trainable = [n for n, p in net.named_parameters() if p.requires_grad]
print("trainable", trainable, sum(p.numel() for p in net.parameters() if p.requires_grad))

opt = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1, momentum=0.9, nesterov=True)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=2)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-4)
sched = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, cos], milestones=[2])
ema = ExponentialMovingAverage(net, decay=0.9)
print("ema", type(ema).__name__, isinstance(ema, AveragedModel), ema.n_averaged.item())

X = T(12, 2, 5, 5)
Y = torch.from_numpy(rng.integers(0, 3, 12))
lams = rng.beta(0.2, 0.2, 6).round(4).tolist()
logger = MetricLogger()
lrs = []
for step in range(6):
    xb, yb = X[2 * step:2 * step + 2], Y[2 * step:2 * step + 2]
    tgt = F.one_hot(yb, num_classes=3).to(dtype=torch.float32)
    lam = lams[step]
    xb = xb.roll(1, 0).mul_(1.0 - lam).add_(xb.mul(lam))
    tgt = tgt.roll(1, 0).mul_(1.0 - lam).add_(tgt.mul(lam))
    out = net(xb)
    loss = F.cross_entropy(out, tgt, label_smoothing=0.05)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_([p for p in net.parameters() if p.requires_grad], max_norm=0.5, norm_type=2.0)
    opt.step()
    sched.step()
    ema.update_parameters(net)
    logger.update(loss=loss, gnorm=gn, lr=opt.param_groups[0]["lr"])
    lrs.append(round(opt.param_groups[0]["lr"], 6))
print("lrs", lrs, sched.last_epoch, sched._last_lr if hasattr(sched, "_last_lr") else None)
print(str(logger))
print("meters", sorted(logger.meters), logger.meters["loss"].count, round(logger.meters["loss"].median, 4))
print("ema", ema.n_averaged.item(), np.round(ema.module[5].bias.detach().numpy(), 4).tolist(),
      np.round(ema.module[1].running_var.numpy(), 4).tolist()[:3])
print("frozen unchanged", torch.equal(ema.module[0].weight, net[0].weight), net[0].weight.grad is None)

a, b, c = T(4, 8), T(8, 5), T(4, 5)
with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    mm = a @ b
    lin = F.linear(a, b.t())
    add = mm + c
    sm = torch.softmax(mm, dim=-1)
    lsm = F.log_softmax(mm, dim=-1)
    ce = F.cross_entropy(mm, torch.tensor([0, 1, 2, 3]))
    conv = F.conv2d(X[:1], net[0].weight)
    bmm = torch.bmm(a[None], b[None])
    s = mm.sum()
    relu = F.relu(mm)
    with torch.autocast(device_type="cpu", enabled=False):
        inner = a @ b
print("autocast dtypes", [t.dtype for t in (mm, lin, add, sm, lsm, ce, conv, bmm, s, relu, inner)])
print("autocast close", (mm.float() - a @ b).abs().max().item() < 0.1, torch.is_autocast_enabled("cpu"))


@torch.autocast("cpu", dtype=torch.bfloat16)
def decorated(x, y):
    return torch.mm(x, y)


print("decorated", decorated(a, b).dtype)

args = argparse.Namespace(lr=0.1, epochs=6, model="tiny")
ck = {"model": net.state_dict(), "optimizer": opt.state_dict(), "lr_scheduler": sched.state_dict(),
      "epoch": 5, "args": args}
buf = io.BytesIO()
torch.save(ck, buf)
buf.seek(0)
try:
    torch.load(buf, map_location="cpu", weights_only=True)
except pickle.UnpicklingError as e:
    print("weights_only refuses", isinstance(e, pickle.UnpicklingError), "argparse.Namespace" in str(e))
buf.seek(0)
full = torch.load(buf, map_location="cpu", weights_only=False)
print("full load", full["args"].lr, full["args"].model, full["epoch"], sorted(full["lr_scheduler"]))
torch.serialization.add_safe_globals([argparse.Namespace])
buf.seek(0)
safe = torch.load(buf, map_location="cpu", weights_only=True)
print("safe globals", type(safe["args"]).__name__, safe["args"].epochs)
net2 = nn.Sequential(nn.Conv2d(2, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                     nn.Flatten(), nn.Linear(24, 3))
net2.load_state_dict(safe["model"])
net2[0].requires_grad_(False)
opt2 = torch.optim.SGD([p for p in net2.parameters() if p.requires_grad], lr=0.1, momentum=0.9, nesterov=True)
opt2.load_state_dict(safe["optimizer"])
print("resumed", opt2.param_groups[0]["lr"] == opt.param_groups[0]["lr"], len(opt2.state),
      torch.equal(net2(X[:2]), net(X[:2])) if not net.training else None)
net.eval(), net2.eval()
with torch.inference_mode():
    o1, o2 = net(X), net2(X)
    print("eval", torch.equal(o1, o2), o1.requires_grad, torch.is_inference(o1))
    top = o1.topk(2, dim=1)
    print("topk", top.indices[:4].tolist(), np.round(top.values[:2].numpy(), 4).tolist())
