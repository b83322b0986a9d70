"""Multi-task logistic regression (N-MTLR): logits through a lower-triangular matrix, the censored log-likelihood
with logsumexp over masked suffixes, smoothness penalties by diff, survival via flip/cumsum, and tril/triu helpers."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(4)

m = 5
G = torch.tril(torch.ones(m + 1, m + 1))
print(G, G.dtype)
print(torch.triu(torch.ones(3, 4), diagonal=1), torch.tril(torch.ones(2, 3, 3, dtype=torch.int32), -1)[1])
print(torch.tril_indices(3, 3), torch.triu_indices(3, 4, offset=1))

idx = torch.tensor([0, 2, 5, 3, 1, 4])
ev = torch.tensor([1, 0, 0, 1, 1, 0])


def encode(idx, ev, m):
    y = torch.zeros(len(idx), m + 1)
    y[ev == 1, idx[ev == 1]] = 1.0
    cens = ev == 0
    mask = torch.arange(m + 1)[None, :] >= idx[:, None]
    y[cens] = mask[cens].float()
    return y


y = encode(idx, ev, m)
print(y)


class MTLR(nn.Module):
    def __init__(self, d, m):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(d, m))
        self.bias = nn.Parameter(torch.zeros(m))
        nn.init.xavier_normal_(self.weight)
        self.register_buffer("G", torch.tril(torch.ones(m, m + 1)))

    def forward(self, x):
        return (x @ self.weight + self.bias) @ self.G


def mtlr_nll(logits, y, ev):
    cens = ev == 0
    unc = ~cens
    lik_unc = (logits[unc] * y[unc]).sum(1)
    lik_cens = torch.logsumexp(logits[cens].masked_fill(y[cens] == 0, float("-inf")), 1)
    norm = torch.logsumexp(logits, 1)
    return -(lik_unc.sum() + lik_cens.sum() - norm.sum()) / len(y)


x = torch.randn(6, 3)
model = MTLR(3, m)
print(model, model.G.shape, [b for b, _ in model.named_buffers()])
opt = torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=1e-3)
for step in range(40):
    logits = model(x)
    smooth = torch.diff(model.weight, dim=1).pow(2).sum()
    loss = mtlr_nll(logits, y, ev) + 0.01 * smooth
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, round(loss.item(), 4))

with torch.no_grad():
    logits = model(x)
    pmf = F.softmax(logits, 1)
    surv = pmf.flip(1).cumsum(1).flip(1)
    surv2 = torch.exp(torch.logcumsumexp(logits.flip(1), 1).flip(1) - torch.logsumexp(logits, 1, keepdim=True))
    print("surv", surv[:2])
    print(torch.allclose(surv, surv2, atol=1e-6), surv.flip(1).stride(), surv.flip(1).is_contiguous())
    print("expected bin", (surv[:, 1:].sum(1)).round(decimals=3))
    print(torch.fliplr(pmf)[:1], torch.flipud(pmf)[:1], torch.rot90(pmf[:2, :3], 1, (0, 1)))
    print(torch.cummax(surv.flip(1), 1).indices[:2], torch.cummin(surv, 1).values[:1])
print(model.state_dict()["G"].shape, model.state_dict().keys())
sd = model.state_dict()
sd.pop("G")
print(model.load_state_dict(sd, strict=False))
try:
    model.load_state_dict(sd)
except RuntimeError as err:
    print(type(err).__name__, str(err).replace("\n", " | "))
print(torch.diff(torch.tensor([1, 4, 9, 16]), n=2), torch.diff(torch.tensor([1.0, 2.0]), prepend=torch.tensor([0.0])))
print(torch.diff(torch.tensor([[1, 2], [4, 8]]), dim=0, append=torch.tensor([[0, 0]])))
print(torch.diff(torch.tensor([True, False, False])), torch.diff(torch.tensor([1.0]), n=3))
