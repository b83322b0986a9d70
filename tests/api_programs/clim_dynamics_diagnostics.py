"""Atmospheric diagnostics on a lat-lon grid: vorticity/divergence by torch.gradient with coordinate spacing and
edge_order, geostrophic wind, column integrals over pressure with trapezoid/cumulative_trapezoid, wind speed."""

import math

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)
R = 6.371e6
lat = torch.linspace(-60.0, 60.0, 7, dtype=torch.float64)
lon = torch.arange(0.0, 360.0, 30.0, dtype=torch.float64)
phi, lam = torch.deg2rad(lat), torch.deg2rad(lon)
PHI, LAM = torch.meshgrid(phi, lam, indexing="ij")
u = 10 * torch.cos(PHI) + torch.sin(2 * LAM)
v = 5 * torch.sin(LAM) * torch.cos(PHI)
print("grid", u.shape, u.dtype, PHI.stride(), LAM.stride())

du_dphi, du_dlam = torch.gradient(u * torch.cos(PHI), spacing=(phi, lam))
dv_dphi, dv_dlam = torch.gradient(v, spacing=(phi, lam))
coslat = torch.cos(PHI)
vort = (dv_dlam - du_dphi) / (R * coslat)
print("vorticity", vort[3, :4] * 1e6)
dvc = torch.gradient(v * coslat, spacing=(phi,), dim=0)[0]
du = torch.gradient(u, spacing=(lam,), dim=1)[0]
div = (du + dvc) / (R * coslat)
print("divergence", div[3, :4] * 1e6)
e2 = torch.gradient(u, spacing=(phi,), dim=0, edge_order=2)[0]
e1 = torch.gradient(u, spacing=(phi,), dim=0, edge_order=1)[0]
print("edge order", e1[0, :3], e2[0, :3], torch.equal(e1[1:-1], e2[1:-1]))
print("scalar spacing", torch.gradient(u, spacing=math.radians(30.0), dim=1)[0][0, :3])
print("list spacing", [g.shape for g in torch.gradient(u, spacing=[1.0, 2.0])])
print("periodic lon", ((torch.roll(u, -1, 1) - torch.roll(u, 1, 1)) / (2 * math.radians(30)))[0, :3])
f = 2 * 7.292e-5 * torch.sin(PHI)
z = 5500 + 100 * torch.cos(2 * PHI) * torch.cos(LAM)
dz_dphi, dz_dlam = torch.gradient(z, spacing=(phi, lam))
ug = -9.81 / f * dz_dphi / R
vg = 9.81 / f * dz_dlam / (R * coslat)
print("geostrophic", ug[1, :3], vg[5, :3], torch.isfinite(ug).all().item())

speed = torch.hypot(u, v)
direction = torch.remainder(270.0 - torch.rad2deg(torch.atan2(v, u)), 360.0)
print("speed", speed[0, :4], "dir", direction[0, :4])
print("atan2 edge", torch.atan2(torch.tensor([0.0, -0.0, 0.0]), torch.tensor([-1.0, -1.0, 0.0])))
print("calm", torch.hypot(torch.zeros(2), torch.zeros(2)), torch.atan2(torch.zeros(1), torch.zeros(1)))

plev = torch.tensor([1000.0, 850.0, 700.0, 500.0, 300.0, 200.0], dtype=torch.float64) * 100
q = torch.tensor([0.012, 0.008, 0.005, 0.002, 0.0005, 0.0001], dtype=torch.float64)
tcwv = -torch.trapezoid(q, x=plev) / 9.81
print("tcwv", round(tcwv.item(), 4), torch.trapezoid(q.flip(0), x=plev.flip(0)).item() > 0)
cum = torch.cumulative_trapezoid(q, x=plev) / -9.81
print("cumulative", cum, cum.shape)
qf = q.view(-1, 1, 1).expand(6, 2, 3) * torch.rand(1, 2, 3, dtype=torch.float64)
col = -torch.trapezoid(qf, x=plev, dim=0) / 9.81
print("column field", col.shape, col.stride(), round(col.sum().item(), 6))
print("dx", torch.trapezoid(torch.tensor([1.0, 2.0, 4.0]), dx=0.5).item(), torch.trapz(torch.tensor([1.0, 3.0])).item())
print("x 2d", torch.trapezoid(qf, x=plev.view(-1, 1, 1).expand(6, 2, 3), dim=0).shape)
thick = torch.diff(torch.log(plev)) * -287.0 * 250.0 / 9.81
print("thickness", thick, torch.diff(plev, prepend=torch.tensor([101325.0], dtype=torch.float64))[:2])

xg = torch.tensor([0.0, 1.0, 3.0, 7.0], requires_grad=True)
gx = torch.gradient(xg**2)[0]
gx.sum().backward()
print("grad of gradient", gx.detach(), xg.grad)
try:
    torch.gradient(u, spacing=(phi,))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.gradient(u[:1], dim=0)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.gradient(u, dim=0, edge_order=3)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.trapezoid(q, x=plev[:-1])
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.gradient(u, spacing=(lam,), dim=0)
except RuntimeError as e:
    print(type(e).__name__, e)
