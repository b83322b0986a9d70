"""A segmentation network under CPU autocast(bfloat16) and channels_last: which ops run in bfloat16 and which
stay in float32 (conv, interpolate, softmax, cross_entropy, GroupNorm, cat of mixed dtypes), memory formats kept
or dropped through interpolate, cat, pad, pixel_shuffle and max_pool, and float16/bfloat16 argmax metrics."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
CL = torch.channels_last


def fmt(t):
    return (
        "CL" if t.is_contiguous(memory_format=CL) and not t.is_contiguous() else ("C" if t.is_contiguous() else "other")
    )


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.down = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.gn = nn.GroupNorm(4, 16)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.head = nn.Conv2d(16, 4, 1)

    def forward(self, x):
        e = self.enc(x)
        d = F.relu(self.gn(self.down(e)))
        u = self.up(d)
        cat = torch.cat([e, u], 1)
        self.trace = [
            ("enc", e.dtype, fmt(e)),
            ("gn", d.dtype, fmt(d)),
            ("up", u.dtype, fmt(u)),
            ("cat", cat.dtype, fmt(cat)),
        ]
        return self.head(cat)


net = Tiny().to(memory_format=CL)
x = torch.randn(2, 3, 12, 10).to(memory_format=CL)
y = torch.randint(0, 4, (2, 12, 10))
print("weights", fmt(net.enc[0].weight), net.enc[0].weight.stride(), fmt(x), x.stride())
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = net(x)
    print(net.trace)
    print("out", out.dtype, fmt(out))
    up = F.interpolate(out, scale_factor=2, mode="bilinear", align_corners=False)
    print("interp", up.dtype, fmt(up))
    sm = up.softmax(1)
    lsm = F.log_softmax(up, 1)
    print("softmax", sm.dtype, "log_softmax", lsm.dtype)
    loss = F.cross_entropy(out, y, ignore_index=255)
    print("ce", loss.dtype)
    mixed = torch.cat([out, out.float()], 1)
    print("cat mixed", mixed.dtype)
    print("bmm", torch.bmm(torch.randn(1, 2, 3), torch.randn(1, 3, 2)).dtype, "sum", out.sum().dtype)
loss.backward()
print(
    "loss",
    round(loss.item(), 2),
    net.head.weight.grad.dtype,
    fmt(net.head.weight.grad),
    net.enc[0].weight.grad.stride(),
)

z = torch.randn(1, 8, 6, 6).to(memory_format=CL)
print("nearest", fmt(F.interpolate(z, scale_factor=2, mode="nearest")))
print("bilinear", fmt(F.interpolate(z, size=(9, 9), mode="bilinear", align_corners=True)))
print("pad", fmt(F.pad(z, (1, 1, 1, 1))), "reflect", fmt(F.pad(z, (1, 1, 1, 1), mode="reflect")))
print(
    "max_pool",
    fmt(F.max_pool2d(z, 2)),
    "avg_pool",
    fmt(F.avg_pool2d(z, 2)),
    "adaptive",
    fmt(F.adaptive_avg_pool2d(z, 3)),
)
print(
    "pixel_shuffle",
    fmt(F.pixel_shuffle(z, 2)),
    "relu",
    fmt(F.relu(z)),
    "add",
    fmt(z + 1),
    "mul contiguous",
    fmt(z * z.contiguous()),
)
print("cat dim1", fmt(torch.cat([z, z], 1)), "cat mixed", fmt(torch.cat([z, z.contiguous()], 1)))
print("clone", fmt(z.clone()), fmt(z.clone(memory_format=torch.contiguous_format)), fmt(torch.empty_like(z)))
print("argmax", z.argmax(1).is_contiguous(), z.sum(1).stride())

logits16 = (torch.randn(2, 4, 3, 3) * 3).to(torch.bfloat16)
lbl = logits16.argmax(1)
print("bf16 argmax", lbl.dtype, lbl[0].tolist(), torch.equal(lbl, logits16.float().argmax(1)))
h = logits16.to(torch.float16)
print("fp16 softmax", h.softmax(1).dtype, round(h.float().softmax(1).sum().item(), 2))
print("bf16 ce", F.cross_entropy(logits16, lbl).dtype, round(F.cross_entropy(logits16, lbl).float().item(), 1))
print("is_autocast", torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu"))
with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
    print("disabled", net.head(torch.randn(1, 16, 2, 2)).dtype)

for bad in [
    lambda: torch.randn(2, 3, 4).to(memory_format=CL),
    lambda: torch.randn(2, 3, 4, 4).contiguous(memory_format=torch.channels_last_3d),
    lambda: torch.autocast("cpu", dtype=torch.float64)._enabled,
    lambda: F.cross_entropy(logits16, lbl.to(torch.int16)),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
