"""Attention-based seq2seq as in the papers: Bahdanau et al. 2015 (additive attention, bidirectional GRU encoder
over packed sequences) and Luong et al. 2015 (dot/general/concat scores, input feeding) with teacher forcing, plus a
pointer network (Vinyals et al. 2015) decoding greedily with masks; padding_side, enforce_sorted=False, GRUCell."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

rng = np.random.default_rng(2015)
V, E, H = 9, 6, 5


def init_(m, seed):
    g = np.random.default_rng(seed)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(g.uniform(-0.35, 0.35, tuple(p.shape)).astype(np.float32)))
    return m


def r(t, k=4):
    return np.round(t.detach().double().flatten()[:k].numpy(), 4).tolist()


seqs = [torch.tensor([3, 4, 5, 6]), torch.tensor([7, 8]), torch.tensor([2, 3, 4])]
lengths = torch.tensor([len(s) for s in seqs])
src = pad_sequence(seqs, batch_first=True, padding_value=0)
print("padded", src.tolist(), pad_sequence(seqs, batch_first=True, padding_side="left").tolist())
mask = torch.arange(src.size(1))[None, :] < lengths[:, None]


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, padding_idx=0)
        self.rnn = nn.GRU(E, H, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * H, H)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(self.emb(x), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, out_len = pad_packed_sequence(out, batch_first=True, total_length=x.size(1))
        return out, torch.tanh(self.bridge(torch.cat([h[0], h[1]], dim=1))), out_len


enc = init_(Encoder(), 1)
enc_out, h0, out_len = enc(src, lengths)
print("encoder", enc_out.shape, h0.shape, out_len.tolist(), r(enc_out[1, 2:].abs().sum(-1)))


class Bahdanau(nn.Module):
    def __init__(self):
        super().__init__()
        self.W = nn.Linear(H, H, bias=False)
        self.U = nn.Linear(2 * H, H, bias=False)
        self.v = nn.Linear(H, 1, bias=False)

    def forward(self, s, keys, mask):
        e = self.v(torch.tanh(self.W(s).unsqueeze(1) + self.U(keys))).squeeze(-1)
        a = F.softmax(e.masked_fill(~mask, float("-inf")), dim=-1)
        return torch.bmm(a.unsqueeze(1), keys).squeeze(1), a


class Luong(nn.Module):
    def __init__(self, method):
        super().__init__()
        self.method = method
        self.proj = nn.Linear(2 * H, H, bias=False)
        self.Wa = nn.Linear(H, H, bias=False)
        self.concat = nn.Linear(2 * H, H)
        self.va = nn.Parameter(torch.linspace(-0.5, 0.5, H))

    def forward(self, s, keys, mask):
        k = self.proj(keys)
        if self.method == "dot":
            e = torch.einsum("bh,bth->bt", s, k)
        elif self.method == "general":
            e = (self.Wa(k) @ s.unsqueeze(-1)).squeeze(-1)
        else:
            e = torch.tanh(self.concat(torch.cat([s.unsqueeze(1).expand_as(k), k], -1))) @ self.va
        a = e.masked_fill(mask == 0, -1e9).softmax(-1)
        return (a.unsqueeze(-1) * k).sum(1), a


class Decoder(nn.Module):
    def __init__(self, attn, ctx_dim):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.cell = nn.GRUCell(E + ctx_dim, H)
        self.attn = attn
        self.out = nn.Linear(H + ctx_dim, V)
        self.ctx_dim = ctx_dim

    def forward(self, tgt, h, keys, mask):
        ctx = torch.zeros(tgt.size(0), self.ctx_dim)
        logits, attns = [], []
        for t in range(tgt.size(1)):
            h = self.cell(torch.cat([self.emb(tgt[:, t]), ctx], -1), h)
            ctx, a = self.attn(h, keys, mask)
            logits.append(self.out(torch.cat([h, ctx], -1)))
            attns.append(a)
        return torch.stack(logits, 1), torch.stack(attns, 1)


tgt = torch.tensor([[1, 3, 4, 5], [1, 7, 8, 0], [1, 2, 3, 4]])
gold = torch.tensor([[3, 4, 5, 2], [7, 8, 2, 0], [2, 3, 4, 2]])
for name, attn, cd in (
    ("bahdanau", Bahdanau(), 2 * H),
    ("dot", Luong("dot"), H),
    ("general", Luong("general"), H),
    ("concat", Luong("concat"), H),
):
    torch_enc = init_(Encoder(), 1)
    dec = init_(Decoder(attn, cd), 2)
    opt = torch.optim.Adam([*torch_enc.parameters(), *dec.parameters()], lr=0.05)
    for step in range(2):
        keys, h, _ = torch_enc(src, lengths)
        logits, attns = dec(tgt, h, keys, mask)
        loss = F.cross_entropy(logits.reshape(-1, V), gold.reshape(-1), ignore_index=0)
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_([*torch_enc.parameters(), *dec.parameters()], 1.0)
        opt.step()
    print(name, round(loss.item(), 4), round(gn.item(), 4), r(attns[1, 0]), round(attns.sum(-1).mean().item(), 4))
    print(" ", name, "rows", attns[1, :, 2:].abs().max().item(), logits.argmax(-1)[0].tolist())

fully_masked = F.softmax(torch.full((2, 3), float("-inf")), dim=-1)
print("all_masked", fully_masked.tolist(), torch.nan_to_num(fully_masked).tolist())


# pointer network: attention scores over the inputs are the output distribution
class Pointer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(2, H)
        self.enc = nn.LSTM(H, H, batch_first=True)
        self.dec = nn.LSTMCell(H, H)
        self.W1, self.W2 = nn.Linear(H, H, bias=False), nn.Linear(H, H, bias=False)
        self.v = nn.Linear(H, 1, bias=False)
        self.start = nn.Parameter(torch.linspace(-1, 1, H))

    def forward(self, pts, targets=None):
        b, n, _ = pts.shape
        emb = self.embed(pts)
        enc, (h, c) = self.enc(emb)
        h, c = h[0], c[0]
        inp = self.start.expand(b, H)
        visited = torch.zeros(b, n, dtype=torch.bool)
        logps, tour = [], []
        for t in range(n):
            h, c = self.dec(inp, (h, c))
            u = self.v(torch.tanh(self.W1(enc) + self.W2(h).unsqueeze(1))).squeeze(-1)
            logp = F.log_softmax(u.masked_fill(visited, float("-inf")), dim=-1)
            idx = logp.argmax(-1) if targets is None else targets[:, t]
            logps.append(logp.gather(1, idx[:, None]).squeeze(1))
            tour.append(idx)
            visited = visited.scatter(1, idx[:, None], True)
            inp = emb[torch.arange(b), idx]
        return torch.stack(logps, 1), torch.stack(tour, 1)


pts = torch.from_numpy(rng.uniform(0, 1, (2, 5, 2)).astype(np.float32))
sorted_idx = pts[..., 0].argsort(-1)
ptr = init_(Pointer(), 3)
opt = torch.optim.Adam(ptr.parameters(), lr=0.05)
for step in range(3):
    logps, _ = ptr(pts, sorted_idx)
    loss = -logps.sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("pointer", step, round(loss.item(), 4))
with torch.no_grad():
    logps, tour = ptr(pts)
print("greedy", tour.tolist(), sorted_idx.tolist(), tour.sort(-1).values.tolist(), r(logps.exp(), 5))
for bad in (
    lambda: pack_padded_sequence(torch.zeros(3, 4, 2), torch.tensor([4, 2, 3]), batch_first=True),
    lambda: pack_padded_sequence(torch.zeros(3, 4, 2), torch.tensor([4, 0, 3]), batch_first=True, enforce_sorted=False),
    lambda: nn.GRUCell(3, 4)(torch.zeros(2, 5)),
    lambda: pad_packed_sequence(pack_padded_sequence(torch.zeros(4, 2, 1), torch.tensor([4, 3])), total_length=2),
):
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, str(e).split("\n")[0])
