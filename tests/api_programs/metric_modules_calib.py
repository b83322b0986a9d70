"""A torchmetrics-style Metric base class (states as buffers, reset, merge, state_dict round trips), temperature
scaling fit with LBFGS, reliability bins, ranking metrics (MRR, NDCG, recall@k), perplexity, and checkpoint
selection by metric through torch.save to a BytesIO."""

import io
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

rng = np.random.default_rng(13)


class Metric(nn.Module):
    """States are buffers so .to() moves them; only those marked persistent reach state_dict."""

    def __init__(self):
        super().__init__()
        self._defaults = {}

    def add_state(self, name, default, persistent=False):
        self.register_buffer(name, default.clone(), persistent=persistent)
        self._defaults[name] = default.clone()

    def reset(self):
        for name, d in self._defaults.items():
            getattr(self, name).copy_(d)

    def merge(self, other):
        for name in self._defaults:
            getattr(self, name).add_(getattr(other, name))


class MeanAbsError(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("sum_abs", torch.tensor(0.0, dtype=torch.float64), persistent=True)
        self.add_state("total", torch.tensor(0, dtype=torch.long))

    def update(self, pred, target):
        self.sum_abs += (pred - target).abs().sum()
        self.total += target.numel()

    def compute(self):
        return self.sum_abs / self.total


class Perplexity(Metric):
    def __init__(self, ignore_index=-100):
        super().__init__()
        self.ignore_index = ignore_index
        self.add_state("nll_sum", torch.zeros(()), persistent=True)
        self.add_state("count", torch.zeros((), dtype=torch.int64), persistent=True)

    def update(self, logits, target):
        nll = F.cross_entropy(logits.flatten(0, 1), target.flatten(), ignore_index=self.ignore_index, reduction="sum")
        self.nll_sum += nll.detach()
        self.count += (target != self.ignore_index).sum()

    def compute(self):
        return torch.exp(self.nll_sum / self.count)


mae, mae2 = MeanAbsError(), MeanAbsError()
for k in range(3):
    p = torch.from_numpy(rng.standard_normal(7))
    t = torch.from_numpy(rng.standard_normal(7))
    (mae if k < 2 else mae2).update(p, t)
print("mae", mae, round(mae.compute().item(), 4), mae.total.item(), list(mae.state_dict()))
mae.merge(mae2)
print("merged", round(mae.compute().item(), 4), mae.total.dtype, mae.compute().dtype)
sd = mae.state_dict()
print("sd", {k: (v.dtype, v.shape) for k, v in sd.items()}, sd["sum_abs"] is mae.sum_abs)
mae.reset()
print("reset", mae.sum_abs.item(), mae.total.item(), sd["sum_abs"].item())
print("load_strict", mae.load_state_dict({"sum_abs": torch.tensor(2.0, dtype=torch.float64)}))
res = mae.load_state_dict({"sum_abs": torch.tensor(1.0), "total": torch.tensor(3)}, strict=False)
print("load_lax", res.missing_keys, res.unexpected_keys, mae.sum_abs.dtype, mae.sum_abs.item())

V, B, L = 6, 2, 5
lm_logits = torch.from_numpy(rng.standard_normal((B, L, V)).astype(np.float32))
tokens = torch.from_numpy(rng.integers(0, V, (B, L)))
tokens[1, 3:] = -100
ppl = Perplexity()
ppl.update(lm_logits, tokens)
print("ppl", round(ppl.compute().item(), 4), ppl.count.item(), sorted(ppl.state_dict()))
ce_tok = F.cross_entropy(lm_logits.transpose(1, 2), tokens, reduction="none")
print("ce_tok", ce_tok.shape, np.round(ce_tok[1].numpy(), 4).tolist(), round(math.exp(ce_tok.sum().item() / 8), 4))

# temperature scaling: fit log T on held-out logits with LBFGS
logits = torch.from_numpy(rng.standard_normal((50, 4)).astype(np.float32) * 3)
labels = torch.from_numpy(rng.integers(0, 4, 50))
logits[torch.arange(50), labels] += 2.0
log_t = nn.Parameter(torch.zeros(1, dtype=torch.float64))  # float64: the flat optimum is noise-free
opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = F.cross_entropy(logits.double() / log_t.exp(), labels)
    loss.backward()
    return loss


before = F.cross_entropy(logits, labels).item()
opt.step(closure)
temp = log_t.exp().item()
after = F.cross_entropy(logits / temp, labels).item()
print(
    "temperature",
    round(temp, 4),
    log_t.dtype,
    opt.state[log_t]["n_iter"],
    round(before, 4),
    round(after, 4),
    after <= before,
)


def reliability(probs, labels, n_bins=5):
    conf, pred = probs.max(1)
    edges = torch.linspace(0, 1, n_bins + 1)
    which = torch.bucketize(conf, edges, right=True) - 1
    which = which.clamp(0, n_bins - 1)
    cnt = torch.zeros(n_bins).index_add_(0, which, torch.ones_like(conf))
    acc = torch.zeros(n_bins).index_add_(0, which, (pred == labels).float())
    cf = torch.zeros(n_bins).index_add_(0, which, conf)
    mask = cnt > 0
    ece = ((acc[mask] - cf[mask]).abs()).sum() / cnt.sum()
    return cnt, torch.where(mask, acc / cnt, torch.nan), ece


for name, pr in (("raw", logits.softmax(1)), ("scaled", (logits / temp).softmax(1))):
    cnt, accs, ece = reliability(pr, labels)
    print(name, cnt.tolist(), np.round(accs.numpy(), 4).tolist(), round(ece.item(), 4))

# ranking: one relevant item per query among 8 candidates
scores = torch.from_numpy(rng.standard_normal((5, 8)).astype(np.float32))
rel = torch.from_numpy(rng.integers(0, 8, 5))
ranks = (scores > scores.gather(1, rel[:, None])).sum(1) + 1
print("ranks", ranks.tolist(), "mrr", round((1.0 / ranks.float()).mean().item(), 4))
for k in (1, 3, 5):
    print(f"recall@{k}", round((ranks <= k).float().mean().item(), 4))
graded = torch.from_numpy(rng.integers(0, 4, (5, 8))).float()
order = scores.argsort(dim=1, descending=True)
gains = (2 ** graded.gather(1, order) - 1) / torch.log2(torch.arange(2, 10).float())
ideal = (2 ** graded.sort(1, descending=True).values - 1) / torch.log2(torch.arange(2, 10).float())
ndcg = gains[:, :5].sum(1) / ideal[:, :5].sum(1).clamp(min=1e-9)
print("ndcg@5", np.round(ndcg.numpy(), 4).tolist(), round(ndcg.mean().item(), 4))

# checkpoint selection: keep the best of several "epochs" by a metric, in memory
model = nn.Linear(3, 1)
best_metric, best_blob = -float("inf"), None
history = []
for epoch in range(4):
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(rng.standard_normal((1, 3)).astype(np.float32)))
        model.bias.fill_(epoch * 0.1)
    metric = -(model.weight**2).sum().item()
    history.append(round(metric, 4))
    if metric > best_metric:
        best_metric = metric
        buf = io.BytesIO()
        torch.save({"epoch": epoch, "state": model.state_dict(), "metric": metric}, buf)
        best_blob = buf.getvalue()
ck = torch.load(io.BytesIO(best_blob), weights_only=True)
print("history", history, "best epoch", ck["epoch"], round(ck["metric"], 4), list(ck["state"]))
model.load_state_dict(ck["state"])
print("restored", round(-(model.weight**2).sum().item(), 4), round(model.bias.item(), 4))
for name, fn in [
    ("bucketize_2d_bounds", lambda: torch.bucketize(torch.tensor([0.5]), torch.ones(2, 2))),
    ("searchsorted_side", lambda: torch.searchsorted(torch.tensor([1.0, 2.0]), torch.tensor([1.5]), side="middle")),
    ("searchsorted_conflict", lambda: torch.searchsorted(torch.tensor([1.0]), 1.0, right=False, side="right")),
    ("index_add_dtype", lambda: torch.zeros(3).index_add_(0, torch.tensor([0]), torch.ones(1, dtype=torch.float64))),
    ("ppl_ignore_all", lambda: Perplexity().compute()),
    ("merge_missing", lambda: mae.merge(ppl)),
]:
    try:
        out = fn()
        print(name, "ok", out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
