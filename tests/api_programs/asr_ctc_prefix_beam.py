"""CTC decoding as ASR toolkits write it: batched greedy decoding with lengths (argmax, a shifted-compare collapse,
blank removal by masks), CTC prefix beam search keeping blank/non-blank log scores merged with logaddexp, per-frame
candidate pruning with topk, shallow fusion with a bigram LM table, rescoring of an n-best list with F.ctc_loss,
and the log-space edge cases decoders hit (-inf scores, logsumexp over empty beams)."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
NEG = float("-inf")
T, B, V = 12, 3, 6
BLANK = 0
logits = torch.randn(B, T, V) * 2.5
logits[:, ::3, BLANK] += 3.0
log_probs = logits.log_softmax(-1)
lengths = torch.tensor([12, 9, 5])


def greedy(lp, lens):
    best = lp.argmax(-1)
    valid = torch.arange(lp.size(1)) < lens[:, None]
    keep = torch.ones_like(best, dtype=torch.bool)
    keep[:, 1:] = best[:, 1:] != best[:, :-1]
    keep &= (best != BLANK) & valid
    return [best[b][keep[b]].tolist() for b in range(best.size(0))], best.masked_fill(~valid, -1)


hyps, frames = greedy(log_probs, lengths)
print("frames", frames.tolist())
print("greedy", hyps)
print(
    "via unique_consecutive",
    [[t for t in torch.unique_consecutive(frames[b, : lengths[b]]).tolist() if t != BLANK] for b in range(B)],
)
print("greedy score", log_probs.max(-1).values.sum(-1).round(decimals=4).tolist())

bigram = torch.full((V, V), math.log(0.5 / (V - 2)))
bigram.fill_diagonal_(math.log(0.5))
bigram[:, BLANK] = NEG


def prefix_beam(lp, beam=4, prune=3, lm=None, alpha=0.3):
    beams = {(): (0.0, NEG)}
    for t in range(lp.size(0)):
        top_lp, top_ix = lp[t].topk(prune)
        nxt = {}

        def add(prefix, pb, pnb):
            ob, onb = nxt.get(prefix, (NEG, NEG))
            nxt[prefix] = (
                torch.logaddexp(torch.tensor(ob), torch.tensor(pb)).item(),
                torch.logaddexp(torch.tensor(onb), torch.tensor(pnb)).item(),
            )

        for prefix, (pb, pnb) in beams.items():
            total = torch.logsumexp(torch.tensor([pb, pnb]), 0).item()
            for p, c in zip(top_lp.tolist(), top_ix.tolist()):
                if c == BLANK:
                    add(prefix, total + p, NEG)
                    continue
                lm_bonus = 0.0 if lm is None or not prefix else alpha * lm[prefix[-1], c].item()
                if prefix and prefix[-1] == c:
                    add(prefix + (c,), NEG, pb + p + lm_bonus)
                    add(prefix, NEG, pnb + p)
                else:
                    add(prefix + (c,), NEG, total + p + lm_bonus)
        scored = sorted(nxt.items(), key=lambda kv: -torch.logsumexp(torch.tensor(kv[1]), 0).item())
        beams = dict(scored[:beam])
    return [(list(k), round(torch.logsumexp(torch.tensor(v), 0).item(), 4)) for k, v in beams.items()]


for b in range(B):
    lp = log_probs[b, : lengths[b]]
    nbest = prefix_beam(lp)
    print("utt", b, "beam", nbest[:3])
    fused = prefix_beam(lp, lm=bigram)
    print("utt", b, "fused", fused[:2])
    cands = [h for h, _ in nbest if h]
    tgt = torch.cat([torch.tensor(h) for h in cands])
    tl = torch.tensor([len(h) for h in cands])
    rescored = F.ctc_loss(
        lp.unsqueeze(1).expand(-1, len(cands), -1), tgt, torch.full((len(cands),), lp.size(0)), tl, reduction="none"
    )
    print("utt", b, "ctc rescoring", (-rescored).round(decimals=4).tolist(), "best", cands[rescored.argmin()])

print(
    "logsumexp empty",
    torch.logsumexp(torch.empty(0), 0).item(),
    "all -inf",
    torch.logsumexp(torch.tensor([NEG, NEG]), 0).item(),
)
print("topk ties", torch.tensor([0.5, 0.2, 0.5, 0.1]).topk(2), torch.tensor([3.0, 1.0, 2.0]).topk(2, largest=False))
print("logaddexp2", torch.logaddexp2(torch.tensor([1.0, NEG]), torch.tensor([1.0, 3.0])).tolist())
print("bigram rows", bigram.logsumexp(-1).round(decimals=4).tolist())
try:
    log_probs[0].topk(V + 1)
except Exception as e:
    print(type(e).__name__, e)
