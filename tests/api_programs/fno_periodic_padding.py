"""Padding for periodic and bounded domains: F.pad's circular/reflect/replicate/constant over 1-D to 3-D inputs,
Conv*d padding_mode, negative pads (cropping), gradients folded back through each mode, and PyTorch's errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x1 = torch.arange(1.0, 7.0).view(1, 1, 6)
for mode in ("constant", "reflect", "replicate", "circular"):
    print(mode, F.pad(x1, (2, 3), mode=mode).flatten().tolist())
print("value", F.pad(x1, (1, 1), value=-1.5).flatten().tolist())
print("crop", F.pad(x1, (-1, -2)).flatten().tolist(), F.pad(x1, (2, -3), mode="constant").flatten().tolist())
print("circular neg", F.pad(x1, (-1, 2), mode="circular").flatten().tolist())

x2 = torch.arange(12.0).view(1, 1, 3, 4)
for mode in ("reflect", "replicate", "circular"):
    y = F.pad(x2, (1, 2, 2, 1), mode=mode)
    print(mode, "2d", tuple(y.shape), y[0, 0, 0].tolist(), y[0, 0, :, 0].tolist())
print("const 2d last only", tuple(F.pad(x2, (1, 1)).shape), tuple(F.pad(x2, (0, 0, 0, 0, 1, 1)).shape))
x3 = torch.arange(24.0).view(1, 1, 2, 3, 4)
for mode in ("reflect", "replicate", "circular"):
    y = F.pad(x3, (1, 1, 1, 1, 1, 1), mode=mode)
    print(mode, "3d", tuple(y.shape), round(y.sum().item(), 4), y[0, 0, 0, 0].tolist())
print(
    "no batch",
    tuple(F.pad(torch.ones(3, 5), (1, 1), mode="reflect").shape),
    tuple(F.pad(torch.ones(2, 3, 5), (1, 1, 2, 2), mode="circular").shape),
)

for mode in ("constant", "reflect", "replicate", "circular"):
    x = torch.arange(1.0, 7.0).view(1, 1, 6).requires_grad_(True)
    y = F.pad(x, (2, 3), mode=mode)
    (y * torch.arange(11.0)).sum().backward()
    print("grad", mode, x.grad.flatten().tolist(), y.grad_fn.name())
x = x2.clone().requires_grad_(True)
F.pad(x, (2, 2, 1, 1), mode="circular").pow(2).sum().backward()
print("grad circ 2d", x.grad[0, 0].tolist())
x = x2.clone().requires_grad_(True)
F.pad(x, (1, 1, 1, 1), mode="reflect").sum().backward()
print("grad refl 2d", x.grad[0, 0].tolist())

torch.manual_seed(0)
for pm in ("zeros", "reflect", "replicate", "circular"):
    conv = nn.Conv2d(1, 2, 3, padding=1, padding_mode=pm)
    out = conv(x2)
    print(
        "conv",
        pm,
        tuple(out.shape),
        round(out.sum().item(), 4),
        conv.padding_mode,
        conv._reversed_padding_repeated_twice,
    )
print(nn.Conv1d(2, 2, 3, padding=2, padding_mode="circular"))
print(nn.Conv2d(2, 2, 3, padding="same", padding_mode="reflect"))
c1 = nn.Conv1d(1, 1, 3, padding=1, padding_mode="circular", bias=False)
with torch.no_grad():
    c1.weight.copy_(torch.tensor([[[1.0, -2.0, 1.0]]]))
print("periodic laplacian", c1(x1).flatten().tolist())
c3 = nn.Conv3d(1, 1, 3, padding=1, padding_mode="circular")
print("conv3d circ", tuple(c3(x3).shape))
print(
    nn.ReflectionPad2d((1, 0, 2, 0)),
    nn.ReplicationPad1d(3),
    nn.CircularPad2d(1),
    nn.ZeroPad2d((1, 2)),
    nn.ConstantPad3d(1, 0.5),
    nn.ReflectionPad3d(1),
    nn.CircularPad1d((0, 2)),
)
print("module", nn.CircularPad2d((1, 0, 0, 1))(x2)[0, 0].tolist())
print("circular3d mod", tuple(nn.CircularPad3d(1)(x3).shape), tuple(nn.ReplicationPad3d((1, 0, 0, 0, 0, 2))(x3).shape))

for name, fn in [
    ("reflect too big", lambda: F.pad(x1, (6, 0), mode="reflect")),
    ("circular too big", lambda: F.pad(x1, (7, 0), mode="circular")),
    ("bad mode", lambda: F.pad(x1, (1, 1), mode="wrap")),
    ("odd pad", lambda: F.pad(x1, (1, 1, 1))),
    ("reflect 2d 1d-pad", lambda: F.pad(x2, (1, 1, 1, 1, 1, 1), mode="reflect")),
    ("value with reflect", lambda: F.pad(x1, (1, 1), mode="reflect", value=1.0)),
    ("same stride", lambda: nn.Conv2d(1, 1, 3, padding="same", stride=2)),
    ("circ int", lambda: F.pad(torch.arange(6).view(1, 1, 6), (1, 1), mode="circular")),
    ("refl int", lambda: F.pad(torch.arange(6).view(1, 1, 6), (1, 1), mode="reflect")),
]:
    try:
        r = fn()
        print(name, "ok", tuple(r.shape) if torch.is_tensor(r) else r, r.dtype if torch.is_tensor(r) else "")
    except Exception as e:
        print(name, type(e).__name__, e)
