"""nnU-Net-style training scaffolding: deep-supervision heads with labels downsampled by nearest interpolation and
by max-pooled one-hot maps, exponentially decaying scale weights, PolynomialLR and a hand-written poly schedule,
SGD with nesterov and weight decay on decoupled parameter groups, gradient clipping, and checkpoint round trips."""

import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class DSNet(nn.Module):
    def __init__(self, c=4, ncls=3):
        super().__init__()
        self.e1 = nn.Sequential(nn.Conv3d(1, c, 3, padding=1), nn.InstanceNorm3d(c, affine=True), nn.LeakyReLU(0.01))
        self.e2 = nn.Sequential(
            nn.Conv3d(c, 2 * c, 3, stride=2, padding=1), nn.InstanceNorm3d(2 * c, affine=True), nn.LeakyReLU(0.01)
        )
        self.e3 = nn.Sequential(nn.Conv3d(2 * c, 4 * c, 3, stride=2, padding=1), nn.LeakyReLU(0.01))
        self.u2 = nn.ConvTranspose3d(4 * c, 2 * c, 2, stride=2)
        self.u1 = nn.ConvTranspose3d(2 * c, c, 2, stride=2)
        self.heads = nn.ModuleList([nn.Conv3d(c, ncls, 1), nn.Conv3d(2 * c, ncls, 1), nn.Conv3d(4 * c, ncls, 1)])

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(a)
        z = self.e3(b)
        d2 = self.u2(z) + b
        d1 = self.u1(d2) + a
        return [h(f) for h, f in zip(self.heads, (d1, d2, z))]


net = DSNet()
x = torch.randn(2, 1, 8, 8, 8)
zz, yy, xx = torch.meshgrid(*(torch.arange(8.0),) * 3, indexing="ij")
y = (((zz - 4) ** 2 + (yy - 4) ** 2 + (xx - 3.5) ** 2) < 9).long() + (((zz - 4) ** 2 + (yy - 4) ** 2) < 2).long()
y = torch.stack([y, y.flip(-1)])
outs = net(x)
print("outputs", [tuple(o.shape) for o in outs])
scales = [(1, 1, 1), (0.5, 0.5, 0.5), (0.25, 0.25, 0.25)]
targets = [F.interpolate(y[:, None].float(), scale_factor=s, mode="nearest").long()[:, 0] for s in scales]
print("targets", [tuple(t.shape) for t in targets], [t.sum().item() for t in targets])
oh = F.one_hot(y, 3).permute(0, 4, 1, 2, 3).float()
pooled = [F.max_pool3d(oh, k) if k > 1 else oh for k in (1, 2, 4)]
print("pooled one-hot", [p.sum().item() for p in pooled], pooled[2][0, :, 0, 0, 0].tolist())
weights = np.array([1 / (2**i) for i in range(3)])
weights[-1] = 0
weights = weights / weights.sum()
print("ds weights", weights.round(4).tolist())


def ds_loss(outs, targets):
    total = 0
    for w, o, t in zip(weights, outs, targets):
        if w == 0:
            continue
        total = total + float(w) * F.cross_entropy(o, t)
    return total


decay, no_decay = [], []
for n, p in net.named_parameters():
    (no_decay if p.ndim <= 1 else decay).append(p)
opt = torch.optim.SGD(
    [{"params": decay, "weight_decay": 3e-5}, {"params": no_decay, "weight_decay": 0.0}],
    lr=0.01,
    momentum=0.99,
    nesterov=True,
)
sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=6, power=0.9)
lrs, losses = [], []
for step in range(6):
    opt.zero_grad()
    loss = ds_loss(net(x), targets)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(net.parameters(), 12.0, norm_type=2.0, error_if_nonfinite=True)
    opt.step()
    sched.step()
    lrs.append(round(sched.get_last_lr()[0], 6))
    losses.append(loss.item())
print("poly lrs", lrs, "group lrs", [g["lr"] for g in opt.param_groups] == [lrs[-1]] * 2)
print("loss down", losses[-1] < losses[0], type(gn).__name__, gn.dtype)
manual = [0.01 * (1 - e / 6) ** 0.9 for e in range(1, 7)]
print("manual poly", [round(v, 6) for v in manual])
print(sched.state_dict())

buf = io.BytesIO()
torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": 6}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
net2 = DSNet()
print(net2.load_state_dict(ck["model"]))
opt2 = torch.optim.SGD(
    [
        {"params": [p for p in net2.parameters() if p.ndim > 1], "weight_decay": 3e-5},
        {"params": [p for p in net2.parameters() if p.ndim <= 1], "weight_decay": 0.0},
    ],
    lr=0.01,
    momentum=0.99,
    nesterov=True,
)
opt2.load_state_dict(ck["opt"])
sched2 = torch.optim.lr_scheduler.PolynomialLR(opt2, total_iters=6, power=0.9)
sched2.load_state_dict(ck["sched"])
print("resumed", ck["epoch"], sched2.last_epoch, opt2.param_groups[0]["lr"], len(opt2.state))
print("same forward", all(torch.equal(a, b) for a, b in zip(net(x), net2(x))))
print("momentum buffers", sorted({k for s in opt2.state.values() for k in s}))
for bad in [
    lambda: torch.optim.SGD(net.parameters(), lr=0.1, nesterov=True),
    lambda: nn.utils.clip_grad_norm_([torch.tensor([float("inf")], requires_grad=True)], 1.0, error_if_nonfinite=True),
]:
    try:
        r = bad()
        if isinstance(r, torch.Tensor):
            print("no error", r)
    except Exception as e:
        print(type(e).__name__, e)
p = torch.tensor([1.0], requires_grad=True)
p.grad = torch.tensor([float("inf")])
try:
    nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)
except Exception as e:
    print(type(e).__name__, e)
