"""Propensity scores by logistic regression fitted with LBFGS (strong Wolfe), then IPW/Hajek ATE estimates with
clamped propensities, overlap diagnostics and weight trimming, as observational-study notebooks write them."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
n, d = 200, 3
X = torch.randn(n, d, dtype=torch.float64)
logit_true = X @ torch.tensor([0.8, -0.5, 0.3], dtype=torch.float64) + 0.2
T = torch.bernoulli(torch.sigmoid(logit_true))
Y = 2.0 * T + X.sum(1) + 0.5 * torch.randn(n, dtype=torch.float64)
print("treated", int(T.sum().item()), T.dtype, T.unique(return_counts=True))


class Propensity(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.lin = nn.Linear(d, 1, dtype=torch.float64)

    def forward(self, x):
        return self.lin(x).squeeze(-1)


model = Propensity(d)
nn.init.zeros_(model.lin.weight)
nn.init.zeros_(model.lin.bias)
opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=50, history_size=10, line_search_fn="strong_wolfe")
calls = []


def closure():
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(model(X), T) + 1e-3 * model.lin.weight.pow(2).sum()
    loss.backward()
    calls.append(loss.item())
    return loss


for _ in range(3):
    final = opt.step(closure)
print("first loss", round(calls[0], 6), "final", round(final.item(), 6), "evals>5", len(calls) > 5)
st = opt.state[opt._params[0]]
print("state keys", sorted(k for k in st.keys()))
print("n_iter", st["n_iter"] > 0, type(st["func_evals"]).__name__)
print("weights", model.lin.weight.detach().round(decimals=3), model.lin.bias.detach().round(decimals=3))

with torch.no_grad():
    e = torch.sigmoid(model(X))
print("e range", round(e.min().item(), 4), round(e.max().item(), 4), e.dtype)
e_c = e.clamp(0.05, 0.95)
e_c2 = torch.clamp(e, min=torch.tensor(0.05, dtype=torch.float64), max=torch.tensor(0.95, dtype=torch.float64))
print("clamp same", torch.equal(e_c, e_c2), (e != e_c).sum().item())
w = T / e_c + (1 - T) / (1 - e_c)
ate_ipw = (T * Y / e_c).mean() - ((1 - T) * Y / (1 - e_c)).mean()
w1 = T / e_c
w0 = (1 - T) / (1 - e_c)
ate_hajek = (w1 * Y).sum() / w1.sum() - (w0 * Y).sum() / w0.sum()
print("ipw", round(ate_ipw.item(), 4), "hajek", round(ate_hajek.item(), 4))
ess = w.sum() ** 2 / w.pow(2).sum()
print("ess", round(ess.item(), 3), "max w", round(w.max().item(), 3), w.argmax().item())
naive = Y[T.bool()].mean() - Y[~T.bool()].mean()
print("naive", round(naive.item(), 4))

# overlap: histogram by group, trimming
h1 = torch.histc(e[T == 1], bins=5, min=0, max=1)
h0 = torch.histc(e[T == 0], bins=5, min=0, max=1)
print("hist", h1, h0)
edges = torch.linspace(0, 1, 6, dtype=torch.float64)
b = torch.bucketize(e, edges, right=True)
print("buckets", torch.bincount(b, minlength=7).tolist())
keep = (e > 0.1) & (e < 0.9)
print("trimmed", keep.logical_not().sum().item(), keep.dtype)
st_mean = torch.stack([X[T == 1].mean(0), X[T == 0].mean(0)])
pooled = torch.sqrt((X[T == 1].var(0) + X[T == 0].var(0)) / 2)
smd = (st_mean[0] - st_mean[1]) / pooled
print("smd", smd.round(decimals=3))
wX1 = (w1[:, None] * X).sum(0) / w1.sum()
wX0 = (w0[:, None] * X).sum(0) / w0.sum()
print("weighted smd", ((wX1 - wX0) / pooled).abs().max().item() < smd.abs().max().item())

# float32 propensities: clamp with python floats keeps dtype, logit round-trip
e32 = e.float()
print("logit", torch.logit(e32[:3], eps=1e-6).dtype, torch.special.logit(e32[:3]).round(decimals=3))
print("clamp dtypes", e32.clamp(0.05, 0.95).dtype, torch.tensor([0, 1]).clamp(0.5).dtype)
try:
    torch.clamp(e32, min=0.9, max=0.1).unique()
    print("inverted clamp", torch.clamp(e32[:3], min=0.9, max=0.1))
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    e32.clamp()
except Exception as ex:
    print(type(ex).__name__, ex)
try:
    F.binary_cross_entropy(e32, T)
except Exception as ex:
    print(type(ex).__name__, str(ex)[:80])
print("bce", round(F.binary_cross_entropy(e, T, weight=w).item(), 4))
print(
    "bce logits pos_weight",
    round(
        F.binary_cross_entropy_with_logits(
            torch.logit(e), T, pos_weight=torch.tensor([2.0], dtype=torch.float64)
        ).item(),
        4,
    ),
)
