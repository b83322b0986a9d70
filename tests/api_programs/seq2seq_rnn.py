"""seq2seq with LSTM/GRU and packed sequences."""

import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence, unpad_sequence

rng = np.random.default_rng(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * 0.3)


seqs = [torch.tensor([1, 2, 3, 4]), torch.tensor([5, 6]), torch.tensor([7, 8, 9])]
padded = pad_sequence(seqs, batch_first=True, padding_value=0)
print("padded", padded.tolist())
print("pad_left", pad_sequence(seqs, batch_first=True, padding_side="left").tolist())
lengths = torch.tensor([len(s) for s in seqs])
emb = nn.Embedding(10, 6, padding_idx=0)
det(emb)
with torch.no_grad():
    emb.weight[0].zero_()


class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(6, 5, num_layers=2, batch_first=True, bidirectional=True, dropout=0.0)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(emb(x), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.rnn(packed)
        out, lens = pad_packed_sequence(out, batch_first=True, total_length=5)
        return out, h, c, lens


enc = Enc()
det(enc)
out, h, c, lens = enc(padded, lengths)
print("lstm", out.shape, h.shape, c.shape, lens.tolist(), r(out[1, 1]), r(h[-1]))
print("padzero", out[1, 2:].abs().sum().item())
packed = pack_padded_sequence(emb(padded), lengths, batch_first=True, enforce_sorted=False)
print(
    "packed",
    type(packed).__name__,
    packed.data.shape,
    packed.batch_sizes.tolist(),
    packed.sorted_indices.tolist(),
    packed.unsorted_indices.tolist(),
)
gru = nn.GRU(6, 4, batch_first=False)
det(gru)
o, hn = gru(emb(padded).transpose(0, 1))
print("gru", o.shape, hn.shape, r(hn))
ps = pack_sequence([emb(s) for s in seqs], enforce_sorted=False)
o2, h2 = gru(ps)
print("gru_packed", r(h2))
cell = nn.LSTMCell(6, 3)
det(cell)
hx, cx = torch.zeros(3, 3), torch.zeros(3, 3)
for t in range(2):
    hx, cx = cell(emb(padded[:, t]), (hx, cx))
print("cell", r(hx))
gc = nn.GRUCell(6, 3)
det(gc)
print("grucell", r(gc(emb(padded[:, 0]))))
rnn = nn.RNN(6, 3, nonlinearity="relu", batch_first=True)
det(rnn)
print("rnn", r(rnn(emb(padded))[1]))
dec = nn.LSTM(6, 10, batch_first=True, proj_size=0)
det(dec)
lin = nn.Linear(10, 10)
det(lin)
opt = torch.optim.Adam(
    list(enc.parameters()) + list(dec.parameters()) + list(lin.parameters()) + list(emb.parameters()), lr=0.01
)
for step in range(5):
    out, h, c, _ = enc(padded, lengths)
    h0 = torch.cat([h[-2], h[-1]], dim=-1)
    c0 = torch.cat([c[-2], c[-1]], dim=-1)
    y, _ = dec(emb(padded[:, :-1]), (h0.unsqueeze(0), c0.unsqueeze(0)))
    logits = lin(y)
    loss = nn.functional.cross_entropy(logits.reshape(-1, 10), padded[:, 1:].reshape(-1), ignore_index=0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 0:
        print("loss0", round(loss.item(), 4))
print("loss4", round(loss.item(), 4))
print("emb_pad_grad", emb.weight.grad[0].abs().sum().item())
print("unpad", [t.tolist() for t in unpad_sequence(padded, lengths, batch_first=True)])
print("flatten_params", hasattr(enc.rnn, "flatten_parameters"), enc.rnn.flatten_parameters())
print("lstm_names", [n for n, _ in enc.rnn.named_parameters()][:4])
print("OK")
