"""ESM-style protein language model pieces: an amino-acid alphabet with special tokens and padding masks, rotary
embeddings applied to queries/keys (rotate_half, cached cos/sin tables), multi-head attention returning per-head
maps, BERT masking of residues, attention maps symmetrised and APC-corrected into a logistic-regression contact head,
and top-L precision at sequence separation >= 6."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
alphabet = ["<cls>", "<pad>", "<eos>", "<unk>"] + list("LAGVSERTIDPKQNFYMHWC") + ["<mask>"]
tok = {a: i for i, a in enumerate(alphabet)}
seqs = ["MKTAYIAKQR", "GSHMLE"]
L = max(map(len, seqs)) + 2
batch = torch.full((len(seqs), L), tok["<pad>"], dtype=torch.long)
for i, s in enumerate(seqs):
    ids = [tok["<cls>"]] + [tok.get(c, tok["<unk>"]) for c in s] + [tok["<eos>"]]
    batch[i, : len(ids)] = torch.tensor(ids)
pad_mask = batch.eq(tok["<pad>"])
print("tokens", batch.tolist(), pad_mask.sum(1).tolist())


class Rotary(nn.Module):
    def __init__(self, dim):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv, persistent=False)

    @staticmethod
    def rotate_half(x):
        x1, x2 = x.chunk(2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)

    def forward(self, q, k):
        t = torch.arange(q.shape[-2], dtype=self.inv_freq.dtype)
        freqs = torch.einsum("i,j->ij", t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        return q * cos + self.rotate_half(q) * sin, k * cos + self.rotate_half(k) * sin


class Layer(nn.Module):
    def __init__(self, d=16, h=4):
        super().__init__()
        self.h, self.dh = h, d // h
        self.ln = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.rot = Rotary(self.dh)
        self.ffn = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 32), nn.GELU(), nn.Linear(32, d))

    def forward(self, x, pad):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln(x)).view(b, n, 3, self.h, self.dh).permute(2, 0, 3, 1, 4).unbind(0)
        q, k = self.rot(q * self.dh**-0.5, k)
        logits = q @ k.transpose(-1, -2)
        logits = logits.masked_fill(pad[:, None, None, :], float("-inf"))
        attn = logits.softmax(-1)
        y = (attn @ v).transpose(1, 2).reshape(b, n, d)
        x = x + self.out(y)
        return x + self.ffn(x), attn


emb = nn.Embedding(len(alphabet), 16, padding_idx=tok["<pad>"])
layers = nn.ModuleList([Layer(), Layer()])
print("rotary buffers", dict(layers[0].rot.named_buffers()).keys(), list(layers[0].state_dict().keys())[:2])
x = emb(batch) * (1 - pad_mask.unsqueeze(-1).type_as(emb.weight))
maps = []
for layer in layers:
    x, a = layer(x, pad_mask)
    maps.append(a)
attn = torch.stack(maps, 1)
print("attn", attn.shape, attn.sum(-1)[0, 0, 0].round(decimals=4).tolist(), attn[1, 0, 0, 0, -2:].tolist())
q = torch.randn(1, 1, 5, 4)
qr, kr = layers[0].rot(q, q)
print(
    "rotary keeps norms",
    torch.allclose(qr.norm(dim=-1), q.norm(dim=-1), atol=1e-6),
    "relative",
    round(((qr[0, 0, 1] * kr[0, 0, 3]).sum() - (qr[0, 0, 0] * kr[0, 0, 2]).sum()).item(), 3),
)


def apc(x):
    a1 = x.sum(-1, keepdims=True)
    a2 = x.sum(-2, keepdims=True)
    a12 = x.sum((-1, -2), keepdims=True)
    return x - a1 * a2 / a12


def symmetrize(x):
    return x + x.transpose(-1, -2)


eos_mask = batch.ne(tok["<eos>"]) & ~pad_mask
a = attn * eos_mask[:, None, None, :, None] * eos_mask[:, None, None, None, :]
a = a[..., 1:-1, 1:-1]
b, nl, nh, n, _ = a.shape
feats = apc(symmetrize(a.reshape(b, nl * nh, n, n))).permute(0, 2, 3, 1)
print("apc feats", feats.shape, round(feats[0].sum().item(), 4) + 0.0, round(feats[0, 2, 5].abs().sum().item(), 4))
head = nn.Linear(nl * nh, 1)
contacts = torch.sigmoid(head(feats).squeeze(-1))
print("contacts", contacts.shape, torch.allclose(contacts, contacts.transpose(1, 2)), contacts.grad_fn.name())

true = torch.zeros(n, n, dtype=torch.bool)
for i, j in [(0, 7), (1, 6), (2, 9), (0, 9), (3, 8)]:
    true[i, j] = true[j, i] = True
rows, cols = torch.triu_indices(n, n, offset=6)
probs = contacts[0, rows, cols]
top = probs.topk(n // 2).indices
print("triu", rows.tolist(), cols.tolist())
print("top-L/2 precision", round(true[rows[top], cols[top]].float().mean().item(), 4))
bce = F.binary_cross_entropy(probs, true[rows, cols].float())
bce.backward()
print("bce", round(bce.item(), 4), head.weight.grad.shape, round(head.weight.grad.abs().sum().item(), 4))

masked = batch.clone()
sel = torch.tensor([[False, True, False, False, True, False, False, False, False, False, False, False]] * 2) & ~pad_mask
masked[sel] = tok["<mask>"]
print("masked", masked[0].tolist(), sel.sum().item())
logits = emb(masked) @ emb.weight.T
mlm = F.cross_entropy(logits[sel], batch[sel])
print("mlm", round(mlm.item(), 4), round(math.exp(mlm.item()), 2) > 1)
try:
    layers[0].rot.rotate_half(torch.zeros(2, 3))[0, 5]
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.triu_indices(4, 4, offset=1, dtype=torch.float32)
except Exception as e:
    print(type(e).__name__, e)
