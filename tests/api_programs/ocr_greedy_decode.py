"""Greedy CTC decoding as production OCR services write it: argmax over classes, unique_consecutive with
return_inverse and return_counts to collapse repeats, blank removal with masks, per-character confidences as
the max probability over each collapsed run by scatter_reduce, topk alternatives, and a batched vectorised
collapse by comparing neighbours that must agree with the per-sample loop."""

import torch

torch.manual_seed(0)
VOCAB = ["<b>"] + list("abcdefg")
T, N, C = 12, 3, len(VOCAB)
logits = torch.randn(T, N, C)
logits[::3, :, 0] += 2.5  # blanks every third frame
lp = logits.log_softmax(-1)
lengths = torch.tensor([12, 9, 5])

best = lp.argmax(-1)  # (T, N)
print("best", best.t().tolist())

for n in range(N):
    seq = best[: lengths[n], n]
    uniq, inverse, counts = torch.unique_consecutive(seq, return_inverse=True, return_counts=True)
    print(n, "uniq", uniq.tolist(), "inv", inverse.tolist(), "counts", counts.tolist())
    frame_p = lp[: lengths[n], n].exp().gather(1, seq[:, None]).squeeze(1)
    run_max = torch.zeros(len(uniq)).scatter_reduce(0, inverse, frame_p, reduce="amax", include_self=False)
    run_mean = torch.zeros(len(uniq)).scatter_reduce(0, inverse, frame_p, reduce="mean", include_self=False)
    keep = uniq != 0
    text = "".join(VOCAB[i] for i in uniq[keep].tolist())
    print(n, "text", repr(text), "conf", run_max[keep].round(decimals=4).tolist(),
          "mean", run_mean[keep].round(decimals=4).tolist())
    ends = counts.cumsum(0) - 1
    print(n, "end frames", ends[keep].tolist())

# vectorised collapse: keep a frame when it differs from the previous one and is not blank
prev = torch.cat([torch.full((1, N), -1, dtype=best.dtype), best[:-1]], 0)
valid = torch.arange(T)[:, None] < lengths[None, :]
keep = (best != prev) & (best != 0) & valid
print("keep mask sums", keep.sum(0).tolist(), keep.dtype)
for n in range(N):
    print(n, "vectorised", best[:, n][keep[:, n]].tolist())

# unique_consecutive along a dim of a 2-D tensor
rows = torch.tensor([[1, 2], [1, 2], [3, 4], [1, 2], [1, 2]])
u, inv, cnt = torch.unique_consecutive(rows, return_inverse=True, return_counts=True, dim=0)
print("dim0", u.tolist(), inv.tolist(), cnt.tolist())
print("flat", torch.unique_consecutive(torch.tensor([[2, 2, 1], [1, 3, 3]])).tolist())
print("empty", torch.unique_consecutive(torch.tensor([], dtype=torch.long), return_counts=True))

# top-k alternatives for each frame and the sequence probability of the greedy path
top_p, top_i = lp[:, 0].exp().topk(3, dim=-1)
print("top3 idx frame0-3", top_i[:4].tolist())
print("top3 p frame0-3", top_p[:4].round(decimals=4).tolist())
print("sorted", bool((top_p[:, :-1] >= top_p[:, 1:]).all()))
path_lp = lp.max(-1).values
masked = path_lp.masked_fill(~valid, 0.0)
print("path logp", masked.sum(0).round(decimals=4).tolist())
print("kthvalue", lp[0, 0].kthvalue(2).values.round(decimals=4).item(), lp[0, 0].kthvalue(2).indices.item())
vals, idx = lp.max(dim=-1, keepdim=True)
print("max keepdim", tuple(vals.shape), tuple(idx.shape), idx.dtype)
try:
    torch.unique_consecutive(rows, dim=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    lp[:, 0].topk(C + 1)
except Exception as e:
    print(type(e).__name__, e)
