"""A small nn.Transformer translating toy token sequences (reversal), trained a few steps with teacher forcing,
then decoded greedily and with batched beam search written with topk, gather, index_select and scatter:
source/target/memory key padding masks, generate_square_subsequent_mask, length-normalised scores and finished
hypotheses, and the encoder/decoder layer reprs."""

import math

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

PAD, BOS, EOS = 0, 1, 2
V, D, MAXLEN = 10, 16, 8


class PositionalEncoding(nn.Module):
    def __init__(self, d, max_len=32):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
        pe = torch.zeros(max_len, d)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_emb = nn.Embedding(V, D, padding_idx=PAD)
        self.tgt_emb = nn.Embedding(V, D, padding_idx=PAD)
        self.pos = PositionalEncoding(D)
        self.tf = nn.Transformer(D, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=32,
                                 dropout=0.0, batch_first=True)
        self.gen = nn.Linear(D, V)

    def encode(self, src):
        return self.tf.encoder(self.pos(self.src_emb(src) * math.sqrt(D)), src_key_padding_mask=src.eq(PAD))

    def decode(self, tgt, memory, src_pad):
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        h = self.tf.decoder(self.pos(self.tgt_emb(tgt) * math.sqrt(D)), memory, tgt_mask=mask,
                            tgt_key_padding_mask=tgt.eq(PAD), memory_key_padding_mask=src_pad)
        return self.gen(h)

    def forward(self, src, tgt):
        return self.decode(tgt, self.encode(src), src.eq(PAD))


def make_batch(n):
    lens = torch.randint(2, 6, (n,))
    src = torch.zeros(n, 6, dtype=torch.long)
    tgt = torch.zeros(n, 8, dtype=torch.long)
    for i, L in enumerate(lens.tolist()):
        s = torch.randint(3, V, (L,))
        src[i, :L] = s
        tgt[i, : L + 2] = torch.cat([torch.tensor([BOS]), s.flip(0), torch.tensor([EOS])])
    return src, tgt


model = Seq2Seq()
print(model.tf.encoder.layers[0])
print("params", sum(p.numel() for p in model.parameters()))
print(nn.Transformer.generate_square_subsequent_mask(4))

opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(20):
    src, tgt = make_batch(16)
    logits = model(src, tgt[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), tgt[:, 1:].reshape(-1), ignore_index=PAD, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 10 == 9:
        print("step", step + 1, round(loss.item(), 4))

model.eval()
torch.manual_seed(5)
src, tgt = make_batch(3)
print("src", src.tolist())


@torch.no_grad()
def greedy(src):
    memory = model.encode(src)
    ys = torch.full((src.size(0), 1), BOS)
    done = torch.zeros(src.size(0), dtype=torch.bool)
    scores = torch.zeros(src.size(0))
    for _ in range(MAXLEN - 1):
        logp = model.decode(ys, memory, src.eq(PAD))[:, -1].log_softmax(-1)
        lp, nxt = logp.max(-1)
        nxt = nxt.masked_fill(done, PAD)
        scores += lp.masked_fill(done, 0.0)
        ys = torch.cat([ys, nxt[:, None]], 1)
        done |= nxt.eq(EOS)
        if done.all():
            break
    return ys, scores


ys, sc = greedy(src)
print("greedy", ys.tolist())
print("greedy scores", [round(v, 4) for v in sc.tolist()])


@torch.no_grad()
def beam_search(src, k=3, alpha=0.6):
    n = src.size(0)
    memory = model.encode(src).repeat_interleave(k, 0)
    src_pad = src.eq(PAD).repeat_interleave(k, 0)
    ys = torch.full((n * k, 1), BOS)
    scores = torch.full((n, k), float("-inf"))
    scores[:, 0] = 0.0
    scores = scores.view(-1)
    finished = torch.zeros(n * k, dtype=torch.bool)
    for t in range(MAXLEN - 1):
        logp = model.decode(ys, memory, src_pad)[:, -1].log_softmax(-1)
        # finished beams may only extend with PAD at no cost
        frozen = torch.full_like(logp, float("-inf")).scatter(1, torch.full((n * k, 1), PAD), 0.0)
        logp = torch.where(finished[:, None], frozen, logp)
        cand = (scores[:, None] + logp).view(n, k * V)
        top, idx = cand.topk(k, dim=-1)
        beam = idx // V
        tok = idx % V
        base = (torch.arange(n) * k)[:, None]
        sel = (base + beam).view(-1)
        ys = torch.cat([ys.index_select(0, sel), tok.view(-1, 1)], 1)
        finished = finished.index_select(0, sel) | tok.view(-1).eq(EOS)
        scores = top.view(-1)
        if t == 0:
            print("first step beams", beam.tolist(), "tokens", tok.tolist())
        if finished.all():
            break
    lengths = ys.ne(PAD).sum(1).float()
    norm = scores / ((5 + lengths) / 6) ** alpha
    best = norm.view(n, k).argmax(-1)
    out = ys.view(n, k, -1).gather(1, best[:, None, None].expand(n, 1, ys.size(1))).squeeze(1)
    return out, norm.view(n, k)


out, norm = beam_search(src)
print("beam", out.tolist())
print("normalised", norm)
print("beam best >= greedy", bool((norm.max(-1).values >= sc / ((5 + ys.ne(PAD).sum(1)) / 6) ** 0.6 - 1e-5).all()))

# sanity of the gather and scatter idioms on their own
x = torch.arange(12.).view(3, 4)
print(x.gather(1, torch.tensor([[3, 0], [1, 1], [2, 3]])))
print(torch.zeros(3, 4).scatter_(1, torch.tensor([[1], [0], [3]]), 1.0))
print(torch.zeros(3, 4).scatter_add(1, torch.tensor([[1, 1], [0, 2], [3, 3]]), torch.ones(3, 2)))
vals, ids = x.view(-1).topk(4, largest=False, sorted=True)
print(vals.tolist(), ids.tolist(), (ids // 4).tolist(), (ids % 4).tolist())
print(torch.div(ids, 4, rounding_mode="floor").tolist(), torch.remainder(ids, 4).tolist())
