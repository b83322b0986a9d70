"""A GRU attention NMT loop from a course assignment: label smoothing through KLDivLoss with scatter_/index_fill_,
scheduled sampling with numpy coin flips, a Noam warmup through LambdaLR, clip_grad_value_, greedy decoding with
finished masks, and corpus BLEU computed with unfold + unique(dim=0, return_counts=True) n-gram counts."""

import math

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

rng = np.random.default_rng(31)
PAD, BOS, EOS, V, H = 0, 1, 2, 11, 8


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class LabelSmoothing(nn.Module):
    def __init__(self, size, padding_idx, smoothing=0.0):
        super().__init__()
        self.criterion = nn.KLDivLoss(reduction="sum")
        self.padding_idx, self.confidence, self.smoothing, self.size = padding_idx, 1.0 - smoothing, smoothing, size
        self.true_dist = None

    def forward(self, x, target):
        true_dist = x.detach().clone()
        true_dist.fill_(self.smoothing / (self.size - 2))
        true_dist.scatter_(1, target.unsqueeze(1), self.confidence)
        true_dist[:, self.padding_idx] = 0
        pad_rows = torch.nonzero(target == self.padding_idx)
        if pad_rows.dim() > 0 and pad_rows.numel() > 0:
            true_dist.index_fill_(0, pad_rows.squeeze(1), 0.0)
        self.true_dist = true_dist
        return self.criterion(x, true_dist)


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, H, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(V, H, padding_idx=PAD)
        self.enc = nn.GRU(H, H, batch_first=True)
        self.dec = nn.GRUCell(2 * H, H)
        self.attn = nn.Linear(H, H, bias=False)
        self.out = nn.Linear(2 * H, V)

    def encode(self, src):
        mem, h = self.enc(self.src_emb(src))
        return mem, h[0], src != PAD

    def step(self, y, h, ctx, mem, mask):
        h = self.dec(torch.cat([self.tgt_emb(y), ctx], -1), h)
        score = torch.bmm(mem, self.attn(h).unsqueeze(2)).squeeze(2).masked_fill(~mask, -1e9)
        a = score.softmax(-1)
        ctx = torch.bmm(a.unsqueeze(1), mem).squeeze(1)
        return F.log_softmax(self.out(torch.cat([h, ctx], -1)), -1), h, ctx, a


model = Seq2Seq()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
src = torch.tensor([[3, 4, 5, 6, EOS], [7, 8, EOS, PAD, PAD], [9, 10, 3, EOS, PAD]])
tgt = torch.tensor([[BOS, 6, 5, 4, 3, EOS], [BOS, 8, 7, EOS, PAD, PAD], [BOS, 3, 10, 9, EOS, PAD]])
crit = LabelSmoothing(V, PAD, smoothing=0.1)
print(crit.criterion, crit.confidence)

# Label-smoothing targets on a toy batch.
toy = F.log_softmax(torch.from_numpy(rng.standard_normal((3, V)).astype(np.float32)), -1)
toy_loss = crit(toy, torch.tensor([3, PAD, 5]))
print("true_dist", r(crit.true_dist[0], V), "pad row", crit.true_dist[1].sum().item(), round(toy_loss.item(), 4))
ce = F.cross_entropy(toy, torch.tensor([3, PAD, 5]), ignore_index=PAD, label_smoothing=0.1, reduction="sum")
print("builtin ls ce (different convention)", round(ce.item(), 4))

opt = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
noam = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: H ** -0.5 * min((s + 1) ** -0.5, (s + 1) * 4 ** -1.5))
coins = rng.random((8, tgt.shape[1]))
for it in range(8):
    mem, h, mask = model.encode(src)
    ctx = torch.zeros(3, H)
    y = tgt[:, 0]
    total, ntok = 0.0, 0
    loss = 0
    for t in range(1, tgt.shape[1]):
        logp, h, ctx, a = model.step(y, h, ctx, mem, mask)
        loss = loss + crit(logp, tgt[:, t])
        ntok += int((tgt[:, t] != PAD).sum())
        teacher = coins[it, t] < max(0.5, 1 - it / 8)
        y = tgt[:, t] if teacher else logp.argmax(-1).detach()
    opt.zero_grad()
    (loss / ntok).backward()
    nn.utils.clip_grad_value_(model.parameters(), 0.5)
    mx = max(p.grad.abs().max().item() for p in model.parameters())
    opt.step()
    noam.step()
    print("iter", it, round((loss / ntok).item(), 4), "lr", round(noam.get_last_lr()[0], 5), "max|g|", round(mx, 4))


@torch.no_grad()
def greedy(src, max_len=7):
    mem, h, mask = model.encode(src)
    ctx, y = torch.zeros(src.shape[0], H), torch.full((src.shape[0],), BOS)
    outs, done = [], torch.zeros(src.shape[0], dtype=torch.bool)
    attn = []
    for _ in range(max_len):
        logp, h, ctx, a = model.step(y, h, ctx, mem, mask)
        y = logp.argmax(-1).masked_fill(done, PAD)
        outs.append(y)
        attn.append(a)
        done |= y == EOS
        if done.all():
            break
    return torch.stack(outs, 1), torch.stack(attn, 1)


hyp, attn = greedy(src)
print("hyp", hyp.tolist(), "attn", tuple(attn.shape), r(attn[1, 0], 5))


def ngram_counts(seq, n):
    if seq.numel() < n:
        return {}
    grams, counts = torch.unique(seq.unfold(0, n, 1), dim=0, return_counts=True)
    return {tuple(g.tolist()): int(c) for g, c in zip(grams, counts)}


def corpus_bleu(hyps, refs, max_n=4):
    match, possible = torch.zeros(max_n), torch.zeros(max_n)
    hl = rl = 0
    for hy, rf in zip(hyps, refs):
        hl, rl = hl + hy.numel(), rl + rf.numel()
        for n in range(1, max_n + 1):
            hc, rc = ngram_counts(hy, n), ngram_counts(rf, n)
            match[n - 1] += sum(min(c, rc.get(g, 0)) for g, c in hc.items())
            possible[n - 1] += max(hy.numel() - n + 1, 0)
    prec = (match + 1) / (possible + 1)
    bp = min(1.0, math.exp(1 - rl / max(hl, 1)))
    return bp * torch.exp(torch.log(prec).mean()).item(), prec


def strip(seq):
    seq = seq[seq != PAD]
    cut = (seq == EOS).nonzero()
    return seq[: cut[0, 0]] if cut.numel() else seq


hyps = [strip(h) for h in hyp]
refs = [strip(t[1:]) for t in tgt]
bleu, prec = corpus_bleu(hyps, refs)
print("hyps", [h.tolist() for h in hyps], "refs", [x.tolist() for x in refs])
print("bleu", round(bleu, 4), "precisions", r(prec, 4))
print("self bleu", round(corpus_bleu(refs, refs)[0], 4), ngram_counts(torch.tensor([5, 5, 5, 6]), 2))

for label, fn in [
    ("kl log-target mismatch", lambda: F.kl_div(toy, crit.true_dist, reduction="batchmean", log_target=True)),
    ("scatter_ index dims", lambda: toy.clone().scatter_(1, torch.tensor([3, 0, 5]), 0.9)),
    ("index_fill_ float index", lambda: toy.clone().index_fill_(0, torch.tensor([1.0]), 0.0)),
    ("unfold too big", lambda: torch.arange(3).unfold(0, 4, 1)),
    ("unique dim out of range", lambda: torch.unique(torch.arange(3), dim=1)),
]:
    try:
        out = fn()
        print(label, "ok", r(out, 3))
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
