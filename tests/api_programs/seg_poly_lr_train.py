"""A semantic-segmentation training recipe: backbone/head parameter groups with 10x head LR and no weight decay on
norms and biases, the poly schedule as LambdaLR and as PolynomialLR (power, total_iters, chained with a linear
warmup in SequentialLR), state_dict resume mid-schedule, and the scheduler's errors."""

import io

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def lrs(opt):
    return [round(g["lr"], 6) for g in opt.param_groups]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.Conv2d(8, 8, 3, padding=2, dilation=2),
            nn.SyncBatchNorm(8),
            nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.Conv2d(8, 8, 3, padding=1, bias=False),
            nn.GroupNorm(4, 8),
            nn.ReLU(),
            nn.Dropout2d(0.1),
            nn.Conv2d(8, 4, 1),
        )

    def forward(self, x):
        return F.interpolate(self.head(self.backbone(x)), size=x.shape[-2:], mode="bilinear", align_corners=True)


net = Net()
print(type(net.backbone[4]).__name__)
decay, no_decay = [], []
for name, p in net.backbone.named_parameters():
    (no_decay if p.ndim <= 1 else decay).append(p)
groups = [
    {"params": decay, "lr": 0.01},
    {"params": no_decay, "lr": 0.01, "weight_decay": 0.0},
    {"params": net.head.parameters(), "lr": 0.1},
]
opt = torch.optim.SGD(groups, lr=0.01, momentum=0.9, weight_decay=1e-4, nesterov=True)
print("groups", [len(g["params"]) for g in opt.param_groups], [g["weight_decay"] for g in opt.param_groups])
max_iter = 12
poly = torch.optim.lr_scheduler.LambdaLR(opt, lambda it: (1 - it / max_iter) ** 0.9)
x = torch.randn(4, 3, 16, 16)
y = torch.randint(0, 4, (4, 16, 16))
y[:, :2] = 255
for it in range(6):
    out = net(x)
    loss = F.cross_entropy(out, y, ignore_index=255)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    poly.step()
    print(it, round(loss.item(), 4), lrs(opt), [round(v, 6) for v in poly.get_last_lr()])

buf = io.BytesIO()
torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": poly.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=False)
print("sched keys", sorted(ck["sched"].keys()), ck["sched"]["last_epoch"], ck["sched"]["_step_count"])
print(
    "bn tracked",
    ck["model"]["backbone.1.num_batches_tracked"].item(),
    ck["model"]["backbone.4.num_batches_tracked"].item(),
)
print("momentum buf", round(ck["opt"]["state"][0]["momentum_buffer"].abs().sum().item(), 4))

opt2 = torch.optim.SGD([p for p in net.parameters()], lr=0.01, momentum=0.9)
pl = torch.optim.lr_scheduler.PolynomialLR(opt2, total_iters=5, power=2.0)
vals = []
for _ in range(7):
    opt2.step()
    pl.step()
    vals.append(round(pl.get_last_lr()[0], 6))
print("PolynomialLR", vals)

opt3 = torch.optim.AdamW(net.parameters(), lr=6e-5, betas=(0.9, 0.999), weight_decay=0.01)
warm = torch.optim.lr_scheduler.LinearLR(opt3, start_factor=1e-6, end_factor=1.0, total_iters=3)
decay_s = torch.optim.lr_scheduler.PolynomialLR(opt3, total_iters=6, power=1.0)
seq = torch.optim.lr_scheduler.SequentialLR(opt3, [warm, decay_s], milestones=[3])
hist = []
for _ in range(10):
    opt3.step()
    seq.step()
    hist.append(round(opt3.param_groups[0]["lr"] * 1e5, 4))
print("warmup+poly x1e5", hist)

opt4 = torch.optim.SGD([{"params": decay}, {"params": no_decay}, {"params": net.head.parameters()}], lr=1.0)
resumed = torch.optim.lr_scheduler.LambdaLR(opt4, lambda it: (1 - it / max_iter) ** 0.9)
resumed.load_state_dict(ck["sched"])
print("resumed epoch", resumed.last_epoch, resumed.get_last_lr())
resumed.step()
print("after step", [round(v, 6) for v in resumed.get_last_lr()])
print(repr(torch.optim.lr_scheduler.PolynomialLR.__name__), pl.total_iters, pl.power)

opt5 = torch.optim.SGD(
    [{"params": decay}, {"params": no_decay, "weight_decay": 0.0}, {"params": net.head.parameters()}],
    lr=0.01,
    momentum=0.9,
    weight_decay=1e-4,
    nesterov=True,
)
opt5.load_state_dict(ck["opt"])
print("resumed groups", lrs(opt5), [round(g["initial_lr"], 6) for g in opt5.param_groups])
for name, mk in [
    ("poly", lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=max_iter, power=0.9, last_epoch=5)),
    ("exp", lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9, last_epoch=5)),
    ("cos", lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=max_iter, last_epoch=5)),
]:
    o = torch.optim.SGD([{"params": decay}, {"params": no_decay}, {"params": net.head.parameters()}], lr=0.01)
    o.load_state_dict(ck["opt"])
    sch = mk(o)
    before = lrs(o)
    o.step()
    sch.step()
    print("resume", name, before, lrs(o), sch.last_epoch)


def resume_into_one_group():
    o = torch.optim.SGD(net.parameters(), lr=1.0)
    sch = torch.optim.lr_scheduler.LambdaLR(o, lambda it: (1 - it / max_iter) ** 0.9)
    sch.load_state_dict(ck["sched"])
    sch.step()


for bad in [
    resume_into_one_group,
    lambda: torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0] * 2),
    lambda: torch.optim.lr_scheduler.SequentialLR(opt3, [warm, decay_s], milestones=[3, 5]),
    lambda: torch.optim.SGD([{"params": decay}, {"params": decay[:1]}], lr=0.1),
    lambda: torch.optim.SGD(net.parameters(), lr=0.1, nesterov=True),
    lambda: torch.optim.lr_scheduler.LinearLR(opt3, start_factor=0.0),
    lambda: opt.add_param_group({"params": decay}),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
