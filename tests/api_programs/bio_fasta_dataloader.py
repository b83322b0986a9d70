"""A protein secondary-structure pipeline: FASTA text parsed into records, a Dataset of variable-length
token/label pairs, a length-bucketing batch sampler, a collate_fn that pads with pad_sequence and builds masks, a
packed BiLSTM tagger over pack_padded_sequence (enforce_sorted=False), masked cross-entropy with ignore_index, and
per-class Q3 accuracy from a confusion matrix built with bincount."""

import io

import torch

nn = torch.nn
F = torch.nn.functional
Dataset = torch.utils.data.Dataset
DataLoader = torch.utils.data.DataLoader
pad_sequence = torch.nn.utils.rnn.pad_sequence
pack = torch.nn.utils.rnn.pack_padded_sequence
unpack = torch.nn.utils.rnn.pad_packed_sequence

torch.manual_seed(0)
FASTA = """>p1 kinase
MKTAYIAKQRQISFVKSHFSRQ
>p2
GSHMLE
>p3 membrane
LLAVLLVGAFIAW
>p4
MSDNE
>p5 long one
PEPTIDESEQWENCEACDEFGHIK
>p6
KKRRAA
"""
SS = {
    "p1": "CHHHHHHHHHCCEEEEECCCHH",
    "p2": "CCHHHC",
    "p3": "HHHHHHHHHHHHC",
    "p4": "CCCCC",
    "p5": "CCEEEECCCHHHHHHHCCCEEEEC",
    "p6": "CHHHHC",
}
AA = "ACDEFGHIKLMNPQRSTVWY"
LABELS = "HEC"


def parse(handle):
    name, chunks = None, []
    for line in handle:
        line = line.strip()
        if line.startswith(">"):
            if name:
                yield name, "".join(chunks)
            name, chunks = line[1:].split()[0], []
        elif line:
            chunks.append(line)
    if name:
        yield name, "".join(chunks)


records = list(parse(io.StringIO(FASTA)))
print("records", [(n, len(s)) for n, s in records])


class SSDataset(Dataset):
    def __init__(self, records):
        self.items = [
            (torch.tensor([AA.index(c) + 1 for c in s]), torch.tensor([LABELS.index(c) for c in SS[n]]))
            for n, s in records
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class BucketSampler(torch.utils.data.Sampler):
    def __init__(self, lengths, batch_size):
        self.order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
        self.batch_size = batch_size

    def __iter__(self):
        for k in range(0, len(self.order), self.batch_size):
            yield self.order[k : k + self.batch_size]

    def __len__(self):
        return (len(self.order) + self.batch_size - 1) // self.batch_size


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    x = pad_sequence(seqs, batch_first=True, padding_value=0)
    y = pad_sequence(labels, batch_first=True, padding_value=-100)
    return x, y, lengths, x.ne(0)


ds = SSDataset(records)
sampler = BucketSampler([len(s) for _, s in records], 2)
loader = DataLoader(ds, batch_sampler=sampler, collate_fn=collate)
print("batches", len(loader), [b for b in sampler])
for x, y, lengths, mask in loader:
    print("batch", tuple(x.shape), lengths.tolist(), mask.sum(1).tolist(), y[0, -1].item())
plain = DataLoader(ds, batch_size=3, shuffle=False, collate_fn=collate)
x, y, lengths, mask = next(iter(plain))
print("unsorted lengths", lengths.tolist(), x.dtype, y.dtype, mask.dtype)


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(len(AA) + 1, 8, padding_idx=0)
        self.rnn = nn.LSTM(8, 6, batch_first=True, bidirectional=True)
        self.head = nn.Linear(12, 3)

    def forward(self, x, lengths):
        packed = pack(self.emb(x), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.rnn(packed)
        padded, out_len = unpack(out, batch_first=True, total_length=x.shape[1])
        return self.head(padded), out_len, packed


model = Tagger()
logits, out_len, packed = model(x, lengths)
print("packed", packed.batch_sizes.tolist(), packed.sorted_indices.tolist(), packed.unsorted_indices.tolist())
print("logits", logits.shape, out_len.tolist(), logits[1, 6:].abs().sum().item() > 0)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(3):
    total = 0.0
    for x, y, lengths, mask in loader:
        logits, _, _ = model(x, lengths)
        loss = F.cross_entropy(logits.reshape(-1, 3), y.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += loss.item()
    print("epoch", epoch, round(total, 4))

conf = torch.zeros(3, 3, dtype=torch.long)
with torch.no_grad():
    for x, y, lengths, mask in loader:
        pred = model(x, lengths)[0].argmax(-1)
        valid = y != -100
        conf += torch.bincount(y[valid] * 3 + pred[valid], minlength=9).view(3, 3)
print("confusion", conf.tolist(), "Q3", round((conf.diag().sum() / conf.sum()).item(), 4))
recall = conf.diag() / conf.sum(1).clamp_min(1)
print("per-class recall", recall.round(decimals=4).tolist(), "emb pad row", model.emb.weight[0].abs().sum().item())
try:
    pack(torch.zeros(2, 5, 3), torch.tensor([5, 0]), batch_first=True, enforce_sorted=False)
except Exception as e:
    print(type(e).__name__, e)
try:
    pack(torch.zeros(2, 5, 3), torch.tensor([3, 5]), batch_first=True)
except Exception as e:
    print(type(e).__name__, e)
try:
    unpack(pack(torch.zeros(2, 5, 3), torch.tensor([5, 3]), batch_first=True), batch_first=True, total_length=4)
except Exception as e:
    print(type(e).__name__, e)
try:
    pad_sequence([torch.zeros(3, 2), torch.zeros(2, 3)])
except Exception as e:
    print(type(e).__name__, e)
