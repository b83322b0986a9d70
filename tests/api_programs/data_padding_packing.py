"""Variable-length batches as sequence models load them: a collate_fn that pads with pad_sequence (batch_first and
not, a padding value, padding_side="left"), builds attention masks and lengths, sorts by length for
pack_padded_sequence (enforce_sorted True and False), runs a seeded GRU over the packed batch, unpacks with
pad_packed_sequence (total_length), pack_sequence / unpack_sequence / unpad_sequence round trips, and the errors of
unsorted lengths and zero-length sequences."""

import torch
from torch import nn
from torch.nn.utils.rnn import (pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence,
                                unpack_sequence, unpad_sequence)
from torch.utils.data import DataLoader, Dataset

torch.set_printoptions(precision=4)


def show_error(label, fn):
    try:
        print(label, "no error", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:120])


class Tokens(Dataset):
    def __init__(self, n, vocab, generator):
        self.lengths = torch.randint(1, 7, (n,), generator=generator).tolist()
        self.seqs = [torch.randint(1, vocab, (k,), generator=generator) for k in self.lengths]
        self.labels = torch.randint(0, 2, (n,), generator=generator).tolist()

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return self.seqs[i], self.labels[i]


def pad_collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = pad_sequence(list(seqs), batch_first=True, padding_value=0)
    mask = torch.arange(padded.size(1))[None, :] < lengths[:, None]
    return padded, lengths, mask, torch.tensor(labels)


def sorted_collate(batch):
    batch = sorted(batch, key=lambda b: len(b[0]), reverse=True)
    seqs, labels = zip(*batch)
    return pad_sequence(list(seqs)), torch.tensor([len(s) for s in seqs]), torch.tensor(labels)


g = torch.Generator().manual_seed(0)
ds = Tokens(9, 20, g)
print("lengths", ds.lengths, "labels", ds.labels)
loader = DataLoader(ds, batch_size=4, shuffle=True, collate_fn=pad_collate, generator=torch.Generator().manual_seed(1))
for padded, lengths, mask, labels in loader:
    print("batch", tuple(padded.shape), lengths.tolist(), mask.sum(1).tolist(), labels.tolist())
    print(padded)

torch.manual_seed(0)
emb = nn.Embedding(20, 4, padding_idx=0)
gru = nn.GRU(4, 3, batch_first=True)
for padded, lengths, mask, labels in DataLoader(ds, batch_size=5, collate_fn=pad_collate):
    packed = pack_padded_sequence(emb(padded), lengths, batch_first=True, enforce_sorted=False)
    print("packed", packed.batch_sizes.tolist(), packed.sorted_indices.tolist(), packed.unsorted_indices.tolist(),
          tuple(packed.data.shape))
    out, h = gru(packed)
    unpacked, out_lens = pad_packed_sequence(out, batch_first=True, total_length=7)
    print("unpacked", tuple(unpacked.shape), out_lens.tolist(), unpacked[:, :, 0].abs().sum(1))
    last = unpacked[torch.arange(len(lengths)), lengths - 1]
    print("last_equals_h", torch.allclose(last, h[0], atol=1e-6), h[0])
    masked_mean = (emb(padded) * mask[..., None]).sum(1) / lengths[:, None]
    print("masked_mean", masked_mean)

for seqs, lengths, labels in DataLoader(ds, batch_size=4, collate_fn=sorted_collate):
    packed = pack_padded_sequence(seqs, lengths)
    print("time_major", tuple(seqs.shape), lengths.tolist(), packed.batch_sizes.tolist(), packed.data.tolist())
    back, lens = pad_packed_sequence(packed, padding_value=-1)
    print("back", back.t().tolist(), lens.tolist())

seqs = [torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0]), torch.tensor([5.0, 6.0])]
print("left_pad", pad_sequence(seqs, batch_first=True, padding_value=-1.0, padding_side="left").tolist())
print("right_pad", pad_sequence(seqs, padding_value=9.0).tolist())
ps = pack_sequence(seqs, enforce_sorted=False)
print("pack_sequence", ps.data.tolist(), ps.batch_sizes.tolist(), ps.sorted_indices.tolist())
print("unpack", [t.tolist() for t in unpack_sequence(ps)])
padded = pad_sequence(seqs, batch_first=True)
print("unpad", [t.tolist() for t in unpad_sequence(padded, torch.tensor([3, 1, 2]), batch_first=True)])
multi = [torch.ones(2, 3), torch.zeros(4, 3)]
print("feature_pad", tuple(pad_sequence(multi).shape), tuple(pad_sequence(multi, batch_first=True).shape))
print("packed_repr", type(ps).__name__, ps._fields)
print("packed_to", ps.to(torch.float64).data.dtype, ps.is_cuda)

show_error("unsorted", lambda: pack_padded_sequence(padded, torch.tensor([3, 1, 2]), batch_first=True))
show_error("zero_length", lambda: pack_padded_sequence(padded, torch.tensor([3, 0, 2]), batch_first=True,
                                                        enforce_sorted=False))
show_error("short_total", lambda: pad_packed_sequence(ps, total_length=2))
show_error("mixed_dtypes", lambda: pad_sequence([torch.tensor([1, 2]), torch.tensor([3.7])], padding_value=-1).tolist())
show_error("not_tensors", lambda: pad_sequence([[1, 2], [3]]))
show_error("one_dim_input", lambda: pack_padded_sequence(torch.ones(3), [3], batch_first=True))
