"""fastText-style n-gram features in tensors: byte-level tokenisation from bytes/frombuffer, n-grams with
Tensor.unfold, hashing into buckets with integer arithmetic, vocabulary counts with unique(dim=0,
return_inverse, return_counts) and bincount, id lookup through searchsorted, one_hot bag-of-words, TF-IDF
per_sample_weights into EmbeddingBag (with padding_idx), and a trained bag-of-ngrams classifier."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

texts = ["good movie", "bad movie", "very good film", "very bad film", "good good fun", "bad boring plot"]
labels = torch.tensor([1, 0, 1, 0, 1, 0])

raw = torch.frombuffer(bytearray(texts[0].encode()), dtype=torch.uint8)
print("bytes", raw.tolist(), raw.dtype)
print("from list", torch.tensor(list(b"fun")).tolist())
chars = [torch.tensor(list(t.encode()), dtype=torch.long) for t in texts]
print("char lengths", [c.numel() for c in chars])

# character trigrams via unfold, hashed into 64 buckets with a polynomial hash
BUCKETS = 64
base = torch.tensor([31 * 31, 31, 1])


def char_ngrams(c, n=3):
    padded = torch.cat([torch.tensor([60]), c, torch.tensor([62])])  # '<' word '>'
    grams = padded.unfold(0, n, 1)
    return grams, (grams * base).sum(1) % BUCKETS


g0, h0 = char_ngrams(chars[0])
print("trigrams", tuple(g0.shape), g0[:3].tolist())
print("hashes", h0.tolist())
print("as text", ["".join(map(chr, g.tolist())) for g in g0[:4]])

# word vocab with unique(return_inverse, return_counts)
words = [t.split() for t in texts]
itos = sorted({w for ws in words for w in ws})
print("itos", itos)
ids = [torch.tensor([itos.index(w) for w in ws]) for ws in words]
flat = torch.cat(ids)
uniq, inverse, counts = torch.unique(flat, sorted=True, return_inverse=True, return_counts=True)
print("unique", uniq.tolist(), "counts", counts.tolist())
print("inverse", inverse.tolist())
print("bincount", torch.bincount(flat, minlength=len(itos)).tolist())
print("weighted bincount", torch.bincount(flat, weights=torch.linspace(0, 1, flat.numel()), minlength=9))

# bigrams as rows, counted with unique(dim=0)
bigrams = torch.cat([i.unfold(0, 2, 1) for i in ids if i.numel() >= 2])
bg, bg_inv, bg_cnt = torch.unique(bigrams, dim=0, return_inverse=True, return_counts=True)
print("bigrams", bg.tolist())
print("bigram counts", bg_cnt.tolist(), "inverse", bg_inv.tolist())
print("unique_consecutive", [t.tolist() for t in torch.unique_consecutive(torch.tensor([3, 3, 1, 1, 1, 2, 3]),
                                                                        return_counts=True)])

# lookup through a sorted key table with searchsorted
keys = bg[:, 0] * 100 + bg[:, 1]
query = torch.tensor([[4, 5], [7, 0], [3, 3]])
qk = query[:, 0] * 100 + query[:, 1]
pos = torch.searchsorted(keys, qk)
found = pos.lt(keys.numel()) & keys[pos.clamp(max=keys.numel() - 1)].eq(qk)
print("search", pos.tolist(), found.tolist())
print("bucketize", torch.bucketize(torch.tensor([0.1, 0.5, 0.9]), torch.tensor([0.25, 0.5, 0.75])).tolist(),
      torch.bucketize(torch.tensor([0.5]), torch.tensor([0.25, 0.5, 0.75]), right=True).tolist())

# bag-of-words with one_hot, then TF-IDF
bow = torch.stack([F.one_hot(i, len(itos)).sum(0) for i in ids])
print(bow)
df = bow.gt(0).sum(0)
idf = torch.log((1 + len(texts)) / (1 + df.float())) + 1
tfidf = bow * idf
tfidf = tfidf / tfidf.norm(dim=1, keepdim=True)
print("idf", idf)
print("tfidf row 4", tfidf[4])
print("one_hot -1", F.one_hot(torch.tensor([2, 0, 1])).tolist())

# word + hashed-bigram features into one EmbeddingBag, tf-idf weighted
NB = 16
feats, weights, offsets = [], [], []
for i in ids:
    offsets.append(sum(len(f) for f in feats))
    bi = (i[:-1] * 7 + i[1:]) % NB + len(itos) + 1 if i.numel() > 1 else torch.tensor([], dtype=torch.long)
    f = torch.cat([i + 1, bi])
    feats.append(f)
    weights.append(torch.cat([idf[i], torch.full((bi.numel(),), 0.5)]))
flat_f = torch.cat(feats)
flat_w = torch.cat(weights)
offs = torch.tensor(offsets)
print("features", flat_f.tolist())
print("offsets", offs.tolist())


class FastText(nn.Module):
    def __init__(self, n, d, c):
        super().__init__()
        self.bag = nn.EmbeddingBag(n, d, mode="sum", padding_idx=0)
        self.fc = nn.Linear(d, c)

    def forward(self, x, off, w):
        return self.fc(self.bag(x, off, per_sample_weights=w))


model = FastText(len(itos) + 1 + NB, 6, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for ep in range(15):
    logits = model(flat_f, offs, flat_w)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if ep % 5 == 4:
        print("epoch", ep + 1, round(loss.item(), 4), "acc", logits.argmax(1).eq(labels).float().mean().item())

# padding_idx in the bag is skipped, even with weights
padded = torch.tensor([[1, 2, 0, 0], [3, 0, 0, 0]])
pw = torch.tensor([[1.0, 2.0, 5.0, 5.0], [3.0, 9.0, 9.0, 9.0]])
out = model.bag(padded, per_sample_weights=pw)
manual = torch.stack([model.bag.weight[1] + 2 * model.bag.weight[2], 3 * model.bag.weight[3]])
print("padded weighted bag", torch.allclose(out, manual, atol=1e-6))

# the low-level op returns four tensors
res = torch.embedding_bag(model.bag.weight, flat_f, offs, False, 1)
print("embedding_bag outputs", len(res), [tuple(t.shape) for t in res])
print("offset2bag", res[1].tolist())
print("bag_size", res[2].tolist(), "max_indices", res[3].tolist())
mx = torch.embedding_bag(model.bag.weight, flat_f, offs, False, 2)
print("max mode argmax ids", mx[3][:2].tolist())
print("torch.embedding", torch.embedding(model.bag.weight, torch.tensor([[1, 2]]), -1).shape)
