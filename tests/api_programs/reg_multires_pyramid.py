"""Multi-resolution registration pyramids: avg_pool3d downsampling (ceil_mode, count_include_pad, divisor_override,
odd sizes), F.interpolate back up with size vs scale_factor, coarse-to-fine flow upsampling with the displacement
rescaled, and the float-size mistakes (`kernel_size=2.0`, `size=D / 2`) pyramid code makes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
vol = torch.rand(1, 1, 9, 10, 7, dtype=torch.float64)

pyr = [vol]
for lvl in range(3):
    pyr.append(F.avg_pool3d(pyr[-1], kernel_size=2, stride=2, ceil_mode=True, count_include_pad=False))
print([tuple(p.shape) for p in pyr], [round(p.mean().item(), 4) for p in pyr])
floor = [vol]
for lvl in range(2):
    floor.append(F.avg_pool3d(floor[-1], 2))
print("floor", [tuple(p.shape) for p in floor], floor[-1].flatten().round(decimals=4).tolist())
for cm in (False, True):
    for cip in (False, True):
        o = F.avg_pool3d(vol, 3, stride=2, padding=1, ceil_mode=cm, count_include_pad=cip)
        print("pad", cm, cip, tuple(o.shape), round(o.sum().item(), 4), round(o[0, 0, 0, 0, 0].item(), 4))
print("divisor", F.avg_pool3d(vol, 2, divisor_override=3)[0, 0, 0, 0].round(decimals=4))
print("unbatched", F.avg_pool3d(vol[0], (1, 2, 3)).shape, nn.AvgPool3d((2, 1, 2), stride=(1, 2, 1))(vol).shape)
print("adaptive", F.adaptive_avg_pool3d(vol, (None, 3, 2)).shape, F.adaptive_avg_pool3d(vol, 1).flatten())
mx, idx = F.max_pool3d(vol, 3, stride=2, padding=1, return_indices=True)
print("max idx", idx.dtype, idx[0, 0, 1, 1].tolist(), torch.equal(vol.flatten()[idx.flatten()], mx.flatten()))
print("unpool", F.max_unpool3d(mx, idx, 3, stride=2, padding=1, output_size=vol.shape[2:]).count_nonzero().item())

# coarse-to-fine: upsample a flow field and rescale its voxel displacements
flow = torch.randn(1, 3, *pyr[2].shape[2:], dtype=torch.float64)
target = pyr[1].shape[2:]
up_size = F.interpolate(flow, size=target, mode="trilinear", align_corners=True)
scale = torch.tensor([t / s for t, s in zip(target, flow.shape[2:])], dtype=torch.float64).view(1, 3, 1, 1, 1)
print("flow up", tuple(up_size.shape), scale.flatten().tolist(), round((up_size * scale).abs().mean().item(), 4))
up_sf = F.interpolate(flow, scale_factor=2, mode="trilinear", align_corners=False)
print("sf 2", tuple(up_sf.shape), "crop", tuple(up_sf[..., : target[0], : target[1], : target[2]].shape))
up_ne = F.interpolate(flow, size=target, mode="nearest-exact")
print("nearest-exact", round(up_ne.sum().item(), 4), F.interpolate(flow, size=target).sum().round(decimals=4).item())

# gradients through the pyramid
x = vol.clone().requires_grad_(True)
loss = sum(F.avg_pool3d(x, 2**k, ceil_mode=True).pow(2).mean() for k in range(1, 3))
loss.backward()
print("pyr grad", round(loss.item(), 4), x.grad[0, 0, -1, -1].round(decimals=4).tolist())
print("grad_fn", F.avg_pool3d(x, 2).grad_fn.name(), F.adaptive_avg_pool3d(x, 2).grad_fn.name())

# half / int / channels_last inputs
cl = vol.float().contiguous(memory_format=torch.channels_last_3d)
o = F.avg_pool3d(cl, 2)
print("channels_last", o.is_contiguous(memory_format=torch.channels_last_3d), o.stride())
print(
    "int",
    F.avg_pool3d(torch.arange(8).view(1, 1, 2, 2, 2), 2),
    F.avg_pool3d(torch.arange(8).view(1, 1, 2, 2, 2) * 3, 2),
)

D, H, W = vol.shape[2:]
cases = [
    lambda: F.avg_pool3d(vol, 2.0),
    lambda: F.avg_pool3d(vol, (2, 2.0, 2)),
    lambda: F.avg_pool3d(vol, (2.0, 2, 2)),
    lambda: F.max_pool3d(vol, 2, padding=1.0),
    lambda: nn.MaxPool3d(2.0)(vol),
    lambda: F.adaptive_avg_pool3d(vol, 2.0),
    lambda: F.adaptive_avg_pool3d(vol, (D // 2, H / 2, W // 2)),
    lambda: F.adaptive_max_pool3d(vol, (D / 2, 2, 2)),
    lambda: F.interpolate(vol, size=(D / 2, H / 2, W / 2), mode="trilinear"),
    lambda: F.interpolate(vol, size=D / 2, mode="trilinear"),
    lambda: F.interpolate(vol, size=D / 2, mode="area"),
    lambda: F.interpolate(vol, size=D // 2, mode="nearest"),
    lambda: F.interpolate(vol, size=True, mode="nearest"),
    lambda: F.avg_pool3d(vol, 2, divisor_override=0),
    lambda: F.avg_pool3d(vol, 4, padding=3),
    lambda: F.avg_pool3d(vol[..., :1], 2),
    lambda: F.avg_pool3d(vol[0, 0], 2),
    lambda: F.avg_pool3d(vol.half(), 2),
    lambda: F.avg_pool1d(vol[0, 0, 0], 2.0),
    lambda: F.adaptive_avg_pool1d(vol[0, 0, 0], 3.0),
    lambda: F.adaptive_avg_pool2d(vol[0, 0], (1.0, 1)),
]
for i, fn in enumerate(cases):
    try:
        r = fn()
        print(i, "ok", tuple(r.shape), r.dtype)
    except Exception as e:
        print(i, type(e).__name__, str(e).split("\n")[0][:200])
