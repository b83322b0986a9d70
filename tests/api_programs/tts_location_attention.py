"""Tacotron 2's location-sensitive attention: a conv over the previous and cumulative alignment, additive energies,
masking of padded encoder steps with -inf, softmax, and the context vector by bmm; gradients through all of it."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class LocationLayer(nn.Module):
    def __init__(self, n_filters=4, kernel=5, dim=6):
        super().__init__()
        self.conv = nn.Conv1d(2, n_filters, kernel, padding=(kernel - 1) // 2, bias=False)
        self.dense = nn.Linear(n_filters, dim, bias=False)

    def forward(self, cat_weights):
        return self.dense(self.conv(cat_weights).transpose(1, 2))


class Attention(nn.Module):
    def __init__(self, rnn_dim=8, emb_dim=10, dim=6):
        super().__init__()
        self.query_layer = nn.Linear(rnn_dim, dim, bias=False)
        self.memory_layer = nn.Linear(emb_dim, dim, bias=False)
        self.v = nn.Linear(dim, 1, bias=False)
        self.location = LocationLayer(dim=dim)
        self.score_mask_value = -float("inf")

    def energies(self, query, processed_memory, cat_weights):
        q = self.query_layer(query.unsqueeze(1))
        loc = self.location(cat_weights)
        return self.v(torch.tanh(q + loc + processed_memory)).squeeze(-1)

    def forward(self, query, memory, processed_memory, cat_weights, mask):
        e = self.energies(query, processed_memory, cat_weights)
        e = e.masked_fill(mask, self.score_mask_value)
        w = F.softmax(e, dim=1)
        ctx = torch.bmm(w.unsqueeze(1), memory).squeeze(1)
        return ctx, w


def get_mask_from_lengths(lengths):
    max_len = torch.max(lengths).item()
    ids = torch.arange(0, max_len, out=torch.LongTensor(max_len))
    return ids < lengths.unsqueeze(1)


B, T = 3, 7
lengths = torch.tensor([7, 5, 2])
mask = ~get_mask_from_lengths(lengths)
print(mask.dtype, mask.shape, mask.sum(1).tolist())
memory = torch.randn(B, T, 10, requires_grad=True)
attn = Attention()
processed = attn.memory_layer(memory)
w = torch.zeros(B, T)
w_cum = torch.zeros(B, T)
query = torch.randn(B, 8)
steps = []
for t in range(4):
    cat = torch.cat((w.unsqueeze(1), w_cum.unsqueeze(1)), dim=1)
    ctx, w = attn(query, memory, processed, cat, mask)
    w_cum = w_cum + w
    query = torch.tanh(query + ctx[:, :8])
    steps.append(w)
align = torch.stack(steps, dim=2)
print(align.shape, align.is_contiguous(), align.stride())
print(align[1].round(decimals=4))
print("padded zero:", bool((align[2, 2:] == 0).all()), "rows sum:", align.sum(1).round(decimals=4))
print("cumulative:", w_cum.round(decimals=4))
loss = (align * torch.linspace(0, 1, 4)).sum() + ctx.pow(2).mean()
loss.backward()
print(memory.grad[2, 2:].abs().sum().item(), memory.grad[0].norm().round(decimals=4))
print({n: p.grad.norm().round(decimals=4).item() for n, p in attn.named_parameters()})
print(align.grad_fn.name(), w.grad_fn.name(), ctx.grad_fn.name())

# All steps masked: softmax over all -inf gives nan, as Tacotron users discover on empty utterances.
bad = torch.full((1, 3), -float("inf"))
print(F.softmax(bad, dim=1), F.log_softmax(bad, dim=1))
e = torch.randn(2, 4).masked_fill(torch.tensor([[False, True, True, True], [False] * 4]), -1e4)
print(F.softmax(e, 1).round(decimals=4))
try:
    torch.randn(2, 4).masked_fill(torch.ones(2, 4), 0.0)
except RuntimeError as err:
    print(type(err).__name__, err)
try:
    torch.bmm(torch.randn(2, 1, 7), torch.randn(3, 7, 10))
except RuntimeError as err:
    print(type(err).__name__, err)
print(attn.location)
print(attn.location.conv.weight.shape, attn.location.conv.padding)
