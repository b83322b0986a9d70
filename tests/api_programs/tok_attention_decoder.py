"""An RNN encoder-decoder with attention as the classic NMT tutorials write it: a bidirectional GRU encoder over
packed source batches, bridge layers for the decoder state, Bahdanau (additive) and Luong (general, dot) scores
with masked softmax over source padding, a GRUCell decoder run with seeded teacher forcing, coverage, the
attention matrices printed, and gradients that never reach padded source positions."""

import random

import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)
random.seed(0)
torch.set_printoptions(precision=4)

PAD, BOS, EOS = 0, 1, 2
SV, TV, E, H = 12, 10, 6, 5

src = torch.tensor([[5, 7, 9, 3, 2], [4, 8, 2, 0, 0], [6, 2, 0, 0, 0]])
tgt = torch.tensor([[1, 3, 4, 5, 2], [1, 6, 2, 0, 0], [1, 7, 8, 2, 0]])
src_len = src.ne(PAD).sum(1)
src_mask = src.ne(PAD)
print("src_len", src_len.tolist())


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(SV, E, padding_idx=PAD)
        self.rnn = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * H, H)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(self.emb(x), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.size(1))
        return out, torch.tanh(self.bridge(torch.cat([h[0], h[1]], -1)))


class Bahdanau(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = nn.Linear(H, H, bias=False)
        self.U = nn.Linear(2 * H, H, bias=False)
        self.v = nn.Linear(H, 1, bias=False)
        self.cov = nn.Linear(1, H, bias=False)

    def forward(self, s, enc, mask, coverage):
        e = self.v(torch.tanh(self.W(s)[:, None] + self.U(enc) + self.cov(coverage[..., None]))).squeeze(-1)
        e = e.masked_fill(~mask, float("-inf"))
        return F.softmax(e, dim=-1)


class Luong(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.Wa = nn.Linear(2 * H, H, bias=False)

    def forward(self, s, enc, mask, coverage=None):
        keys = self.Wa(enc) if self.kind == "general" else enc[..., :H]
        e = torch.bmm(keys, s.unsqueeze(-1)).squeeze(-1)
        return e.masked_fill(mask.logical_not(), -1e9).softmax(-1)


class Decoder(nn.Module):
    def __init__(self, attn):
        super().__init__()
        self.emb = nn.Embedding(TV, E, padding_idx=PAD)
        self.cell = nn.GRUCell(E + 2 * H, H)
        self.attn = attn
        self.out = nn.Linear(H + 2 * H, TV)

    def forward(self, tgt, enc, s, mask, tf_ratio):
        B, T = tgt.shape
        coverage = torch.zeros(enc.shape[:2])
        logits, attns = [], []
        inp = tgt[:, 0]
        cov_loss = 0.0
        for t in range(1, T):
            a = self.attn(s, enc, mask, coverage)
            cov_loss = cov_loss + torch.minimum(a, coverage).sum(-1).mean()
            coverage = coverage + a
            ctx = torch.einsum("bs,bsh->bh", a, enc)
            s = self.cell(torch.cat([self.emb(inp), ctx], -1), s)
            step = self.out(torch.cat([s, ctx], -1))
            logits.append(step)
            attns.append(a)
            teacher = random.random() < tf_ratio
            inp = tgt[:, t] if teacher else step.argmax(-1)
        return torch.stack(logits, 1), torch.stack(attns, 1), cov_loss


enc = Encoder()
dec = Decoder(Bahdanau())
enc_out, s0 = enc(src, src_len)
print("encoder", tuple(enc_out.shape), "state", tuple(s0.shape))
print("padded encoder rows zero", bool(enc_out[2, 2:].eq(0).all()))
logits, attn, cov = dec(tgt, enc_out, s0, src_mask, tf_ratio=1.0)
print("logits", tuple(logits.shape), "attn", tuple(attn.shape), "coverage loss", round(cov.item(), 4))
print(attn[1])
print("attn on padding", attn.masked_select(~src_mask[:, None, :].expand_as(attn)).abs().sum().item())

loss = F.cross_entropy(logits.reshape(-1, TV), tgt[:, 1:].reshape(-1), ignore_index=PAD) + 0.5 * cov
loss.backward()
print("loss", round(loss.item(), 4))
print("src emb grad pad row", enc.emb.weight.grad[PAD].tolist())
print("grad norms", {n: round(p.grad.norm().item(), 4) for n, p in dec.attn.named_parameters()})

params = list(enc.parameters()) + list(dec.parameters())
opt = torch.optim.Adam(params, lr=0.02)
for step in range(25):
    enc_out, s0 = enc(src, src_len)
    logits, attn, cov = dec(tgt, enc_out, s0, src_mask, tf_ratio=0.75)
    loss = F.cross_entropy(logits.reshape(-1, TV), tgt[:, 1:].reshape(-1), ignore_index=PAD)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 8 == 0:
        print("step", step, round(loss.item(), 4))
print("train preds", logits.argmax(-1).tolist())

for kind in ("general", "dot"):
    torch.manual_seed(5)
    luong = Decoder(Luong(kind))
    _, a, _ = luong(tgt, enc_out.detach(), s0.detach(), src_mask, tf_ratio=1.0)
    print(kind, tuple(a.shape), [round(v, 4) for v in a[2, 0].tolist()])

# masked softmax corner: a row with every key masked gives NaN with -inf, uniform with -1e9
row = torch.tensor([[0.3, 0.1]])
print("all -inf", row.masked_fill(torch.tensor([[True, True]]), float("-inf")).softmax(-1).tolist())
print("all -1e9", row.masked_fill(torch.tensor([[True, True]]), -1e9).softmax(-1).tolist())
print("nan_to_num", torch.nan_to_num(row.masked_fill(torch.tensor([[True, True]]), float("-inf")).softmax(-1)).tolist())
