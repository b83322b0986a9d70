"""A CLIP text tower: token and positional embeddings, a causal mask built with torch.full/triu_, pre-LN blocks
via nn.TransformerEncoderLayer(norm_first=True) with the mask, EOT pooling through argmax of the token ids, and
text_projection; padding masks, gather-based pooling and the EOT trick's corner cases."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

VOCAB, CTX, WIDTH, HEADS, EMBED = 50, 8, 32, 4, 16
SOT, EOT = 48, 49


def build_causal_mask(n):
    mask = torch.empty(n, n)
    mask.fill_(float("-inf"))
    mask.triu_(1)
    return mask


class TextTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding = nn.Embedding(VOCAB, WIDTH)
        self.positional_embedding = nn.Parameter(torch.empty(CTX, WIDTH))
        layer = nn.TransformerEncoderLayer(
            WIDTH, HEADS, dim_feedforward=4 * WIDTH, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.transformer = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.ln_final = nn.LayerNorm(WIDTH)
        self.text_projection = nn.Parameter(torch.empty(WIDTH, EMBED))
        self.register_buffer("attn_mask", build_causal_mask(CTX), persistent=False)
        nn.init.normal_(self.token_embedding.weight, std=0.02)
        nn.init.normal_(self.positional_embedding, std=0.01)
        nn.init.normal_(self.text_projection, std=WIDTH**-0.5)

    def forward(self, text):
        x = self.token_embedding(text) + self.positional_embedding[: text.shape[1]]
        x = self.transformer(x, mask=self.attn_mask[: text.shape[1], : text.shape[1]])
        x = self.ln_final(x)
        pooled = x[torch.arange(x.shape[0]), text.argmax(dim=-1)]
        return pooled @ self.text_projection, x


def tokenize(seqs, context_length=CTX):
    out = torch.zeros(len(seqs), context_length, dtype=torch.long)
    for i, s in enumerate(seqs):
        toks = [SOT] + s + [EOT]
        toks = toks[:context_length]
        toks[-1] = EOT
        out[i, : len(toks)] = torch.tensor(toks)
    return out


mask = build_causal_mask(4)
print(mask)
print("mask dtype", mask.dtype, "finite", torch.isfinite(mask).sum().item())
bool_mask = torch.ones(4, 4, dtype=torch.bool).triu(1)
print(bool_mask.int().tolist())
print(nn.Transformer.generate_square_subsequent_mask(3))

text = tokenize([[3, 7, 9], [1], [4, 5, 6, 7, 8, 9, 10, 11], []])
print(text.tolist())
print("eot positions", text.argmax(dim=-1).tolist(), (text == EOT).nonzero().tolist())

model = TextTransformer().eval()
print(model.attn_mask.shape, "buffers", [n for n, _ in model.named_buffers()], list(model.state_dict())[:3])
emb, hidden = model(text)
print("emb", tuple(emb.shape), emb.dtype, "hidden", tuple(hidden.shape))
print("emb row sums", emb.sum(dim=-1).round(decimals=4).tolist())

# causality: changing a later token leaves the earlier hidden states unchanged
text2 = text.clone()
text2[0, 3] = 11
_, hidden2 = model(text2)
print(
    "prefix unchanged",
    torch.allclose(hidden[0, :3], hidden2[0, :3], atol=1e-6),
    "suffix changed",
    not torch.allclose(hidden[0, 3:], hidden2[0, 3:]),
)

# gather-based pooling equals advanced indexing
idx = text.argmax(dim=-1)
g = hidden.gather(1, idx[:, None, None].expand(-1, 1, hidden.shape[-1])).squeeze(1)
print("gather==index", torch.equal(g, hidden[torch.arange(4), idx]))
print("take_along_dim", torch.equal(torch.take_along_dim(hidden, idx[:, None, None], dim=1).squeeze(1), g))

# padding mask variant (key_padding_mask with the causal mask)
pad = text == 0
pad[:, 0] = False
out = model.transformer(model.token_embedding(text), mask=model.attn_mask, src_key_padding_mask=pad)
print("with padding", tuple(out.shape), round(out[:, 0].sum().item(), 4), bool(torch.isnan(out).any()))
print(
    "mean pool", (out * (~pad).unsqueeze(-1)).sum(1).div((~pad).sum(1, keepdim=True)).sum(-1).round(decimals=4).tolist()
)

model.train()
emb, _ = model(text)
F.normalize(emb, dim=-1).sum().backward()
print("tok grad rows nonzero", (model.token_embedding.weight.grad.abs().sum(1) > 0).sum().item())
print("pos grad", round(model.positional_embedding.grad.abs().sum().item(), 1))
print("proj grad", round(model.text_projection.grad.norm().item(), 4))

try:
    model.token_embedding(torch.tensor([[VOCAB]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    model.transformer(torch.randn(2, 8, WIDTH), mask=torch.zeros(5, 5))
except Exception as e:
    print(type(e).__name__, e)
try:
    model(text.float())
except Exception as e:
    print(type(e).__name__, e)
