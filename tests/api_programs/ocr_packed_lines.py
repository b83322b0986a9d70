"""Variable-width text lines through packed RNNs as OCR batching code does it: pad_sequence with batch_first,
padding_value and padding_side, pack_padded_sequence with enforce_sorted=False and its sorted/unsorted indices,
a BiLSTM over the PackedSequence, pad_packed_sequence with total_length, unpad_sequence/unpack_sequence round
trips, pack_sequence, final hidden states in the original order, and the length errors."""

import torch
from torch import nn
from torch.nn.utils.rnn import (pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence,
                                unpad_sequence, unpack_sequence)

torch.manual_seed(0)
lines = [torch.randn(w, 3) for w in (4, 7, 2, 5)]
lengths = torch.tensor([len(l) for l in lines])
padded = pad_sequence(lines, batch_first=True, padding_value=-1.0)
print("padded", tuple(padded.shape), round(padded.sum().item(), 4), padded[2, 2:, 0].tolist())
left = pad_sequence(lines, batch_first=True, padding_side="left")
print("left padded", tuple(left.shape), left[2, :5, 0].tolist())
tm = pad_sequence(lines)
print("time-major", tuple(tm.shape))

packed = pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
print("batch_sizes", packed.batch_sizes.tolist(), packed.batch_sizes.dtype)
print("sorted", packed.sorted_indices.tolist(), "unsorted", packed.unsorted_indices.tolist())
print("data", tuple(packed.data.shape), round(packed.data.sum().item(), 4))

lstm = nn.LSTM(3, 5, batch_first=True, bidirectional=True)
out_p, (h, c) = lstm(packed)
print("out packed", type(out_p).__name__, tuple(out_p.data.shape), tuple(h.shape))
out, out_len = pad_packed_sequence(out_p, batch_first=True, padding_value=0.0, total_length=9)
print("unpacked", tuple(out.shape), out_len.tolist(), out_len.dtype)
print("pad zero", out[2, 2:].abs().sum().item(), out[1, 7:].abs().sum().item())

for i, l in enumerate(lines):
    o1, (h1, _) = lstm(l[None])
    print(i, "single == packed", torch.allclose(o1[0], out[i, : len(l)], atol=1e-6),
          "h fwd", torch.allclose(h1[0, 0], h[0, i], atol=1e-6), "h bwd", torch.allclose(h1[1, 0], h[1, i], atol=1e-6))
# the forward state at the last valid step equals h; the backward state at step 0 equals h
print("last valid fwd", torch.allclose(out[torch.arange(4), lengths - 1, :5], h[0], atol=1e-6))
print("first bwd", torch.allclose(out[:, 0, 5:], h[1], atol=1e-6))

back = unpad_sequence(padded, lengths, batch_first=True)
print("unpad", [tuple(b.shape) for b in back], all(torch.equal(a, b) for a, b in zip(back, lines)))
ps = pack_sequence(lines, enforce_sorted=False)
print("pack_sequence", ps.batch_sizes.tolist(), [tuple(u.shape) for u in unpack_sequence(ps)])
gru = nn.GRU(3, 4)
o, hn = gru(ps)
print("gru packed", tuple(o.data.shape), tuple(hn.shape), round(hn.sum().item(), 4))
po, pl = pad_packed_sequence(o)
print("time-major unpack", tuple(po.shape), pl.tolist())

loss = out.pow(2).sum()
loss.backward()
print("grad", round(lstm.weight_ih_l0.grad.norm().item(), 4), round(lstm.weight_hh_l0_reverse.grad.norm().item(), 4))
print("packed to double", pack_padded_sequence(padded, lengths, True, False).to(torch.float64).data.dtype)

for bad in (lambda: pack_padded_sequence(padded, lengths, batch_first=True),
            lambda: pack_padded_sequence(padded, torch.tensor([4, 7, 0, 5]), batch_first=True, enforce_sorted=False),
            lambda: pad_packed_sequence(out_p, batch_first=True, total_length=5),
            lambda: pack_padded_sequence(padded, lengths.float(), batch_first=True, enforce_sorted=False),
            lambda: pad_sequence([lines[0], torch.randn(3, 4)], batch_first=True),
            lambda: pad_sequence(lines, padding_side="middle")):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
