"""Classification-style depth heads: AdaBins' adaptive bin widths (softmax, cumsum, F.pad, centres) with the
chamfer bin loss through torch.cdist, DORN's spacing-increasing discretisation with ordinal regression
(logsigmoid, cumprod), bucketize/searchsorted of ground truth into bins, histc/bincount histograms, and
one_hot/scatter targets, with their gradients and argument errors."""

import math

import torch

F = torch.nn.functional
torch.manual_seed(0)


def s(t, n=6):
    return [round(v, 4) for v in t.detach().flatten().tolist()[:n]]


B, N, H, W = 2, 8, 4, 5
min_d, max_d = 1e-3, 10.0
logits = torch.randn(B, N, requires_grad=True)
widths = F.softmax(logits, dim=1)
widths = (max_d - min_d) * widths
widths = F.pad(widths, (1, 0), mode="constant", value=min_d)
edges = torch.cumsum(widths, dim=1)
centers = 0.5 * (edges[:, :-1] + edges[:, 1:])
print("edges", tuple(edges.shape), s(edges[0], 9), edges.grad_fn.name())
print("centers", s(centers[1], 8))

range_attn = torch.randn(B, N, H, W, requires_grad=True)
probs = torch.softmax(range_attn, dim=1)
pred = torch.sum(probs * centers.view(B, N, 1, 1), dim=1, keepdim=True)
print("pred", tuple(pred.shape), s(pred[0, 0, 0], 5))

gt = torch.rand(B, 1, H, W) * 9 + 0.5
gt[0, 0, 0, :2] = 0.0
gt_points = gt.flatten(1)
dist = torch.cdist(centers.unsqueeze(-1), gt_points.unsqueeze(-1))
print("cdist", tuple(dist.shape), s(dist[0, 0], 4))
valid = gt_points > 1e-3
d1 = dist.min(dim=2).values.pow(2).mean(1)
d2 = dist.masked_fill(~valid.unsqueeze(1), float("inf")).min(dim=1).values.pow(2)
d2 = (d2 * valid).sum(1) / valid.sum(1)
chamfer = (d1 + d2).mean()
print("chamfer", round(chamfer.item(), 4))
for p in (1.0, 2.0, math.inf, 0.0):
    print("cdist p", p, s(torch.cdist(centers[:, :3, None], centers[:, 5:, None], p=p)[1], 3))
print(
    "cdist mm",
    torch.allclose(
        torch.cdist(torch.randn(3, 4), torch.randn(5, 4), compute_mode="use_mm_for_euclid_dist"),
        torch.cdist(torch.randn(3, 4), torch.randn(5, 4)),
        atol=10,
    )
    is not None,
)

silog = torch.log(pred[gt > 1e-3]) - torch.log(gt[gt > 1e-3])
loss = torch.sqrt((silog**2).mean() - 0.85 * silog.mean() ** 2) * 10 + 0.1 * chamfer
loss.backward()
print(
    "loss",
    round(loss.item(), 4),
    "dlogits",
    s(logits.grad[0], 4),
    "dattn",
    round(range_attn.grad.abs().sum().item(), 4),
)

K = 6
alpha, beta = 1.0, 10.0
i = torch.arange(K + 1, dtype=torch.float32)
thresholds = torch.exp(math.log(alpha) + math.log(beta / alpha) * i / K)
print("SID", s(thresholds, 7))
labels = torch.bucketize(gt.clamp(alpha, beta - 1e-4), thresholds[1:-1])
print("bucketize", labels.dtype, labels[0, 0].tolist())
print(
    "right",
    torch.bucketize(thresholds[2:4], thresholds, right=True).tolist(),
    torch.bucketize(thresholds[2:4], thresholds).tolist(),
)
ss = torch.searchsorted(thresholds, gt.flatten()[:6].contiguous(), side="right")
print("searchsorted", ss.tolist(), torch.searchsorted(thresholds, torch.tensor([1.0, 10.0]), out_int32=True).dtype)
sorter = torch.argsort(torch.tensor([3.0, 1.0, 2.0]))
print("sorter", torch.searchsorted(torch.tensor([3.0, 1.0, 2.0]), torch.tensor([2.5]), sorter=sorter).tolist())

ord_logits = torch.randn(B, K, H, W, requires_grad=True)
targets = (torch.arange(K).view(1, K, 1, 1) < labels).float()
ord_loss = -(F.logsigmoid(ord_logits) * targets + F.logsigmoid(-ord_logits) * (1 - targets)).sum(1).mean()
ord_loss.backward()
print("ordinal", round(ord_loss.item(), 4), s(ord_logits.grad[0, :, 0, 0], 6))
p_gt = torch.sigmoid(ord_logits.detach())
count = (p_gt > 0.5).sum(1)
depth_ord = 0.5 * (thresholds[count] + thresholds[(count + 1).clamp(max=K)])
print("decoded", s(depth_ord[0, 0], 5), count.dtype)
cp = torch.cumprod(p_gt, dim=1)
print("cumprod", s(cp[0, :, 0, 0], 6))
bce = F.binary_cross_entropy_with_logits(ord_logits.detach(), targets, pos_weight=torch.full((K, 1, 1), 2.0))
print("bce pos_weight", round(bce.item(), 4))

hist = torch.histc(gt, bins=5, min=0, max=10)
print("histc", hist.tolist(), torch.bincount(labels.flatten(), minlength=K).tolist())
wb = torch.bincount(labels.flatten(), weights=gt.flatten(), minlength=K)
print("weighted bincount", s(wb, K), wb.dtype)
h2 = torch.histogram(gt.flatten(), bins=torch.tensor([0.0, 2.0, 5.0, 10.0]))
print("histogram", h2.hist.tolist(), h2.bin_edges.tolist(), type(h2).__name__)
oh = F.one_hot(labels.squeeze(1), K).permute(0, 3, 1, 2)
print("one_hot", tuple(oh.shape), oh.dtype, oh.sum().item())
sc = torch.zeros(B, K, H, W).scatter_(1, labels, 1.0)
print("scatter one_hot", torch.equal(sc, oh.float()))
ce = F.cross_entropy(ord_logits.detach(), labels.squeeze(1), label_smoothing=0.1, ignore_index=0)
print("ce", round(ce.item(), 4))
for bad in (
    lambda: torch.histc(gt.long(), bins=4),
    lambda: torch.bucketize(gt, thresholds.view(1, -1)),
    lambda: torch.searchsorted(thresholds, gt, side="middle"),
    lambda: F.one_hot(labels, 2),
    lambda: torch.cdist(torch.randn(3, 4), torch.randn(5, 3)),
    lambda: torch.bincount(labels),
):
    try:
        bad()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
