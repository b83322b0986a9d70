"""A text-classification and language-modelling data pipeline in the style of the PyTorch text tutorials after
torchtext: a whitespace tokenizer, a Counter-built vocabulary with specials and min_freq, numericalisation with
an <unk> fallback, a map-style dataset, a collate_fn building padded ids, attention masks and offsets for
EmbeddingBag, an MLM-style masking collate with a seeded generator (labels -100), the word-language-model
batchify/get_batch over a token stream, and an EmbeddingBag classifier fed from the loader."""

from collections import Counter

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset, random_split

torch.set_printoptions(precision=4)

corpus = [
    (1, "the cat sat on the mat"),
    (0, "stocks fell sharply on monday"),
    (1, "a dog chased the cat"),
    (0, "markets rallied after the report"),
    (1, "the bird sang on the tree"),
    (0, "the bank raised interest rates"),
    (1, "my cat likes the warm mat"),
    (0, "investors sold shares on friday"),
]


def tokenize(text):
    return text.lower().split()


counts = Counter(tok for _, text in corpus for tok in tokenize(text))
specials = ["<pad>", "<unk>", "<bos>", "<eos>", "<mask>"]
min_freq = 2 if len(counts) > 40 else 1
itos = specials + sorted(t for t, c in counts.items() if c >= min_freq)
stoi = {t: i for i, t in enumerate(itos)}
PAD, UNK, BOS, EOS, MASK = range(5)
print("vocab", len(itos), itos[5:12], counts.most_common(3))


def numericalize(text):
    return [BOS] + [stoi.get(t, UNK) for t in tokenize(text)] + [EOS]


class TextDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        label, text = self.rows[i]
        return torch.tensor(numericalize(text)), label


def pad_collate(batch):
    ids, labels = zip(*batch)
    padded = pad_sequence(ids, batch_first=True, padding_value=PAD)
    return padded, (padded != PAD).long(), torch.tensor(labels)


def bag_collate(batch):
    ids, labels = zip(*batch)
    offsets = torch.tensor([0] + [len(t) for t in ids[:-1]]).cumsum(0)
    return torch.cat(ids), offsets, torch.tensor(labels)


def mlm_collate(batch, generator, prob=0.3):
    ids, mask, _ = pad_collate(batch)
    labels = ids.clone()
    special = ids < len(specials)
    chosen = (torch.rand(ids.shape, generator=generator) < prob) & ~special
    labels[~chosen] = -100
    inputs = ids.clone()
    inputs[chosen] = MASK
    return inputs, mask, labels


ds = TextDataset(corpus)
print("example", ds[2][0].tolist(), ds[2][1], numericalize("the zebra sat on a mat"))
for ids, mask, labels in DataLoader(ds, batch_size=3, collate_fn=pad_collate):
    print("padded", tuple(ids.shape), mask.sum(1).tolist(), labels.tolist())
print(next(iter(DataLoader(ds, batch_size=3, collate_fn=pad_collate)))[0])

g = torch.Generator().manual_seed(0)
inputs, mask, labels = next(iter(DataLoader(ds, batch_size=4, collate_fn=lambda b: mlm_collate(b, g))))
print("mlm_inputs", inputs.tolist())
print("mlm_labels", labels.tolist())
print("mlm_masked", int((labels != -100).sum()), int((inputs == MASK).sum()))

train, test = random_split(ds, [6, 2], generator=torch.Generator().manual_seed(1))
print("split", train.indices, test.indices)
torch.manual_seed(0)
bag = nn.EmbeddingBag(len(itos), 8, mode="mean")
head = nn.Linear(8, 2)
opt = torch.optim.Adam([*bag.parameters(), *head.parameters()], lr=0.05)
loader = DataLoader(train, batch_size=3, shuffle=True, collate_fn=bag_collate,
                    generator=torch.Generator().manual_seed(2))
for epoch in range(4):
    total = 0.0
    for flat, offsets, y in loader:
        loss = nn.functional.cross_entropy(head(bag(flat, offsets)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print("epoch", epoch, round(total, 4), offsets.tolist())
with torch.no_grad():
    flat, offsets, y = bag_collate([test[0], test[1]])
    print("test_probs", head(bag(flat, offsets)).softmax(-1), y.tolist())

stream = torch.tensor([tok for _, text in corpus for tok in numericalize(text)])
print("stream", stream.numel(), stream[:12].tolist())


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data[: nbatch * bsz].view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt=5):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


src = batchify(stream, 4)
print("batchify", tuple(src.shape), src[:3].tolist())
for i in range(0, src.size(0) - 1, 5):
    data, target = get_batch(src, i)
    print("bptt", i, tuple(data.shape), target[:6].tolist())
