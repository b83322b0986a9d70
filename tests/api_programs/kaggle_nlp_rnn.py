"""A Kaggle NLP notebook: a tiny whitespace tokenizer with a vocab built by Counter, a Dataset with a custom
collate_fn (pad_sequence, lengths, multi-label targets), WeightedRandomSampler on a fixed Generator, a BiGRU over
pack_padded_sequence with max+mean pooling, focal loss for multi-label, per-label F1 and a threshold sweep."""

from collections import Counter

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader, Dataset, WeightedRandomSampler

rng = np.random.default_rng(3)
words = "good bad great awful movie plot actor boring fun love hate slow fast story".split()
texts = [" ".join(rng.choice(words, size=int(rng.integers(2, 9)))) for _ in range(40)]
labels = np.stack([[("good" in t) or ("great" in t), ("bad" in t) or ("awful" in t), "plot" in t] for t in texts])
labels = labels.astype(np.float32)
print("example", texts[0], labels[0].tolist())

counter = Counter(w for t in texts for w in t.split())
itos = ["<pad>", "<unk>"] + sorted(w for w, c in counter.items() if c >= 2)
stoi = {w: i for i, w in enumerate(itos)}
print("vocab", len(itos), itos[:6])


def encode(t):
    return torch.tensor([stoi.get(w, 1) for w in t.split()], dtype=torch.long)


class TextDS(Dataset):
    def __init__(self, texts, labels):
        self.x = [encode(t) for t in texts]
        self.y = torch.from_numpy(labels)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def collate(batch):
    seqs, ys = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True, padding_value=0), lengths, torch.stack(ys)


ds = TextDS(texts, labels)
xb, lb, yb = collate([ds[i] for i in range(4)])
print("collated", tuple(xb.shape), lb.tolist(), yb.shape, xb.dtype)
print(xb)

pos = labels[:, 0]
w = np.where(pos > 0, 1.0 / pos.sum(), 1.0 / (1 - pos).sum())
sampler = WeightedRandomSampler(torch.from_numpy(w), num_samples=24, replacement=True,
                                generator=torch.Generator().manual_seed(0))
print("sampler len", len(sampler), "weights dtype", sampler.weights.dtype)
drawn = list(sampler)
print("drawn", len(drawn), "all valid", all(0 <= i < 40 for i in drawn))
dl = DataLoader(ds, batch_size=8, sampler=sampler, collate_fn=collate, drop_last=True)
print("loader batches", len(dl))


class BiGRU(nn.Module):
    def __init__(self, vocab, emb=6, hid=5, n_out=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.rnn = nn.GRU(emb, hid, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(4 * hid, n_out)

    def forward(self, x, lengths):
        e = self.emb(x)
        packed = pack_padded_sequence(e, lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, out_len = pad_packed_sequence(out, batch_first=True, padding_value=-1e4)
        mx = out.max(dim=1).values
        out0 = out.masked_fill(out == -1e4, 0.0)
        mean = out0.sum(1) / out_len.unsqueeze(1).to(out.dtype)
        return self.fc(torch.cat([mx, mean], 1)), h


model = BiGRU(len(itos))
pr = np.random.default_rng(11)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy((0.4 * pr.standard_normal(tuple(p.shape))).astype(np.float32)))
    model.emb.weight[0].zero_()
print(model.rnn)
logits, h = model(xb, lb)
print("logits", tuple(logits.shape), "h", tuple(h.shape), np.round(logits[0].detach().double().numpy(), 4).tolist())
packed = pack_padded_sequence(model.emb(xb), lb, batch_first=True, enforce_sorted=False)
print("batch_sizes", packed.batch_sizes.tolist(), "sorted", packed.sorted_indices.tolist(),
      "unsorted", packed.unsorted_indices.tolist())


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p = torch.sigmoid(logits)
    p_t = p * targets + (1 - p) * (1 - targets)
    a_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (a_t * (1 - p_t) ** gamma * bce).mean()


print("focal", round(focal_loss(logits, yb).item(), 4),
      "bce", round(F.binary_cross_entropy_with_logits(logits, yb).item(), 4))
opt = torch.optim.Adam(model.parameters(), lr=0.03)
Xall, Lall, Yall = collate([ds[i] for i in range(len(ds))])
for ep in range(12):
    model.train()
    opt.zero_grad()
    out, _ = model(Xall, Lall)
    loss = focal_loss(out, Yall)
    loss.backward()
    opt.step()
    if ep % 4 == 0:
        print("ep", ep, "loss", round(loss.item(), 4), "emb pad grad zero", bool((model.emb.weight.grad[0] == 0).all()))
model.eval()
with torch.inference_mode():
    probs = torch.sigmoid(model(Xall, Lall)[0])


def f1_per_label(pred, y, eps=1e-9):
    tp = (pred * y).sum(0)
    fp = (pred * (1 - y)).sum(0)
    fn = ((1 - pred) * y).sum(0)
    return 2 * tp / (2 * tp + fp + fn + eps)


for th in (0.3, 0.5):
    f1 = f1_per_label((probs > th).float(), Yall)
    print("th", th, "f1", np.round(f1.double().numpy(), 4).tolist(), "macro", round(f1.mean().item(), 4))
ths = torch.linspace(0.1, 0.9, 9)
scores = torch.stack([f1_per_label((probs > t).float(), Yall).mean() for t in ths])
print("best th", round(ths[scores.argmax()].item(), 4), "score", round(scores.max().item(), 4))
try:
    pack_padded_sequence(model.emb(xb), torch.tensor([3, 5, 2, 4]), batch_first=True)
except RuntimeError as e:
    print("RuntimeError", str(e)[:70])
try:
    pack_padded_sequence(model.emb(xb), torch.tensor([3, 0, 2, 4]), batch_first=True, enforce_sorted=False)
except RuntimeError as e:
    print("RuntimeError", e)
