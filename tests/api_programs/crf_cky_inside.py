"""The inside algorithm of a PCFG in Chomsky normal form on small sizes: log-space chart filled by span length
with logsumexp over split points and rule triples via einsum, span marginals as gradients of log Z, CKY Viterbi
with argmax split recovery, chart diagonals, triu_indices for span enumeration, and the einsum errors."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(10)

NT, V, n = 3, 5, 5
sent = torch.tensor([0, 3, 1, 4, 2])
rules = torch.randn(NT, NT, NT).flatten(1).log_softmax(-1).view(NT, NT, NT).requires_grad_()  # A -> B C
lex = torch.randn(NT, V).log_softmax(-1)
root = torch.randn(NT).log_softmax(0)
span_w = torch.zeros(n, n + 1, requires_grad=True)  # a zero potential per span: its gradient is the marginal

chart = {}
for i in range(n):
    chart[i, i + 1] = lex[:, sent[i]] + span_w[i, i + 1]
for length in range(2, n + 1):
    for i in range(n - length + 1):
        j = i + length
        splits = []
        for k in range(i + 1, j):
            left, right = chart[i, k], chart[k, j]
            m = left.max() + right.max()
            inner = torch.einsum("abc,b,c->a", rules.exp(), (left - left.max()).exp(), (right - right.max()).exp())
            splits.append(inner.log() + m)
        chart[i, j] = torch.logsumexp(torch.stack(splits), 0) + span_w[i, j]
logZ = torch.logsumexp(chart[0, n] + root, 0)
print("logZ", round(logZ.item(), 4), logZ.grad_fn.name())
marg, rg = torch.autograd.grad(logZ, [span_w, rules])
print("span marginals", marg.round(decimals=4).tolist())
print("full span", round(marg[0, n].item(), 4), "len-1 spans", marg.diagonal(1).round(decimals=4).tolist())
print("expected rule count", round(rg.sum().item(), 4))
iu = torch.triu_indices(n, n + 1, offset=2)
print("triu_indices", iu.shape, iu[:, :5].tolist())
print("span count", round(marg[iu[0], iu[1]].sum().item(), 4))

bonus = torch.randn(n, n + 1) * 0.1  # breaks the ties between bracketings that use the same rules
with torch.no_grad():
    best, back = {}, {}
    for i in range(n):
        best[i, i + 1] = lex[:, sent[i]]
    for length in range(2, n + 1):
        for i in range(n - length + 1):
            j = i + length
            cands = torch.stack(
                [rules + best[i, k].view(1, NT, 1) + best[k, j].view(1, 1, NT) for k in range(i + 1, j)]
            )
            flat = cands.permute(1, 0, 2, 3).reshape(NT, -1)
            v, a = flat.max(1)
            best[i, j] = v + bonus[i, j]
            back[i, j] = torch.stack(torch.unravel_index(a, (j - i - 1, NT, NT)), 1)

    def tree(i, j, A):
        if j == i + 1:
            return f"(N{A} w{sent[i].item()})"
        k, B, C = back[i, j][A].tolist()
        return f"(N{A} {tree(i, i + 1 + k, B)} {tree(i + 1 + k, j, C)})"

    top = (best[0, n] + root).argmax().item()
    print("viterbi", round((best[0, n] + root).max().item(), 4), tree(0, n, top))

c = torch.arange(12.0).view(3, 4)
print("diagonals", c.diagonal(1).tolist(), torch.diagonal(c, -1).tolist(), c.diag(2).tolist())
print("diag_embed", torch.diag_embed(torch.tensor([1.0, 2.0]), offset=1).tolist())
for bad in [
    lambda: torch.einsum("abc,b->a", rules, torch.ones(4)),
    lambda: torch.einsum("ab,b", torch.ones(2, 2)),
    lambda: torch.unravel_index(torch.tensor([13]), (3, 4)),
    lambda: torch.triu_indices(3, 3, dtype=torch.float),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
