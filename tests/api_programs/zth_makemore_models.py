"""makemore.py's model zoo: Bigram, MLP with torch.roll contexts, BoW with a causal mask, hand-written RNN/GRU cells.

CharDataset with an InfiniteDataLoader over RandomSampler(replacement=True), evaluate() and the sampling loop.
"""

import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(3407)
words = "emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily ella avery".split()
chars = sorted(list(set("".join(words))))
max_word_length = max(len(w) for w in words)


class CharDataset(Dataset):
    def __init__(self, words, chars, max_word_length):
        self.words, self.chars, self.max_word_length = words, chars, max_word_length
        self.stoi = {ch: i + 1 for i, ch in enumerate(chars)}
        self.itos = {i: s for s, i in self.stoi.items()}

    def __len__(self):
        return len(self.words)

    def get_vocab_size(self):
        return len(self.chars) + 1

    def get_output_length(self):
        return self.max_word_length + 1

    def encode(self, word):
        return torch.tensor([self.stoi[w] for w in word], dtype=torch.long)

    def decode(self, ix):
        return "".join(self.itos[i] for i in ix)

    def __getitem__(self, idx):
        ix = self.encode(self.words[idx])
        x = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        y = torch.zeros(self.max_word_length + 1, dtype=torch.long)
        x[1 : 1 + len(ix)] = ix
        y[: len(ix)] = ix
        y[len(ix) + 1 :] = -1
        return x, y


class InfiniteDataLoader:
    def __init__(self, dataset, **kwargs):
        train_sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=int(1e10))
        self.train_loader = DataLoader(dataset, sampler=train_sampler, **kwargs)
        self.data_iter = iter(self.train_loader)

    def next(self):
        try:
            batch = next(self.data_iter)
        except StopIteration:
            self.data_iter = iter(self.train_loader)
            batch = next(self.data_iter)
        return batch


ds = CharDataset(words, chars, max_word_length)
V, T = ds.get_vocab_size(), ds.get_output_length()
x, y = ds[0]
print(V, T, x, y, ds.decode([5, 13, 13, 1]))
loader = InfiniteDataLoader(ds, batch_size=4, pin_memory=False, num_workers=0)
X, Y = loader.next()
print(X.shape, Y.shape, Y.dtype, (Y == -1).sum(), len(loader.train_loader.sampler), X[0])


class MLP(nn.Module):
    def __init__(self, block_size=3, n_embd=8, n_embd2=16):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(V + 1, n_embd)
        self.mlp = nn.Sequential(nn.Linear(block_size * n_embd, n_embd2), nn.Tanh(), nn.Linear(n_embd2, V))

    def forward(self, idx, targets=None):
        embs = []
        for k in range(self.block_size):
            tok_emb = self.wte(idx)
            idx = torch.roll(idx, 1, 1)
            idx[:, 0] = V  # special <BLANK> token
            embs.append(tok_emb)
        x = torch.cat(embs, -1)
        logits = self.mlp(x)
        loss = (
            None
            if targets is None
            else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        )
        return logits, loss


class RNNCell(nn.Module):
    def __init__(self, n_embd, n_embd2):
        super().__init__()
        self.xh_to_h = nn.Linear(n_embd + n_embd2, n_embd2)

    def forward(self, xt, hprev):
        return F.tanh(self.xh_to_h(torch.cat([xt, hprev], dim=1)))


class GRUCell(nn.Module):
    def __init__(self, n_embd, n_embd2):
        super().__init__()
        self.xh_to_z = nn.Linear(n_embd + n_embd2, n_embd2)
        self.xh_to_r = nn.Linear(n_embd + n_embd2, n_embd2)
        self.xh_to_hbar = nn.Linear(n_embd + n_embd2, n_embd2)

    def forward(self, xt, hprev):
        xh = torch.cat([xt, hprev], dim=1)
        r = F.sigmoid(self.xh_to_r(xh))
        xhr = torch.cat([xt, r * hprev], dim=1)
        hbar = F.tanh(self.xh_to_hbar(xhr))
        z = F.sigmoid(self.xh_to_z(xh))
        return (1 - z) * hprev + z * hbar


class RNN(nn.Module):
    def __init__(self, cell_type, n_embd=8, n_embd2=16):
        super().__init__()
        self.start = nn.Parameter(torch.zeros(1, n_embd2))
        self.wte = nn.Embedding(V, n_embd)
        self.cell = RNNCell(n_embd, n_embd2) if cell_type == "rnn" else GRUCell(n_embd, n_embd2)
        self.lm_head = nn.Linear(n_embd2, V)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        emb = self.wte(idx)
        hprev = self.start.expand((b, -1))
        hiddens = []
        for i in range(t):
            hprev = self.cell(emb[:, i, :], hprev)
            hiddens.append(hprev)
        logits = self.lm_head(torch.stack(hiddens, 1))
        loss = (
            None
            if targets is None
            else F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        )
        return logits, loss


@torch.inference_mode()
def evaluate(model, dataset, batch_size=5, max_batches=None):
    model.eval()
    loader = DataLoader(dataset, shuffle=True, batch_size=batch_size, num_workers=0)
    losses = []
    for i, batch in enumerate(loader):
        logits, loss = model(*batch)
        losses.append(loss.item())
        if max_batches is not None and i >= max_batches:
            break
    mean_loss = torch.tensor(losses).mean().item()
    model.train()
    return mean_loss


@torch.no_grad()
def generate(model, idx, max_new_tokens, top_k=None):
    for _ in range(max_new_tokens):
        logits, _ = model(idx)
        logits = logits[:, -1, :]
        if top_k is not None:
            v, _ = torch.topk(logits, top_k)
            logits[logits < v[:, [-1]]] = -float("Inf")
        idx_next = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


for name, model in [("mlp", MLP()), ("rnn", RNN("rnn")), ("gru", RNN("gru"))]:
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01, betas=(0.9, 0.99), eps=1e-8)
    for step in range(8):
        X, Y = loader.next()
        logits, loss = model(X, Y)
        model.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    ev = evaluate(model, ds, max_batches=2)
    print(
        name,
        logits.shape,
        round(loss.item(), 4),
        round(ev, 4),
        model.training,
        sum(p.numel() for p in model.parameters()),
    )
    X_samp = generate(model, torch.zeros(3, 1, dtype=torch.long), T, top_k=4)
    for i in range(X_samp.size(0)):
        row = X_samp[i, 1:].tolist()
        crop_index = row.index(0) if 0 in row else len(row)
        print(" ", len(ds.decode(row[:crop_index])) <= T, X_samp.dtype)
print(model.start.grad.shape, model.start.expand(4, -1).stride(), torch.is_inference_mode_enabled())
with torch.inference_mode():
    t = model.start * 2
print(t.is_inference(), t.requires_grad, model.start.is_inference())
try:
    t.add_(1) if False else (t * model.start).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
idx = torch.arange(6).view(2, 3)
r = torch.roll(idx, 1, 1)
r[:, 0] = 99
print(r, idx, torch.roll(idx, shifts=(1, -1), dims=(0, 1)), torch.roll(idx, 4))
