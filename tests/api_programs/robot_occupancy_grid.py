"""Occupancy-grid mapping from 2-D lidar scans, as mapping stacks write it: rays sampled with linspace and floored
to cells, log-odds accumulated with index_put_(accumulate=True), index_add_, scatter_add_ and bincount (duplicates
summed), clamped log-odds turned into probabilities, obstacle inflation with max_pool2d, a brushfire distance field,
frontier cells from conv2d, a coarse map by avg_pool2d, and the errors of accumulation with bad indices."""

import math

import torch
import torch.nn.functional as F

torch.set_printoptions(precision=3, sci_mode=False)
RES, W, H = 0.1, 40, 30
L_OCC, L_FREE, L_MIN, L_MAX = 0.85, -0.4, -2.0, 3.5


def world_walls(angles, pose):
    """Ranges to an axis-aligned room [0,4]x[0,3] with a pillar, a deterministic 'lidar'."""
    x, y, th = pose
    dirs = torch.stack([torch.cos(angles + th), torch.sin(angles + th)], -1)
    t_x = torch.where(dirs[:, 0] > 0, (3.95 - x) / dirs[:, 0], (0.05 - x) / dirs[:, 0])
    t_y = torch.where(dirs[:, 1] > 0, (2.95 - y) / dirs[:, 1], (0.05 - y) / dirs[:, 1])
    r = torch.minimum(t_x, t_y)
    # a round pillar at (2.8, 1.0), radius 0.3
    oc = torch.tensor([x - 2.8, y - 1.0])
    b = (dirs * oc).sum(-1)
    disc = b * b - (oc * oc).sum() + 0.09
    t_p = -b - torch.sqrt(disc.clamp_min(0))
    hit = (disc > 0) & (t_p > 0)
    return torch.where(hit, torch.minimum(r, t_p), r).clamp(max=3.5)


def to_cell(xy):
    return torch.floor(xy / RES).long()


logodds = torch.zeros(H, W)
hits_count = torch.zeros(H * W, dtype=torch.long)
angles = torch.linspace(-math.pi, math.pi, 181)[:-1]
poses = [(1.0, 1.5, 0.0), (2.0, 2.2, 0.5), (1.5, 0.6, -0.3)]
for pose in poses:
    r = world_walls(angles, pose)
    steps = torch.linspace(0, 1, 60)[:-1]
    origin = torch.tensor(pose[:2])
    dirs = torch.stack([torch.cos(angles + pose[2]), torch.sin(angles + pose[2])], -1)
    free_pts = origin + (r[:, None, None] * steps[None, :, None]) * dirs[:, None, :]
    free_cells = to_cell(free_pts.reshape(-1, 2))
    end_cells = to_cell(origin + r[:, None] * dirs)
    free_cells = torch.unique(free_cells, dim=0)  # each cell updated once per scan
    logodds.index_put_((free_cells[:, 1], free_cells[:, 0]), torch.tensor(L_FREE), accumulate=True)
    occ_lin = end_cells[:, 1] * W + end_cells[:, 0]
    occ_u, occ_n = torch.unique(occ_lin, return_counts=True)
    logodds.view(-1).index_add_(0, occ_u, torch.full(occ_u.shape, L_OCC) - L_FREE * 0)
    hits_count.scatter_add_(0, occ_lin, torch.ones_like(occ_lin))
    logodds.clamp_(L_MIN, L_MAX)
    print("scan", pose, "unique free cells", free_cells.shape[0], "hit cells", occ_u.numel(), "max hits/cell",
          occ_n.max().item())

prob = torch.sigmoid(logodds)
occupied = prob > 0.65
free = prob < 0.35
unknown = ~(occupied | free)
print("occupied/free/unknown", occupied.sum().item(), free.sum().item(), unknown.sum().item())
print("bincount == scatter_add", torch.equal(torch.bincount(hits_count.nonzero().squeeze(1), weights=None,
                                                           minlength=H * W).bool(), hits_count.bool()))
print("prob row 10", prob[10, ::5].tolist())
print("logodds range", logodds.min().item(), logodds.max().item())

inflated = F.max_pool2d(occupied.float()[None, None], kernel_size=5, stride=1, padding=2)[0, 0].bool()
print("inflated cells", inflated.sum().item(), "robot cell free after inflation", (~inflated[15, 10]).item())

# brushfire: distance (in cells) to the nearest occupied cell by repeated min-pooling
dist = torch.where(occupied, 0.0, float("inf"))
for _ in range(40):
    nb = -F.max_pool2d(-dist[None, None], 3, 1, 1)[0, 0] + 1
    dist = torch.minimum(dist, nb)
print("distance field max", dist.max().item(), "at", divmod(dist.argmax().item(), W), dist[15, ::6].tolist())

kernel = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])[None, None]
unknown_nb = F.conv2d(unknown.float()[None, None], kernel, padding=1)[0, 0]
frontier = free & (unknown_nb > 0)
print("frontier cells", frontier.sum().item(), frontier.nonzero()[:3].tolist())
coarse = F.avg_pool2d(prob[None, None], 5)[0, 0]
print("coarse", coarse.shape, coarse[2].round(decimals=2).tolist())

g = torch.zeros(4, 4)
rows = torch.tensor([0, 0, 1, 3, 3, 3])
cols = torch.tensor([1, 1, 2, 3, 3, 0])
g.index_put_((rows, cols), torch.ones(6), accumulate=True)
print("dup accumulate", g.tolist())
g2 = torch.zeros(4, 4)
g2[rows, cols] = torch.arange(6.0)
print("dup without accumulate last write", g2[0, 1].item() in (0.0, 1.0), g2[3, 3].item() in (3.0, 4.0))
g3 = torch.zeros(16).index_put((rows * 4 + cols,), torch.ones(6), accumulate=True)
print("flat accumulate", g3.view(4, 4).equal(g))
try:
    g.index_put_((torch.tensor([4]), torch.tensor([0])), torch.ones(1), accumulate=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    g.index_put_((rows.float(), cols), torch.ones(6), accumulate=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    hits_count.scatter_add_(0, torch.tensor([0]), torch.ones(1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([-1, 2]))
except Exception as e:
    print(type(e).__name__, e)
