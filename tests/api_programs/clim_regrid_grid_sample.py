"""Regridding lat-lon fields with grid_sample: a periodic longitude halo via circular padding, bilinear and bicubic
interpolation to a rotated/finer grid, align_corners conventions, conservative area-weighted coarsening, grads."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)
H, W = 6, 12
lat = torch.linspace(-75.0, 75.0, H)
lon = torch.arange(0.0, 360.0, 360.0 / W)
LAT, LON = torch.meshgrid(lat, lon, indexing="ij")
field = (torch.cos(torch.deg2rad(LAT)) * torch.sin(torch.deg2rad(LON))).view(1, 1, H, W)
field = torch.cat([field, field.pow(2) + 0.1 * torch.randn(1, 1, H, W)], dim=1)
print("field", field.shape, field.dtype)


def to_grid(lat_t, lon_t, pad):
    x = ((lon_t % 360.0) / (360.0 / W) + pad + 0.5) / (W + 2 * pad) * 2 - 1
    y = ((lat_t - lat[0]) / (lat[1] - lat[0]) + 0.5) / H * 2 - 1
    return torch.stack([x, y], dim=-1).unsqueeze(0)


pad = 1
halo = F.pad(field, (pad, pad, 0, 0), mode="circular")
print("halo", halo.shape, torch.equal(halo[..., 0], field[..., -1]), torch.equal(halo[..., -1], field[..., 0]))
tlat = torch.tensor([[0.0, 45.0, -30.0, 89.0]])
tlon = torch.tensor([[-15.0, 355.0, 179.9, 720.0]])
g = to_grid(tlat, tlon, pad)
print("grid", g.shape, g.round(decimals=4))
for mode in ("bilinear", "nearest", "bicubic"):
    for pm in ("zeros", "border", "reflection"):
        out = F.grid_sample(halo, g, mode=mode, padding_mode=pm, align_corners=False)
        print(mode, pm, [round(v, 4) + 0.0 for v in out[0, 0, 0].tolist()])
ac = F.grid_sample(field, torch.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]]]]), align_corners=True)
nac = F.grid_sample(field, torch.tensor([[[[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0]]]]), align_corners=False)
print("corners", ac[0, 0, 0], nac[0, 0, 0], field[0, 0, 0, 0].item())

# fine target grid
flat = torch.linspace(-60.0, 60.0, 9)
flon = torch.arange(0.0, 360.0, 15.0)
FL, FO = torch.meshgrid(flat, flon, indexing="ij")
fine = F.grid_sample(halo, to_grid(FL, FO, pad), mode="bilinear", padding_mode="border", align_corners=False)
print("fine", fine.shape, fine.is_contiguous(), fine[0, 0, 4, ::4])
wrap = F.grid_sample(halo, to_grid(FL, FO + 360.0, pad), align_corners=False)
print("periodic", torch.allclose(wrap, fine, atol=1e-5))

# rotated pole via affine_grid
theta = torch.tensor([[[0.9, -0.1, 0.05], [0.1, 0.9, 0.0]]])
ag = F.affine_grid(theta, (1, 2, 4, 8), align_corners=False)
rot = F.grid_sample(field, ag, align_corners=False, padding_mode="border")
print("affine", ag.shape, ag[0, 0, :2], rot.shape, round(rot.sum().item(), 4))
print("affine ac", F.affine_grid(theta, (1, 2, 4, 8), align_corners=True)[0, -1, -1])

# interpolation alternatives
up = F.interpolate(field, scale_factor=2, mode="bilinear", align_corners=False)
up_ac = F.interpolate(field, size=(11, 23), mode="bilinear", align_corners=True)
print("interp", up.shape, up_ac.shape, round(up.mean().item(), 4), round(up_ac.mean().item(), 4))
print("bicubic", F.interpolate(field, scale_factor=(1.5, 2.0), mode="bicubic", align_corners=False).shape)
print("area", F.interpolate(field, size=(3, 6), mode="area")[0, 0])
coarse = F.avg_pool2d(field, 2)
wlat = torch.cos(torch.deg2rad(lat)).view(1, 1, H, 1)
cons = F.avg_pool2d(field * wlat, 2) / F.avg_pool2d(wlat.expand_as(field), 2)
print("conservative", cons.shape, (cons - coarse).abs().max().round(decimals=4))
print(
    "global mean kept",
    round((field * wlat).sum().item() / wlat.expand_as(field).sum().item(), 4),
    round(
        (cons * F.avg_pool2d(wlat.expand_as(field), 2)).sum().item()
        / F.avg_pool2d(wlat.expand_as(field), 2).sum().item(),
        4,
    ),
)

src = field.clone().requires_grad_()
gg = to_grid(FL, FO, 1).requires_grad_()
out = F.grid_sample(F.pad(src, (1, 1, 0, 0), mode="circular"), gg, align_corners=False)
out.square().sum().backward()
print("grads", round(src.grad.abs().sum().item(), 4), gg.grad.shape, round(gg.grad.abs().sum().item(), 4))
f64 = F.grid_sample(field.double(), to_grid(tlat, tlon, 0).double(), align_corners=False)
print("float64", f64.dtype, f64[0, 1, 0])
try:
    F.grid_sample(field, g.double())
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.grid_sample(field, g[..., :1], align_corners=False)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    F.grid_sample(field, g, mode="bicubic", padding_mode="circular")
except ValueError as e:
    print(type(e).__name__, e)
try:
    F.interpolate(field, scale_factor=2, mode="trilinear")
except NotImplementedError as e:
    print(type(e).__name__, e)
try:
    F.affine_grid(theta, (1, 2, 4), align_corners=False)
except (ValueError, NotImplementedError) as e:
    print(type(e).__name__, e)
