"""The mistakes 3-D vision code makes and PyTorch's words for them: grid_sample/affine_grid shape, dtype and mode
errors, interpolate argument clashes, meshgrid and cross misuse, batched matmul of camera matrices with mismatched
shapes, linalg on singular or non-square poses, pixel_shuffle divisibility, and in-place writes into views of a
pose that requires grad."""

import warnings

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

img = torch.rand(2, 3, 4, 5)
grid = torch.rand(2, 3, 3, 2) * 2 - 1
K = torch.eye(3).expand(2, 3, 3)
cases = {
    "grid channels": lambda: F.grid_sample(img, grid[..., :1], align_corners=False),
    "grid batch": lambda: F.grid_sample(img, grid[:1], align_corners=False),
    "grid dtype": lambda: F.grid_sample(img, grid.double(), align_corners=False),
    "grid rank": lambda: F.grid_sample(img, grid[0], align_corners=False),
    "mode": lambda: F.grid_sample(img, grid, mode="linear", align_corners=False),
    "padding": lambda: F.grid_sample(img, grid, padding_mode="constant", align_corners=False),
    "bicubic 5d": lambda: F.grid_sample(
        img[:, :, None], torch.zeros(2, 1, 1, 1, 3), mode="bicubic", align_corners=False
    ),
    "int image": lambda: F.grid_sample(img.long(), grid.long(), align_corners=False),
    "theta shape": lambda: F.affine_grid(torch.zeros(2, 3, 3), (2, 3, 4, 5), align_corners=False),
    "theta int": lambda: F.affine_grid(torch.zeros(2, 2, 3, dtype=torch.int64), (2, 3, 4, 5), align_corners=False),
    "size rank": lambda: F.affine_grid(torch.zeros(2, 2, 3), (2, 3, 4), align_corners=False),
    "size zero": lambda: F.affine_grid(torch.zeros(2, 2, 3), (2, 3, 0, 5), align_corners=False),
    "interp both": lambda: F.interpolate(img, size=(2, 2), scale_factor=2.0),
    "interp neither": lambda: F.interpolate(img),
    "interp align nearest": lambda: F.interpolate(img, scale_factor=2, mode="nearest", align_corners=False),
    "interp mode": lambda: F.interpolate(img, scale_factor=2, mode="trilinear"),
    "interp size len": lambda: F.interpolate(img, size=(2, 2, 2)),
    "interp recompute size": lambda: F.interpolate(img, size=(2, 2), recompute_scale_factor=True),
    "interp antialias nearest": lambda: F.interpolate(img, scale_factor=0.5, antialias=True),
    "meshgrid indexing": lambda: torch.meshgrid(torch.arange(3), torch.arange(2), indexing="xyz"),
    "meshgrid dtypes": lambda: torch.meshgrid(torch.arange(3), torch.arange(2.0), indexing="ij"),
    "meshgrid empty": lambda: torch.meshgrid(indexing="ij"),
    "cross dim": lambda: torch.linalg.cross(torch.randn(4, 2), torch.randn(4, 2)),
    "cross explicit dim": lambda: torch.cross(torch.randn(3, 4), torch.randn(3, 4), dim=1),
    "bmm": lambda: torch.bmm(K, torch.rand(2, 4, 10)),
    "matmul bcast": lambda: K @ torch.rand(3, 4, 10),
    "inv singular": lambda: torch.linalg.inv(torch.zeros(2, 3, 3)),
    "inv non-square": lambda: torch.linalg.inv(torch.rand(3, 4)),
    "solve shapes": lambda: torch.linalg.solve(K, torch.rand(2, 4)),
    "svd int": lambda: torch.linalg.svd(torch.eye(3, dtype=torch.int64)),
    "det non-square": lambda: torch.linalg.det(torch.rand(2, 3)),
    "cholesky": lambda: torch.linalg.cholesky(-torch.eye(3)),
    "pixel_shuffle": lambda: F.pixel_shuffle(torch.rand(1, 5, 2, 2), 2),
    "pixel_unshuffle": lambda: F.pixel_unshuffle(torch.rand(1, 1, 3, 4), 2),
    "pixel_shuffle rank": lambda: nn.PixelShuffle(2)(torch.rand(4, 2)),
    "reflection pad big": lambda: F.pad(img, (5, 5, 0, 0), mode="reflect"),
    "replicate pad 2d on 5d": lambda: F.pad(img[:, :, None], (1, 1), mode="replicate"),
    "avg_pool kernel": lambda: F.avg_pool2d(img, 6),
    "unfold 3d input": lambda: F.unfold(torch.rand(2, 3, 4, 5, 6), 2),
    "norm dim": lambda: torch.linalg.vector_norm(img, dim=5),
    "normalize int": lambda: F.normalize(torch.tensor([[3, 4]]), dim=1),
    "cdist dims": lambda: torch.cdist(torch.rand(5, 3), torch.rand(4, 2)),
}
for name, fn in cases.items():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            out = fn()
            shape = tuple(out.shape) if isinstance(out, torch.Tensor) else type(out).__name__
            print(name, "-> ok", shape)
        except Exception as e:
            print(name, "->", type(e).__name__, str(e).split("\n")[0])
        for x in w:
            print("   warning", x.category.__name__, str(x.message).split(" (Triggered")[0][:120])

axis = torch.zeros(3, requires_grad=True)
T = torch.eye(4, requires_grad=True)
for name, fn in {
    "leaf inplace": lambda: T.add_(1),
    "leaf view inplace": lambda: T[:3, 3].zero_(),
    "leaf setitem": lambda: T.__setitem__((slice(0, 3), 3), axis),
    "detach ok": lambda: T.detach()[:3, 3].zero_(),
    "no_grad ok": lambda: torch.no_grad().__enter__() or T[3, 3].mul_(1.0),
}.items():
    try:
        r = fn()
        print(name, "-> ok", r.requires_grad)
    except Exception as e:
        print(name, "->", type(e).__name__, e)
torch.set_grad_enabled(True)
R = torch.eye(3).expand(2, 3, 3)
try:
    R[:, 0, 0] = 2.0
except Exception as e:
    print("expanded write ->", type(e).__name__, str(e).split("\n")[0])
print("done", T.grad_fn, T.is_leaf)
