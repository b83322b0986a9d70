"""PointNet++ multi-scale grouping as the reference repos write it: square distances by expansion, FPS with a loop
over argmax, ball query by sort over a masked index, grouping via index_points with a batch arange, shared MLPs
as Conv2d with BatchNorm2d, max over neighbours, feature propagation by three_nn inverse-distance weights."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def square_distance(src, dst):
    d = -2 * torch.matmul(src, dst.permute(0, 2, 1))
    d += torch.sum(src**2, -1).view(src.shape[0], src.shape[1], 1)
    d += torch.sum(dst**2, -1).view(dst.shape[0], 1, dst.shape[1])
    return d


def index_points(points, idx):
    b = points.shape[0]
    view_shape = list(idx.shape)
    view_shape[1:] = [1] * (len(view_shape) - 1)
    repeat_shape = list(idx.shape)
    repeat_shape[0] = 1
    batch = torch.arange(b, dtype=torch.long).view(view_shape).repeat(repeat_shape)
    return points[batch, idx, :]


def farthest_point_sample(xyz, npoint):
    b, n, _ = xyz.shape
    centroids = torch.zeros(b, npoint, dtype=torch.long)
    distance = torch.ones(b, n) * 1e10
    farthest = torch.zeros(b, dtype=torch.long)
    batch = torch.arange(b, dtype=torch.long)
    for i in range(npoint):
        centroids[:, i] = farthest
        centroid = xyz[batch, farthest, :].view(b, 1, 3)
        dist = torch.sum((xyz - centroid) ** 2, -1)
        mask = dist < distance
        distance[mask] = dist[mask]
        farthest = torch.max(distance, -1)[1]
    return centroids


def query_ball_point(radius, nsample, xyz, new_xyz):
    b, n, _ = xyz.shape
    s = new_xyz.shape[1]
    group_idx = torch.arange(n, dtype=torch.long).view(1, 1, n).repeat([b, s, 1])
    sqrdists = square_distance(new_xyz, xyz)
    group_idx[sqrdists > radius**2] = n
    group_idx = group_idx.sort(dim=-1)[0][:, :, :nsample]
    group_first = group_idx[:, :, 0].view(b, s, 1).repeat([1, 1, nsample])
    mask = group_idx == n
    group_idx[mask] = group_first[mask]
    return group_idx


class SetAbstractionMSG(nn.Module):
    def __init__(self, npoint, radii, nsamples, in_ch, mlps):
        super().__init__()
        self.npoint, self.radii, self.nsamples = npoint, radii, nsamples
        self.convs, self.bns = nn.ModuleList(), nn.ModuleList()
        for mlp in mlps:
            convs, bns, last = nn.ModuleList(), nn.ModuleList(), in_ch + 3
            for out in mlp:
                convs.append(nn.Conv2d(last, out, 1))
                bns.append(nn.BatchNorm2d(out))
                last = out
            self.convs.append(convs)
            self.bns.append(bns)

    def forward(self, xyz, points):
        fps_idx = farthest_point_sample(xyz, self.npoint)
        new_xyz = index_points(xyz, fps_idx)
        outs = []
        for i, (radius, k) in enumerate(zip(self.radii, self.nsamples)):
            gidx = query_ball_point(radius, k, xyz, new_xyz)
            grouped = index_points(xyz, gidx) - new_xyz.view(xyz.shape[0], self.npoint, 1, 3)
            if points is not None:
                grouped = torch.cat([index_points(points, gidx), grouped], dim=-1)
            g = grouped.permute(0, 3, 2, 1)
            for conv, bn in zip(self.convs[i], self.bns[i]):
                g = F.relu(bn(conv(g)))
            outs.append(torch.max(g, 2)[0])
        return new_xyz, torch.cat(outs, dim=1).permute(0, 2, 1), fps_idx


def three_nn_interpolate(xyz1, xyz2, points2):
    dists = square_distance(xyz1, xyz2)
    dists, idx = dists.sort(dim=-1)
    dists, idx = dists[:, :, :3], idx[:, :, :3]
    recip = 1.0 / (dists + 1e-8)
    weight = recip / torch.sum(recip, dim=2, keepdim=True)
    return torch.sum(index_points(points2, idx) * weight.view(*idx.shape, 1), dim=2), idx


xyz = torch.rand(2, 64, 3)
feats = torch.randn(2, 64, 4)
sa = SetAbstractionMSG(16, [0.2, 0.4], [8, 16], 4, [[8, 16], [8, 24]])
new_xyz, new_feats, fps_idx = sa(xyz, feats)
print("fps", fps_idx.tolist())
print("new_xyz", new_xyz.shape, new_xyz.sum().item().__round__(4))
print("msg feats", new_feats.shape, new_feats.mean().item().__round__(4), new_feats.amax().item().__round__(4))
gidx = query_ball_point(0.2, 8, xyz, new_xyz)
print("ball idx", gidx.dtype, gidx[0, :3].tolist())
print("ball unique per group", [len(torch.unique(g)) for g in gidx[1, :6]])
interp, nn_idx = three_nn_interpolate(xyz, new_xyz, new_feats)
print("interp", interp.shape, interp.mean(dim=(1, 2)).round(decimals=4).tolist(), nn_idx[0, :4].tolist())
print("bn running", sa.bns[0][0].running_mean.round(decimals=4).tolist()[:4], sa.bns[0][0].num_batches_tracked)

head = nn.Sequential(nn.Conv1d(40 + 4, 32, 1), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.0), nn.Conv1d(32, 5, 1))
labels = torch.randint(0, 5, (2, 64))
opt = torch.optim.SGD(list(sa.parameters()) + list(head.parameters()), lr=0.05, momentum=0.9, weight_decay=1e-4)
for step in range(4):
    new_xyz, new_feats, _ = sa(xyz, feats)
    up, _ = three_nn_interpolate(xyz, new_xyz, new_feats)
    logits = head(torch.cat([up, feats], -1).transpose(1, 2))
    loss = F.cross_entropy(logits, labels, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4), logits.grad_fn.name())
sa.eval()
with torch.no_grad():
    _, ev, _ = sa(xyz, feats)
print("eval feats", ev.shape, round(ev.mean().item(), 4))
print("pred", logits.argmax(1)[0, :10].tolist())
