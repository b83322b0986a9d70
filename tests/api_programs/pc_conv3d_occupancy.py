"""3-D CNNs on occupancy grids as VoxNet/3D-UNet code writes them: Conv3d with padding='same', dilation, groups
and every padding_mode, MaxPool3d with ceil_mode, dilation and indices, AvgPool3d with count_include_pad and
divisor_override, LPPool3d, adaptive pools with None sizes and indices, interpolate in 3-D over trilinear/nearest/
nearest-exact/area with align_corners and scale factors, F.pad in 3-D, ConvTranspose3d with output_size, and
the shape errors those layers raise."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
pts = torch.rand(300, 3)
idx = (pts * 8).long().clamp_(0, 7)
grid = torch.zeros(1, 1, 8, 8, 8)
grid[0, 0, idx[:, 0], idx[:, 1], idx[:, 2]] = 1.0
print("occupied", int(grid.sum().item()))


def s(t):
    return (tuple(t.shape), round(t.mean().item(), 4))


for mode in ["zeros", "reflect", "replicate", "circular"]:
    conv = nn.Conv3d(1, 2, 3, padding=1, padding_mode=mode)
    print("conv", mode, s(conv(grid)))
conv = nn.Conv3d(1, 4, 3, padding="same", dilation=2, bias=False)
print("same dilated", s(conv(grid)), conv)
gconv = nn.Conv3d(4, 4, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), groups=2)
h = gconv(conv(grid))
print("grouped", s(h), gconv.weight.shape)
try:
    nn.Conv3d(1, 2, 3, padding="same", stride=2)
except Exception as e:
    print(type(e).__name__, e)

mp = nn.MaxPool3d(3, stride=2, padding=1, ceil_mode=True, return_indices=True)
out, ind = mp(grid)
print("maxpool ceil", s(out), ind.dtype, ind.flatten()[:6].tolist())
out2, ind2 = F.max_pool3d(grid, kernel_size=2, stride=2, dilation=2, return_indices=True)
print("maxpool dilation", s(out2), ind2.flatten()[:4].tolist())
o3, i3 = F.max_pool3d(grid, 2, return_indices=True)
print("unpool", s(F.max_unpool3d(o3, i3, 2)), s(F.max_unpool3d(o3, i3, 2, output_size=(9, 9, 9))))
for size in [(7, 6, 7), (8, 8, 8)]:
    try:
        F.max_unpool3d(out2, ind2, kernel_size=2, stride=2, output_size=size)
    except Exception as e:
        print(type(e).__name__, e)
print("avgpool", s(F.avg_pool3d(grid, 3, stride=2, padding=1)),
      s(F.avg_pool3d(grid, 3, stride=2, padding=1, count_include_pad=False)),
      s(F.avg_pool3d(grid, 2, divisor_override=3)), s(F.avg_pool3d(grid, 3, stride=3, ceil_mode=True)))
print("lppool", s(nn.LPPool3d(2, 2)(grid)), s(F.lp_pool3d(grid + 0.5, 1.5, (2, 2, 4))))
print("adaptive", s(F.adaptive_avg_pool3d(grid, (None, 3, 5))), s(nn.AdaptiveMaxPool3d((1, None, 2))(grid)))
am, ai = F.adaptive_max_pool3d(grid, 3, return_indices=True)
print("adaptive idx", ai.flatten()[:5].tolist())

small = torch.arange(8.0).view(1, 1, 2, 2, 2)
for mode, kw in [("trilinear", {"align_corners": False}), ("trilinear", {"align_corners": True}),
                 ("nearest", {}), ("nearest-exact", {})]:
    up = F.interpolate(small, scale_factor=2, mode=mode, **kw)
    print("interp", mode, kw, up.flatten()[:8].round(decimals=4).tolist())
print("interp size", s(F.interpolate(small, size=(3, 4, 5), mode="trilinear")))
print("interp 1.5", s(F.interpolate(small, scale_factor=(1.5, 2, 2.5), mode="trilinear", recompute_scale_factor=True)))
print("area", s(F.interpolate(grid, size=(3, 3, 3), mode="area")))
print("upsample", s(nn.Upsample(scale_factor=2, mode="trilinear", align_corners=True)(small)))

for mode in ["constant", "reflect", "replicate", "circular"]:
    p = F.pad(small, (1, 1, 0, 1, 1, 0), mode=mode, **({"value": -1.0} if mode == "constant" else {}))
    print("pad", mode, s(p), p[0, 0, 0, 0].tolist())

deconv = nn.ConvTranspose3d(2, 1, 3, stride=2, padding=1)
code = torch.randn(1, 2, 4, 4, 4)
print("deconv", deconv(code).shape, deconv(code, output_size=[8, 8, 8]).shape)
dec2 = nn.ConvTranspose3d(2, 1, 3, stride=2, padding=1, output_padding=1, dilation=1)
print("output_padding", dec2(code).shape)

model = nn.Sequential(nn.Conv3d(1, 8, 5, stride=2, padding=2), nn.LeakyReLU(0.1), nn.Dropout3d(0.0),
                      nn.Conv3d(8, 8, 3, padding=1), nn.BatchNorm3d(8), nn.ReLU(), nn.MaxPool3d(2),
                      nn.Flatten(), nn.Linear(8 * 8, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
batch = torch.cat([grid, grid.flip(2), grid.transpose(2, 4)])
target = torch.tensor([0, 1, 2])
for i in range(3):
    loss = F.cross_entropy(model(batch), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("voxnet", i, round(loss.item(), 4))

for call in [lambda: F.interpolate(small, scale_factor=2, mode="bilinear"),
             lambda: F.interpolate(small, size=(3, 3), mode="trilinear"),
             lambda: F.max_pool3d(grid, 10),
             lambda: F.pad(small, (3, 3, 0, 0, 0, 0), mode="reflect"),
             lambda: nn.Conv3d(1, 2, 3)(torch.rand(1, 8, 8, 8, 8)),
             lambda: F.interpolate(small, scale_factor=2, mode="nearest", align_corners=True)]:
    try:
        call()
    except Exception as e:
        print(type(e).__name__, e)
