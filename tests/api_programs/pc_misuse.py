"""The mistakes point-cloud code makes, printed as PyTorch words them: (B, N, 3) fed to Conv1d, gather with
unexpanded or wrong-dtype indices, topk with k over the points, bmm of mismatched transforms, cdist of mixed
dtypes, index_add_/index_copy_ with wrong sizes, scatter_reduce into the wrong shape, floor_divide of bools,
unique with bad dims, eigh of non-symmetric input (silently lower), view on a transposed cloud, Conv3d on a
4-D grid, MaxPool1d over too few points, and in-place writes on expanded neighbourhoods."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
pts = torch.randn(2, 16, 3)
idx = torch.randint(0, 16, (2, 8))


def show(name, fn):
    try:
        out = fn()
        if isinstance(out, torch.Tensor):
            out = (tuple(out.shape), out.dtype)
        print(name, "->", out)
    except Exception as e:
        print(name, "->", type(e).__name__, str(e).splitlines()[0])


conv = nn.Conv1d(3, 8, 1)
show("conv1d channels last", lambda: conv(pts))
show("conv1d ok", lambda: conv(pts.transpose(1, 2)))
show("conv1d unbatched", lambda: conv(pts[0].t()))
show("gather unexpanded", lambda: torch.gather(pts, 1, idx))
show("gather unsqueezed", lambda: torch.gather(pts, 1, idx.unsqueeze(-1)))
show("gather int32", lambda: torch.gather(pts, 1, idx.int().unsqueeze(-1).expand(-1, -1, 3)))
show("gather float", lambda: torch.gather(pts, 1, idx.float().unsqueeze(-1).expand(-1, -1, 3)))
show("gather out of range", lambda: torch.gather(pts, 1, (idx + 16).unsqueeze(-1).expand(-1, -1, 3)))
show("adv index out of range", lambda: pts[torch.arange(2)[:, None], idx + 10])
show("adv index float", lambda: pts[:, idx.float()])
show("topk too large", lambda: torch.cdist(pts, pts).topk(20, dim=-1))
show("topk dim", lambda: pts.topk(2, dim=3))
show("bmm mismatch", lambda: torch.bmm(torch.eye(4).expand(2, 4, 4), pts.transpose(1, 2)))
show("bmm batch", lambda: torch.bmm(torch.eye(3).expand(3, 3, 3), pts.transpose(1, 2)))
show("bmm 2d", lambda: torch.bmm(torch.eye(3), pts[0].t()))
show("matmul broadcast ok", lambda: pts @ torch.eye(3))
show("cdist dtypes", lambda: torch.cdist(pts, pts.double()))
show("cdist batch", lambda: torch.cdist(pts, torch.randn(3, 5, 3)))
acc = torch.zeros(8, 3)
show("index_add size", lambda: acc.index_add_(0, idx[0], pts[0]))
show("index_add dtype", lambda: acc.index_add_(0, idx[0].int(), pts[0, :8]))
show("index_add src dtype", lambda: acc.index_add_(0, idx[0] % 8, pts[0, :8].double()))
show("index_copy", lambda: acc.index_copy_(0, torch.tensor([0, 9]), torch.ones(2, 3)))
show("scatter_reduce shape", lambda: torch.zeros(4).scatter_reduce(0, idx[0], pts[0, :8], "amax"))
show("scatter_reduce dims", lambda: torch.zeros(4, 3).scatter_reduce(0, idx[0], pts[0, :8], "amax"))
show("scatter_ int src", lambda: torch.zeros(4, 3).scatter_(0, torch.zeros(2, 3, dtype=torch.long),
    torch.ones(2, 3, dtype=torch.long)))
show("floor_divide bool", lambda: torch.floor_divide(torch.tensor([True]), torch.tensor([True])))
show("floor_divide int by float", lambda: torch.floor_divide(torch.tensor([7]), 2.0))
show("div bad mode", lambda: torch.div(pts, 2, rounding_mode="round"))
show("unique dim", lambda: torch.unique(idx, dim=3))
show("unique return_counts", lambda: torch.unique(idx, return_counts=True, dim=1)[1])
cov = torch.tensor([[2.0, 5.0], [0.0, 1.0]])
show("eigh non-symmetric uses lower", lambda: torch.linalg.eigh(cov).eigenvalues.tolist())
show("eigh integer", lambda: torch.linalg.eigh(torch.eye(2, dtype=torch.long)))
show("view transposed", lambda: pts.transpose(1, 2).view(2, -1))
show("reshape transposed", lambda: pts.transpose(1, 2).reshape(2, -1))
show("conv3d 4d grid", lambda: nn.Conv3d(1, 2, 3)(torch.zeros(1, 8, 8, 8)))
show("conv3d 3d grid", lambda: nn.Conv3d(1, 2, 3)(torch.zeros(8, 8, 8)))
show("maxpool1d small", lambda: nn.MaxPool1d(4)(torch.zeros(1, 2, 3)))
show("max over empty", lambda: torch.zeros(2, 0, 3).max(dim=1))
show("amax over empty", lambda: torch.zeros(2, 0, 3).amax(dim=1))
nbr = pts.unsqueeze(1).expand(-1, 4, -1, -1)
show("in-place on expanded", lambda: nbr.sub_(1.0))
show("in-place on expanded clone", lambda: nbr.clone().sub_(1.0))
show("repeat fewer dims", lambda: pts.repeat(2, 1))
show("expand non-singleton", lambda: pts.expand(2, 32, 3))
show("linalg.qr int", lambda: torch.linalg.qr(torch.eye(3, dtype=torch.long)))
show("bincount 2d", lambda: torch.bincount(idx))
show("normalize int", lambda: F.normalize(idx, dim=-1))
show("one_hot float", lambda: F.one_hot(idx.float(), 16))
show("one_hot small", lambda: F.one_hot(idx, 4))
show("interpolate 3d points", lambda: F.interpolate(pts, scale_factor=2, mode="trilinear"))
show("grid_sample 5d grid 4d", lambda: F.grid_sample(torch.zeros(1, 1, 4, 4, 4), torch.zeros(1, 2, 2, 3),
    align_corners=False))
