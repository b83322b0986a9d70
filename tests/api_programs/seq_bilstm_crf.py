"""BiLSTM-CRF sequence tagger: emission scores from a bidirectional LSTM, the CRF partition function by the forward
algorithm (logsumexp over transitions, masked), the gold-path score by gather, Viterbi decoding with backpointers,
a few training steps with gradient clipping, and the usual tagging mistakes."""

import numpy as np
import torch
from torch import nn

rng = np.random.default_rng(7)
TAGS = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
START, STOP = len(TAGS), len(TAGS) + 1
NT = len(TAGS) + 2


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def fill(m, scale=0.3):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * scale))


class BiLSTMCRF(nn.Module):
    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden // 2, batch_first=True, bidirectional=True)
        self.hidden2tag = nn.Linear(hidden, NT)
        self.transitions = nn.Parameter(torch.zeros(NT, NT))  # transitions[i, j]: score of j -> i

    def constrain(self):
        with torch.no_grad():
            self.transitions.data[START, :] = -10000.0
            self.transitions.data[:, STOP] = -10000.0

    def emissions(self, x):
        out, (h, c) = self.lstm(self.embed(x))
        return self.hidden2tag(out), h

    def log_partition(self, feats, mask):
        B, L, _ = feats.shape
        alpha = torch.full((B, NT), -10000.0)
        alpha[:, START] = 0.0
        for t in range(L):
            scores = alpha.unsqueeze(1) + self.transitions.unsqueeze(0) + feats[:, t].unsqueeze(2)
            nxt = torch.logsumexp(scores, dim=2)
            m = mask[:, t].unsqueeze(1)
            alpha = torch.where(m, nxt, alpha)
        return torch.logsumexp(alpha + self.transitions[STOP].unsqueeze(0), dim=1)

    def gold_score(self, feats, tags, mask):
        B, L = tags.shape
        emit = feats.gather(2, tags.unsqueeze(2)).squeeze(2)
        prev = torch.cat([torch.full((B, 1), START, dtype=torch.long), tags[:, :-1]], dim=1)
        trans = self.transitions[tags, prev]
        score = ((emit + trans) * mask.float()).sum(1)
        last = tags.gather(1, (mask.long().sum(1) - 1).unsqueeze(1)).squeeze(1)
        return score + self.transitions[STOP, last]

    def nll(self, x, tags, mask):
        feats, _ = self.emissions(x)
        return (self.log_partition(feats, mask) - self.gold_score(feats, tags, mask)).mean()

    @torch.no_grad()
    def viterbi(self, x, mask):
        feats, _ = self.emissions(x)
        B, L, _ = feats.shape
        delta = torch.full((B, NT), -10000.0)
        delta[:, START] = 0.0
        backptrs = []
        for t in range(L):
            scores = delta.unsqueeze(1) + self.transitions.unsqueeze(0)
            best, idx = scores.max(dim=2)
            nxt = best + feats[:, t]
            m = mask[:, t].unsqueeze(1)
            delta = torch.where(m, nxt, delta)
            backptrs.append(torch.where(m, idx, torch.arange(NT).expand(B, NT)))
        final = delta + self.transitions[STOP]
        best_score, best_last = final.max(dim=1)
        paths = []
        for b in range(B):
            n = int(mask[b].sum())
            tag = best_last[b].item()
            path = [tag]
            for bp in reversed(backptrs[1:n]):
                tag = bp[b, tag].item()
                path.append(tag)
            paths.append(path[::-1])
        return best_score, paths


words = torch.tensor([[3, 7, 2, 9, 4], [5, 1, 8, 0, 0], [6, 2, 0, 0, 0]])
mask = words != 0
tags = torch.tensor([[1, 2, 0, 3, 4], [0, 3, 0, 0, 0], [1, 0, 0, 0, 0]])
model = BiLSTMCRF(vocab=10, emb=6, hidden=8)
fill(model)
model.constrain()
print(model)
print("mask", mask.dtype, mask.sum(1).tolist())
feats, h = model.emissions(words)
print("emissions", tuple(feats.shape), r(feats[0, 0]))
print("h_n", tuple(h.shape), "final fwd+bwd", tuple(torch.cat([h[-2], h[-1]], dim=1).shape))
logZ = model.log_partition(feats, mask)
gold = model.gold_score(feats, tags, mask)
print("logZ", r(logZ), "gold", r(gold), "logZ>=gold", bool((logZ >= gold).all()))

# Brute-force check of the partition on the shortest sentence (2 tokens, 5 real tags).
with torch.no_grad():
    f = feats[2, :2, :5]
    tr = model.transitions
    tot = []
    for a in range(5):
        for b in range(5):
            tot.append(tr[a, START] + f[0, a] + tr[b, a] + f[1, b] + tr[STOP, b])
    print("brute", round(torch.stack(tot).logsumexp(0).item(), 4), round(logZ[2].item(), 4))

loss = model.nll(words, tags, mask)
loss.backward()
print("nll", round(loss.item(), 4), loss.grad_fn.name())
start_grad = model.transitions.grad[START].abs().sum().item()
print("grad trans", r(model.transitions.grad[:5, :5], 8), "start row grad", start_grad < 1e-4)
print("pad emb grad", model.embed.weight.grad[0].abs().sum().item())
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print("clip total", round(total.item(), 4), type(total).__name__, total.dim())
after = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
print("after clip", round(after.item(), 4))

opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    opt.zero_grad()
    loss = model.nll(words, tags, mask)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    model.constrain()
    print("step", step, round(loss.item(), 4))

score, paths = model.viterbi(words, mask)
print("viterbi", r(score), paths)
print("decoded", [[TAGS[t] for t in p] for p in paths])
print("gold", [[TAGS[t] for t in row[: int(m.sum())]] for row, m in zip(tags.tolist(), mask)])
acc = sum(int(p == g) for pp, gg in zip(paths, tags.tolist()) for p, g in zip(pp, gg)) / mask.sum().item()
print("token acc", round(acc, 4))

# Marginals via autograd of logZ with respect to the emissions.
feats, _ = model.emissions(words)
feats = feats.detach().requires_grad_(True)
logZ = model.log_partition(feats, mask)
(marg,) = torch.autograd.grad(logZ.sum(), feats)
print("marginals sum per token", r(marg.sum(-1)[0]), r(marg.sum(-1)[2]))
print("marginal argmax", marg.argmax(-1).masked_fill(~mask, -1).tolist())

# Mistakes.
for label, fn in [
    ("gather wrong dtype", lambda: feats.gather(2, tags.unsqueeze(2).int())),
    ("mask float where", lambda: torch.where(mask.float(), feats[..., 0], feats[..., 1])),
    ("logsumexp int", lambda: torch.logsumexp(tags, dim=1)),
    ("emb out of range", lambda: model.embed(torch.tensor([[10]]))),
    ("max no dim on empty", lambda: torch.empty(0, NT).max()),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:90])
