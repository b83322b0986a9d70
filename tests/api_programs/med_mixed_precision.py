"""Reduced precision in a volumetric pipeline: HU volumes through float16/bfloat16 round trips (overflow,
resolution, finfo), a bf16 model with .to(), CPU autocast over Conv3d/InstanceNorm3d/pools/pads/losses with the
dtypes each op returns, float32 master weights with a bf16 forward, and the mistakes of mixing dtypes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
hu = torch.tensor([-1024.0, -1000.5, 0.1, 40.0, 1000.25, 3071.0, 70000.0])
for dt in (torch.float16, torch.bfloat16):
    rt = hu.to(dt).float()
    fi = torch.finfo(dt)
    print(
        dt,
        rt.tolist(),
        "max err",
        round((rt - hu)[:-1].abs().max().item(), 4),
        "inf",
        torch.isinf(hu.to(dt)).tolist()[-1],
    )
    print("  finfo", fi.max, fi.eps, fi.tiny, fi.resolution, fi.bits)
print(
    "half spacing at 2048",
    (torch.tensor(2049.0).half() - torch.tensor(2048.0).half()).item(),
    "bf16 at 256",
    (torch.tensor(257.0).bfloat16() - 256).item(),
)
norm = ((hu[:-1] + 1024) / 4095).clamp(0, 1)
print("normalized bf16", norm.bfloat16().tolist(), norm.half().float().sub(norm).abs().max().item() < 1e-3)
print(
    "promotion",
    (hu.half() + hu.bfloat16()).dtype,
    (hu.half() * 2.5).dtype,
    (hu.bfloat16() + torch.tensor(1.0)).dtype,
    (torch.ones(2, dtype=torch.int16) * torch.tensor(1.5).half()).dtype,
)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(1, 4, 3, padding=1)
        self.norm = nn.InstanceNorm3d(4, affine=True)
        self.up = nn.ConvTranspose3d(4, 2, 2, stride=2)

    def forward(self, x):
        h = F.leaky_relu(self.norm(self.conv(x)), 0.01)
        h = F.max_pool3d(h, 2)
        return self.up(h)


net = Block()
x = torch.randn(2, 1, 4, 6, 6)
ref = net(x)
with torch.autocast("cpu", dtype=torch.bfloat16):
    c = net.conv(x)
    n = net.norm(c)
    p = F.max_pool3d(n, 2)
    a = F.avg_pool3d(n, 2)
    aa = F.adaptive_avg_pool3d(n, 1)
    rp = F.pad(n, (1, 1, 1, 1, 1, 1), mode="replicate")
    rf = F.pad(n, (1, 1, 1, 1, 1, 1), mode="reflect")
    up = net.up(p)
    tri = F.interpolate(up, scale_factor=0.5, mode="trilinear")
    loss = F.cross_entropy(up, torch.zeros(2, 4, 6, 6, dtype=torch.long))
    mse = F.mse_loss(up, torch.zeros_like(up))
    out = net(x)
print("autocast dtypes", [t.dtype for t in (c, n, p, a, aa, rp, rf, up, tri, loss, mse, out)])
print("autocast close to fp32", (out.float() - ref).abs().max().item() < 0.1, torch.is_autocast_enabled("cpu"))
with torch.autocast("cpu"):
    print(
        "region",
        torch.get_autocast_dtype("cpu"),
        F.lp_pool3d(n, 2, 2).dtype,
        F.adaptive_max_pool3d(n, 2).dtype,
        F.max_unpool3d(*F.max_pool3d(n, 2, return_indices=True), 2).dtype,
        F.pad(n[0], (1, 1, 1, 1), mode="reflect").dtype,
    )

with torch.autocast("cpu", dtype=torch.bfloat16):
    out = net(x)
    lossb = out.float().pow(2).mean()
lossb.backward()
print("grads fp32", {n_: p_.grad.dtype for n_, p_ in net.named_parameters()}["conv.weight"], net.conv.weight.grad.shape)

bnet = Block().to(torch.bfloat16)
print("bf16 params", {p_.dtype for p_ in bnet.parameters()}, bnet.conv.weight.dtype)
yb = bnet(x.to(torch.bfloat16))
print("bf16 forward", yb.dtype, tuple(yb.shape))
master = [p_.detach().float().clone() for p_ in bnet.parameters()]
yb.float().square().mean().backward()
with torch.no_grad():
    for m, p_ in zip(master, bnet.parameters()):
        m -= 0.1 * p_.grad.float()
        p_.copy_(m)
print("master step", master[0].dtype, bnet.conv.weight.dtype, torch.equal(master[0].bfloat16(), bnet.conv.weight))

for bad in [
    lambda: net(x.bfloat16()),
    lambda: bnet(x),
    lambda: F.avg_pool3d(x.bfloat16(), 2),
    lambda: F.conv3d(x.half(), net.conv.weight),
    lambda: F.conv_transpose3d(x.bfloat16(), net.up.weight[:1]),
    lambda: torch.autocast("cpu", dtype=torch.int8).__enter__(),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
