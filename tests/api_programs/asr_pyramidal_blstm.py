"""A Listen-Attend-Spell listener: a pyramidal bidirectional LSTM that halves time between layers by concatenating
frame pairs, re-packing with new lengths each layer, PackedSequence's fields (batch_sizes, sorted/unsorted
indices), pack_sequence/unpack_sequence/unpad_sequence, pad_sequence with padding_side='left', h_n's
(layers*dirs, B, H) layout split per direction, and the packing errors."""

import torch
from torch import nn
from torch.nn.utils.rnn import (
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

torch.manual_seed(0)


class PyramidalLSTM(nn.Module):
    def __init__(self, d_in, hidden, layers=3):
        super().__init__()
        self.bottom = nn.LSTM(d_in, hidden, batch_first=True, bidirectional=True)
        self.pyramid = nn.ModuleList(
            nn.LSTM(4 * hidden, hidden, batch_first=True, bidirectional=True) for _ in range(layers - 1)
        )

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.bottom(packed)
        for lstm in self.pyramid:
            y, lens = pad_packed_sequence(out, batch_first=True)
            T = y.size(1) // 2 * 2
            y = y[:, :T].reshape(y.size(0), T // 2, 2 * y.size(2))
            lens = torch.div(lens, 2, rounding_mode="floor")
            out, (h, c) = lstm(pack_padded_sequence(y, lens, batch_first=True, enforce_sorted=False))
        return out, h


lengths = torch.tensor([11, 16, 7, 13])
feats = [torch.randn(int(n), 8) for n in lengths]
x = pad_sequence(feats, batch_first=True)
print("padded", tuple(x.shape), "left padded", tuple(pad_sequence(feats, batch_first=True, padding_side="left").shape))
left = pad_sequence([torch.arange(1, 4), torch.arange(1, 2)], batch_first=True, padding_value=-1, padding_side="left")
print("left", left.tolist(), "time-major", pad_sequence([torch.ones(2), torch.ones(3)]).shape)

listener = PyramidalLSTM(8, 6)
out, h = listener(x, lengths)
print(
    "packed out",
    type(out).__name__,
    tuple(out.data.shape),
    "batch_sizes",
    out.batch_sizes.tolist(),
    out.batch_sizes.dtype,
)
print("sorted", out.sorted_indices.tolist(), "unsorted", out.unsorted_indices.tolist())
y, lens = pad_packed_sequence(out, batch_first=True, padding_value=0.0)
print("top", tuple(y.shape), "lens", lens.tolist(), lens.dtype, "pad zeros", y[2, lens[2] :].abs().sum().item())
h = h.view(1, 2, len(lengths), 6)
fwd_last = torch.stack([y[i, lens[i] - 1, :6] for i in range(4)])
print(
    "h fwd == last fwd output",
    torch.allclose(h[0, 0], fwd_last, atol=1e-6),
    "h bwd == first bwd output",
    torch.allclose(h[0, 1], y[:, 0, 6:], atol=1e-6),
)
print("utterance vector", torch.cat([h[0, 0], h[0, 1]], -1).sum(-1).round(decimals=4).tolist())

seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0, 5.0]), torch.tensor([6.0])]
ps = pack_sequence(seqs)
print("pack_sequence", ps.data.tolist(), ps.batch_sizes.tolist(), ps.sorted_indices)
ps2 = pack_sequence([seqs[2], seqs[0], seqs[1]], enforce_sorted=False)
print("unsorted pack", ps2.data.tolist(), ps2.sorted_indices.tolist(), ps2.unsorted_indices.tolist())
print("unpack", [s.tolist() for s in unpack_sequence(ps2)])
padded = pad_sequence(seqs, batch_first=True)
print("unpad", [s.tolist() for s in unpad_sequence(padded, torch.tensor([3, 2, 1]), batch_first=True)])
ps_d = ps2.to(torch.float64)
print("packed to", ps_d.data.dtype, ps_d.batch_sizes.dtype, "is_cuda", ps_d.is_cuda)
print(repr(pack_sequence([torch.tensor([1, 2]), torch.tensor([3])])))

loss = y.pow(2).mean()
loss.backward()
print(
    "grad bottom",
    round(listener.bottom.weight_ih_l0.grad.norm().item(), 4),
    "grad reverse",
    round(listener.pyramid[1].weight_hh_l0_reverse.grad.norm().item(), 4),
)

for bad in (
    lambda: pack_padded_sequence(x, torch.tensor([11, 16, 7, 13]), batch_first=True),
    lambda: pack_padded_sequence(x, torch.tensor([16, 0, 0, 0]), batch_first=True),
    lambda: pack_padded_sequence(x, [16, 13], batch_first=True),
    lambda: pack_sequence([torch.ones(1), torch.ones(3)]),
    lambda: pad_sequence([torch.ones(2, 3), torch.ones(2, 4)]),
):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
