"""PatchCore scoring: locally aware patch features by avg_pool2d(3, 1, 1) and F.unfold neighbourhoods,
adaptive_avg_pool1d channel reduction, kNN to a memory bank with topk(largest=False), the softmax reweighting of the
image score, and the anomaly map upsampled and blurred with a Gaussian conv2d (reflect padding)."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

feat2 = torch.randn(2, 6, 8, 8)
feat3 = torch.randn(2, 10, 4, 4)


def local_agg(x, p=3):
    return F.avg_pool2d(x, p, 1, p // 2)


def unfold_agg(x, p=3):
    b, c, h, w = x.shape
    u = F.unfold(x, kernel_size=p, stride=1, padding=p // 2, dilation=1)
    u = u.view(b, c, p * p, h, w)
    return u.mean(2)


a2 = local_agg(feat2)
print("avgpool vs unfold", torch.allclose(a2 * 9, unfold_agg(feat2) * 9, atol=1e-5), a2.shape)
print("count_include_pad", F.avg_pool2d(feat2, 3, 1, 1, count_include_pad=False)[0, 0, 0, :3])
u = F.unfold(feat2, (2, 3), dilation=(1, 2), padding=(0, 1), stride=(2, 1))
print("unfold", u.shape, u.is_contiguous(), u[0, :3, 0])
fold = F.fold(F.unfold(feat2, 2, stride=2), output_size=(8, 8), kernel_size=2, stride=2)
print("fold roundtrip", torch.equal(fold, feat2))
ones = F.fold(F.unfold(torch.ones(1, 1, 5, 5), 3, padding=1), (5, 5), 3, padding=1)
print("overlap counts", ones[0, 0])
a3 = F.interpolate(local_agg(feat3), size=(8, 8), mode="bilinear", align_corners=False)
emb = torch.cat([a2, a3], 1)
emb = emb.permute(0, 2, 3, 1).reshape(-1, emb.shape[1])
print("emb", emb.shape, emb.stride())
emb_red = F.adaptive_avg_pool1d(emb.unsqueeze(1), 8).squeeze(1)
print("reduced", emb_red.shape, emb_red[0])
print(
    "uneven pool",
    F.adaptive_avg_pool1d(torch.arange(7.0).view(1, 1, 7), 3),
    F.adaptive_max_pool1d(torch.arange(7.0).view(1, 1, 7), 3, return_indices=True),
)

bank = emb_red[::7].clone()
test = emb_red[:64] + torch.randn(64, 8) * torch.linspace(0, 2, 64).unsqueeze(1)
d = torch.cdist(test, bank, compute_mode="donot_use_mm_for_euclid_dist")
knn, idx = d.topk(k=3, largest=False, dim=1)
print("knn", knn.shape, knn[:2], idx[:2])
patch_scores = knn[:, 0]
print("exact match rows", (patch_scores[::7][:4] < 1e-3).tolist())
amap = patch_scores.view(1, 1, 8, 8)
s_idx = torch.argmax(patch_scores)
m_test = test[s_idx]
m_star = bank[idx[s_idx, 0]]
nn_idx = (
    torch.cdist(m_star.unsqueeze(0), bank, compute_mode="donot_use_mm_for_euclid_dist").topk(k=3, largest=False).indices
)
nn_dists = torch.linalg.norm(m_test - bank[nn_idx[0]], dim=-1)
w = 1 - (torch.exp(patch_scores.max()) / torch.sum(torch.exp(nn_dists)))
w2 = 1 - F.softmax(nn_dists, dim=0)[0]
print("image score", round((w * patch_scores.max()).item(), 4), round(w2.item(), 4), s_idx.item())


def gaussian_kernel(sigma=4.0):
    ks = 2 * math.ceil(4 * sigma) + 1
    x = torch.arange(ks, dtype=torch.float32) - ks // 2
    g = torch.exp(-(x**2) / (2 * sigma**2))
    g = g / g.sum()
    return (g[:, None] * g[None, :]).view(1, 1, ks, ks)


k = gaussian_kernel(1.0)
print("kernel", k.shape, round(k.sum().item(), 4))
up = F.interpolate(amap, size=(16, 16), mode="bilinear", align_corners=False)
pad = k.shape[-1] // 2
blurred = F.conv2d(F.pad(up, (pad, pad, pad, pad), mode="reflect"), k)
print("blurred", blurred.shape, blurred[0, 0, 8, :4], blurred.max().round(decimals=4))
sep = torch.exp(-((torch.arange(9.0) - 4) ** 2) / 2)
sep = sep / sep.sum()
b2 = F.conv2d(F.conv2d(F.pad(up, (4, 4, 4, 4), mode="reflect"), sep.view(1, 1, 1, 9)), sep.view(1, 1, 9, 1))
print("separable equal", torch.allclose(b2, blurred, atol=1e-5))
print(
    "reflect/replicate/circular",
    F.pad(torch.arange(4.0).view(1, 1, 4), (2, 1), mode="reflect"),
    F.pad(torch.arange(4.0).view(1, 1, 4), (2, 1), mode="replicate"),
    F.pad(torch.arange(4.0).view(1, 1, 4), (2, 1), mode="circular"),
)
for bad in [
    lambda: F.pad(up, (20, 20, 20, 20), mode="reflect"),
    lambda: F.unfold(feat2[0, 0], 3),
    lambda: F.fold(torch.randn(1, 9, 5), (4, 4), 3),
    lambda: torch.randn(3, 4).topk(5),
    lambda: F.avg_pool2d(feat2, 3, 1, 2),
]:
    try:
        bad()
    except (RuntimeError, ValueError, NotImplementedError, IndexError) as e:
        print(type(e).__name__, e)
print(torch.topk(torch.tensor([1.0, float("nan"), 2.0]), 2), torch.topk(torch.tensor([2, 2, 1, 2]), 2, largest=False))
print(torch.topk(torch.randn(3, 0), 0).values.shape, torch.tensor([3.0, 1.0]).topk(1, sorted=False))
