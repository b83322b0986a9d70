"""What a tokenised batch looks like when printed at each step of a padding/packing pipeline, as tutorials show
it: embeddings padded with pad_sequence (both sides, both layouts), PackedSequence reprs of embeddings that
require grad, pad_packed_sequence outputs with total_length and padding_value, a GRU over the packed batch, the
gradient reaching only real tokens, and integer id tensors filled in place from float scores."""

import torch
from torch import nn
from torch.nn.utils.rnn import PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
torch.set_printoptions(precision=4)

vocab = {"<pad>": 0, "i": 1, "like": 2, "green": 3, "tea": 4, "you": 5, "do": 6}
sents = [["i", "like", "green", "tea"], ["you", "do"], ["tea"]]
ids = [torch.tensor([vocab[w] for w in s]) for s in sents]
print([t.tolist() for t in ids])

emb = nn.Embedding(len(vocab), 2, padding_idx=0)
vecs = [emb(t) for t in ids]
print(vecs[1])

padded = pad_sequence(vecs, batch_first=True)
print(padded)
print(padded.grad_fn.name(), type(padded.grad_fn).__name__)
left = pad_sequence(vecs, batch_first=True, padding_value=-1.0, padding_side="left")
print(left[2])
tm = pad_sequence(vecs)
print("time-major", tuple(tm.shape), tm.grad_fn.name())

packed = pack_sequence(vecs)
print(packed)
print("batch_sizes", packed.batch_sizes.tolist())
lengths = torch.tensor([len(s) for s in sents])
packed2 = pack_padded_sequence(padded, lengths, batch_first=True)
print("same data", torch.equal(packed.data, packed2.data), type(packed2.data.grad_fn).__name__)

unpacked, lens = pad_packed_sequence(packed, batch_first=True, padding_value=9.0, total_length=5)
print(unpacked)
print(lens)
tm_out, _ = pad_packed_sequence(packed)
print("time-major", tm_out.grad_fn.name(), tuple(tm_out.shape))

shuffled = [vecs[2], vecs[0], vecs[1]]
pk_u = pack_sequence(shuffled, enforce_sorted=False)
print(pk_u.sorted_indices, pk_u.unsorted_indices)
back, bl = pad_packed_sequence(pk_u, batch_first=True)
print(back[0])
print(bl)

gru = nn.GRU(2, 3, batch_first=True)
out, h = gru(packed)
print(type(out).__name__, out.data.shape, h.shape)
o_pad, _ = pad_packed_sequence(out, batch_first=True)
print(o_pad[1])
loss = o_pad.sum() + h.sum()
loss.backward()
print("emb grad")
print(emb.weight.grad)
print("rows touched", emb.weight.grad.abs().sum(1).gt(0).tolist())

# argmax predictions written into an integer buffer: no autograd history on the ids
logits = torch.randn(3, 4, len(vocab), requires_grad=True)
pred_ids = torch.zeros(3, 4, dtype=torch.long)
pred_ids[:, :] = logits.argmax(-1)
print(pred_ids, pred_ids.requires_grad)
scores = torch.zeros(3, 4, dtype=torch.long)
scores[0] = logits[0, :, 0] * 10
print(scores[0], scores.requires_grad, scores.grad_fn)
buf = torch.zeros(3, 4)
buf[0] = logits[0, :, 0]
print(buf[0], buf.grad_fn.name())

# rebuilding a PackedSequence by hand around new data, as wrappers that apply a layer to .data do
proj = nn.Linear(3, 2)
rebuilt = PackedSequence(proj(out.data), out.batch_sizes, out.sorted_indices)
print(rebuilt.sorted_indices, rebuilt.unsorted_indices)
pk_u_out, _ = gru(pk_u)
wrapped = PackedSequence(proj(pk_u_out.data), pk_u_out.batch_sizes, pk_u_out.sorted_indices)
print("unsorted filled", wrapped.unsorted_indices.tolist())
print(pad_packed_sequence(wrapped, batch_first=True)[0][0])
pair = PackedSequence((packed.data.detach(), packed.batch_sizes))
print(type(pair).__name__, pair.sorted_indices, pair.data.shape, isinstance(pair, tuple))
