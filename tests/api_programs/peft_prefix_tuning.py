"""Prefix and prompt tuning: learned key/value prefixes fed to attention, soft prompts, extended masks,
reparameterisation."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
B, T, D, H, P = 2, 5, 8, 2, 3
hd = D // H


class PrefixEncoder(nn.Module):
    """Reparameterised prefix: an embedding through an MLP, reshaped to per-layer key/value tensors."""

    def __init__(self, num_virtual_tokens, n_layers, d, hidden=16, projection=True):
        super().__init__()
        self.projection = projection
        self.embedding = nn.Embedding(num_virtual_tokens, d)
        if projection:
            self.transform = nn.Sequential(nn.Linear(d, hidden), nn.Tanh(), nn.Linear(hidden, n_layers * 2 * d))
        else:
            self.embedding = nn.Embedding(num_virtual_tokens, n_layers * 2 * d)

    def forward(self, prefix):
        e = self.embedding(prefix)
        return self.transform(e) if self.projection else e


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)

    def forward(self, x, past_kv=None, mask=None):
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (t.view(B, -1, H, hd).transpose(1, 2) for t in (q, k, v))
        if past_kv is not None:
            pk, pv = past_kv
            k = torch.cat([pk, k], dim=2)
            v = torch.cat([pv, v], dim=2)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(o.transpose(1, 2).reshape(B, -1, D)), k.shape


layers = nn.ModuleList(Attention() for _ in range(2)).requires_grad_(False)
enc = PrefixEncoder(P, 2, D)
prefix_ids = torch.arange(P).long().unsqueeze(0).expand(B, -1)
pkv = enc(prefix_ids)
print("raw", tuple(pkv.shape))
pkv = pkv.view(B, P, 2 * 2, H, hd).permute([2, 0, 3, 1, 4]).split(2)
print(len(pkv), tuple(pkv[0].shape))

x = torch.randn(B, T, D)
attn_mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
prefix_mask = torch.ones(B, P, dtype=attn_mask.dtype)
full_mask = torch.cat((prefix_mask, attn_mask), dim=1)
print("mask", full_mask.tolist())
causal = torch.ones(T, T, dtype=torch.bool).tril()
keep = torch.cat([torch.ones(T, P, dtype=torch.bool), causal], dim=1)
bool_mask = keep[None, None] & full_mask.bool()[:, None, None, :]
print("bool mask", tuple(bool_mask.shape), bool_mask.sum().item())
h = x
for i, layer in enumerate(layers):
    o, kshape = layer(h, past_kv=(pkv[i][0], pkv[i][1]), mask=bool_mask)
    h = h + o
print("k shape", tuple(kshape), "out", tuple(h.shape), h.grad_fn.name())
loss = h.pow(2).mean()
loss.backward()
print(
    "loss",
    round(loss.item(), 4),
    "emb grad",
    round(enc.embedding.weight.grad.norm().item(), 4),
    "frozen",
    layers[0].qkv.weight.grad,
)

# float additive mask gives the same result as the boolean one
float_mask = torch.zeros(bool_mask.shape).masked_fill(~bool_mask, float("-inf"))
with torch.no_grad():
    a, _ = layers[0](x, past_kv=(pkv[0][0], pkv[0][1]), mask=bool_mask)
    b, _ = layers[0](x, past_kv=(pkv[0][0], pkv[0][1]), mask=float_mask)
print("bool == float mask", torch.allclose(a, b, atol=1e-6))
print(torch.finfo(torch.float32).min, float_mask[1, 0, 0, -2:].tolist())

# prompt tuning: soft prompt concatenated to token embeddings, init from vocabulary
vocab = nn.Embedding(30, D).requires_grad_(False)
init_ids = torch.tensor([4, 9, 17])
prompt = nn.Embedding(P, D)
prompt.weight = nn.Parameter(vocab(init_ids).detach().clone())
ids = torch.tensor([[1, 2, 3, 0, 0], [5, 6, 7, 8, 9]])
inputs_embeds = torch.cat([prompt.weight.unsqueeze(0).expand(B, -1, -1), vocab(ids)], dim=1)
print("prompted", tuple(inputs_embeds.shape), inputs_embeds.requires_grad, inputs_embeds.grad_fn.name())
labels = torch.cat([torch.full((B, P), -100), ids], dim=1)
logits = inputs_embeds @ vocab.weight.T
loss = F.cross_entropy(logits.view(-1, 30), labels.view(-1), ignore_index=-100)
loss.backward()
print(
    "prompt loss",
    round(loss.item(), 4),
    "prompt grad",
    tuple(prompt.weight.grad.shape),
    round(prompt.weight.grad.abs().sum().item(), 4),
)
print("frozen vocab", vocab.weight.grad, "init copy", torch.equal(prompt.weight.detach(), vocab.weight[init_ids]))
emb_pt = nn.Embedding.from_pretrained(vocab.weight[init_ids], freeze=False)
print(emb_pt, emb_pt.weight.requires_grad, nn.Embedding.from_pretrained(torch.ones(2, 3)).weight.requires_grad)
print(nn.Embedding.from_pretrained(torch.ones(2, 3), padding_idx=1, max_norm=1.0))

enc2 = PrefixEncoder(P, 2, D, projection=False)
print(
    tuple(enc2(prefix_ids).shape), sum(p.numel() for p in enc2.parameters()), sum(p.numel() for p in enc.parameters())
)
try:
    F.scaled_dot_product_attention(
        torch.randn(B, H, T, hd),
        torch.randn(B, H, T + P, hd),
        torch.randn(B, H, T + P, hd),
        attn_mask=torch.ones(T, T, dtype=torch.bool),
    )
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.cat([torch.ones(B, P), attn_mask[:1]], dim=1)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    nn.Embedding.from_pretrained(torch.ones(3))
except AssertionError as e:
    print(type(e).__name__, e)
try:
    F.scaled_dot_product_attention(
        torch.randn(2, 4),
        torch.randn(2, 4),
        torch.randn(2, 4),
        is_causal=True,
        attn_mask=torch.ones(2, 2, dtype=torch.bool),
    )
except RuntimeError as e:
    print(type(e).__name__, e)
