"""A seeded BERT-style masked-language-model run as pretraining code writes it: random token corpora from
randint, the 80/10/10 masking recipe drawn with torch.rand/bernoulli/randint, a TransformerEncoder with dropout
in train mode (attention and feed-forward), label smoothing, AdamW with warmup, and eval-mode predictions."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(314)

V, T, B, d = 30, 10, 8, 32
PAD, MASK, CLS = 0, 1, 2
corpus = torch.randint(3, V, (64, T))
corpus[:, 0] = CLS
lengths = torch.randint(6, T + 1, (64,))
corpus[torch.arange(T).unsqueeze(0) >= lengths.unsqueeze(1)] = PAD
print("corpus", corpus[0].tolist(), "pads", (corpus == PAD).sum().item())


def mask_tokens(inputs, prob=0.15):
    labels = inputs.clone()
    special = (inputs == PAD) | (inputs == CLS)
    prob_matrix = torch.full(labels.shape, prob)
    prob_matrix.masked_fill_(special, 0.0)
    masked = torch.bernoulli(prob_matrix).bool()
    labels[~masked] = -100
    replaced = torch.bernoulli(torch.full(labels.shape, 0.8)).bool() & masked
    inputs = inputs.clone()
    inputs[replaced] = MASK
    rand_words = torch.bernoulli(torch.full(labels.shape, 0.5)).bool() & masked & ~replaced
    inputs[rand_words] = torch.randint(3, V, labels.shape)[rand_words]
    return inputs, labels, int(masked.sum()), int(replaced.sum()), int(rand_words.sum())


inp, lab, nm, nr, nw = mask_tokens(corpus[:4])
print("masked", nm, "replaced", nr, "random", nw)
print("input row", inp[0].tolist())
print("label row", lab[0].tolist())


class MLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, d, padding_idx=PAD)
        self.pos = nn.Parameter(torch.zeros(1, T, d))
        nn.init.trunc_normal_(self.pos, std=0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 64, dropout=0.1, batch_first=True, norm_first=True,
                                           activation="gelu")
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, V)
        self.head.weight = self.tok.weight

    def forward(self, x):
        h = self.tok(x) * math.sqrt(d) + self.pos[:, :x.size(1)]
        h = self.encoder(h, src_key_padding_mask=x == PAD)
        return self.head(self.norm(h))


model = MLM()
print("params", sum(p.numel() for p in model.parameters()), "pos std", round(model.pos.std().item(), 4))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
warmup, total = 5, 25
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / (total - warmup))))
for step in range(total):
    model.train()
    rows = torch.randperm(64)[:B]
    x, y, *_ = mask_tokens(corpus[rows])
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, V), y.view(-1), ignore_index=-100, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step % 5 == 0 or step == total - 1:
        print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.6f}")

model.eval()
with torch.no_grad():
    x, y, *_ = mask_tokens(corpus[:16])
    logits = model(x)
    sel = y != -100
    acc = (logits.argmax(-1)[sel] == y[sel]).float().mean().item()
    top5 = logits.topk(5, -1).indices[sel]
    hit5 = (top5 == y[sel].unsqueeze(-1)).any(-1).float().mean().item()
print("eval masked", int(sel.sum()), "acc", round(acc, 4), "top5", round(hit5, 4))
print("logits[0,1]", logits[0, 1, :6])
model.train()
with torch.no_grad():
    a = model(corpus[:2])
    b = model(corpus[:2])
print("train-mode dropout differs", not torch.equal(a, b), round((a - b).abs().max().item(), 4))
mha = nn.MultiheadAttention(d, 4, dropout=0.3, batch_first=True)
mha.train()
q = torch.randn(2, T, d)
out, w = mha(q, q, q)
print("attn dropout weights", w[0, 0], "row sums", w.sum(-1)[0, :3])
out2, _ = mha(q, q, q, need_weights=False)
print("no-weights out", round(out2.sum().item(), 4))
