"""Variable-length batches for taggers: pad_sequence with batch_first/padding_value/padding_side, masks from
lengths, pack_padded_sequence with enforce_sorted and its sorted/unsorted indices, an LSTM over the packed batch,
pad_packed_sequence with total_length, pack_sequence/unpack_sequence/unpad_sequence, and the usual errors."""

import torch

nn = torch.nn
F = torch.nn.functional
rnn_utils = torch.nn.utils.rnn
torch.manual_seed(5)

seqs = [torch.tensor([4, 2, 7]), torch.tensor([5]), torch.tensor([1, 3, 3, 8, 2])]
lengths = torch.tensor([len(s) for s in seqs])
padded = rnn_utils.pad_sequence(seqs, batch_first=True, padding_value=-1)
print("padded", padded.tolist(), padded.dtype)
print("time major", tuple(rnn_utils.pad_sequence(seqs).shape))
left = rnn_utils.pad_sequence(seqs, batch_first=True, padding_side="left")
print("left", left.tolist())
mask = padded.ne(-1)
print("mask", mask.sum(1).tolist(), torch.equal(mask.sum(1), lengths))

emb = nn.Embedding(10, 4, padding_idx=0)
lstm = nn.LSTM(4, 3, batch_first=True, bidirectional=True)
x = emb(padded.clamp(min=0))
packed = rnn_utils.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
print("batch_sizes", packed.batch_sizes.tolist(), packed.batch_sizes.dtype)
print("sorted", packed.sorted_indices.tolist(), "unsorted", packed.unsorted_indices.tolist())
print("data", tuple(packed.data.shape))
out, (h, c) = lstm(packed)
unpacked, out_lens = rnn_utils.pad_packed_sequence(out, batch_first=True, padding_value=0.0, total_length=6)
print("unpacked", tuple(unpacked.shape), out_lens.tolist())
print("pad zeros", unpacked[1, 1:].abs().sum().item(), "h", tuple(h.shape))
fwd_last = unpacked[torch.arange(3), lengths - 1, :3]
print("last fwd equals h", torch.allclose(fwd_last, h[0], atol=1e-6))
print("bwd first equals h", torch.allclose(unpacked[:, 0, 3:], h[1], atol=1e-6))
loss = unpacked.sum()
loss.backward()
print("grad emb rows", emb.weight.grad.abs().sum(1).gt(0).int().tolist())

ps = rnn_utils.pack_sequence([s.float() for s in seqs], enforce_sorted=False)
print("pack_sequence", ps.data.tolist(), ps.batch_sizes.tolist())
back = rnn_utils.unpack_sequence(ps)
print("unpack", [b.tolist() for b in back])
un = rnn_utils.unpad_sequence(padded, lengths, batch_first=True)
print("unpad", [u.tolist() for u in un])
srt = rnn_utils.pack_padded_sequence(padded[[2, 0, 1]].T, lengths[[2, 0, 1]])
print("sorted pack", srt.sorted_indices, srt.data.tolist())
print(type(ps).__name__, ps._fields if hasattr(ps, "_fields") else None)
print("to", ps.to(torch.float64).data.dtype, ps.is_cuda)

for bad in [lambda: rnn_utils.pack_padded_sequence(x, lengths, batch_first=True),
            lambda: rnn_utils.pack_padded_sequence(x, torch.tensor([3, 0, 5]), batch_first=True, enforce_sorted=False),
            lambda: rnn_utils.pad_packed_sequence(out, batch_first=True, total_length=3),
            lambda: rnn_utils.pad_sequence([torch.ones(2, 3), torch.ones(2, 4)]),
            lambda: rnn_utils.pad_sequence(seqs, padding_side="middle")]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
