"""Cross-encoder re-ranking: [CLS] query [SEP] passage pairs with token-type embeddings and padding masks through a
TransformerEncoder, listwise softmax cross-entropy over candidate groups, pairwise RankNet loss, and eval-mode
scoring in chunks; masks of bool and float kinds and their shape errors."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4)

V, D, L = 30, 16, 9
CLS, SEP, PAD = 1, 2, 0


class CrossEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D, padding_idx=PAD)
        self.typ = nn.Embedding(2, D)
        self.pos = nn.Parameter(torch.zeros(1, L, D))
        layer = nn.TransformerEncoderLayer(D, 2, 32, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(D, 1)

    def forward(self, ids, types):
        h = self.tok(ids) + self.typ(types) + self.pos[:, : ids.shape[1]]
        h = self.enc(h, src_key_padding_mask=ids == PAD)
        return self.head(h[:, 0]).squeeze(-1)


def pair(q, p):
    ids = [CLS] + q + [SEP] + p + [SEP]
    types = [0] * (len(q) + 2) + [1] * (len(p) + 1)
    pad = L - len(ids)
    return ids + [PAD] * pad, types + [0] * pad


queries = [[5, 6], [7]]
cands = [[[5, 9, 6], [11, 12], [6, 5, 13, 14]], [[7, 7, 8], [20], [21, 22, 7]]]
batch = [pair(q, p) for q, ps in zip(queries, cands) for p in ps]
ids = torch.tensor([b[0] for b in batch])
types = torch.tensor([b[1] for b in batch])
print("ids", ids[2].tolist(), "types", types[2].tolist(), "pad", (ids == PAD).sum(1).tolist())

model = CrossEncoder()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
labels = torch.tensor([0, 2])  # index of the relevant passage in each group
for step in range(4):
    scores = model(ids, types).view(2, 3)
    listwise = F.cross_entropy(scores, labels)
    diff = scores.gather(1, labels[:, None]) - scores
    mask = torch.ones_like(scores, dtype=torch.bool).scatter_(1, labels[:, None], False)
    ranknet = F.binary_cross_entropy_with_logits(diff[mask], torch.ones(int(mask.sum())))
    loss = listwise + 0.5 * ranknet
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(step, round(listwise.item(), 4), round(ranknet.item(), 4), round(gn.item(), 4))

model.eval()
with torch.no_grad():
    full = model(ids, types)
    chunked = torch.cat([model(i, t) for i, t in zip(ids.split(4), types.split(4))])
print(
    "chunked equal", torch.allclose(full, chunked, atol=1e-6), full.view(2, 3).argsort(dim=1, descending=True).tolist()
)
print("padding ignored", torch.allclose(model(ids[:1, :8], types[:1, :8]), full[:1], atol=1e-5))

# float masks: -inf where padded is the same as the bool mask
att = nn.MultiheadAttention(D, 2, batch_first=True)
x = torch.randn(2, 4, D)
bmask = torch.tensor([[False, False, True, True], [False, False, False, True]])
fmask = torch.zeros(2, 4).masked_fill(bmask, float("-inf"))
o1, w1 = att(x, x, x, key_padding_mask=bmask)
o2, w2 = att(x, x, x, key_padding_mask=fmask)
print("masks agree", torch.allclose(o1, o2), w1.shape, w1[0, 0].round(decimals=4).tolist())
o3, w3 = att(x, x, x, key_padding_mask=bmask, average_attn_weights=False)
print("per head", w3.shape, round(w3.sum().item(), 4))

for fn in (
    lambda: att(x, x, x, key_padding_mask=bmask[:, :3]),
    lambda: att(x, x, x, key_padding_mask=bmask.int()),
    lambda: att(x, x, x, attn_mask=torch.zeros(3, 3)),
    lambda: model(ids, types[:, :5]),
    lambda: F.cross_entropy(full.view(2, 3), labels.view(2, 1)),
):
    try:
        r = fn()
        print("ok", type(r).__name__)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0][:120])
