"""An RNN-Transducer in plain PyTorch: an LSTM prediction network over blank-prefixed labels with Embedding's
padding_idx, a joint network broadcasting (B, T, 1, H) + (B, 1, U+1, H), the transducer loss by the alpha lattice
(gather of blank and label log-probs, logsumexp over the two incoming arcs, per-utterance lengths), its gradient
sanity checks, a training step, and greedy transducer decoding with a symbol cap per frame."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, H, BLANK = 6, 16, 0


class Transducer(nn.Module):
    def __init__(self, d_in=10):
        super().__init__()
        self.enc = nn.GRU(d_in, H, batch_first=True)
        self.embed = nn.Embedding(V, H, padding_idx=BLANK)
        self.pred = nn.LSTM(H, H, batch_first=True)
        self.enc_proj, self.pred_proj = nn.Linear(H, H), nn.Linear(H, H, bias=False)
        self.out = nn.Linear(H, V)

    def joint(self, f, g):
        return self.out(torch.tanh(self.enc_proj(f).unsqueeze(2) + self.pred_proj(g).unsqueeze(1)))

    def forward(self, x, labels):
        f, _ = self.enc(x)
        g, _ = self.pred(self.embed(F.pad(labels, (1, 0), value=BLANK)))
        return self.joint(f, g).log_softmax(-1)


def rnnt_loss(lp, labels, T_len, U_len):
    B, T, U1, _ = lp.shape
    blank = lp[..., BLANK]
    emit = lp[:, :, :-1].gather(3, labels[:, None, :, None].expand(B, T, U1 - 1, 1)).squeeze(3)
    alpha = lp.new_full((B, T, U1), float("-inf"))
    alpha[:, 0, 0] = 0.0
    for t in range(T):
        for u in range(U1):
            if t == 0 and u == 0:
                continue
            arcs = []
            if t > 0:
                arcs.append(alpha[:, t - 1, u] + blank[:, t - 1, u])
            if u > 0:
                arcs.append(alpha[:, t, u - 1] + emit[:, t, u - 1])
            alpha[:, t, u] = torch.logsumexp(torch.stack(arcs), 0)
    b = torch.arange(B)
    final = alpha[b, T_len - 1, U_len] + blank[b, T_len - 1, U_len]
    return -final, alpha


B, T = 3, 7
x = torch.randn(B, T, 10)
labels = torch.tensor([[2, 3, 4], [5, 5, 0], [1, 0, 0]])
T_len, U_len = torch.tensor([7, 6, 4]), torch.tensor([3, 2, 1])
model = Transducer()
print("embedding pad row", model.embed.weight[BLANK].abs().sum().item())
lp = model(x, labels)
print("joint", tuple(lp.shape), "rows sum to 1", torch.allclose(lp.exp().sum(-1), torch.ones(B, T, 4)))
loss, alpha = rnnt_loss(lp, labels, T_len, U_len)
print("loss", loss.round(decimals=4).tolist(), "alpha finite", int(torch.isfinite(alpha).sum()))
print("alpha[0] corner", alpha[0, :3, :3].round(decimals=4).tolist())

loss.mean().backward()
print(
    "embed pad grad",
    model.embed.weight.grad[BLANK].abs().sum().item(),
    "grad norms",
    {n: round(p.grad.norm().item(), 4) for n, p in model.named_parameters() if "proj" in n},
)

opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(12):
    opt.zero_grad()
    l, _ = rnnt_loss(model(x, labels), labels, T_len, U_len)
    (l / U_len).mean().backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 4 == 3:
        print("step", step, round(l.sum().item(), 4))


@torch.no_grad()
def greedy(model, x, max_symbols=3):
    f, _ = model.enc(x.unsqueeze(0))
    hyp, state = [], None
    g, state = model.pred(model.embed(torch.tensor([[BLANK]])), state)
    for t in range(f.size(1)):
        for _ in range(max_symbols):
            k = model.joint(f[:, t : t + 1], g)[0, 0, 0].argmax().item()
            if k == BLANK:
                break
            hyp.append(k)
            g, state = model.pred(model.embed(torch.tensor([[k]])), state)
    return hyp


for b in range(B):
    print("decode", b, greedy(model, x[b, : T_len[b]]), "ref", labels[b, : U_len[b]].tolist())
try:
    lp.gather(3, labels)
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Embedding(V, H, padding_idx=V)
except Exception as e:
    print(type(e).__name__, e)
