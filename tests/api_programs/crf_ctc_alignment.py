"""CTC by hand against F.ctc_loss: the extended label sequence with blanks, the skip-transition mask from shifted
targets, the alpha recursion in float64 with logsumexp over stacked shifts (F.pad with -inf), forced alignment by
Viterbi with backtracking, the loss's gradient against the hand recursion's, and gradcheck of ctc_loss."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(16)
NEG = float("-inf")

T, C, blank = 9, 4, 0
logits = torch.randn(T, C, dtype=torch.float64, requires_grad=True)
target = torch.tensor([1, 2, 2, 3])
ext = torch.full((2 * len(target) + 1,), blank, dtype=torch.long)
ext[1::2] = target
S = ext.numel()
print("extended", ext.tolist())
skip = torch.zeros(S, dtype=torch.bool)
skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
print("skip", skip.int().tolist())


def ctc_alpha(lp, neg=-1e30):
    """-inf would give all--inf logsumexps a NaN gradient: a finite stand-in keeps the backward clean."""
    alpha = torch.full((S,), neg, dtype=lp.dtype)
    alpha = torch.cat([lp[0, ext[:2]], alpha[2:]])
    for t in range(1, T):
        a1 = F.pad(alpha[:-1], (1, 0), value=neg)
        a2 = torch.where(skip, F.pad(alpha[:-2], (2, 0), value=neg), torch.tensor(neg, dtype=lp.dtype))
        alpha = torch.logsumexp(torch.stack([alpha, a1, a2]), 0) + lp[t, ext]
    return -torch.logsumexp(alpha[-2:], 0)


lp = logits.log_softmax(-1)
mine = ctc_alpha(lp)
ref = F.ctc_loss(lp.unsqueeze(1), target.unsqueeze(0), torch.tensor([T]), torch.tensor([len(target)]), reduction="sum")
print("hand", round(mine.item(), 6), "ctc_loss", round(ref.item(), 6), ref.dtype)
(g1,) = torch.autograd.grad(mine, logits, retain_graph=True)
(g2,) = torch.autograd.grad(ref, logits, retain_graph=True)
(g3,) = torch.autograd.grad(ctc_alpha(lp, NEG), logits)
print("with -inf", g3.isnan().any().item())
print("grads agree", torch.allclose(g1, g2, atol=1e-8), g1.abs().sum().round(decimals=4).item())
print("grad rows sum", g2.sum(1).abs().max().item() < 1e-10)

with torch.no_grad():
    delta = torch.full((S,), NEG, dtype=torch.float64)
    delta[:2] = lp[0, ext[:2]]
    bps = []
    for t in range(1, T):
        cand = torch.stack(
            [
                delta,
                F.pad(delta[:-1], (1, 0), value=NEG),
                torch.where(skip, F.pad(delta[:-2], (2, 0), value=NEG), torch.tensor(NEG, dtype=torch.float64)),
            ]
        )
        best, arg = cand.max(0)
        bps.append(arg)
        delta = best + lp[t, ext]
    end = S - 2 + delta[-2:].argmax().item()
    path = [end]
    for arg in reversed(bps):
        end = end - arg[end].item()
        path.append(end)
    path = path[::-1]
    labels = ext[torch.tensor(path)]
    print("alignment states", path)
    print("alignment labels", labels.tolist(), "score", round(delta[-2:].max().item(), 4))
    collapsed = torch.unique_consecutive(labels)
    print("collapsed", collapsed[collapsed != blank].tolist())

small = torch.randn(5, 1, 3, dtype=torch.float64, requires_grad=True)
fn = lambda x: F.ctc_loss(x.log_softmax(2), torch.tensor([[1, 2]]), torch.tensor([5]), torch.tensor([2]))
print("gradcheck", torch.autograd.gradcheck(fn, (small,)))
print("unbatched", round(F.ctc_loss(lp, target, torch.tensor(T), torch.tensor(len(target))).item(), 4))
print("tuple lengths", round(F.ctc_loss(lp.unsqueeze(1), target.unsqueeze(0), (T,), (4,), reduction="sum").item(), 4))
for bad in [
    lambda: F.ctc_loss(lp, target, torch.tensor([T]), torch.tensor([4])),
    lambda: F.ctc_loss(lp.unsqueeze(1), target.unsqueeze(0), torch.tensor([T]), torch.tensor([4]), blank=4),
    lambda: F.pad(torch.ones(3), (1, 0), mode="reflect", value=1.0),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
