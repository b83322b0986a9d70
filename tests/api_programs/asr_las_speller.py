"""A Listen-Attend-Spell speller stepped by hand: a GRUCell/LSTMCell decoder with location-aware attention
(Conv1d over the previous alignment, additive energies, length masks), teacher forcing with a seeded scheduled
sampling draw, label-smoothed NLL by hand against F.cross_entropy, the cells' grad_fn names and unbatched calls,
a joint CTC term and what create_graph asks of CTC, and greedy decoding until every hypothesis emits eos."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, D, A = 7, 12, 8
SOS = EOS = V - 1


class LocationAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k = nn.Linear(D, A, bias=False), nn.Linear(D, A)
        self.loc_conv = nn.Conv1d(1, 4, 5, padding=2, bias=False)
        self.loc = nn.Linear(4, A, bias=False)
        self.v = nn.Linear(A, 1)

    def forward(self, query, keys, prev, mask):
        loc = self.loc(self.loc_conv(prev.unsqueeze(1)).transpose(1, 2))
        e = self.v(torch.tanh(self.q(query).unsqueeze(1) + self.k(keys) + loc)).squeeze(-1)
        e = e.masked_fill(mask, float("-inf"))
        w = F.softmax(e, dim=-1)
        return torch.bmm(w.unsqueeze(1), keys).squeeze(1), w


class Speller(nn.Module):
    def __init__(self, cell="gru"):
        super().__init__()
        self.embed = nn.Embedding(V, D)
        self.cell = nn.GRUCell(2 * D, D) if cell == "gru" else nn.LSTMCell(2 * D, D)
        self.att, self.out = LocationAttention(), nn.Linear(2 * D, V)

    def step(self, y, state, ctx, keys, prev, mask):
        inp = torch.cat([self.embed(y), ctx], -1)
        state = self.cell(inp, state)
        h = state if isinstance(state, torch.Tensor) else state[0]
        ctx, w = self.att(h, keys, prev, mask)
        return self.out(torch.cat([h, ctx], -1)), state, ctx, w


B, T = 2, 9
keys = torch.randn(B, T, D)
lens = torch.tensor([9, 6])
mask = torch.arange(T) >= lens[:, None]
ys = torch.tensor([[1, 2, 3, EOS], [4, 5, EOS, EOS]])
for kind in ("gru", "lstm"):
    torch.manual_seed(1)
    sp = Speller(kind)
    prev = (~mask).float() / lens[:, None]
    y, state, ctx = torch.full((B,), SOS), None, torch.zeros(B, D)
    logits, g = [], torch.Generator().manual_seed(5)
    for t in range(ys.size(1)):
        o, state, ctx, prev = sp.step(y, state, ctx, keys, prev, mask)
        logits.append(o)
        use_pred = torch.rand(B, generator=g) < 0.3
        y = torch.where(use_pred, o.argmax(-1), ys[:, t])
    logits = torch.stack(logits, 1)
    ce = F.cross_entropy(logits.reshape(-1, V), ys.reshape(-1), label_smoothing=0.1)
    lsm = logits.log_softmax(-1).reshape(-1, V)
    by_hand = (0.9 * -lsm.gather(1, ys.reshape(-1, 1)).squeeze(1) - 0.1 * lsm.mean(-1)).mean()
    print(
        kind,
        "ce",
        round(ce.item(), 4),
        "by hand",
        round(by_hand.item(), 4),
        "attention on padding",
        prev[1, 6:].sum().item(),
        "rows",
        prev.sum(-1).round(decimals=4).tolist(),
    )
    ce.backward()
    print(
        kind, "loc_conv grad", round(sp.att.loc_conv.weight.grad.norm().item(), 4), "state type", type(state).__name__
    )

cell = nn.GRUCell(3, 4)
h = cell(torch.randn(2, 3))
print("GRUCell", h.grad_fn.name(), "unbatched", tuple(cell(torch.randn(3)).shape), cell(torch.randn(3)).grad_fn.name())
hx, cx = nn.LSTMCell(3, 4)(torch.randn(3))
print("LSTMCell unbatched", tuple(hx.shape), tuple(cx.shape), hx.grad_fn.name())
print(
    "RNNCell",
    nn.RNNCell(3, 4)(torch.randn(2, 3)).grad_fn.name(),
    nn.RNNCell(3, 4, nonlinearity="relu")(torch.randn(2, 3)).grad_fn.name(),
)

enc = torch.randn(T, B, V, requires_grad=True)
ctc = F.ctc_loss(enc.log_softmax(-1), torch.tensor([1, 2, 3, 4, 5]), lens, torch.tensor([3, 2]), reduction="sum")
(g,) = torch.autograd.grad(ctc, enc, create_graph=True)
print("ctc grad", tuple(g.shape), round(g.abs().sum().item(), 4), "grad_fn", g.grad_fn.name())
try:
    g.pow(2).sum().backward()
except Exception as e:
    print(type(e).__name__, e)

sp.eval()
with torch.no_grad():
    prev = (~mask).float() / lens[:, None]
    y, state, ctx = torch.full((B,), SOS), None, torch.zeros(B, D)
    done, hyp = torch.zeros(B, dtype=torch.bool), []
    for _ in range(6):
        o, state, ctx, prev = sp.step(y, state, ctx, keys, prev, mask)
        y = o.argmax(-1).masked_fill(done, EOS)
        hyp.append(y)
        done |= y == EOS
        if done.all():
            break
print("greedy", torch.stack(hyp, 1).tolist(), "finished", done.tolist())
try:
    sp.step(torch.full((3,), SOS), state, ctx, keys, prev, mask)
except Exception as e:
    print(type(e).__name__, e)
