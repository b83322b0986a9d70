"""TabTransformer: contextual embeddings of categorical columns (shared column embedding), numeric features
layer-normed, concatenated into an MLP; masked-feature pretraining as in SAINT/VIME."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class ColumnEmbedding(nn.Module):
    """Each column has its own vocabulary (offsets into one table) plus a shared per-column identifier."""

    def __init__(self, cards, d, d_shared):
        super().__init__()
        self.register_buffer("offsets", torch.cumsum(torch.tensor([0] + cards[:-1]), 0))
        self.values = nn.Embedding(sum(cards) + 1, d - d_shared, padding_idx=sum(cards))  # last row: [MASK]
        self.shared = nn.Parameter(torch.randn(len(cards), d_shared) * 0.02)
        self.mask_id = sum(cards)

    def forward(self, x_cat, mask=None):
        ids = x_cat + self.offsets
        if mask is not None:
            ids = ids.masked_fill(mask, self.mask_id)
        v = self.values(ids)
        return torch.cat([v, self.shared.expand(x_cat.shape[0], -1, -1)], dim=-1)


class TabTransformer(nn.Module):
    def __init__(self, cards, n_num, d=8, d_shared=2, depth=2, heads=2):
        super().__init__()
        self.emb = ColumnEmbedding(cards, d, d_shared)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, activation=F.gelu)
        self.transformer = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.num_norm = nn.LayerNorm(n_num)
        self.mlp = nn.Sequential(nn.Linear(len(cards) * d + n_num, 16), nn.SELU(), nn.Linear(16, 1))
        self.recon = nn.ModuleList(nn.Linear(d, c) for c in cards)

    def contextual(self, x_cat, mask=None):
        return self.transformer(self.emb(x_cat, mask))

    def forward(self, x_cat, x_num):
        h = self.contextual(x_cat).flatten(1)
        return self.mlp(torch.cat([h, self.num_norm(x_num)], 1)).squeeze(-1)


cards = [4, 6, 3, 5]
x_cat = torch.stack([torch.randint(0, c, (48,)) for c in cards], 1)
x_num = torch.randn(48, 2) * torch.tensor([5.0, 0.1])
y = ((x_cat[:, 0] == 1) | (x_num[:, 0] > 2)).float()
model = TabTransformer(cards, 2)
print("offsets", model.emb.offsets.tolist(), "mask id", model.emb.mask_id, model.emb.values)
print(
    "activation", model.transformer.layers[0].activation is F.gelu, model.transformer.layers[0].activation_relu_or_gelu
)
print("padding row", model.emb.values.weight[model.emb.mask_id].abs().sum().item())

# 1) masked-feature pretraining: corrupt 30% of cells, reconstruct the original category per column
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
g = torch.Generator().manual_seed(0)
for step in range(10):
    mask = torch.rand(x_cat.shape, generator=g) < 0.3
    h = model.contextual(x_cat, mask)
    losses = [
        F.cross_entropy(head(h[:, j])[mask[:, j]], x_cat[mask[:, j], j])
        for j, head in enumerate(model.recon)
        if mask[:, j].any()
    ]
    loss = torch.stack(losses).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 3 == 0:
        print("pretrain", step, round(loss.item(), 4), int(mask.sum()))
print("mask row grad", model.emb.values.weight.grad[model.emb.mask_id].abs().sum().item())

# 2) fine-tune with a frozen embedding table and a fresh optimizer for the rest
model.emb.values.weight.requires_grad_(False)
trainable = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(trainable, lr=1e-2)
print("trainable", len(trainable), sum(p.numel() for p in trainable))
for step in range(12):
    logit = model(x_cat, x_num)
    loss = F.binary_cross_entropy_with_logits(logit, y, pos_weight=torch.tensor(2.0))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 4 == 0:
        print("finetune", step, round(loss.item(), 4))
print("frozen grad", model.emb.values.weight.grad is None or model.emb.values.weight.grad.abs().sum().item())
model.eval()
with torch.no_grad():
    p = torch.sigmoid(model(x_cat, x_num))
print("probs", p[:5].round(decimals=4).tolist(), "acc", round(((p > 0.5).float() == y).float().mean().item(), 4))
with torch.inference_mode():
    ctx = model.contextual(x_cat[:2])
print("inference", ctx.shape, ctx.is_inference(), ctx.requires_grad)
print(model.num_norm, model.mlp)
for name, fn in [
    ("unknown category", lambda: model(x_cat + torch.tensor([0, 0, 0, 100]), x_num)),
    ("inference tensor in autograd", lambda: (ctx * torch.ones(1, requires_grad=True)).sum().backward()),
    ("num feature count", lambda: model(x_cat, x_num[:, :1])),
]:
    try:
        fn()
        print(name, "ok")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
