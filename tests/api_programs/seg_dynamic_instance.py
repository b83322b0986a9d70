"""Single-stage instance segmentation heads: CondInst's dynamic mask head (per-instance filters split with
split_with_sizes and run as one grouped conv2d), its aligned_bilinear upsampling (replicate pad + align_corners),
YOLACT's prototype assembly with box cropping, SOLO's Matrix NMS with triu and column max, and Fast NMS on masks."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def r(t):
    return round(float(torch.as_tensor(t).detach()), 4)


def aligned_bilinear(t, factor):
    h, w = t.shape[2:]
    t = F.pad(t, pad=(0, 1, 0, 1), mode="replicate")
    oh, ow = factor * h + 1, factor * w + 1
    t = F.interpolate(t, size=(oh, ow), mode="bilinear", align_corners=True)
    t = F.pad(t, pad=(factor // 2, 0, factor // 2, 0), mode="replicate")
    return t[:, :, : oh - 1, : ow - 1]


x = torch.arange(6.0).view(1, 1, 2, 3)
print("aligned_bilinear", tuple(aligned_bilinear(x, 2).shape), aligned_bilinear(x, 2)[0, 0, 1].tolist())

ch, n_inst, H, W = 8, 3, 6, 6
sizes_w = [(ch + 2) * 8, 8 * 8, 8 * 1]
sizes_b = [8, 8, 1]
num_params = sum(sizes_w) + sum(sizes_b)
params = (torch.randn(n_inst, num_params) * 0.1).requires_grad_()
print("num params", num_params)
splits = list(torch.split_with_sizes(params, sizes_w + sizes_b, dim=1))
ws, bs = splits[:3], splits[3:]
ws = [ws[0].reshape(n_inst * 8, ch + 2, 1, 1), ws[1].reshape(n_inst * 8, 8, 1, 1), ws[2].reshape(n_inst, 8, 1, 1)]
bs = [bs[0].reshape(-1), bs[1].reshape(-1), bs[2].reshape(-1)]
feats = torch.randn(1, ch, H, W)
locs = torch.tensor([[1.0, 1.0], [4.0, 2.0], [3.0, 5.0]])
yy, xx = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32), indexing="ij")
rel = torch.stack([yy[None] - locs[:, 0, None, None], xx[None] - locs[:, 1, None, None]], 1) / 8.0
inp = torch.cat([feats.expand(n_inst, -1, -1, -1), rel], 1).reshape(1, -1, H, W)
h = inp
for i, (w, b) in enumerate(zip(ws, bs)):
    h = F.conv2d(h, w, b, groups=n_inst)
    if i < 2:
        h = F.relu(h)
masks = aligned_bilinear(h.reshape(n_inst, 1, H, W), 2).sigmoid()
print("dynamic masks", tuple(masks.shape), r(masks.sum()), h.grad_fn.name())
masks.mean().backward()
print(
    "param grads",
    params.grad is None,
    r(params.grad.abs().sum()),
    [t.shape[1] for t in splits],
    splits[0].grad_fn.name(),
)

protos = torch.randn(8, 8, 4).relu()
coefs = torch.tanh(torch.randn(3, 4))
boxes = torch.tensor([[1.0, 1.0, 5.0, 6.0], [0.0, 0.0, 8.0, 8.0], [4.0, 2.0, 7.0, 4.0]])
m = torch.sigmoid(protos @ coefs.t())
rows = torch.arange(8, dtype=torch.float32).view(1, -1, 1)
cols = torch.arange(8, dtype=torch.float32).view(-1, 1, 1)
inside = (rows >= boxes[:, 0]) & (rows < boxes[:, 2]) & (cols >= boxes[:, 1]) & (cols < boxes[:, 3])
cropped = m * inside.float()
print("yolact", tuple(m.shape), inside.sum((0, 1)).tolist(), r(cropped.sum()), (cropped > 0.5).sum((0, 1)).tolist())

seg = (torch.rand(5, 6, 6) > 0.5).float()
seg[1] = seg[0]
seg[1, 0, 0] = 1 - seg[1, 0, 0]
scores = torch.tensor([0.9, 0.85, 0.7, 0.6, 0.3])
labels = torch.tensor([1, 1, 2, 1, 2])
n = len(seg)
flat = seg.reshape(n, -1)
inter = flat @ flat.t()
area = flat.sum(1).expand(n, n)
iou = (inter / (area + area.t() - inter)).triu(diagonal=1)
same = (labels.expand(n, n) == labels.expand(n, n).t()).float().triu(diagonal=1)
dec_iou = iou * same
comp, _ = dec_iou.max(0)
comp = comp.expand(n, n).t()
decay_gauss = torch.exp(-2.0 * (dec_iou**2 - comp**2)).min(0).values
decay_lin = ((1 - dec_iou) / (1 - comp)).min(0).values
print("matrix nms", (scores * decay_gauss).round(decimals=4).tolist(), (scores * decay_lin).round(decimals=4).tolist())
print(
    "triu",
    torch.ones(3, 3).triu(1).tolist(),
    torch.ones(3, 3).tril(-1).sum().item(),
    torch.triu_indices(3, 3, 1).tolist(),
)
fast = iou.max(0).values <= 0.5
print("fast nms keep", fast.tolist(), iou.max(0).indices.tolist())

for bad in [
    lambda: torch.split_with_sizes(params, [10, 10], dim=1),
    lambda: F.conv2d(inp, ws[0], bs[0], groups=4),
    lambda: F.conv2d(inp, ws[0], bs[0][:5], groups=n_inst),
    lambda: F.pad(x, (0, 1, 0, 1, 0, 1), mode="replicate"),
    lambda: torch.triu(torch.ones(3)),
]:
    try:
        print("ok", bad())
    except Exception as e:
        print(type(e).__name__, e)
