"""FT-Transformer: a feature tokenizer for numeric and categorical columns, a CLS token and a pre-norm encoder."""

import math
import warnings

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class FeatureTokenizer(nn.Module):
    def __init__(self, n_num, cards, d):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_num, d))
        self.bias = nn.Parameter(torch.empty(n_num + len(cards), d))
        offs = torch.tensor([0] + cards[:-1]).cumsum(0)
        self.register_buffer("category_offsets", offs, persistent=False)
        self.cat_emb = nn.Embedding(sum(cards), d)
        self.cls = nn.Parameter(torch.empty(1, 1, d))
        for p in (self.weight, self.bias, self.cls):
            nn.init.kaiming_uniform_(p, a=math.sqrt(5))

    def forward(self, x_num, x_cat):
        num_tok = self.weight[None] * x_num[:, :, None]
        cat_tok = self.cat_emb(x_cat + self.category_offsets[None])
        tok = torch.cat([num_tok, cat_tok], dim=1) + self.bias[None]
        return torch.cat([self.cls.expand(len(tok), -1, -1), tok], dim=1)


class FTTransformer(nn.Module):
    def __init__(self, n_num, cards, d=8, heads=2, layers=2, n_out=3):
        super().__init__()
        self.tok = FeatureTokenizer(n_num, cards, d)
        layer = nn.TransformerEncoderLayer(
            d, heads, dim_feedforward=2 * d, dropout=0.0, activation="gelu", batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d), enable_nested_tensor=False)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(d, n_out))

    def forward(self, x_num, x_cat, pad=None):
        h = self.encoder(self.tok(x_num, x_cat), src_key_padding_mask=pad)
        return self.head(h[:, 0])


cards = [3, 5, 2]
model = FTTransformer(4, cards)
print(model.tok.category_offsets.tolist(), list(model.tok.state_dict().keys()))
print(model.encoder.layers[0])
print("params", sum(p.numel() for p in model.parameters()), "layers", len(model.encoder.layers))
print("layer params distinct", model.encoder.layers[0].linear1.weight is not model.encoder.layers[1].linear1.weight)

x_num = torch.randn(16, 4)
x_cat = torch.stack([torch.randint(0, c, (16,)) for c in cards], 1)
y = (x_num[:, 0] > 0).long() + (x_cat[:, 1] > 2).long()
tokens = model.tok(x_num, x_cat)
print("tokens", tuple(tokens.shape), tokens.grad_fn.name())

# parameter groups: no weight decay for tokenizer, norms and biases (as in the paper)
no_decay = [p for n, p in model.named_parameters() if n.startswith("tok") or "norm" in n or n.endswith(".bias")]
decay = [p for n, p in model.named_parameters() if not (n.startswith("tok") or "norm" in n or n.endswith(".bias"))]
opt = torch.optim.AdamW([{"params": decay, "weight_decay": 1e-5}, {"params": no_decay, "weight_decay": 0.0}], lr=3e-3)
print("groups", len(decay), len(no_decay), [g["weight_decay"] for g in opt.param_groups])
for step in range(8):
    opt.zero_grad()
    loss = F.cross_entropy(model(x_num, x_cat), y)
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 2 == 0:
        print(step, round(loss.item(), 4), round(gn.item(), 4))

model.eval()
with torch.no_grad():
    pad = torch.zeros(16, 8, dtype=torch.bool)
    pad[:, -1] = True
    out_pad = model(x_num, x_cat, pad)
    fpad = torch.zeros(16, 8).masked_fill(pad, float("-inf"))
    out_fpad = model(x_num, x_cat, fpad)
    print("bool vs float mask", torch.allclose(out_pad, out_fpad, atol=1e-5), tuple(out_pad.shape))
    print("pred", model(x_num, x_cat).argmax(1).tolist())
    # attention maps of the first layer for interpretability
    attn = model.encoder.layers[0].self_attn
    h = model.encoder.layers[0].norm1(model.tok(x_num, x_cat))
    _, w = attn(h, h, h, need_weights=True, average_attn_weights=False)
    _, wa = attn(h, h, h)
    print("attn", tuple(w.shape), tuple(wa.shape), torch.allclose(w.mean(1), wa, atol=1e-6))
    print(
        "cls attention sums", w[:, :, 0].sum(-1).mean().item() > 0.99, "importance", tuple(wa[:, 0, 1:].mean(0).shape)
    )

with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, batch_first=True, norm_first=True), 1)
print("nested", enc.use_nested_tensor, len(rec) > 0)
for name, fn in [
    ("heads", lambda: nn.TransformerEncoderLayer(8, 3)),
    ("activation", lambda: nn.TransformerEncoderLayer(8, 2, activation="swish")),
    ("mask shape", lambda: model.encoder(tokens.detach(), src_key_padding_mask=torch.zeros(16, 7, dtype=torch.bool))),
    ("mask dtype", lambda: model.encoder(tokens.detach(), src_key_padding_mask=torch.zeros(16, 8, dtype=torch.long))),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
