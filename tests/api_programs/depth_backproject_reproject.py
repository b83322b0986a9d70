"""Self-supervised monocular depth (Monodepth2-style) geometry: intrinsics scaled per pyramid level, pixel grids from
meshgrid with indexing='xy' and 'ij', back-projection to camera points in homogeneous coordinates, a relative pose
from axis-angle and translation, projection to the source view, and the warped image with its gradients."""

import math

import torch

F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


B, H, W = 2, 6, 8
K = (
    torch.tensor(
        [[0.58 * W, 0.0, 0.5 * W, 0.0], [0.0, 1.92 * H, 0.5 * H, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    )
    .expand(B, 4, 4)
    .clone()
)
inv_K = torch.linalg.inv(K)
print("K", s(K[0], 16))
print("inv_K", s(inv_K[0], 16))
print("pinv agrees", torch.allclose(torch.linalg.pinv(K), inv_K, atol=1e-5))
for level in range(3):
    Ks = K.clone()
    Ks[:, :2] /= 2**level
    print("level", level, s(Ks[0, :2, :3], 6))

xs, ys = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32), indexing="xy")
ii, jj = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
print("meshgrid xy", tuple(xs.shape), s(xs[1], 8), s(ys[:, 0], 6))
print("meshgrid ij", tuple(ii.shape), ii.dtype, torch.equal(ii.float(), ys), torch.equal(jj.float(), xs))
print(
    "default indexing matches ij",
    torch.equal(
        torch.meshgrid(torch.arange(3), torch.arange(2), indexing="ij")[0], torch.tensor([[0, 0], [1, 1], [2, 2]])
    ),
)
pix = torch.stack([xs, ys, torch.ones_like(xs)], 0).view(1, 3, -1).expand(B, -1, -1)
print("pix", tuple(pix.shape), pix.is_contiguous(), s(pix[0, :, -1], 3))

depth = 1.0 + 4.0 * torch.sigmoid(torch.randn(B, 1, H, W))
cam = depth.view(B, 1, -1) * (inv_K[:, :3, :3] @ pix)
cam_h = torch.cat([cam, torch.ones(B, 1, H * W)], 1)
print("cam points", tuple(cam_h.shape), s(cam[0, :, 5], 3), round(cam[:, 2].mean().item(), 4))


def axis_angle_to_matrix(vec):
    angle = torch.linalg.vector_norm(vec, dim=-1, keepdim=True).clamp_min(1e-7)
    axis = vec / angle
    ca, sa = torch.cos(angle)[..., None], torch.sin(angle)[..., None]
    x, y, z = axis.unbind(-1)
    zero = torch.zeros_like(x)
    Kx = torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], -1).view(*vec.shape[:-1], 3, 3)
    eye = torch.eye(3).expand_as(Kx)
    return eye + sa * Kx + (1 - ca) * (Kx @ Kx)


axisangle = torch.tensor([[0.01, -0.02, 0.005], [0.0, 0.03, 0.0]], requires_grad=True)
trans = torch.tensor([[0.05, 0.0, 0.1], [-0.02, 0.01, 0.0]], requires_grad=True)
R = axis_angle_to_matrix(axisangle)
T = torch.eye(4).repeat(B, 1, 1)
T[:, :3, :3] = R
T[:, :3, 3] = trans
print("T", s(T[1], 12), T.grad_fn.name())
print(
    "R orthonormal",
    torch.allclose(R @ R.transpose(1, 2), torch.eye(3).expand(B, 3, 3), atol=1e-6),
    s(torch.linalg.det(R), 2),
)
print(
    "matrix_exp agrees",
    torch.allclose(
        torch.linalg.matrix_exp(
            torch.stack(
                [
                    torch.zeros(B),
                    -axisangle[:, 2],
                    axisangle[:, 1],
                    axisangle[:, 2],
                    torch.zeros(B),
                    -axisangle[:, 0],
                    -axisangle[:, 1],
                    axisangle[:, 0],
                    torch.zeros(B),
                ],
                -1,
            ).view(B, 3, 3)
        ),
        R,
        atol=1e-6,
    ),
)

P = (K @ T)[:, :3, :]
proj = P @ cam_h
z = proj[:, 2:3]
uv = proj[:, :2] / (z + 1e-7)
uv = uv.view(B, 2, H, W).permute(0, 2, 3, 1)
grid = torch.empty_like(uv)
grid[..., 0] = uv[..., 0] / (W - 1) * 2 - 1
grid[..., 1] = uv[..., 1] / (H - 1) * 2 - 1
print("grid", tuple(grid.shape), s(grid[0, 0, 0], 2), s(grid[1, -1, -1], 2))
inside = (grid.abs() <= 1).all(-1)
print("inside frac", inside.float().mean().item(), inside.dtype)

src = torch.rand(B, 3, H, W)
warped = F.grid_sample(src, grid, padding_mode="border", align_corners=True)
loss = (warped - src).abs().mean(1, True)[inside.unsqueeze(1)].mean()
loss.backward()
print("loss", round(loss.item(), 4), loss.grad_fn.name())
print("dangle", s(axisangle.grad), "dtrans", s(trans.grad))

cam_back = (
    inv_K[:, :3, :3]
    @ (torch.cat([uv.permute(0, 3, 1, 2).reshape(B, 2, -1), torch.ones(B, 1, H * W)], 1) * z.view(B, 1, -1)).detach()
)
print("roundtrip", s(cam_back[0, :, 0], 3))
print("einsum proj", torch.allclose(torch.einsum("bij,bjn->bin", P, cam_h), proj, atol=1e-5))
norm_pts = F.normalize(cam, dim=1)
print("ray norms", s(torch.linalg.norm(norm_pts, dim=1)[0], 4), s(torch.linalg.norm(cam[0, :, :3], ord=2, dim=0), 3))
print("angle", round(math.degrees(torch.acos(norm_pts[0, 2, 0]).item()), 3))
