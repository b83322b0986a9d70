"""Beam search for a small GRU seq2seq decoder as NMT code writes it: topk over flattened beam*vocab scores,
beam origins by floor division, state reordering with index_select, finished hypotheses with masked_fill,
GNMT and average length penalties, and a batched version with gather."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(3)

V, H, BOS, EOS = 7, 8, 1, 2
emb = nn.Embedding(V, H)
cell = nn.GRUCell(H, H)
proj = nn.Linear(H, V)
with torch.no_grad():
    proj.bias[EOS] += 0.8


def step(tokens, h):
    h = cell(emb(tokens), h)
    return F.log_softmax(proj(h), dim=-1), h


def gnmt_penalty(length, alpha=0.6):
    return ((5.0 + length) / 6.0) ** alpha


@torch.no_grad()
def beam_search(h0, k=3, max_len=6, alpha=0.6):
    h = h0.expand(k, H).contiguous()
    seqs = torch.full((k, 1), BOS, dtype=torch.long)
    scores = torch.tensor([0.0] + [float("-inf")] * (k - 1))
    finished = []
    for t in range(max_len):
        lp, h = step(seqs[:, -1], h)
        cand = (scores.unsqueeze(1) + lp).view(-1)
        top, idx = cand.topk(k)
        origin = torch.div(idx, V, rounding_mode="floor")
        token = idx % V
        seqs = torch.cat([seqs.index_select(0, origin), token.unsqueeze(1)], dim=1)
        h = h.index_select(0, origin)
        done = token == EOS
        for i in done.nonzero().flatten().tolist():
            finished.append((seqs[i].tolist(), top[i].item(), top[i].item() / gnmt_penalty(t + 1, alpha)))
        scores = top.masked_fill(done, float("-inf"))
        if torch.isinf(scores).all():
            break
    for i in range(k):
        if scores[i] > float("-inf"):
            finished.append(
                (seqs[i].tolist(), scores[i].item(), scores[i].item() / gnmt_penalty(seqs.size(1) - 1, alpha))
            )
    return sorted(finished, key=lambda x: -x[2])


h0 = torch.randn(1, H)
for seq, raw, norm in beam_search(h0)[:4]:
    print(seq, round(raw, 4), round(norm, 4))
print("avg penalty best", [s for s, _, _ in sorted(beam_search(h0, alpha=0.0), key=lambda x: -x[1])][:2])


@torch.no_grad()
def batched_beam(h0, k=2, steps=4):
    B = h0.size(0)
    h = h0.repeat_interleave(k, dim=0)
    tokens = torch.full((B * k,), BOS)
    scores = torch.zeros(B, k)
    scores[:, 1:] = float("-inf")
    hist = torch.empty(B, k, 0, dtype=torch.long)
    for _ in range(steps):
        lp, h = step(tokens, h)
        total = (scores.unsqueeze(-1) + lp.view(B, k, V)).flatten(1)
        scores, idx = total.topk(k, dim=1, sorted=True)
        origin, token = idx // V, idx.remainder(V)
        hist = torch.cat([hist.gather(1, origin.unsqueeze(-1).expand(-1, -1, hist.size(2))), token.unsqueeze(-1)], -1)
        flat = (origin + torch.arange(B).unsqueeze(1) * k).view(-1)
        h = h[flat]
        tokens = token.view(-1)
    return scores, hist


s, hist = batched_beam(torch.randn(2, H))
print("batched scores", s.round(decimals=4).tolist())
print("batched hist", hist.tolist(), hist.dtype)
print(
    "floor div",
    torch.div(torch.tensor([-7, 7]), 2, rounding_mode="floor").tolist(),
    torch.div(torch.tensor([-7, 7]), 2, rounding_mode="trunc").tolist(),
    (torch.tensor([-7, 7]) // 2).tolist(),
)
top = torch.tensor([[0.1, 0.5, 0.5, 0.2]]).topk(3, largest=False)
print(top)
print("repeat_interleave", torch.tensor([[1, 2], [3, 4]]).repeat_interleave(torch.tensor([1, 2]), dim=0).tolist())
for bad in [
    lambda: torch.div(torch.tensor([1]), 2, rounding_mode="round"),
    lambda: torch.randn(2, 3).index_select(0, torch.tensor([0.0])),
    lambda: torch.randn(2, 3).index_select(1, torch.tensor([[0, 1]])),
    lambda: torch.randn(2, 3).topk(2, dim=3),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
