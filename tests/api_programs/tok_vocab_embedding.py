"""A hand-written word tokenizer and vocabulary feeding nn.Embedding: special tokens, frequency cut-offs,
numericalisation with <unk>, padding_idx rows that stay zero and get no gradient, max_norm renormalisation
in place, scale_grad_by_freq, from_pretrained with freeze, and the errors users meet on out-of-range ids."""

import re
from collections import Counter

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

corpus = [
    "The cat sat on the mat.",
    "The dog sat on the log!",
    "A cat and a dog met; the cat ran.",
    "Dogs and cats, cats and dogs.",
]

TOKEN_RE = re.compile(r"[a-z]+|[^\sa-z]")


def tokenize(s):
    return TOKEN_RE.findall(s.lower())


class Vocab:
    specials = ["<pad>", "<unk>", "<bos>", "<eos>"]

    def __init__(self, texts, min_freq=1):
        counts = Counter(t for s in texts for t in tokenize(s))
        words = sorted((w for w, c in counts.items() if c >= min_freq), key=lambda w: (-counts[w], w))
        self.itos = self.specials + words
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.counts = counts

    def __len__(self):
        return len(self.itos)

    def encode(self, s, add_special=True):
        ids = [self.stoi.get(t, 1) for t in tokenize(s)]
        return [2] + ids + [3] if add_special else ids

    def decode(self, ids):
        return " ".join(self.itos[i] for i in ids if i > 3)


vocab = Vocab(corpus, min_freq=2)
print("vocab size", len(vocab))
print("itos", vocab.itos)
print("tokens", tokenize(corpus[2]))
enc = [vocab.encode(s) for s in corpus]
for e in enc:
    print(e)
print("decode", vocab.decode(enc[2]))

maxlen = max(len(e) for e in enc)
batch = torch.full((len(enc), maxlen), 0, dtype=torch.long)
for i, e in enumerate(enc):
    batch[i, : len(e)] = torch.tensor(e)
print(batch)
mask = batch.ne(0)
print("lengths", mask.sum(1).tolist(), mask.dtype)

emb = nn.Embedding(len(vocab), 6, padding_idx=0)
print(emb)
print("pad row", emb.weight[0].tolist())
x = emb(batch)
print("embedded", tuple(x.shape), x.dtype)
print(x[0, :3])
pooled = (x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
print("mean-pooled", pooled.shape)
print(pooled)
pooled.pow(2).sum().backward()
g = emb.weight.grad
print("grad pad row zero", bool(g[0].eq(0).all()), "grad rows touched", int(g.abs().sum(1).gt(0).sum()))
print("grad norm", round(g.norm().item(), 4))

# scale_grad_by_freq: each row's gradient is divided by its count in the mini-batch
ids = torch.tensor([[4, 4, 4, 5], [5, 6, 4, 0]])
e1 = nn.Embedding(8, 3, padding_idx=0)
e2 = nn.Embedding(8, 3, padding_idx=0, scale_grad_by_freq=True)
e2.load_state_dict(e1.state_dict())
for e in (e1, e2):
    e(ids).sum().backward()
print("plain grad rows", e1.weight.grad[:, 0].tolist())
print("scaled grad rows", e2.weight.grad[:, 0].tolist())

# max_norm renormalises looked-up rows in place
torch.manual_seed(1)
e3 = nn.Embedding(6, 4, max_norm=1.0)
before = e3.weight.detach().norm(dim=1)
print("norms before", [round(v, 4) for v in before.tolist()])
with torch.no_grad():
    out = e3(torch.tensor([1, 3, 3]))
after = e3.weight.detach().norm(dim=1)
print("norms after", [round(v, 4) for v in after.tolist()])
print("out norms", [round(v, 4) for v in out.norm(dim=1).tolist()])
e4 = nn.Embedding(6, 4, max_norm=0.5, norm_type=1.0)
e4(torch.tensor([0, 2]))
print("l1 norms", [round(v, 4) for v in e4.weight.detach().abs().sum(1).tolist()])

# F.embedding with a functional weight and max_norm
w = torch.randn(5, 3)
y = F.embedding(torch.tensor([[0, 2], [4, 2]]), w, max_norm=1.5)
print("F.embedding", y.shape, [round(v, 4) for v in y.norm(dim=-1).flatten().tolist()])

# pretrained vectors, frozen and not
pre = torch.arange(12, dtype=torch.float32).view(4, 3) / 10
frozen = nn.Embedding.from_pretrained(pre)
tuned = nn.Embedding.from_pretrained(pre, freeze=False, padding_idx=0)
print(frozen, frozen.weight.requires_grad)
print(tuned, tuned.weight.requires_grad)
print(frozen(torch.tensor([3, 1])))
print(tuned(torch.tensor([[0, 3]])).sum(-1))

for bad in (torch.tensor([len(vocab)]), torch.tensor([-1]), torch.tensor([1.0])):
    try:
        emb(bad)
    except Exception as err:
        print(type(err).__name__, str(err).splitlines()[0][:90])
try:
    nn.Embedding(5, 3, padding_idx=7)
except Exception as err:
    print(type(err).__name__, err)
try:
    nn.Embedding.from_pretrained(torch.zeros(3))
except Exception as err:
    print(type(err).__name__, err)
