"""Panoptic-DeepLab post-processing and instance-embedding losses: center heatmaps with max_pool2d NMS and topk,
offset-based grouping by argmin over distances, semantic-instance merging with stuff area filters and
label-divisor ids, plus the discriminative embedding loss with scatter_add/index_add cluster means."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
H, W, DIV = 12, 14, 1000
THING = torch.tensor([False, True, True])


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


yy, xx = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing="ij")
centers_gt = torch.tensor([[3.0, 3.0], [8.0, 10.0], [9.0, 3.0]])
heat = torch.stack([torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 4.0) for cy, cx in centers_gt]).amax(0)
heat = heat + 0.02 * torch.rand(H, W)

pooled = F.max_pool2d(heat[None, None], 5, stride=1, padding=2)[0, 0]
peaks = torch.where((heat == pooled) & (heat > 0.3), heat, torch.zeros(()))
scores, flat = peaks.flatten().topk(4)
keep = scores > 0
ctr = torch.stack([flat // W, flat % W], 1)[keep]
print("centers", ctr.tolist(), scores[keep].round(decimals=4).tolist())
print("divmod", torch.div(flat, W, rounding_mode="floor").tolist(), torch.remainder(flat, W).tolist())

dist = torch.stack([(yy - cy) ** 2 + (xx - cx) ** 2 for cy, cx in centers_gt])
assign = dist.argmin(0)
offset = centers_gt[assign].permute(2, 0, 1) - torch.stack([yy, xx])
offset = offset + 0.3 * torch.randn(2, H, W)
pred_center = torch.stack([yy, xx]) + offset
d = ((pred_center.flatten(1).T[:, None, :] - ctr[None].float()) ** 2).sum(-1)
inst = d.argmin(1).view(H, W) + 1
print("instance sizes", torch.bincount(inst.flatten()).tolist())

sem = torch.zeros(H, W, dtype=torch.long)
sem[:, 6:] = 1
sem[6:, :6] = 2
sem[0, 0:3] = 0
thing_mask = THING[sem]
inst = inst * thing_mask
pan = torch.zeros(H, W, dtype=torch.long)
for i in inst.unique():
    if i == 0:
        continue
    m = inst == i
    cls = torch.mode(sem[m]).values
    pan[m] = cls * DIV + i
stuff = ~thing_mask
areas = torch.bincount(sem[stuff], minlength=3)
for c in range(3):
    if not THING[c] and areas[c] >= 4:
        pan[stuff & (sem == c)] = c * DIV
ids, cnt = pan.unique(return_counts=True)
print("panoptic ids", ids.tolist(), cnt.tolist())
print("classes", (ids // DIV).tolist(), (ids % DIV).tolist())
print(
    "mode",
    torch.mode(torch.tensor([2, 1, 2, 1, 3])).values.item(),
    torch.tensor([[1, 1, 2], [3, 2, 2]]).mode(1).values.tolist(),
)

emb = torch.randn(2, 4, 6, 6, requires_grad=True)
labels = torch.randint(0, 3, (2, 6, 6))
labels[1][labels[1] == 2] = 1


def discriminative(emb, labels, dv=0.5, dd=1.5):
    total = 0.0
    for e, lab in zip(emb, labels):
        e = e.flatten(1).T
        lab = lab.flatten()
        ids, inv, counts = lab.unique(return_inverse=True, return_counts=True)
        k = len(ids)
        sums = torch.zeros(k, e.shape[1]).index_add(0, inv, e)
        means = sums / counts[:, None]
        var = F.relu((e - means[inv]).norm(dim=1) - dv) ** 2
        var = torch.zeros(k).scatter_add(0, inv, var) / counts
        if k > 1:
            pd = torch.cdist(means, means)
            off = ~torch.eye(k, dtype=torch.bool)
            dterm = (F.relu(2 * dd - pd[off]) ** 2).mean()
        else:
            dterm = torch.zeros(())
        total = total + var.mean() + dterm + 0.001 * means.norm(dim=1).mean()
    return total / len(emb)


loss = discriminative(emb, labels)
loss.backward()
print("discriminative", r(loss), r(emb.grad.abs().sum()), loss.grad_fn.name())
print(
    "scatter_reduce mean",
    torch.zeros(3)
    .scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 3.0, 5.0]), "mean", include_self=False)
    .tolist(),
)

for bad in [
    lambda: torch.zeros(2, 4).index_add(0, torch.tensor([0, 2]), torch.ones(2, 4)),
    lambda: torch.zeros(3).scatter_add(0, torch.tensor([0, 1]), torch.ones(3, 1)),
    lambda: heat.flatten().topk(500),
    lambda: torch.mode(torch.tensor([])),
    lambda: torch.div(flat, W, rounding_mode="round"),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
