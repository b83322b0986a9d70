"""A semi-Markov CRF for segmentation: segment scores from cumsum prefix sums (and unfold windows), a forward
algorithm over (end, duration) with logsumexp and -inf for impossible segments, segment marginals by autograd,
semi-Markov Viterbi with argmax over durations, and an as_strided check of the window view."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(9)

T, C, K = 7, 3, 3  # length, labels, max segment length
emit = torch.randn(T, C, requires_grad=True)
trans = torch.randn(C, C) * 0.3
dur = torch.randn(K, C) * 0.2
prefix = torch.cat([torch.zeros(1, C), emit.cumsum(0)], 0)
print("prefix", tuple(prefix.shape), prefix.grad_fn.name())


def seg_score(s, e):
    """Score of segment [s, e) for each label."""
    return prefix[e] - prefix[s] + dur[e - s - 1]


win = emit.detach().t().unfold(1, 2, 1).sum(-1).t()
print("unfold windows", tuple(win.shape), torch.allclose(win, prefix[2:].detach() - prefix[:-2].detach(), atol=1e-5))
st = emit.detach().as_strided((T - 1, 2, C), (C, C, 1))
print("as_strided", torch.allclose(st.sum(1), win, atol=1e-5), st.stride(), st.is_contiguous())

alpha = [torch.zeros(C)]  # alpha[e][c]: log-sum of segmentations of [0, e) whose last label is c
for e in range(1, T + 1):
    terms = []
    for d in range(1, K + 1):
        s = e - d
        if s < 0:
            terms.append(torch.full((C,), float("-inf")))
            continue
        if s == 0:
            prev = torch.zeros(C)
        else:
            prev = torch.logsumexp(alpha[s].unsqueeze(1) + trans, dim=0)
        terms.append(prev + seg_score(s, e))
    alpha.append(torch.logsumexp(torch.stack(terms), dim=0))
logZ = torch.logsumexp(alpha[-1], 0)
print("logZ", round(logZ.item(), 4), logZ.grad_fn.name())
print("alpha[1]", alpha[1].round(decimals=4).tolist(), "alpha[4]", alpha[4].round(decimals=4).tolist())
(g,) = torch.autograd.grad(logZ, emit)
print("token marginals", g.sum(1).round(decimals=4).tolist())
print("label marginals", g.round(decimals=4)[:3].tolist())

with torch.no_grad():
    best = [torch.zeros(C)]
    bp = [None]
    for e in range(1, T + 1):
        cand = torch.full((K, C), float("-inf"))
        prev_lab = torch.zeros(K, C, dtype=torch.long)
        for d in range(1, min(K, e) + 1):
            s = e - d
            if s == 0:
                cand[d - 1] = seg_score(0, e)
                prev_lab[d - 1] = -1
            else:
                v, i = (best[s].unsqueeze(1) + trans).max(0)
                cand[d - 1] = v + seg_score(s, e)
                prev_lab[d - 1] = i
        v, dbest = cand.max(0)
        best.append(v)
        bp.append((dbest + 1, prev_lab.gather(0, dbest.unsqueeze(0)).squeeze(0)))
    lab = best[-1].argmax().item()
    e, segs = T, []
    while e > 0:
        d, pl = bp[e]
        segs.append((e - d[lab].item(), e, lab))
        e, lab = e - d[lab].item(), pl[lab].item()
    print("viterbi score", round(best[-1].max().item(), 4), "segments", segs[::-1])
    print(
        "cand -inf rows",
        torch.isneginf(torch.full((2, 2), float("-inf"))).all().item(),
        torch.logsumexp(torch.tensor([float("-inf"), float("-inf")]), 0).item(),
    )

for bad in [
    lambda: emit.unfold(0, 8, 1),
    lambda: emit.unfold(2, 2, 1),
    lambda: emit.detach().as_strided((T, C), (C, 1), -1),
    lambda: emit.unfold(0, 2, 0),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
