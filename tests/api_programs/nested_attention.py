"""Variable-length sequences through self-attention on jagged nested tensors, checked against padded attention."""
import math

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

V, E, H = 20, 16, 4
lengths = [5, 2, 7]
tokens = [torch.randint(1, V, (n,)) for n in lengths]


class JaggedSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(E, 3 * E)
        self.proj = nn.Linear(E, E)
        self.norm = nn.LayerNorm(E)
        self.ff = nn.Sequential(nn.Linear(E, 2 * E), nn.GELU(), nn.Dropout(0.1), nn.Linear(2 * E, E))

    def forward(self, x):
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        q, k, v = (t.contiguous().unflatten(-1, (H, E // H)).transpose(1, 2) for t in (q, k, v))
        o = F.scaled_dot_product_attention(q, k, v, dropout_p=0.0)
        x = x + self.proj(o.transpose(1, 2).flatten(-2))
        return x + self.ff(x)


emb = nn.Embedding(V, E)
block = JaggedSelfAttention().eval()
ids = torch.nested.nested_tensor(tokens, layout=torch.jagged)
print(ids.dtype, ids.shape[0], ids.offsets().tolist(), ids.dim())
x = emb(ids)
print(x.shape[-1], x.is_nested, type(x.grad_fn).__name__)
q = block.qkv(x).chunk(3, dim=-1)[0].unflatten(-1, (H, E // H)).transpose(1, 2)
print(q.dim(), q.shape[1], q.shape[3], q.is_contiguous(), q.transpose(1, 2).is_contiguous())
try:
    F.scaled_dot_product_attention(q, q, q)  # a chunk's view: not contiguous once transposed back
except RuntimeError as e:
    print("RuntimeError", e)
q = q.transpose(1, 2).contiguous().transpose(1, 2)
print(q.is_contiguous(), q.transpose(1, 2).is_contiguous())
y = block(x)
print(y.shape[0], y.shape[2], y.values().shape, type(y.grad_fn).__name__)

# the same block on a padded batch with a key-padding mask gives the same outputs where tokens exist
pad = x.to_padded_tensor(0.0)
keep = torch.arange(pad.shape[1])[None] < torch.tensor(lengths)[:, None]


def padded_block(xp):
    qp, kp, vp = block.qkv(block.norm(xp)).chunk(3, dim=-1)
    qp, kp, vp = (t.unflatten(-1, (H, E // H)).transpose(1, 2) for t in (qp, kp, vp))
    op = F.scaled_dot_product_attention(qp, kp, vp, attn_mask=keep[:, None, None, :])
    xp = xp + block.proj(op.transpose(1, 2).flatten(-2))
    return xp + block.ff(xp)


ref = padded_block(pad)
print(torch.allclose(y.to_padded_tensor(0.0)[keep], ref[keep], atol=1e-5))
print([round(t.sum().item(), 4) for t in y.unbind()])

# attention weights by hand for one sequence: softmax(q k^T / sqrt(d)) v
qs, ks = q.unbind()[1], block.qkv(x).chunk(3, dim=-1)[1].unbind()[1].unflatten(-1, (H, E // H)).transpose(0, 1)
w = torch.softmax(qs @ ks.transpose(-2, -1) / math.sqrt(E // H), dim=-1)
print(w.shape, w.sum(-1).round(decimals=4).tolist())

# sequence classification: mean over each sequence's tokens, then a linear head
head = nn.Linear(E, 3)
pooled = torch.stack([t.mean(0) for t in y.unbind()])
logits = head(pooled)
print(logits.round(decimals=4).tolist())
loss = F.cross_entropy(logits, torch.tensor([2, 0, 1]))
loss.backward()
print(round(loss.item(), 4), round(emb.weight.grad.abs().sum().item(), 4),
      round(block.qkv.weight.grad.norm().item(), 4), round(block.norm.weight.grad.abs().sum().item(), 4))
print(int((emb.weight.grad.abs().sum(1) > 0).sum()), len(set(torch.cat(tokens).tolist())))

# gradients reach each sequence's own embeddings through as_nested_tensor
parts = [emb(t).detach().requires_grad_() for t in tokens]
z = block(torch.nested.as_nested_tensor(parts, layout=torch.jagged))
(z.values() ** 2).sum().backward()
print([tuple(p.grad.shape) for p in parts], [round(p.grad.abs().sum().item(), 3) for p in parts])

# what PyTorch's jagged attention refuses
for bad in (lambda: F.scaled_dot_product_attention(q, q, q, is_causal=True),
            lambda: F.scaled_dot_product_attention(q, torch.randn(3, H, 7, E // H), q),
            lambda: F.scaled_dot_product_attention(q, q.to(torch.float64), q),
            lambda: q @ q.transpose(-2, -1),
            lambda: x.softmax(0),
            lambda: x.chunk(2, 1)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).replace(str(x.size(1)), "j"))
