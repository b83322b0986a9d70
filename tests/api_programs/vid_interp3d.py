"""Temporal and spatial resizing of clips: F.interpolate on 5-D input with trilinear/nearest/nearest-exact/area,
scale_factor tuples and fractions, recompute_scale_factor, align_corners, nn.Upsample, frame-rate conversion,
gradients and the errors PyTorch gives."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

clip = ((torch.arange(1 * 2 * 4 * 5 * 6, dtype=torch.float32) * 29) % 31).view(1, 2, 4, 5, 6) / 10


def show(tag, y):
    print(tag, tuple(y.shape), round(y.mean().item(), 4), y[0, 1, -1, -1].round(decimals=4).tolist())


for mode in ["nearest", "nearest-exact", "trilinear", "area"]:
    kws = [
        dict(scale_factor=2),
        dict(scale_factor=(1.5, 0.5, 1.7)),
        dict(size=(7, 3, 9)),
        dict(scale_factor=(0.75, 1.3, 0.6), recompute_scale_factor=True),
    ]
    for kw in kws:
        if mode == "trilinear":
            for ac in [False, True]:
                if ac and "recompute_scale_factor" in kw:
                    continue
                show(f"{mode} ac={ac} {sorted(kw)}", F.interpolate(clip, mode=mode, align_corners=ac, **kw))
        else:
            show(f"{mode} {sorted(kw)}", F.interpolate(clip, mode=mode, **kw))

frames_30 = torch.linspace(0, 1, 30).view(1, 1, 30, 1, 1).expand(1, 3, 30, 2, 2)
frames_24 = F.interpolate(frames_30, size=(24, 2, 2), mode="trilinear", align_corners=True)
print("30->24 fps", frames_24[0, 0, :6, 0, 0].round(decimals=4).tolist())
idx_24 = F.interpolate(torch.arange(30.0).view(1, 1, 30), size=24, mode="nearest").long()
print("nearest frame ids", idx_24.view(-1).tolist()[:12])
print(
    "nearest-exact ids",
    F.interpolate(torch.arange(30.0).view(1, 1, 30), size=24, mode="nearest-exact").view(-1).long().tolist()[:12],
)

up = nn.Upsample(scale_factor=(1, 2, 2), mode="trilinear")
print(up, nn.Upsample(size=(2, 3, 4), mode="nearest-exact"), nn.Upsample(scale_factor=2.0, mode="nearest"))
show("upsample module", up(clip))
x = clip.clone().requires_grad_()
for mode, kw in [
    ("trilinear", dict(scale_factor=(2, 1.5, 0.5))),
    ("nearest", dict(size=(3, 7, 4))),
    ("nearest-exact", dict(size=(3, 7, 4))),
    ("area", dict(size=(3, 2, 4))),
]:
    x.grad = None
    y = F.interpolate(x, mode=mode, **kw)
    (y * torch.linspace(-1, 1, y.numel()).view_as(y)).sum().backward()
    print(
        "grad",
        mode,
        type(y.grad_fn).__name__,
        round(x.grad.abs().sum().item(), 4),
        x.grad[0, 0, 0, 0].round(decimals=4).tolist(),
    )

print("double", F.interpolate(clip.double(), scale_factor=2, mode="trilinear").dtype)
cl = clip.contiguous(memory_format=torch.channels_last_3d)
y = F.interpolate(cl, scale_factor=2, mode="trilinear")
print(
    "channels_last_3d",
    y.is_contiguous(memory_format=torch.channels_last_3d),
    y.stride(),
    torch.allclose(y, F.interpolate(clip, scale_factor=2, mode="trilinear")),
)
y = F.interpolate(cl, scale_factor=2, mode="nearest")
print("channels_last_3d nearest", y.is_contiguous(memory_format=torch.channels_last_3d), y.stride())

for bad in [
    lambda: F.interpolate(clip, scale_factor=2, mode="bilinear"),
    lambda: F.interpolate(clip, scale_factor=2, mode="nearest", align_corners=True),
    lambda: F.interpolate(clip, size=(2, 2), mode="trilinear"),
    lambda: F.interpolate(clip, scale_factor=(2, 2), mode="nearest"),
    lambda: F.interpolate(clip, size=4, scale_factor=2),
    lambda: F.interpolate(clip),
    lambda: F.interpolate(clip, scale_factor=2, mode="trilinear", antialias=True),
    lambda: F.interpolate(clip[0, 0], scale_factor=2, mode="trilinear"),
    lambda: F.interpolate(clip, scale_factor=2, mode="cubic"),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
