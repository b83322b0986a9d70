"""X3D-style efficient video blocks (Feichtenhofer 2020): depthwise Conv3d bottlenecks, squeeze-excitation with
AdaptiveAvgPool3d, SiLU/Swish, BatchNorm3d (train/eval, momentum=None, track_running_stats=False) and GroupNorm,
stochastic depth, zero-init residuals, a training step and the norm layers' errors."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class SE3d(nn.Module):
    def __init__(self, c, ratio=0.0625):
        super().__init__()
        mid = max(8, int(round(c * ratio)))
        self.pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc1 = nn.Conv3d(c, mid, 1)
        self.fc2 = nn.Conv3d(mid, c, 1)

    def forward(self, x):
        s = self.fc2(F.relu(self.fc1(self.pool(x))))
        return x * s.sigmoid()


class X3DBlock(nn.Module):
    def __init__(self, c, inner, stride=1, se=True, norm="bn", drop_path=0.0):
        super().__init__()
        Norm = (
            (lambda ch: nn.BatchNorm3d(ch, eps=1e-5, momentum=0.1))
            if norm == "bn"
            else (lambda ch: nn.GroupNorm(4, ch))
        )
        self.a = nn.Sequential(nn.Conv3d(c, inner, 1, bias=False), Norm(inner), nn.ReLU(inplace=True))
        self.b = nn.Sequential(
            nn.Conv3d(inner, inner, 3, stride=(1, stride, stride), padding=1, groups=inner, bias=False), Norm(inner)
        )
        self.se = SE3d(inner) if se else nn.Identity()
        self.c = nn.Sequential(nn.Conv3d(inner, c, 1, bias=False), Norm(c))
        nn.init.zeros_(self.c[1].weight)
        self.drop_path = drop_path
        self.down = (
            nn.AvgPool3d((1, 3, 3), (1, stride, stride), (0, 1, 1), count_include_pad=False) if stride > 1 else None
        )

    def forward(self, x):
        y = self.c(self.se(F.silu(self.b(self.a(x)))))
        if self.training and self.drop_path > 0:
            keep = (torch.rand(x.shape[0], 1, 1, 1, 1) >= self.drop_path).to(x.dtype)
            y = y * keep / (1 - self.drop_path)
        skip = x if self.down is None else self.down(x)
        return F.relu(skip + y)


torch.manual_seed(1)
net = nn.Sequential(X3DBlock(8, 16), X3DBlock(8, 16, stride=2, norm="gn"), X3DBlock(8, 12, se=False))
print(net[0])
print("params", sum(p.numel() for p in net.parameters()), "buffers", [n for n, _ in net.named_buffers()][:4])
x = torch.randn(2, 8, 4, 8, 8)
net.eval()
y = net(x)
print("eval", tuple(y.shape), round(y.mean().item(), 4), "zero-init identity", torch.allclose(net[0](x), F.relu(x)))
net.train()
with torch.no_grad():
    for m in net.modules():
        if isinstance(m, (nn.BatchNorm3d, nn.GroupNorm)):
            m.weight.fill_(0.5)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
target = torch.randn(2, 8, 4, 4, 4)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(net(x), target)
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
bn = net[0].a[1]
print(
    "running",
    bn.running_mean.round(decimals=4)[:4].tolist(),
    bn.running_var.round(decimals=4)[:4].tolist(),
    bn.num_batches_tracked.item(),
)

v = torch.arange(2 * 3 * 2 * 2 * 2, dtype=torch.float32).view(2, 3, 2, 2, 2) / 10
cma = nn.BatchNorm3d(3, momentum=None)
for i in range(3):
    cma(v * (i + 1))
print("cumulative avg", cma.running_mean.round(decimals=4).tolist(), cma.running_var.round(decimals=4).tolist())
free = nn.BatchNorm3d(3, track_running_stats=False, affine=False)
print(free, free.running_mean, torch.allclose(free.eval()(v), F.batch_norm(v, None, None, training=True)))
print("bn3d out", nn.BatchNorm3d(3)(v)[1, :, 1, 1, 1].round(decimals=4).tolist())
gn = nn.GroupNorm(3, 3, eps=1e-3)
print(
    "gn",
    gn,
    gn(v)[0, :, 0, 0, 0].round(decimals=4).tolist(),
    F.group_norm(v, 1)[1, 2].round(decimals=4).view(-1).tolist(),
)
print("instance", F.instance_norm(v, use_input_stats=True)[0, 0].round(decimals=4).view(-1).tolist())
print("silu", F.silu(torch.tensor([-2.0, 0.0, 3.0])).round(decimals=4).tolist(), nn.SiLU(inplace=True), nn.Hardswish())

for bad in [
    lambda: nn.BatchNorm3d(3)(v[0]),
    lambda: nn.BatchNorm3d(4)(v),
    lambda: nn.GroupNorm(2, 3),
    lambda: nn.GroupNorm(3, 3)(v[:, :2]),
    lambda: nn.BatchNorm3d(3)(v[:1, :, :1, :1, :1]),
    lambda: F.batch_norm(v, torch.zeros(2), torch.ones(2)),
]:
    try:
        print("ok", bad().shape)
    except Exception as e:
        print(type(e).__name__, e)
