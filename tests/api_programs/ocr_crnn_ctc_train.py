"""A CRNN text recogniser trained with CTC as OCR repositories write it: a VGG-style backbone that collapses the
height, permute to (T, N, C), a two-layer bidirectional LSTM with a Linear head, nn.CTCLoss over concatenated
1-D targets, clip_grad_norm_ on each step, and greedy decoding by argmax and unique_consecutive."""

import torch
from torch import nn

torch.manual_seed(0)
VOCAB = "-0123456789abc"  # index 0 is the CTC blank
char2idx = {c: i for i, c in enumerate(VOCAB)}


class CRNN(nn.Module):
    def __init__(self, n_classes, hidden=16):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 8, 3, 1, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(True), nn.MaxPool2d((2, 1), (2, 1)),
            nn.Conv2d(16, 16, (4, 1)), nn.ReLU(True),
        )
        self.rnn = nn.LSTM(16, hidden, num_layers=2, bidirectional=True, dropout=0.0)
        self.fc = nn.Linear(2 * hidden, n_classes)

    def forward(self, x):
        f = self.cnn(x)  # (N, C, 1, W')
        assert f.size(2) == 1, f.shape
        f = f.squeeze(2).permute(2, 0, 1)  # (T, N, C)
        out, (h, c) = self.rnn(f)
        return self.fc(out).log_softmax(2), h


def encode(words):
    flat = torch.tensor([char2idx[c] for w in words for c in w], dtype=torch.long)
    lengths = torch.tensor([len(w) for w in words], dtype=torch.long)
    return flat, lengths


def greedy(log_probs, lengths):
    best = log_probs.argmax(2).t()  # (N, T)
    out = []
    for seq, n in zip(best, lengths.tolist()):
        col = torch.unique_consecutive(seq[:n])
        out.append("".join(VOCAB[i] for i in col.tolist() if i != 0))
    return out


model = CRNN(len(VOCAB))
print(model.rnn)
print("params", sum(p.numel() for p in model.parameters()))
images = torch.rand(4, 1, 16, 32)
words = ["a1", "bc2", "0", "cab9"]
targets, target_lengths = encode(words)
print("targets", targets.tolist(), target_lengths.tolist())
criterion = nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)

model.train()
for step in range(6):
    log_probs, h = model(images)
    T, N, _ = log_probs.shape
    input_lengths = torch.full((N,), T, dtype=torch.long)
    loss = criterion(log_probs, targets, input_lengths, target_lengths)
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
    opt.step()
    print(step, "loss", round(loss.item(), 4), "norm", round(norm.item(), 4), loss.grad_fn.name())

print("log_probs", tuple(log_probs.shape), "h", tuple(h.shape), log_probs.dtype)
model.eval()
with torch.no_grad():
    lp, _ = model(images)
    per = nn.CTCLoss(reduction="none")(lp, targets, input_lengths, target_lengths)
print("eval per-sample", per.round(decimals=4).tolist())
print("eval sum", round(nn.CTCLoss(reduction="sum")(lp, targets, input_lengths, target_lengths).item(), 4))
print("bn running_mean", model.cnn[1].running_mean.round(decimals=4).tolist())
print("num_batches_tracked", model.cnn[1].num_batches_tracked.item())
decoded = greedy(lp, input_lengths)
print("decoded lengths", [len(d) for d in decoded])
print("argmax row0", lp.argmax(2)[:, 0].tolist())
probs = lp.exp().max(2).values.t()
print("confidence", probs.prod(1).round(decimals=4).tolist())
