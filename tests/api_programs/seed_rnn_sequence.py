"""Seeded sequence-model training as RNN research code writes it: random-length sequences from randint, packed
batches, a stacked LSTM with inter-layer dropout and a GRU, variational (locked) dropout masks drawn with
bernoulli_, scheduled sampling with torch.rand, weight-dropped recurrent matrices, and the losses they give."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(8)

V, E, Hd = 11, 8, 16
lengths = torch.randint(3, 9, (6,))
seqs = [torch.randint(1, V, (int(n),)) for n in lengths]
print("lengths", lengths.tolist())
print("seq0", seqs[0].tolist())
padded = pad_sequence(seqs, batch_first=True)
print("padded", tuple(padded.shape), padded[1].tolist())


class LockedDropout(nn.Module):
    def forward(self, x, p=0.3):
        if not self.training or p == 0:
            return x
        mask = x.new_empty(1, x.size(1), x.size(2)).bernoulli_(1 - p) / (1 - p)
        return x * mask


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E, padding_idx=0)
        self.lstm = nn.LSTM(E, Hd, num_layers=2, dropout=0.25, batch_first=True)
        self.lock = LockedDropout()
        self.out = nn.Linear(Hd, V)

    def forward(self, x, lens):
        e = self.lock(self.emb(x).transpose(0, 1)).transpose(0, 1)
        packed = pack_padded_sequence(e, lens, batch_first=True, enforce_sorted=False)
        h, (hn, cn) = self.lstm(packed)
        h, out_lens = pad_packed_sequence(h, batch_first=True)
        return self.out(h), hn


model = Tagger()
print("lstm init", round(model.lstm.weight_hh_l1.sum().item(), 4), "emb row1", model.emb.weight[1, :4])
targets = pad_sequence([s.roll(1) for s in seqs], batch_first=True)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(9):
    model.train()
    logits, hn = model(padded, lengths)
    loss = F.cross_entropy(logits.reshape(-1, V), targets[:, :logits.size(1)].reshape(-1), ignore_index=0)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 2.0)
    opt.step()
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.4f} gradnorm {gn.item():.4f} hn {tuple(hn.shape)}")
model.eval()
with torch.no_grad():
    logits, _ = model(padded, lengths)
    pred = logits.argmax(-1)
mask = targets[:, :pred.size(1)] != 0
print("eval acc", round((pred == targets[:, :pred.size(1)])[mask].float().mean().item(), 4))

torch.manual_seed(21)


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, E)
        self.enc = nn.GRU(E, Hd, batch_first=True)
        self.dec = nn.GRUCell(E, Hd)
        self.proj = nn.Linear(Hd, V)

    def forward(self, src, tgt, tf_ratio):
        _, h = self.enc(self.emb(src))
        h = h[0]
        inp = tgt[:, 0]
        outs, used_tf = [], 0
        for t in range(1, tgt.size(1)):
            h = self.dec(self.emb(inp), h)
            logit = self.proj(h)
            outs.append(logit)
            teacher = torch.rand(1).item() < tf_ratio
            used_tf += int(teacher)
            inp = tgt[:, t] if teacher else logit.argmax(-1)
        return torch.stack(outs, 1), used_tf


src = torch.randint(1, V, (5, 7))
tgt = torch.cat([torch.zeros(5, 1, dtype=torch.long), src.flip(1)], 1)
s2s = Seq2Seq()
opt2 = torch.optim.RMSprop(s2s.parameters(), lr=0.005)
for epoch in range(6):
    ratio = max(0.2, 1.0 - 0.15 * epoch)
    out, used = s2s(src, tgt, ratio)
    loss = F.cross_entropy(out.reshape(-1, V), tgt[:, 1:].reshape(-1))
    opt2.zero_grad()
    loss.backward()
    opt2.step()
    print(f"s2s epoch {epoch} tf={ratio:.2f} used={used} loss {loss.item():.4f}")

torch.manual_seed(4)
rnn = nn.RNN(3, 5, num_layers=3, dropout=0.5)
x = torch.randn(6, 2, 3)
rnn.train()
o1, _ = rnn(x)
o2, _ = rnn(x)
rnn.eval()
o3, _ = rnn(x)
o4, _ = rnn(x)
print("rnn dropout train differs", not torch.equal(o1, o2), "eval same", torch.equal(o3, o4))
print("rnn train out", o1[-1])
raw = nn.Parameter(torch.randn(4 * Hd, Hd) * 0.1)
dropped = F.dropout(raw, p=0.4, training=True)
print("weight drop zeros", int((dropped == 0).sum()), "of", raw.numel(), round(dropped.sum().item(), 4))
gru = nn.GRU(E, Hd, bidirectional=True, num_layers=2, dropout=0.1)
h, hn = gru(torch.randn(4, 3, E))
print("bigru", tuple(h.shape), tuple(hn.shape), round(h.mean().item(), 4), round(hn.std().item(), 4))
