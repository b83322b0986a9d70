"""View-dependent colour as Plenoxels and 3D Gaussian splatting evaluate it: real spherical harmonics to degree 3
written out with their constants, checked for orthonormality by Monte Carlo on the sphere, RGB from SH
coefficients with the +0.5 offset and clamp, fitting coefficients by least squares (torch.linalg.lstsq), Ref-NeRF's
reflection of view directions about normals, and the Legendre/associated forms from torch.special."""

import math

import torch
F = torch.nn.functional

torch.manual_seed(0)

C0 = 0.28209479177387814
C1 = 0.4886025119029199
C2 = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792, 0.5462742152960396]
C3 = [-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154, -0.4570457994644658,
      1.445305721320277, -0.5900435899266435]


def r(t, n=8):
    return t.detach().flatten()[:n].double().round(decimals=4).tolist()


def sh_basis(deg, dirs):
    x, y, z = dirs.unbind(-1)
    out = [torch.full_like(x, C0)]
    if deg > 0:
        out += [-C1 * y, C1 * z, -C1 * x]
    if deg > 1:
        xx, yy, zz, xy, yz, xz = x * x, y * y, z * z, x * y, y * z, x * z
        out += [C2[0] * xy, C2[1] * yz, C2[2] * (2.0 * zz - xx - yy), C2[3] * xz, C2[4] * (xx - yy)]
    if deg > 2:
        out += [C3[0] * y * (3 * xx - yy), C3[1] * xy * z, C3[2] * y * (4 * zz - xx - yy),
                C3[3] * z * (2 * zz - 3 * xx - 3 * yy), C3[4] * x * (4 * zz - xx - yy), C3[5] * z * (xx - yy),
                C3[6] * x * (xx - 3 * yy)]
    return torch.stack(out, -1)


def eval_sh(deg, sh, dirs):
    return (sh * sh_basis(deg, dirs)[..., None, :]).sum(-1)


dirs = F.normalize(torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.3, -0.5, 0.8], [-1.0, 1.0, 1.0]]), dim=-1)
B = sh_basis(3, dirs)
print("basis", tuple(B.shape), r(B[0], 16))
print("basis2", r(B[2], 16))

mc = F.normalize(torch.randn(200000, 3, dtype=torch.float64), dim=-1)
Bm = sh_basis(3, mc)
gram = 4 * math.pi * Bm.T @ Bm / mc.shape[0]
print("orthonormal", round((gram - torch.eye(16, dtype=torch.float64)).abs().max().item(), 1),
      r(torch.diagonal(gram).round(decimals=1), 16))

sh = torch.zeros(2, 3, 16)
sh[0, :, 0] = torch.tensor([0.5, -0.2, 0.1]) / C0
sh[1, :, 1:4] = torch.eye(3)
sh[1, 0, 0] = 1.0
rgb = torch.clamp_min(eval_sh(3, sh, dirs[:2]) + 0.5, 0.0)
print("rgb", tuple(rgb.shape), r(rgb, 6))

target = lambda d: 0.5 + 0.3 * d[:, 0] - 0.2 * d[:, 1] * d[:, 2] + 0.1 * d[:, 2] ** 3
samples = F.normalize(torch.randn(400, 3, dtype=torch.float64), dim=-1)
A = sh_basis(3, samples)
sol = torch.linalg.lstsq(A, target(samples)[:, None]).solution
print("lstsq", tuple(sol.shape), r(sol.squeeze(), 16))
print("residual", round((A @ sol - target(samples)[:, None]).abs().max().item(), 6))
sol2 = torch.linalg.lstsq(A, target(samples)[:, None], driver="gelsd").solution
print("drivers_agree", torch.allclose(sol, sol2, atol=1e-8))
print("pinv_agrees", torch.allclose(torch.linalg.pinv(A) @ target(samples)[:, None], sol, atol=1e-8))

normals = F.normalize(torch.tensor([[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.2, 0.2, 0.9]]), dim=-1)
view = -dirs
refl = 2.0 * torch.sum(normals * view, -1, keepdim=True) * normals - view
print("reflect", r(refl, 12), r(refl.norm(dim=-1), 4))
cos = (normals * view).sum(-1).clamp(-1, 1)
print("cos", r(cos, 4), r(torch.rad2deg(torch.arccos(cos)), 4))

z = dirs[:, 2]
P = [torch.special.legendre_polynomial_p(z, n) for n in range(4)]
print("legendre", r(torch.stack(P, -1), 16))
print("zonal_matches", torch.allclose(B[:, 6], math.sqrt(5 / (4 * math.pi)) * P[2], atol=1e-6),
      torch.allclose(B[:, 12], math.sqrt(7 / (4 * math.pi)) * P[3], atol=1e-6))
print("legendre_n", r(torch.special.legendre_polynomial_p(torch.tensor(0.3), torch.tensor([0, 1, 5]))))
sh_p = sh.clone().requires_grad_(True)
d = dirs[:2].clone().requires_grad_(True)
eval_sh(3, sh_p, F.normalize(d, dim=-1)).sum().backward()
print("grad", r(sh_p.grad[1, 0], 16), r(d.grad, 6))
try:
    eval_sh(3, torch.zeros(2, 3, 9), dirs[:2])
except Exception as e:
    print(type(e).__name__, e)
