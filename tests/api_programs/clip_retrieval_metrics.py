"""Image-text retrieval evaluation: a 5-captions-per-image similarity matrix, recall@k in both directions with
topk, the rank of the ground truth through argsort/nonzero, median and mean rank, mAP and MRR, ties, and the
batch-chunked evaluation that open_clip's retrieval script uses."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

n_img, caps, d = 6, 5, 16
img = F.normalize(torch.randn(n_img, d), dim=-1)
txt = F.normalize(img.repeat_interleave(caps, dim=0) + 0.9 * torch.randn(n_img * caps, d), dim=-1)
txt2img = torch.arange(n_img).repeat_interleave(caps)
print("txt2img", txt2img.tolist()[:12], txt2img.dtype)
sim = img @ txt.T
print("sim", tuple(sim.shape), round(sim.sum().item(), 4), round(sim.max().item(), 4))

# image -> text: a hit if any of its captions is in the top k
pos = txt2img.unsqueeze(0) == torch.arange(n_img).unsqueeze(1)
print("positives per image", pos.sum(1).tolist())
for k in (1, 5, 10):
    topk = sim.topk(k, dim=1).indices
    hit = torch.gather(pos, 1, topk).any(dim=1)
    print(f"i2t R@{k}", round(hit.float().mean().item() * 100, 4))

# text -> image
for k in (1, 2, 3):
    topk = sim.T.topk(k, dim=1).indices
    hit = (topk == txt2img.unsqueeze(1)).any(dim=1)
    print(f"t2i R@{k}", round(hit.float().mean().item() * 100, 4))

# ranks of the ground truth
order = sim.T.argsort(dim=1, descending=True)
ranks = (order == txt2img[:, None]).nonzero()[:, 1]
print("ranks", ranks.tolist())
print("median rank", ranks.float().median().item() + 1, "mean rank", round(ranks.float().mean().item() + 1, 4))
print("MRR", round((1.0 / (ranks.float() + 1)).mean().item(), 4))
srt, idx = torch.sort(sim[0], descending=True, stable=True)
print("sorted head", srt[:3].round(decimals=4).tolist(), idx[:5].tolist())

# average precision per image query
rel = torch.gather(pos, 1, sim.argsort(dim=1, descending=True)).float()
prec = rel.cumsum(1) / torch.arange(1, rel.shape[1] + 1)
ap = (prec * rel).sum(1) / rel.sum(1)
print("AP", ap.round(decimals=4).tolist(), "mAP", round(ap.mean().item(), 4))

# ties: topk and argsort agree on the set, stable sort keeps index order
tied = torch.tensor([0.5, 0.9, 0.9, 0.1, 0.9])
print("stable", torch.sort(tied, descending=True, stable=True).indices.tolist())
print("topk values", tied.topk(3).values.tolist(), "kthvalue", tied.kthvalue(2))
print("msort", torch.msort(tied).tolist(), "argmax first", tied.argmax().item())

# chunked evaluation matches the full matrix
chunks = []
for batch in txt.split(7):
    chunks.append(batch @ img.T)
full = torch.cat(chunks)
print("chunked", tuple(full.shape), torch.allclose(full, sim.T), [c.shape[0] for c in txt.split(7)])
mx, arg = full.max(dim=1)
print("max", mx[:4].round(decimals=4).tolist(), arg[:8].tolist())

# recall from ranks with searchsorted-style counting
ks = torch.tensor([1, 5, 10])
recall = (ranks.unsqueeze(0) < ks.unsqueeze(1)).float().mean(1)
print("recall@ks", recall.round(decimals=4).tolist())
print(
    "histogram of ranks",
    torch.bincount(ranks, minlength=6).tolist()[:6],
    torch.histc(ranks.float(), bins=3, min=0, max=6).tolist(),
)

try:
    sim.topk(31, dim=1)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.gather(pos, 1, sim.topk(2).indices.int())
except Exception as e:
    print(type(e).__name__, e)
try:
    tied.kthvalue(6)
except Exception as e:
    print(type(e).__name__, e)
