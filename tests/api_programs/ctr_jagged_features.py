"""A KeyedJaggedTensor by hand: lengths/offsets per key, segment pooling with scatter_reduce and
segment_reduce, padding."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)

keys = ["f_user_hist", "f_query_tokens"]
# values for key 0 (3 samples), then key 1 (3 samples), lengths in key-major order like torchrec
values = torch.tensor([11, 12, 13, 21, 31, 32, 5, 6, 7, 8, 9], dtype=torch.long)
lengths = torch.tensor([3, 1, 2, 2, 0, 3], dtype=torch.int32)
stride = 3
print("values", values.tolist(), "lengths", lengths.tolist(), lengths.dtype)
offsets = torch.cat([torch.zeros(1, dtype=torch.long), torch.cumsum(lengths, 0)])
print("offsets", offsets.tolist(), offsets.dtype)
print(
    "complete_cumsum int32", torch.ops.aten.cumsum(lengths, 0).dtype, torch.cumsum(lengths, 0, dtype=torch.int32).dtype
)
per_key = lengths.view(len(keys), stride).sum(1)
splits = torch.split(values, per_key.tolist())
print("per-key values", [s.tolist() for s in splits])
key_lengths = lengths.view(len(keys), stride)

# segment ids and pooling by scatter_reduce with every reduce
seg = torch.repeat_interleave(torch.arange(stride), key_lengths[0])
print(
    "segment ids",
    seg.tolist(),
    "repeat_interleave output_size",
    torch.repeat_interleave(torch.arange(3), key_lengths[0], output_size=6).tolist(),
)
x = splits[0].float()
for red in ("sum", "prod", "mean", "amax", "amin"):
    out = torch.zeros(stride).scatter_reduce(0, seg, x, reduce=red, include_self=False)
    print(red, out.tolist())
print(
    "include_self mean",
    torch.ones(stride).scatter_reduce(0, seg, x, reduce="mean", include_self=True).round(decimals=4).tolist(),
)

# segment_reduce over lengths (empty segments use the initial value)
for red in ("sum", "mean", "max", "min"):
    r = torch.segment_reduce(splits[1].float(), red, lengths=key_lengths[1], unsafe=False, initial=0.0)
    print("segment_reduce", red, r.tolist())
r = torch.segment_reduce(splits[1].float(), "max", lengths=key_lengths[1])
print("no initial", r.tolist())
print("offsets form", torch.segment_reduce(splits[1].float(), "sum", offsets=torch.tensor([0, 2, 2, 5])).tolist())

# gradients through scatter_reduce(amax) and segment_reduce(mean)
w = torch.tensor([1.0, 3.0, 3.0, 2.0, 5.0, 4.0], requires_grad=True)
torch.zeros(3).scatter_reduce(0, seg, w, "amax", include_self=False).sum().backward()
print("amax grad (ties split)", w.grad.tolist())
w2 = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
torch.segment_reduce(w2, "mean", lengths=torch.tensor([2, 0, 3]), initial=0.0).sum().backward()
print("segment mean grad", w2.grad.round(decimals=4).tolist())

# jagged -> padded dense and back
emb = nn.Embedding(40, 2)
e = emb(splits[0])
pad = nn.utils.rnn.pad_sequence(torch.split(e, key_lengths[0].tolist()), batch_first=True, padding_value=0.0)
print("padded", pad.shape)
left = nn.utils.rnn.pad_sequence([torch.tensor([1, 2, 3]), torch.tensor([4])], batch_first=True, padding_side="left")
print("left padded", left.tolist())
mask = torch.arange(pad.shape[1]) < key_lengths[0].unsqueeze(1)
print("back to jagged", torch.equal(pad[mask], e))
print("unpad_sequence", [t.shape[0] for t in nn.utils.rnn.unpad_sequence(pad, key_lengths[0], batch_first=True)])
# the same sum pooling three ways
s1 = F.embedding_bag(splits[0], emb.weight, offsets[:3], mode="sum")
s2 = torch.zeros(3, 2).index_add(0, seg, e)
s3 = (pad * mask.unsqueeze(-1)).sum(1)
print("three poolings agree", torch.allclose(s1, s2, atol=1e-6) and torch.allclose(s2, s3, atol=1e-6))

# nested tensors for variable-length bags
nt = torch.nested.nested_tensor([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0])])
print("nested", nt.is_nested, nt.size(0), [t.tolist() for t in nt.unbind()])
print("to_padded", torch.nested.to_padded_tensor(nt, -1.0).tolist())

# unique ids per batch (dedup before lookup) and the inverse map back
uniq, inv = torch.unique(values, sorted=True, return_inverse=True)
print("dedup", uniq.numel(), "of", values.numel(), torch.equal(uniq[inv], values))
print(
    "unique_consecutive",
    [t.tolist() for t in torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 2, 1]), return_counts=True)],
)
print("unique dim=0", torch.unique(torch.tensor([[1, 2], [1, 2], [0, 5]]), dim=0).tolist())

for fn in (
    lambda: torch.segment_reduce(x, "median", lengths=key_lengths[0]),
    lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([1, 1])),
    lambda: torch.zeros(3).scatter_reduce(0, seg, x, reduce="avg"),
    lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1, -1, 2])),
    lambda: torch.split(values, [5, 5]),
):
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
