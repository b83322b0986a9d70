"""Variable-length batches through recurrent encoders: pad_sequence (batch_first, padding_value, padding_side),
pack_sequence and pack_padded_sequence with and without enforce_sorted, PackedSequence fields and sorted/unsorted
indices, pad_packed_sequence with total_length, GRU/LSTM that are bidirectional, multi-layer, with dropout and
proj_size, and the final hidden states gathered per sequence."""

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
torch.set_printoptions(precision=4)

seqs = [torch.tensor([5, 2, 9]), torch.tensor([4, 1, 7, 3, 8]), torch.tensor([6]), torch.tensor([2, 2])]
lengths = torch.tensor([len(s) for s in seqs])
print("lengths", lengths.tolist())
padded = pad_sequence(seqs, batch_first=True)
print(padded)
print(pad_sequence(seqs, padding_value=-1))
print(pad_sequence(seqs, batch_first=True, padding_value=0, padding_side="left"))
print("unpad", [t.tolist() for t in unpad_sequence(padded, lengths, batch_first=True)])

packed = pack_sequence(seqs, enforce_sorted=False)
print("data", packed.data.tolist())
print("batch_sizes", packed.batch_sizes.tolist(), packed.batch_sizes.dtype)
print("sorted_indices", packed.sorted_indices.tolist(), "unsorted", packed.unsorted_indices.tolist())
print("unpack", [t.tolist() for t in unpack_sequence(packed)])
try:
    pack_sequence(seqs)
except RuntimeError as err:
    print("RuntimeError", str(err)[:80])

emb = nn.Embedding(10, 4, padding_idx=0)
x = emb(padded)
pk = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
print(type(pk).__name__, tuple(pk.data.shape), pk.is_cuda)

gru = nn.GRU(4, 3, batch_first=True, bidirectional=True)
out, h = gru(pk)
un, ln = pad_packed_sequence(out, batch_first=True, total_length=6)
print("gru out", tuple(un.shape), ln.tolist(), "h", tuple(h.shape))
print("padding stays zero", bool(un[2, 1:].eq(0).all()), bool(un[:, 5].eq(0).all()))
fwd_last = un[torch.arange(4), lengths - 1, :3]
print("forward final == h[0]", torch.allclose(fwd_last, h[0], atol=1e-6))
print("backward first == h[1]", torch.allclose(un[:, 0, 3:], h[1], atol=1e-6))
print(h)

# padded run differs from packed for short sequences (the RNN reads the pads)
out_pad, h_pad = gru(x)
print("packed vs padded equal for longest", torch.allclose(h_pad[0, 1], h[0, 1], atol=1e-6),
      "for shortest", torch.allclose(h_pad[0, 2], h[0, 2], atol=1e-6))

un2, _ = pad_packed_sequence(out, batch_first=False, padding_value=-9.0)
print("time-major", tuple(un2.shape), un2[1:, 2, 0].tolist())

# two-layer LSTM with dropout and a projection
torch.manual_seed(1)
lstm = nn.LSTM(4, 6, num_layers=2, dropout=0.25, proj_size=2, bidirectional=True)
print(lstm)
for name, p in lstm.named_parameters():
    if name.endswith("l1") or name.endswith("l0_reverse"):
        print(name, tuple(p.shape))
lstm.eval()
pk_t = pack_padded_sequence(x.transpose(0, 1), lengths, enforce_sorted=False)
o, (hn, cn) = lstm(pk_t)
o_pad, ol = pad_packed_sequence(o)
print("lstm out", tuple(o_pad.shape), "h", tuple(hn.shape), "c", tuple(cn.shape))
print(hn[-2:].transpose(0, 1).reshape(4, -1))
lstm.train()
torch.manual_seed(2)
o_tr, _ = lstm(pk_t)
o_tr2, _ = lstm(pk_t)
print("dropout changes train output", not torch.allclose(o_tr.data, o_tr2.data))

# sentence encoder: mean over valid steps, then a classifier; gradients reach the embedding
cls = nn.Linear(6, 2)
feats = un.sum(1) / lengths.unsqueeze(1)
logits = cls(feats)
loss = nn.functional.cross_entropy(logits, torch.tensor([0, 1, 1, 0]))
loss.backward()
print("loss", round(loss.item(), 4), "emb grad pad row", emb.weight.grad[0].tolist())
print("grad norms", [round(p.grad.norm().item(), 4) for p in gru.parameters()][:4])

# sorting by hand as older code does
sorted_len, order = lengths.sort(descending=True)
print("order", order.tolist(), "inverse", order.argsort().tolist())
pk_sorted = pack_padded_sequence(x[order], sorted_len, batch_first=True)
_, h_sorted = gru(pk_sorted)
print("manual sort matches", torch.allclose(h_sorted[:, order.argsort()], h, atol=1e-6))

for bad in (torch.tensor([3, 5, 0, 2]), torch.tensor([[3, 5, 1, 2]])):
    try:
        pack_padded_sequence(x, bad, batch_first=True, enforce_sorted=False)
    except Exception as err:
        print(type(err).__name__, str(err)[:90])
try:
    pack_padded_sequence(x, lengths, batch_first=True)
except Exception as err:
    print(type(err).__name__, str(err)[:90])
try:
    pad_packed_sequence(out, batch_first=True, total_length=3)
except Exception as err:
    print(type(err).__name__, str(err)[:120])
