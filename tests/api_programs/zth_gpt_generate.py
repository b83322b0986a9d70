"""gpt.py from "Let's build GPT": Head, MultiHeadAttention, FeedFoward, Block; generate with temperature and top-k.

Training under estimate_loss (@torch.no_grad, model.eval()/train()), then sampling from a seeded Generator.
"""

import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(1337)
batch_size, block_size, n_embd, n_head, n_layer, dropout = 4, 8, 16, 2, 2, 0.1
text = "first citizen: before we proceed any further, hear me speak. all: speak, speak. " * 4
chars = sorted(list(set(text)))
vocab_size = len(chars)
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for i, ch in enumerate(chars)}
encode = lambda s: [stoi[c] for c in s]  # noqa: E731
decode = lambda l: "".join([itos[i] for i in l])  # noqa: E731, E741
data = torch.tensor(encode(text), dtype=torch.long)
n = int(0.9 * len(data))
train_data, val_data = data[:n], data[n:]
print(vocab_size, data.shape, data.dtype, data[:10], decode(data[:10].tolist()))


def get_batch(split):
    data = train_data if split == "train" else val_data
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i : i + block_size] for i in ix])
    y = torch.stack([data[i + 1 : i + block_size + 1] for i in ix])
    return x, y


class Head(nn.Module):
    def __init__(self, head_size):
        super().__init__()
        self.key = nn.Linear(n_embd, head_size, bias=False)
        self.query = nn.Linear(n_embd, head_size, bias=False)
        self.value = nn.Linear(n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        B, T, C = x.shape
        k, q = self.key(x), self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = self.dropout(F.softmax(wei, dim=-1))
        return wei @ self.value(x)


class MultiHeadAttention(nn.Module):
    def __init__(self, num_heads, head_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
        self.proj = nn.Linear(head_size * num_heads, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        return self.dropout(self.proj(out))


class FeedFoward(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd), nn.ReLU(), nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout)
        )

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.sa = MultiHeadAttention(n_head, n_embd // n_head)
        self.ffwd = FeedFoward(n_embd)
        self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        return x + self.ffwd(self.ln2(x))


class GPTLanguageModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
        self.position_embedding_table = nn.Embedding(block_size, n_embd)
        self.blocks = nn.Sequential(*[Block(n_embd, n_head=n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        B, T = idx.shape
        x = self.token_embedding_table(idx) + self.position_embedding_table(torch.arange(T))
        logits = self.lm_head(self.ln_f(self.blocks(x)))
        if targets is None:
            return logits, None
        B, T, C = logits.shape
        return logits, F.cross_entropy(logits.view(B * T, C), targets.view(B * T))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1, generator=generator)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


@torch.no_grad()
def estimate_loss(eval_iters=3):
    out = {}
    model.eval()
    for split in ["train", "val"]:
        losses = torch.zeros(eval_iters)
        for k in range(eval_iters):
            X, Y = get_batch(split)
            logits, loss = model(X, Y)
            losses[k] = loss.item()
        out[split] = losses.mean()
    model.train()
    return out


model = GPTLanguageModel()
print(sum(p.numel() for p in model.parameters()) / 1e6, "M parameters", model.training, model.blocks[0].sa.training)
print(model.blocks[0].sa.heads[0], len(model.state_dict()), [k for k in model.state_dict() if "tril" in k][:2])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for it in range(6):
    if it % 3 == 0:
        losses = estimate_loss()
        print(f"step {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}", losses["val"].dtype)
    xb, yb = get_batch("train")
    logits, loss = model(xb, yb)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
print(model.training, estimate_loss.__name__, logits.shape, loss.requires_grad)

model.eval()
g = torch.Generator().manual_seed(42)
context = torch.zeros((1, 1), dtype=torch.long)
out = model.generate(context, max_new_tokens=20, generator=g)
print(out.shape, out.dtype, out.requires_grad, len(decode(out[0].tolist())))
out = model.generate(torch.zeros((2, 1), dtype=torch.long), 12, temperature=0.8, top_k=3, generator=g)
print(out.shape, out[:, :1].tolist())
logits = torch.tensor([[1.0, 3.0, 2.0, 3.0, 0.5], [0.0, 0.0, 0.0, 0.0, 1.0]])
v, ix = torch.topk(logits, 2)
print(v, ix, v[:, [-1]], v[:, -1].shape, v[:, [-1]].shape)
logits[logits < v[:, [-1]]] = -float("Inf")
print(logits, F.softmax(logits, dim=-1))
print(torch.multinomial(F.softmax(logits, dim=-1), 2, generator=g), torch.topk(logits, 2, dim=0).indices)
print(torch.topk(torch.tensor([1.0, 3, 3, 2]), 3, sorted=True), torch.topk(torch.tensor([2, 1, 3]), 2, largest=False))
try:
    torch.topk(logits, 6)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    model(torch.zeros((1, block_size + 1), dtype=torch.long))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, e)
