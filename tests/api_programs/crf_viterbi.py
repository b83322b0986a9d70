"""Viterbi decoding for a linear-chain CRF: max/argmax over the previous tag, stacked backpointers, backtracking
with gather from each sequence's own end, padding with masks, a check against brute force, top-2 paths with topk,
and the constrained BIO transitions built with masked_fill."""

import itertools
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(1)

TAGS = ["O", "B-X", "I-X", "B-Y", "I-Y"]
C = len(TAGS)
B, T = 3, 6
em = torch.randn(B, T, C)
trans = torch.randn(C, C) * 0.5
allowed = torch.ones(C, C, dtype=torch.bool)
for i, a in enumerate(TAGS):
    for j, b in enumerate(TAGS):
        if b.startswith("I-") and not (a[2:] == b[2:] and a != "O"):
            allowed[i, j] = False
trans = trans.masked_fill(~allowed, -1e4)
print("allowed", allowed.int().tolist())
lengths = torch.tensor([6, 4, 2])
mask = torch.arange(T)[None] < lengths[:, None]


def viterbi(em, mask):
    score = em[:, 0].clone()
    score[:, [2, 4]] = -1e4
    history = []
    for t in range(1, em.size(1)):
        best, idx = (score.unsqueeze(2) + trans).max(dim=1)
        nxt = best + em[:, t]
        score = torch.where(mask[:, t, None], nxt, score)
        history.append(idx)
    bp = torch.stack(history, dim=1)
    best_score, last = score.max(dim=1)
    ends = mask.long().sum(1) - 1
    paths = []
    for b in range(em.size(0)):
        tag = last[b].item()
        path = [tag]
        for t in range(ends[b].item() - 1, -1, -1):
            tag = bp[b, t, tag].item()
            path.append(tag)
        paths.append(path[::-1])
    return best_score, paths, bp


best, paths, bp = viterbi(em, mask)
print("bp", tuple(bp.shape), bp.dtype)
print("best", best.round(decimals=4).tolist())
print("paths", paths)
print("labels", [[TAGS[i] for i in p] for p in paths])


def path_score(b, p):
    p = torch.tensor(p)
    return em[b, torch.arange(len(p)), p].sum() + trans[p[:-1], p[1:]].sum()


for b in range(B):
    L = int(lengths[b])
    cands = [p for p in itertools.product(range(C), repeat=L) if p[0] not in (2, 4)]
    sc = torch.stack([path_score(b, list(p)) for p in cands])
    top = sc.topk(2)
    print("brute", b, [list(cands[i]) for i in top.indices.tolist()], top.values.round(decimals=4).tolist())

# vectorised backtracking with gather (equal lengths)
score = em[:, 0]
hist = []
for t in range(1, T):
    s, i = (score.unsqueeze(2) + trans).max(1)
    score = s + em[:, t]
    hist.append(i)
hist = torch.stack(hist, 1)
cur = score.argmax(1, keepdim=True)
out = [cur]
for t in range(T - 2, -1, -1):
    cur = hist[:, t].gather(1, cur)
    out.append(cur)
dec = torch.cat(out[::-1], 1)
print("gather backtrack", dec.tolist(), dec.dtype)
print("flip", torch.flip(dec, dims=[1])[0].tolist(), dec.fliplr()[1].tolist())

ties = torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
print("max ties", ties.max(1).indices.tolist(), ties.argmax(1).tolist(), ties.topk(2, 1).indices.tolist())
print("max named", ties.max(dim=1))
v, i = torch.max(ties, 0, keepdim=True)
print("keepdim", tuple(v.shape), i.tolist())
for bad in [lambda: torch.max(ties, 2), lambda: ties.topk(4), lambda: hist.gather(1, cur.float().long()[:, :, None])]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
