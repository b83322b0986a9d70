"""The corners geometry code runs into, printed as PyTorch words them: linalg.cross's dim and broadcasting rules,
cross without dim, atan2/acos at the boundaries and their gradients, det/inv of singular and batched matrices,
grid_sample/affine_grid shape errors in 3-D, unique(dim=...) on empty and 1-row inputs, scatter_reduce's reduce
names, cdist's p and shapes, and 2-D rotations as complex numbers."""

import math
import warnings

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "->", out)
    except Exception as e:  # noqa: BLE001
        print(label, "!!", type(e).__name__, str(e).split("\n")[0])


a = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
b = torch.tensor([0.0, 0.0, 1.0])
attempt("cross broadcast", lambda: torch.linalg.cross(a, b))
attempt("cross dim=0", lambda: torch.linalg.cross(a.T, b[:, None].expand(3, 2), dim=0))
attempt("cross size 2", lambda: torch.linalg.cross(torch.ones(2, 2), torch.ones(2, 2)))
attempt("cross bad bcast", lambda: torch.linalg.cross(torch.ones(2, 3), torch.ones(4, 3)))
attempt("cross int", lambda: torch.linalg.cross(torch.tensor([1, 0, 0]), torch.tensor([0, 1, 0])))
attempt("cross dtype mix", lambda: torch.linalg.cross(torch.ones(3), torch.ones(3, dtype=torch.float64)))
attempt("torch.cross dim=1", lambda: torch.cross(torch.eye(3), torch.ones(3, 3), dim=1))
attempt("Tensor.cross", lambda: torch.eye(3)[0].cross(torch.eye(3)[1], dim=0))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("cross first size-3 dim", torch.cross(torch.ones(3, 2), torch.arange(6.0).view(3, 2)))
    torch.eye(3).cross(torch.ones(3, 3))
print("deprecation warnings", len(caught), caught[0].category.__name__, str(caught[0].message).splitlines()[0])
attempt("cross no size-3 dim", lambda: torch.cross(torch.ones(2, 4), torch.ones(2, 4)))

# inverse trig at the edges
x = torch.tensor([-1.0, -0.5, 0.0, 0.5, 1.0, 1.0000001], requires_grad=True)
y = torch.acos(x)
print("acos", y.detach())
y.sum().backward()
print("acos grad", x.grad)
xc = x.detach().clamp(-1 + 1e-7, 1 - 1e-7).requires_grad_(True)
torch.acos(xc).sum().backward()
print("clamped grad finite", torch.isfinite(xc.grad).all().item())
zs = torch.tensor([0.0, -0.0, 0.0, -0.0, 1.0, -1.0])
xs = torch.tensor([0.0, 0.0, -0.0, -0.0, 0.0, 0.0])
print("atan2 signed zeros", torch.atan2(zs, xs))
yy = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
xx = torch.tensor([0.0, 0.0, 2.0], requires_grad=True)
torch.atan2(yy, xx).sum().backward()
print("atan2 grads", yy.grad, xx.grad)
print("atan2 int", torch.atan2(torch.tensor([1, -1]), torch.tensor([1, 1])))
print("asin clamp", torch.asin(torch.tensor([1.5, -1.5])), torch.asin(torch.tensor([1.5, -1.5]).clamp(-1, 1)))

# singular and batched linear algebra
S = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
print("det singular", torch.linalg.det(S).abs() < 1e-6)
attempt("inv singular", lambda: torch.linalg.inv(S))
inv, info = torch.linalg.inv_ex(torch.stack([torch.eye(3), S]))
print("inv_ex info", info)
attempt("det non-square", lambda: torch.linalg.det(torch.ones(2, 3)))
attempt("inv int", lambda: torch.linalg.inv(torch.eye(3, dtype=torch.long)))
print("slogdet", torch.linalg.slogdet(torch.diag(torch.tensor([2.0, -3.0, 0.5]))))
print("matrix_rank", torch.linalg.matrix_rank(torch.stack([torch.eye(3), S])))

