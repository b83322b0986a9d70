"""Character-aware word encoders (Kim et al.'s char-CNN with highway layers) over byte-level tokenisation:
UTF-8 bytes through bytearray/frombuffer/memoryview, a char vocabulary with BOW/EOW marks, words padded to a
fixed width, Conv1d filters of several widths with max-over-time, a highway gate, ELMo-style scalar mixing,
and an unbatched MultiheadAttention with add_bias_kv/add_zero_attn over the word vectors; plus the errors of
bytes as tensor data, mismatched key widths and empty bags."""

import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

sentence = "naïve café owners résumé"
raw = sentence.encode("utf-8")
print("chars", len(sentence), "bytes", len(raw))
b = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
print(b[:8].tolist(), b.dtype, "non-ascii bytes", int(b.ge(128).sum()))
print("bytearray", torch.tensor(bytearray(b"cafe")).tolist(), "memoryview", torch.tensor(memoryview(b"ok")).tolist())
for bad in (b"cafe", [b"ca", b"fe"]):
    try:
        torch.tensor(bad)
    except TypeError as err:
        print("TypeError", err)

BOW, EOW, PADC = 256, 257, 258
words = sentence.split()
W = max(len(w.encode()) for w in words) + 2
chars = torch.full((len(words), W), PADC)
for i, w in enumerate(words):
    ids = [BOW] + list(w.encode()) + [EOW]
    chars[i, : len(ids)] = torch.tensor(ids)
print("char ids", tuple(chars.shape))
print(chars[0].tolist())
decoded = [bytes([c for c in row.tolist() if c < 256]).decode() for row in chars]
print("round trip", decoded == words, decoded)


class Highway(nn.Module):
    def __init__(self, d, layers=2):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(d, 2 * d) for _ in range(layers))
        for lin in self.layers:
            lin.bias.data[d:].fill_(1.0)  # carry by default

    def forward(self, x):
        for lin in self.layers:
            h, g = lin(x).chunk(2, -1)
            gate = torch.sigmoid(g)
            x = gate * x + (1 - gate) * F.relu(h)
        return x


class CharCNN(nn.Module):
    def __init__(self, filters=((1, 4), (2, 6), (3, 6))):
        super().__init__()
        self.emb = nn.Embedding(259, 5, padding_idx=PADC)
        self.convs = nn.ModuleList(nn.Conv1d(5, n, w) for w, n in filters)
        d = sum(n for _, n in filters)
        self.highway = Highway(d)
        self.proj = nn.Linear(d, 8)

    def forward(self, c):
        x = self.emb(c).transpose(1, 2)
        pooled = [torch.max(torch.tanh(conv(x)), dim=-1).values for conv in self.convs]
        return self.proj(self.highway(torch.cat(pooled, -1)))


enc = CharCNN()
print(enc.convs)
vecs = enc(chars)
print("word vectors", tuple(vecs.shape))
print(vecs[:2])
x = enc.emb(chars).transpose(1, 2)
conv_out = enc.convs[2](x)
vals, where = conv_out.max(-1)
print("max-over-time positions", where[0].tolist())
print("adaptive pool equal", torch.allclose(F.adaptive_max_pool1d(torch.tanh(conv_out), 1).squeeze(-1),
                                             torch.tanh(vals), atol=1e-6))

# ELMo-style scalar mix of layer outputs
layers = torch.stack([vecs, vecs.tanh(), vecs.sigmoid()])
s = nn.Parameter(torch.zeros(3))
gamma = nn.Parameter(torch.ones(()))
mix = gamma * (F.softmax(s, 0)[:, None, None] * layers).sum(0)
print("scalar mix", tuple(mix.shape), round(mix.sum().item(), 4))

# unbatched attention with a learned bias key and a zero key
torch.manual_seed(1)
attn = nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True)
print("bias_k", tuple(attn.bias_k.shape), "bias_v", tuple(attn.bias_v.shape))
out, w = attn(vecs, vecs, vecs)
print("unbatched", tuple(out.shape), tuple(w.shape), "keys incl. bias+zero", w.shape[-1])
print(w[0])
kpm = torch.tensor([False, False, False, True])
out2, w2 = attn(vecs, vecs, vecs, key_padding_mask=kpm)
print("masked key weight", w2[:, 3].abs().sum().item(), "extra keys", [round(v, 4) for v in w2[0, 4:].tolist()])

cross = nn.MultiheadAttention(8, 2, kdim=5, vdim=5)
char_mem = enc.emb(chars[0])
co, cw = cross(vecs, char_mem, char_mem)
print("cross over chars", tuple(co.shape), tuple(cw.shape))
try:
    cross(vecs, vecs, vecs)
except AssertionError as err:
    print("AssertionError", err)

# training a tiny language-ID head on top
labels = torch.tensor([0, 1, 0, 1])
head = nn.Linear(8, 2)
opt = torch.optim.Adam(list(enc.parameters()) + list(head.parameters()), lr=0.05)
for step in range(10):
    loss = F.cross_entropy(head(enc(chars)), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("loss", round(loss.item(), 4), "pad char grad", enc.emb.weight.grad[PADC].abs().sum().item())

# char bags: an EmbeddingBag over the same ids skips the pad char
bag = nn.EmbeddingBag(259, 4, mode="mean", padding_idx=PADC)
print("bag of chars", tuple(bag(chars).shape))
try:
    bag(chars[:, :0])
except RuntimeError as err:
    print("RuntimeError", err)
