"""Sequence alignment as differentiable-programming bioinformatics code writes it: BLOSUM-like substitution scores
looked up by advanced indexing, Needleman-Wunsch global alignment with a traceback, Smith-Waterman local scores with
clamp_min, a smoothed Smith-Waterman (logsumexp soft-max) whose gradient is the expected alignment, wavefront
(anti-diagonal) updates with torch.diagonal views, and a pair-HMM forward algorithm in log space."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
aa = "ARNDCQEGHILKMFPSTWYV"
g = torch.Generator().manual_seed(11)
B = torch.randint(-4, 6, (20, 20), generator=g).float()
B = ((B + B.T) / 2).round()
B.diagonal().copy_(torch.randint(4, 11, (20,), generator=g).float())
print("substitution", B.shape, B.diagonal()[:5].tolist(), torch.equal(B, B.T))


def encode(s):
    return torch.tensor([aa.index(c) for c in s])


a, b = encode("HEAGAWGHEE"), encode("PAWHEAE")
S = B[a[:, None], b[None, :]]
print("pair scores", S.shape, S[0].tolist())
gap = -4.0


def needleman_wunsch(S, gap):
    n, m = S.shape
    H = torch.zeros(n + 1, m + 1)
    H[:, 0] = gap * torch.arange(n + 1)
    H[0, :] = gap * torch.arange(m + 1)
    ptr = torch.zeros(n + 1, m + 1, dtype=torch.long)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cand = torch.stack([H[i - 1, j - 1] + S[i - 1, j - 1], H[i - 1, j] + gap, H[i, j - 1] + gap])
            H[i, j], ptr[i, j] = cand.max(0)
    i, j, path = n, m, []
    while i > 0 and j > 0:
        path.append((i - 1, j - 1, int(ptr[i, j])))
        i, j = (i - 1, j - 1) if ptr[i, j] == 0 else (i - 1, j) if ptr[i, j] == 1 else (i, j - 1)
    return H, path[::-1]


H, path = needleman_wunsch(S, gap)
print("NW score", H[-1, -1].item(), "moves", [p[2] for p in path])
matches = [(i, j) for i, j, mv in path if mv == 0]
print("aligned pairs", matches)


def smith_waterman_wavefront(S, gap, temp=None):
    n, m = S.shape
    H = torch.zeros(n + 1, m + 1, dtype=S.dtype)
    cells = []
    for k in range(2, n + m + 1):
        i = torch.arange(max(1, k - m), min(n, k - 1) + 1)
        j = k - i
        diag = H[i - 1, j - 1] + S[i - 1, j - 1]
        up = H[i - 1, j] + gap
        left = H[i, j - 1] + gap
        stack = torch.stack([torch.zeros_like(diag), diag, up, left])
        val = stack.amax(0) if temp is None else temp * torch.logsumexp(stack / temp, 0)
        H = H.index_put((i, j), val)
        cells.append(val)
    return H, torch.cat(cells)


Hsw, cells = smith_waterman_wavefront(S, gap)
best = Hsw.argmax()
print("SW best", Hsw.max().item(), "at", divmod(best.item(), Hsw.shape[1]), "cells", cells.numel())
print("unravel", [t.item() for t in torch.unravel_index(best, Hsw.shape)])
S_req = S.double().requires_grad_(True)
Hs, _ = smith_waterman_wavefront(S_req, gap, temp=1.0)
score = torch.logsumexp(Hs.flatten(), 0)
(P,) = torch.autograd.grad(score, S_req)
print("soft SW", round(score.item(), 4), "expected alignment mass", round(P.sum().item(), 4), P.shape)
print("top posterior pairs", P.flatten().topk(3).indices.tolist(), P.max().round(decimals=4).item())
print(
    "diagonal view",
    torch.diagonal(Hsw, offset=1)[:4].tolist(),
    Hsw.diagonal(-2).shape,
    torch.diagonal(Hsw, 0, 1, 0)[:3].tolist(),
)
print("antidiagonal via flip", Hsw.flip(1).diagonal(offset=2)[:3].tolist())
print("cummax row", torch.cummax(Hsw[5], 0).values.tolist(), torch.cummax(Hsw[5], 0).indices.tolist())

emit_match = F.log_softmax(B.double(), -1)
log_bg = torch.full((20,), -torch.log(torch.tensor(20.0, dtype=torch.float64)).item(), dtype=torch.float64)
delta, eps, tau = 0.2, 0.1, 0.05
logT = torch.log(
    torch.tensor(
        [[1 - 2 * delta - tau, delta, delta], [1 - eps - tau, eps, 0.0], [1 - eps - tau, 0.0, eps]], dtype=torch.float64
    )
)
print("log transitions", logT.isinf().sum().item(), logT.exp().sum(1).round(decimals=4).tolist())
n, m = len(a), len(b)
fM = torch.full((n + 1, m + 1), float("-inf"), dtype=torch.float64)
fX, fY = fM.clone(), fM.clone()
fM[0, 0] = 0.0
for i in range(n + 1):
    for j in range(m + 1):
        if i > 0 and j > 0:
            prev = torch.stack([fM[i - 1, j - 1], fX[i - 1, j - 1], fY[i - 1, j - 1]])
            fM[i, j] = emit_match[a[i - 1], b[j - 1]] + torch.logsumexp(prev + logT[:, 0], 0)
        if i > 0:
            prev = torch.stack([fM[i - 1, j], fX[i - 1, j], fY[i - 1, j]])
            fX[i, j] = log_bg[a[i - 1]] + torch.logsumexp(prev + logT[:, 1], 0)
        if j > 0:
            prev = torch.stack([fM[i, j - 1], fX[i, j - 1], fY[i, j - 1]])
            fY[i, j] = log_bg[b[j - 1]] + torch.logsumexp(prev + logT[:, 2], 0)
total = torch.logsumexp(torch.stack([fM[n, m], fX[n, m], fY[n, m]]), 0) + torch.log(
    torch.tensor(tau, dtype=torch.float64)
)
print("pair-HMM log P", round(total.item(), 4), fM.isinf().sum().item())
try:
    B[a[:, None], encode("PAW")[None, :, None]].shape
    B[torch.tensor([20])]
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.unravel_index(torch.tensor(200), Hsw.shape)
except Exception as e:
    print(type(e).__name__, e)
try:
    Hsw.diagonal(0, 0, 0)
except Exception as e:
    print(type(e).__name__, e)
