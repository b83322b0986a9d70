"""Seeded text generation from a small character language model, as nanoGPT-style sampling scripts do it:
train briefly on a toy corpus, then sample with temperature, top-k and nucleus (top-p) filtering through
torch.multinomial, greedy decoding, repetition penalty, and per-token log-probabilities of the samples."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(1337)

text = "the cat sat on the mat. the dog sat on the log. a cat and a dog met on a mat. "
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
vocab, block = len(chars), 12
print("vocab", vocab, "tokens", len(data))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True, dropout=0.1)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d), nn.Dropout(0.1))

    def forward(self, x):
        t = x.size(1)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, d=32, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(block, d)
        self.drop = nn.Dropout(0.1)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.apply(self._init)

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, idx):
        t = idx.size(1)
        x = self.drop(self.tok(idx) + self.pos(torch.arange(t)))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


model = TinyGPT()
print("params", sum(p.numel() for p in model.parameters()))
print("head init", round(model.head.weight.std().item(), 4), round(model.tok.weight.mean().item(), 4))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)


def get_batch(bs=16):
    ix = torch.randint(len(data) - block - 1, (bs,))
    x = torch.stack([data[i:i + block] for i in ix])
    y = torch.stack([data[i + 1:i + block + 1] for i in ix])
    return x, y


for step in range(25):
    xb, yb = get_batch()
    logits = model(xb)
    loss = F.cross_entropy(logits.view(-1, vocab), yb.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 8 == 0 or step == 24:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()


def top_k_filter(logits, k):
    v, _ = torch.topk(logits, k)
    return logits.masked_fill(logits < v[:, [-1]], float("-inf"))


def top_p_filter(logits, p):
    sorted_logits, sorted_idx = torch.sort(logits, descending=True)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    remove = cum > p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = False
    mask = remove.scatter(1, sorted_idx, remove)
    return logits.masked_fill(mask, float("-inf"))


@torch.no_grad()
def generate(prompt, n, temperature=1.0, top_k=None, top_p=None, greedy=False, penalty=1.0):
    idx = torch.tensor([[stoi[c] for c in prompt]])
    logps = []
    for _ in range(n):
        logits = model(idx[:, -block:])[:, -1, :]
        if penalty != 1.0:
            prev = logits.gather(1, idx)
            logits = logits.scatter(1, idx, torch.where(prev > 0, prev / penalty, prev * penalty))
        logits = logits / temperature
        if top_k is not None:
            logits = top_k_filter(logits, top_k)
        if top_p is not None:
            logits = top_p_filter(logits, top_p)
        probs = F.softmax(logits, dim=-1)
        nxt = probs.argmax(-1, keepdim=True) if greedy else torch.multinomial(probs, num_samples=1)
        logps.append(probs.gather(1, nxt).log().item())
        idx = torch.cat([idx, nxt], dim=1)
    return "".join(itos[i] for i in idx[0].tolist()), sum(logps) / len(logps)


for name, kw in [("greedy", dict(greedy=True)), ("t=1.0", {}), ("t=0.7", dict(temperature=0.7)),
                 ("t=1.5", dict(temperature=1.5)), ("top_k=3", dict(top_k=3)), ("top_p=0.9", dict(top_p=0.9)),
                 ("k5 p0.8 t0.8", dict(top_k=5, top_p=0.8, temperature=0.8)), ("penalty", dict(penalty=1.3))]:
    torch.manual_seed(42)
    out, avg = generate("the ", 16, **kw)
    print(f"{name:<14} {out!r} avg_logp={avg:.4f}")

torch.manual_seed(0)
batch_logits = torch.randn(4, vocab)
probs = F.softmax(batch_logits / 0.8, dim=-1)
print("batch multinomial", torch.multinomial(probs, 3, replacement=False).tolist())
print("top_k mask count", torch.isinf(top_k_filter(batch_logits, 4)).sum(-1).tolist())
print("top_p mask count", torch.isinf(top_p_filter(batch_logits, 0.5)).sum(-1).tolist())
g = torch.Generator().manual_seed(5)
print("gen multinomial", torch.multinomial(probs, 2, replacement=True, generator=g).tolist())
gumbel = -torch.empty_like(batch_logits).exponential_().log()
print("gumbel-max", (batch_logits + gumbel).argmax(-1).tolist())
