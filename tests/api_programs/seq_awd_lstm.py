"""AWD-LSTM's regularisers as its reference code applies them: WeightDrop on the hidden-to-hidden matrix through a
parametrization (mask drawn with numpy), embedding dropout of whole rows, locked dropout, activation and temporal
activation regularisation (AR/TAR), NT-ASGD (switching SGD to ASGD and evaluating with the averaged weights),
weight_norm on an LSTM weight, scale_grad_by_freq embeddings, and the edge cases of empty batches."""

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F
from torch.nn.utils import parametrize

rng = np.random.default_rng(41)
V, E, H, T, B = 12, 5, 6, 7, 3


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


def arr(*shape, s=0.3):
    return torch.from_numpy((rng.standard_normal(shape) * s).astype(np.float32))


class WeightDrop(nn.Module):
    def __init__(self, mask):
        super().__init__()
        self.register_buffer("mask", mask)

    def forward(self, w):
        return w * self.mask


class AWD(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(V, E, scale_grad_by_freq=True)
        self.rnns = nn.ModuleList([nn.LSTM(E, H), nn.LSTM(H, E)])
        self.decoder = nn.Linear(E, V)
        self.decoder.weight = self.encoder.weight

    def forward(self, x, emb_mask=None, locked=None, hidden=None):
        w = self.encoder.weight if emb_mask is None else self.encoder.weight * emb_mask
        out = F.embedding(x, w, scale_grad_by_freq=True)
        raw, drops, new_h = [], [], []
        for i, rnn in enumerate(self.rnns):
            out, h = rnn(out, None if hidden is None else hidden[i])
            new_h.append(h)
            raw.append(out)
            if locked is not None:
                out = out * locked[i]
            drops.append(out)
        return self.decoder(out), new_h, raw, drops


model = AWD()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(arr(*p.shape))
keep_w = torch.from_numpy((rng.random((4 * H, H)) > 0.5).astype(np.float32)) / 0.5
parametrize.register_parametrization(model.rnns[0], "weight_hh_l0", WeightDrop(keep_w))
print(model.rnns[0])
print("params", [n for n, _ in model.named_parameters()])
print("weight_hh_l0 dropped", round((model.rnns[0].weight_hh_l0 == 0).float().mean().item(), 4))

x = torch.from_numpy(rng.integers(0, V, size=(T + 1, B)))
inp, tgt = x[:-1], x[1:]
emb_mask = torch.from_numpy((rng.random((V, 1)) > 0.1).astype(np.float32)) / 0.9
locked = [torch.from_numpy((rng.random((1, B, d)) > 0.25).astype(np.float32)) / 0.75 for d in (H, E)]
logits, hidden, raw, drops = model(inp, emb_mask, locked)
ce = F.cross_entropy(logits.view(-1, V), tgt.reshape(-1))
ar = 2.0 * drops[-1].pow(2).mean()
tar = 1.0 * (raw[-1][1:] - raw[-1][:-1]).pow(2).mean()
loss = ce + ar + tar
loss.backward()
print("ce", round(ce.item(), 4), "ar", round(ar.item(), 4), "tar", round(tar.item(), 4))
orig = model.rnns[0].parametrizations.weight_hh_l0.original
print("grad where dropped", orig.grad[keep_w == 0].abs().sum().item(), "kept", round(orig.grad.abs().sum().item(), 4))
counts = torch.bincount(inp.flatten(), minlength=V)
print("token counts", counts.tolist(), "emb grad rows", r(model.encoder.weight.grad.norm(dim=1), V))
print("hidden", [tuple(h[0].shape) for h in hidden], r(hidden[1][0]))

# NT-ASGD: SGD until the validation loss stalls, then ASGD; evaluate with the averaged parameters.
opt = torch.optim.SGD(model.parameters(), lr=2.0)
val_hist, switched = [], False
for epoch in range(8):
    opt.zero_grad()
    logits, _, raw, drops = model(inp)
    loss = F.cross_entropy(logits.view(-1, V), tgt.reshape(-1)) + 2.0 * drops[-1].pow(2).mean()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    with torch.no_grad():
        val = F.cross_entropy(model(inp)[0].view(-1, V), tgt.reshape(-1)).item()
    if not switched and (epoch == 3 or (len(val_hist) > 2 and val > min(val_hist[:-2]))):
        opt = torch.optim.ASGD(model.parameters(), lr=2.0, t0=0, lambd=0.0, weight_decay=1.2e-6)
        switched = True
    val_hist.append(val)
    print("epoch", epoch, type(opt).__name__, round(val, 4))
if isinstance(opt, torch.optim.ASGD):
    st = opt.state[model.decoder.bias]
    print("asgd state", sorted(st), st["step"].item(), round(st["eta"].item(), 4), round(st["mu"].item(), 4))
    backup = {p: p.detach().clone() for p in model.parameters()}
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(opt.state[p]["ax"])
        avg_val = F.cross_entropy(model(inp)[0].view(-1, V), tgt.reshape(-1)).item()
        for p in model.parameters():
            p.copy_(backup[p])
    print("averaged val", round(avg_val, 4))

# weight_norm on an LSTM weight keeps the function, splits the parameter.
lstm = nn.LSTM(E, H)
with torch.no_grad():
    for p in lstm.parameters():
        p.copy_(arr(*p.shape))
seq = arr(4, 2, E, s=1.0)
ref = lstm(seq)[0]
nn.utils.parametrizations.weight_norm(lstm, "weight_ih_l0", dim=0)
pz = lstm.parametrizations.weight_ih_l0
print("weight_norm", torch.allclose(lstm(seq)[0], ref, atol=1e-6), tuple(pz.original0.shape), tuple(pz.original1.shape))
print(type(pz).__name__, [n for n, _ in lstm.named_parameters()][:3])
parametrize.remove_parametrizations(lstm, "weight_ih_l0", leave_parametrized=True)
print("removed", [n for n, _ in lstm.named_parameters()][:2], torch.allclose(lstm(seq)[0], ref, atol=1e-6))

# Empty batches run; empty sequences are refused.
for label, fn in [
    ("empty batch", lambda: model.rnns[1](torch.zeros(T, 0, H))[0].shape),
    ("empty sequence", lambda: model.rnns[1](torch.zeros(0, B, H))),
    ("empty unbatched", lambda: nn.GRU(E, H)(torch.zeros(0, E))),
    ("cell empty batch", lambda: nn.LSTMCell(E, H)(torch.zeros(0, E))[0].shape),
    ("asgd bad lambd", lambda: torch.optim.ASGD(model.parameters(), lr=-1.0)),
    ("param already", lambda: parametrize.register_parametrization(model.rnns[0], "bias_zz", WeightDrop(keep_w))),
]:
    try:
        print(label, "ok", fn())
    except Exception as e:
        print(label, type(e).__name__, str(e).splitlines()[0][:100])
