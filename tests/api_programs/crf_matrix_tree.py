"""Non-projective dependency parsing as a tree CRF: the Matrix-Tree theorem with a root-augmented Laplacian,
log Z by slogdet/logdet, arc marginals as its gradient (checked against the inverse-Laplacian formula), brute force
over all trees on 4 words, Chu-Liu-free greedy heads with argmax, and a batched version with masks and diag_embed."""

import itertools
import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(17)

n = 4  # words; node 0 is ROOT
scores = torch.randn(n + 1, n + 1, dtype=torch.float64)  # scores[h, m]: head h -> modifier m
scores.requires_grad_()


def log_partition(s):
    w = s.exp() * (1 - torch.eye(n + 1, dtype=s.dtype))
    w = w[:, 1:]  # no arcs into ROOT
    root, arcs = w[0], w[1:]
    lap = torch.diag_embed(arcs.sum(0)) - arcs
    lap = lap + torch.diag_embed(root)  # root weights on the diagonal (Koo et al.)
    sign, logabs = torch.linalg.slogdet(lap)
    return logabs, sign, lap


logZ, sign, lap = log_partition(scores)
print("logZ", round(logZ.item(), 6), "sign", sign.item(), logZ.grad_fn.name())
print("logdet", round(torch.logdet(lap).item(), 6), "det", round(torch.det(lap).log().item(), 6))
(marg,) = torch.autograd.grad(logZ, scores)
print("modifier marginals sum to 1", marg[:, 1:].sum(0).round(decimals=6).tolist())
print("root marginals", marg[0, 1:].round(decimals=4).tolist(), "diag", marg.diagonal().abs().sum().item())

with torch.no_grad():
    inv = torch.linalg.inv(lap)
    w = scores.exp()[:, 1:]
    exact_root = w[0] * inv.diagonal()
    print("inverse formula root", torch.allclose(exact_root, marg[0, 1:], atol=1e-10))


def is_tree(heads):
    for m in range(1, n + 1):
        seen, h = set(), m
        while h != 0:
            if h in seen:
                return False
            seen.add(h)
            h = heads[h - 1]
    return True


trees = [h for h in itertools.product(range(n + 1), repeat=n) if all(h[i] != i + 1 for i in range(n)) and is_tree(h)]
with torch.no_grad():
    idx = torch.tensor(trees)
    ts = scores[idx, torch.arange(1, n + 1)].sum(1)
    print("trees", len(trees), "brute logZ", round(torch.logsumexp(ts, 0).item(), 6))
    best = idx[ts.argmax()]
    print("best tree", best.tolist(), round(ts.max().item(), 4))
    p = ts.softmax(0)
    bm = torch.zeros(n + 1, n + 1, dtype=torch.float64).index_put_(
        (idx.flatten(), torch.arange(1, n + 1).repeat(len(trees))), p.repeat_interleave(n), accumulate=True
    )
    print("brute marginals match", torch.allclose(bm, marg, atol=1e-10))
    greedy = scores[:, 1:].masked_fill(torch.eye(n + 1, dtype=torch.bool)[:, 1:], float("-inf")).argmax(0)
    print("greedy heads", greedy.tolist(), "is tree", is_tree(greedy.tolist()))

B, L = 2, 4
sc = torch.randn(B, L + 1, L + 1)
lengths = torch.tensor([4, 2])
valid = torch.arange(L + 1)[None] <= lengths[:, None]
pair = valid.unsqueeze(2) & valid.unsqueeze(1) & ~torch.eye(L + 1, dtype=torch.bool)
wts = sc.exp().masked_fill(~pair, 0.0)[:, :, 1:]
lapb = torch.diag_embed(wts[:, 1:].sum(1) + wts[:, 0]) - wts[:, 1:]
pad = ~valid[:, 1:]
lapb = lapb + torch.diag_embed(pad.double().float())  # identity rows for padding keep det unchanged
print("batched logZ", torch.logdet(lapb).round(decimals=4).tolist(), torch.linalg.slogdet(lapb).sign.tolist())
for bad in [
    lambda: torch.linalg.slogdet(torch.ones(2, 3)),
    lambda: torch.logdet(torch.ones(3, dtype=torch.long)),
    lambda: torch.diag_embed(torch.ones(2), dim1=0, dim2=0),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
