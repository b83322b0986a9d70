"""CTC written out by hand as alignment research code does it: the extended label sequence with blanks, the alpha
recursion in log space with logsumexp/logaddexp over -inf, the skip-transition mask from repeated labels, the loss
and its gradient checked against F.ctc_loss, Viterbi forced alignment with a backpointer table, and frame-level
segment durations from the best path."""

import torch
import torch.nn.functional as F

torch.manual_seed(0)
NEG_INF = float("-inf")


def extend(target, blank=0):
    ext = torch.full((2 * len(target) + 1,), blank, dtype=torch.long)
    ext[1::2] = target
    return ext


def skip_mask(ext, blank=0):
    prev2 = torch.cat([torch.tensor([-1, -1]), ext[:-2]])
    return (ext != blank) & (ext != prev2)


def ctc_alpha(log_probs, target, blank=0):
    ext = extend(target, blank)
    S = ext.numel()
    allow = skip_mask(ext, blank)
    alpha = torch.full((S,), NEG_INF, dtype=log_probs.dtype)
    alpha[0] = log_probs[0, blank]
    if S > 1:
        alpha = alpha.index_put((torch.tensor(1),), log_probs[0, ext[1]])
    for t in range(1, log_probs.shape[0]):
        stay = alpha
        move = torch.cat([alpha.new_full((1,), NEG_INF), alpha[:-1]])
        skip = torch.cat([alpha.new_full((2,), NEG_INF), alpha[:-2]])
        skip = torch.where(allow, skip, torch.full_like(skip, NEG_INF))
        alpha = torch.logsumexp(torch.stack([stay, move, skip]), dim=0) + log_probs[t, ext]
    return -torch.logaddexp(alpha[-1], alpha[-2] if S > 1 else alpha.new_tensor(NEG_INF))


def viterbi(log_probs, target, blank=0):
    ext = extend(target, blank)
    S, T = ext.numel(), log_probs.shape[0]
    allow = skip_mask(ext, blank)
    score = torch.full((S,), NEG_INF, dtype=log_probs.dtype)
    score[:2] = log_probs[0, ext[:2]]
    back = torch.zeros(T, S, dtype=torch.long)
    for t in range(1, T):
        cand = torch.stack(
            [
                score,
                torch.cat([score.new_full((1,), NEG_INF), score[:-1]]),
                torch.where(allow, torch.cat([score.new_full((2,), NEG_INF), score[:-2]]), score.new_tensor(NEG_INF)),
            ]
        )
        best, arg = cand.max(dim=0)
        back[t] = torch.arange(S) - arg
        score = best + log_probs[t, ext]
    end = S - 1 if score[-1] >= score[-2] else S - 2
    path = [end]
    for t in range(T - 1, 0, -1):
        path.append(back[t, path[-1]].item())
    path = torch.tensor(path[::-1])
    return ext[path], score.max()


T, C = 10, 5
logits = torch.randn(T, C, dtype=torch.float64, requires_grad=True)
lp = logits.log_softmax(-1)
for target in ([1, 2, 3], [2, 2, 4], [3, 3, 3], [4]):
    tgt = torch.tensor(target)
    ext = extend(tgt)
    print("target", target, "ext", ext.tolist(), "skip", skip_mask(ext).int().tolist())
    mine = ctc_alpha(lp, tgt)
    ref = F.ctc_loss(lp, tgt, (T,), (len(target),), reduction="sum")
    print(
        "  loss by hand", round(mine.item(), 4), "F.ctc_loss", round(ref.item(), 4), "close", torch.allclose(mine, ref)
    )
    (g_mine,) = torch.autograd.grad(mine, logits, retain_graph=True)
    (g_ref,) = torch.autograd.grad(ref, logits, retain_graph=True)
    ok = ~g_mine.isnan()
    print(
        "  hand grad nans",
        int((~ok).sum()),
        "max diff elsewhere",
        round((g_mine - g_ref)[ok].abs().max().item(), 4),
        "row sums",
        g_ref.sum(-1).abs().max().item() < 1e-10,
    )
    labels, best = viterbi(lp.detach(), tgt)
    print("  viterbi path", labels.tolist(), "score", round(best.item(), 4))
    collapsed = torch.unique_consecutive(labels)
    print("  collapsed", collapsed[collapsed != 0].tolist())
    vals, counts = torch.unique_consecutive(labels, return_counts=True)
    print("  segments", list(zip(vals.tolist(), counts.tolist())))

print(
    "logsumexp of -inf",
    torch.logsumexp(torch.full((3,), NEG_INF), 0).item(),
    "logaddexp",
    torch.logaddexp(torch.tensor(NEG_INF), torch.tensor(NEG_INF)).item(),
    torch.logaddexp(torch.tensor(NEG_INF), torch.tensor(-1.5)).item(),
)
print("logsumexp mixed rows", torch.logsumexp(torch.tensor([[NEG_INF, NEG_INF], [0.0, NEG_INF]]), 1).tolist())
impossible = F.ctc_loss(lp, torch.tensor([1, 1, 1, 1, 1, 1]), (T,), (6,), reduction="none")
print("impossible", impossible.item(), impossible.dtype)
print("by hand impossible", ctc_alpha(lp, torch.tensor([1, 1, 1, 1, 1, 1])).item())
z = F.ctc_loss(lp, torch.tensor([1, 1, 1, 1, 1, 1]), (T,), (6,), reduction="none", zero_infinity=True)
(gz,) = torch.autograd.grad(z, logits)
print("zero_infinity", z.item(), "grad all zero", bool((gz == 0).all()))
