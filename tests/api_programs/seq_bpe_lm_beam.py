"""A word-piece LSTM language model end to end: a tiny BPE learned in Python, padded batches through
nn.Embedding(padding_idx=), weight tying of the embedding and decoder, variational (locked) dropout masks drawn with
numpy, perplexity with masked cross_entropy(ignore_index=, reduction='sum'), truncated BPTT with detached states,
and beam search with a length penalty."""

import collections
import math

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(3)
corpus = ["low lower lowest", "new newer newest", "wide wider widest", "slow slower slowest", "show shower"]


def learn_bpe(words, merges):
    vocab = collections.Counter(tuple(w) + ("</w>",) for line in words for w in line.split())
    rules = []
    for _ in range(merges):
        pairs = collections.Counter()
        for word, n in vocab.items():
            for a, b in zip(word, word[1:]):
                pairs[a, b] += n
        best = max(sorted(pairs), key=lambda p: pairs[p])
        rules.append(best)
        new = collections.Counter()
        for word, n in vocab.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(word[i] + word[i + 1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            new[tuple(out)] += n
        vocab = new
    return rules, vocab


def apply_bpe(word, rules):
    sym = list(word) + ["</w>"]
    for a, b in rules:
        i = 0
        while i < len(sym) - 1:
            if sym[i] == a and sym[i + 1] == b:
                sym[i : i + 2] = [a + b]
            else:
                i += 1
    return sym


rules, merged = learn_bpe(corpus, 12)
print("rules", rules[:6])
pieces = sorted({p for w in merged for p in w})
itos = ["<pad>", "<bos>", "<eos>"] + pieces
stoi = {s: i for i, s in enumerate(itos)}
print("vocab", len(itos), itos[3:10])
print("lowest ->", apply_bpe("lowest", rules), "slowly ->", apply_bpe("slowly", rules))
ids = [[1] + [stoi.get(p, 0) for w in line.split() for p in apply_bpe(w, rules)] + [2] for line in corpus]
batch = nn.utils.rnn.pad_sequence([torch.tensor(s) for s in ids], batch_first=True, padding_value=0)
print("batch", tuple(batch.shape), batch.dtype, (batch != 0).sum(1).tolist())

V, E = len(itos), 8


class LockedDropoutLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, E, padding_idx=0)
        self.rnn = nn.LSTM(E, 12, proj_size=E, batch_first=True)
        self.decoder = nn.Linear(E, V)
        self.decoder.weight = self.embed.weight  # weight tying

    def forward(self, x, state=None, mask=None):
        h = self.embed(x)
        if mask is not None:
            h = h * mask
        out, state = self.rnn(h, state)
        return self.decoder(out), state


lm = LockedDropoutLM()
with torch.no_grad():
    for name, p in lm.named_parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
    lm.embed.weight[0].zero_()
print("tied", lm.decoder.weight is lm.embed.weight, len(list(lm.parameters())), sorted(lm.state_dict())[:3])
print("lstm shapes", [(n, tuple(p.shape)) for n, p in lm.rnn.named_parameters()])
print(lm.rnn)

# Variational dropout: one mask per sequence, shared over time steps.
keep = 0.8
m = (rng.random((batch.shape[0], 1, E)) < keep).astype(np.float32) / keep
mask = torch.from_numpy(m)
inp, tgt = batch[:, :-1], batch[:, 1:]
logits, (h, c) = lm(inp, mask=mask.expand(-1, inp.shape[1], -1))
print("logits", tuple(logits.shape), "h", tuple(h.shape), "c", tuple(c.shape))
nll_sum = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1), ignore_index=0, reduction="sum")
ntok = (tgt != 0).sum()
ppl = math.exp(nll_sum.item() / ntok.item())
print("nll_sum", round(nll_sum.item(), 3), "tokens", ntok.item(), "ppl", round(ppl, 3))
mean = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=0)
print("mean matches", torch.allclose(mean, nll_sum / ntok), round(mean.item(), 4))
per_tok = F.cross_entropy(logits.transpose(1, 2), tgt, ignore_index=0, reduction="none")
print("none", tuple(per_tok.shape), per_tok[1, -2:].tolist(), round(per_tok[1, 0].item(), 4))

# Truncated BPTT training with tied weights and clip by norm.
opt = torch.optim.Adam(lm.parameters(), lr=0.02)
for epoch in range(4):
    state, total, count = None, 0.0, 0
    for start in range(0, inp.shape[1], 5):
        x, y = inp[:, start : start + 5], tgt[:, start : start + 5]
        if state is not None:
            state = tuple(s.detach() for s in state)
        out, state = lm(x, state)
        loss = F.cross_entropy(out.reshape(-1, V), y.reshape(-1), ignore_index=0, reduction="sum")
        n = (y != 0).sum().item()
        opt.zero_grad()
        (loss / max(n, 1)).backward()
        gn = nn.utils.clip_grad_norm_(lm.parameters(), 1.0)
        opt.step()
        total, count = total + loss.item(), count + n
    print("epoch", epoch, "ppl", round(math.exp(total / count), 3), "last gnorm", round(gn.item(), 3))
print("pad row moved by the tied decoder", round(lm.embed.weight[0].abs().sum().item(), 4))


@torch.no_grad()
def beam_search(prefix, beam=3, max_len=8, alpha=0.7):
    lm.eval()
    beams = [(0.0, prefix, None)]
    done = []
    for _ in range(max_len):
        cand = []
        for score, seq, state in beams:
            x = torch.tensor([seq[-1:]]) if state is not None else torch.tensor([seq])
            out, st = lm(x, state)
            logp = F.log_softmax(out[0, -1], dim=-1)
            top = torch.topk(logp, beam)
            for lp, idx in zip(top.values.tolist(), top.indices.tolist()):
                cand.append((score + lp, seq + [idx], st))
        cand.sort(key=lambda t: -t[0])
        beams = []
        for score, seq, st in cand:
            if seq[-1] == 2:
                lp = ((5 + len(seq) - len(prefix)) / 6) ** alpha
                done.append((score / lp, seq))
            else:
                beams.append((score, seq, st))
            if len(beams) == beam:
                break
        if len(done) >= beam:
            break
    done.sort(key=lambda t: -t[0])
    return done


for score, seq in beam_search([1, stoi["s"]])[:3]:
    print("beam", round(score, 3), "".join(itos[i] for i in seq[1:-1]).replace("</w>", " ").strip())

for label, fn in [
    ("ignore_index float target", lambda: F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1).float())),
    ("proj_size too big", lambda: nn.LSTM(4, 3, proj_size=3)),
    ("padding_idx out of range", lambda: nn.Embedding(5, 2, padding_idx=5)),
    ("tied shape mismatch", lambda: F.linear(torch.zeros(2, E), torch.zeros(E + 1, V))),
]:
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:90])