# 3-D sampling shape checks
vol = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).view(1, 2, 3, 4, 5)
theta = torch.tensor([[[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0, 0, 1.0, 0]]])
g = F.affine_grid(theta, [1, 2, 3, 4, 5], align_corners=False)
print("affine_grid 3d", g.shape, g[0, 0, 0, :2])
attempt("affine_grid bad theta", lambda: F.affine_grid(torch.zeros(1, 2, 3), [1, 2, 3, 4, 5], align_corners=False))
attempt("affine_grid bad size", lambda: F.affine_grid(theta, [1, 2, 3], align_corners=False))
out = F.grid_sample(vol, g, align_corners=False)
print("identity resample", torch.allclose(out, vol, atol=1e-4))
attempt("grid_sample 5d bicubic", lambda: F.grid_sample(vol, g, mode="bicubic", align_corners=False))
attempt("grid_sample bad grid", lambda: F.grid_sample(vol, g[..., :2], align_corners=False))
attempt("grid_sample bad mode", lambda: F.grid_sample(vol, g, mode="linear", align_corners=False))
nearest = F.grid_sample(vol, g * 0.5, mode="nearest", align_corners=False)
print("nearest zoom", nearest[0, 0, 1])
refl = F.grid_sample(vol, g * 1.5, padding_mode="reflection", align_corners=True)
print("reflection", refl[0, 1, 0, 0])

# unique rows on corners
print("unique empty", torch.unique(torch.zeros(0, 3, dtype=torch.long), dim=0, return_inverse=True))
print("unique one row", torch.unique(torch.tensor([[3, 1, 2]]), dim=0, return_counts=True))
pts = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 5], [0, 1]])
print("unique dim=0", torch.unique(pts, dim=0, return_inverse=True, return_counts=True))
print("unique dim=1", torch.unique(pts, dim=1))
print("unique_consecutive", torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True))
attempt("unique bad dim", lambda: torch.unique(pts, dim=2))

# scatter_reduce names
src = torch.tensor([1.0, 5.0, 2.0, 4.0])
index = torch.tensor([0, 0, 2, 2])
for red in ["sum", "prod", "mean", "amax", "amin"]:
    print(red, torch.zeros(3).scatter_reduce(0, index, src, reduce=red, include_self=False),
          torch.full((3,), 2.0).scatter_reduce(0, index, src, reduce=red))
attempt("scatter_reduce max", lambda: torch.zeros(3).scatter_reduce(0, index, src, reduce="max"))
attempt("index_reduce", lambda: torch.ones(3).index_reduce_(0, index, src, "amax", include_self=True))

# cdist variants
p1 = torch.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]])
p2 = torch.tensor([[1.0, 1.0, 1.0]])
for p in [0.0, 1.0, 2.0, 3.0, float("inf")]:
    print("cdist p", p, torch.cdist(p1, p2, p=p).flatten())
attempt("cdist dims", lambda: torch.cdist(p1, torch.ones(1, 2)))
attempt("cdist neg p", lambda: torch.cdist(p1, p2, p=-1.0))
print("pdist", F.pdist(torch.cat([p1, p2])))

# planar rotations as complex multiplication
z = torch.complex(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 2.0]))
rot = torch.polar(torch.ones(()), torch.tensor(math.pi / 2))
print("rotated", (z * rot).real.round(decimals=4) + 0.0, (z * rot).imag.round(decimals=4))
print("angle", torch.angle(z), torch.view_as_real(z))

# reduced-precision products (e.g. scale factors in half) round after every multiply on the CPU
torch.manual_seed(0)
h = torch.randn(4, 3)
print("half prod", h.half().prod(1), "bfloat16 prod", h.bfloat16().prod(1))
print("float32 prod rounded", h.prod(1).half())
