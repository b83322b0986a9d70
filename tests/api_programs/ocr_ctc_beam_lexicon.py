"""CTC prefix beam search with a lexicon as OCR post-processing writes it: per-frame pruning with topk, blank and
non-blank prefix scores merged with torch.logaddexp and logsumexp over -inf entries, a trie of allowed words that
masks extensions, length-normalised final scores, and a comparison with greedy decoding and with the exact
per-word CTC likelihoods from F.ctc_loss (the best lexicon word by forward scoring)."""

import torch
F = torch.nn.functional

torch.manual_seed(0)
ALPHA = "-abdeorw"  # 0 is blank
LEX = ["bad", "bed", "bread", "bow", "row", "draw"]
T, C = 14, len(ALPHA)
# emissions that spell "bread" with some confusion between e/a and an extra repeat
path = [0, 2, 2, 6, 0, 4, 4, 1, 0, 3, 3, 0, 0, 0]
logits = torch.randn(T, C) * 0.8
logits[torch.arange(T), torch.tensor(path)] += 2.5
logits[7, 4] += 2.0  # e almost as likely as a at frame 7
lp = logits.log_softmax(-1).double()
NEG = float("-inf")

trie = {}
for w in LEX:
    node = trie
    for ch in w:
        node = node.setdefault(ch, {})
    node["$"] = {}


def allowed(prefix):
    node = trie
    for ch in prefix:
        if ch not in node:
            return set()
        node = node[ch]
    return {k for k in node if k != "$"}


def beam_search(lp, beam=4, prune=3, lexicon=True):
    beams = {"": (torch.tensor(0.0, dtype=torch.float64), torch.tensor(NEG, dtype=torch.float64))}
    for t in range(lp.size(0)):
        top = sorted(set(lp[t].topk(prune).indices.tolist()) | {0})
        nxt = {}

        def add(prefix, pb, pnb):
            ob, onb = nxt.get(prefix, (torch.tensor(NEG, dtype=torch.float64),) * 2)
            nxt[prefix] = (torch.logaddexp(ob, pb), torch.logaddexp(onb, pnb))

        for prefix, (pb, pnb) in beams.items():
            total = torch.logaddexp(pb, pnb)
            for c in top:
                p = lp[t, c]
                if c == 0:
                    add(prefix, total + p, torch.tensor(NEG, dtype=torch.float64))
                    continue
                ch = ALPHA[c]
                if lexicon and ch not in allowed(prefix):
                    continue
                if prefix and prefix[-1] == ch:
                    add(prefix + ch, torch.tensor(NEG, dtype=torch.float64), pb + p)
                    add(prefix, torch.tensor(NEG, dtype=torch.float64), pnb + p)
                else:
                    add(prefix + ch, torch.tensor(NEG, dtype=torch.float64), total + p)
        scored = sorted(nxt.items(), key=lambda kv: -torch.logaddexp(*kv[1]).item())
        beams = dict(scored[:beam])
    return [(k, torch.logaddexp(*v).item()) for k, v in beams.items()]


best = lp.argmax(-1)
greedy = "".join(ALPHA[i] for i in torch.unique_consecutive(best).tolist() if i != 0)
print("greedy", greedy, "path", best.tolist())
for lex in (False, True):
    res = beam_search(lp, lexicon=lex)
    print("lexicon" if lex else "free", [(w, round(s, 4)) for w, s in res])
    norm = [(w, round(s / max(len(w), 1), 4)) for w, s in res]
    print("  length-normalised", max(norm, key=lambda x: x[1]))

targets = [torch.tensor([ALPHA.index(c) for c in w]) for w in LEX]
nll = torch.stack([F.ctc_loss(lp, t, (T,), (len(t),), reduction="sum") for t in targets])
print("exact -log p(word)", nll.round(decimals=4).tolist(), nll.dtype)
batched = F.ctc_loss(lp[:, None].expand(T, len(LEX), C), torch.cat(targets), [T] * len(LEX),
                     [len(t) for t in targets], reduction="none")
print("batched agrees", torch.allclose(nll, batched))
rank = nll.argsort()
print("ranking", [LEX[i] for i in rank.tolist()])
post = (-nll).softmax(0)
print("posterior over lexicon", post.round(decimals=4).tolist())
print("logsumexp with -inf", torch.logsumexp(torch.tensor([NEG, NEG]), 0).item(),
      torch.logsumexp(torch.tensor([NEG, 0.0]), 0).item(), torch.logaddexp(torch.tensor(NEG), torch.tensor(NEG)).item())
print("logcumsumexp", torch.logcumsumexp(lp[:4, 0], 0).round(decimals=4).tolist())
