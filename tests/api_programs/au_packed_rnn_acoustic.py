"""Acoustic models over utterances of different lengths: pad_sequence, pack_padded_sequence with and without
enforce_sorted, bidirectional GRU/LSTM (proj_size too) with seeded default init, pad_packed_sequence's
total_length, final states in the original order, masked frame pooling, and a CTC training step."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
N_FEAT = 5

lengths = [7, 3, 9, 5]
utts = [torch.randn(n, N_FEAT) for n in lengths]
padded = pad_sequence(utts, batch_first=True)
print("padded", tuple(padded.shape), padded[1, 2:5, 0].tolist())
padded_t = pad_sequence(utts, padding_value=-1.0)
print("time-major", tuple(padded_t.shape), padded_t[3:5, 1, 0].tolist())
lens = torch.tensor(lengths)

packed = pack_padded_sequence(padded, lens, batch_first=True, enforce_sorted=False)
print("batch_sizes", packed.batch_sizes.tolist(), "sorted", packed.sorted_indices.tolist(),
      "unsorted", packed.unsorted_indices.tolist())
print("data", tuple(packed.data.shape), packed.data[:4, 0])
try:
    pack_padded_sequence(padded, lens, batch_first=True)
except RuntimeError as e:
    print("RuntimeError |", str(e)[:110])
order = lens.argsort(descending=True)
packed_sorted = pack_padded_sequence(padded[order], lens[order], batch_first=True)
print("pre-sorted", packed_sorted.sorted_indices, torch.equal(packed_sorted.data, packed.data))
ps = pack_sequence(utts, enforce_sorted=False)
print("pack_sequence same", torch.equal(ps.data, packed.data), torch.equal(ps.batch_sizes, packed.batch_sizes))

gru = nn.GRU(N_FEAT, 6, num_layers=2, batch_first=True, bidirectional=True)
print(gru)
print("weight_hh_l1_reverse", tuple(gru.weight_hh_l1_reverse.shape), gru.weight_ih_l0[0, :3])
out, h = gru(packed)
print("packed out", type(out).__name__, tuple(out.data.shape), "h", tuple(h.shape))
unpacked, out_lens = pad_packed_sequence(out, batch_first=True)
print("unpacked", tuple(unpacked.shape), out_lens.tolist(), "pad zeros", unpacked[1, 3:].abs().sum().item())
fixed, _ = pad_packed_sequence(out, batch_first=True, total_length=12)
print("total_length", tuple(fixed.shape))
for i, n in enumerate(lengths):
    fwd_last = unpacked[i, n - 1, :6]
    bwd_first = unpacked[i, 0, 6:]
    print(" utt", i, "h fwd match", torch.allclose(h[2, i], fwd_last, atol=1e-6),
          "h bwd match", torch.allclose(h[3, i], bwd_first, atol=1e-6))
solo, h_solo = gru(utts[2].unsqueeze(0))
print("same as unbatched run", torch.allclose(solo[0], unpacked[2], atol=1e-5), torch.allclose(h_solo[:, 0], h[:, 2],
                                                                                               atol=1e-5))
pad_out, _ = gru(padded)
print("unpacked run differs on short utt", not torch.allclose(pad_out[1, :3, 6:], unpacked[1, :3, 6:], atol=1e-4))

lstm = nn.LSTM(N_FEAT, 8, proj_size=3, batch_first=True)
print(lstm, [tuple(p.shape) for p in lstm.parameters()])
lo, (hn, cn) = lstm(packed)
lu, _ = pad_packed_sequence(lo, batch_first=True, padding_value=float("nan"))
print("proj out", tuple(lu.shape), "h", tuple(hn.shape), "c", tuple(cn.shape), "nan pads", lu.isnan().sum().item())
print("hn", hn[0])

mask = torch.arange(padded.shape[1])[None, :] < lens[:, None]
print("mask", mask.int().tolist()[1])
mean_pool = unpacked.sum(1) / lens[:, None]
masked_max = unpacked.masked_fill(~mask[:, : unpacked.shape[1], None], float("-inf")).amax(1)
print("pooled", tuple(mean_pool.shape), mean_pool[:, 0], masked_max[:, 0])

torch.manual_seed(1)


class AcousticModel(nn.Module):
    def __init__(self, n_in, hidden, n_tokens):
        super().__init__()
        self.norm = nn.LayerNorm(n_in)
        self.rnn = nn.LSTM(n_in, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_tokens)

    def forward(self, x, lens):
        packed_in = pack_padded_sequence(self.norm(x), lens.cpu(), batch_first=True, enforce_sorted=False)
        y, _ = self.rnn(packed_in)
        y, _ = pad_packed_sequence(y, batch_first=True, total_length=x.shape[1])
        return self.out(y).log_softmax(-1)


model = AcousticModel(N_FEAT, 10, 5)
targets = torch.tensor([[1, 2, 3], [4, 1, 0], [2, 2, 4], [3, 1, 0]])
tlen = torch.tensor([3, 2, 3, 2])
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
for step in range(30):
    lp = model(padded, lens)
    loss = F.ctc_loss(lp.transpose(0, 1), targets, lens, tlen)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 10 == 0:
        print("step", step, round(loss.item(), 4), "grad norm", round(gn.item(), 4))
print("final", round(loss.item(), 3), "pad frames", lp[1, 3:].exp().sum(-1)[:2].round(decimals=4))
