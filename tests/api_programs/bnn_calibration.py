"""Uncertainty calibration: temperature scaling by LBFGS, ECE with bucketize, reliability bins, Brier and NLL."""

import torch

nn = torch.nn
F = torch.nn.functional
D = torch.distributions


def r(t, d=4):
    return t.detach().round(decimals=d).tolist()


def ece(probs, labels, n_bins=10):
    conf, pred = probs.max(-1)
    acc = (pred == labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    idx = torch.bucketize(conf, edges[1:-1], right=False)
    counts = torch.bincount(idx, minlength=n_bins).float()
    conf_sum = torch.zeros(n_bins).scatter_add_(0, idx, conf)
    acc_sum = torch.zeros(n_bins).index_add_(0, idx, acc)
    nz = counts > 0
    gap = (conf_sum[nz] / counts[nz] - acc_sum[nz] / counts[nz]).abs()
    return (counts[nz] / counts.sum() * gap).sum(), counts, nz


torch.manual_seed(0)
n, k = 2000, 5
labels = torch.randint(0, k, (n,))
clean = F.one_hot(labels, k).float() * 2.0 + torch.randn(n, k)
logits = clean * 3.0  # an over-confident classifier
probs = F.softmax(logits, -1)
e0, counts, nz = ece(probs, labels)
print("accuracy", round((probs.argmax(-1) == labels).float().mean().item(), 2))
print("ece before > 0.1", e0.item() > 0.1, "bins used", int(nz.sum()), "counts sum", int(counts.sum()))
print("nll before", round(F.cross_entropy(logits, labels).item(), 2))

log_t = torch.zeros(1, requires_grad=True)
opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=100, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = F.cross_entropy(logits / log_t.exp(), labels)
    loss.backward()
    return loss


opt.step(closure)
T = log_t.exp().item()
print("temperature", round(T, 1), "state keys", sorted(opt.state[log_t].keys())[:4])
cal = F.softmax(logits / round(T, 1), -1)  # the fitted T to 0.1: LBFGS stops on a flat valley
e1, _, _ = ece(cal, labels)
print("ece after < before", e1.item() < e0.item(), "ece after < 0.05", e1.item() < 0.05)
print("nll after", round(F.nll_loss(torch.log(cal), labels).item(), 2))
print("argmax unchanged", torch.equal(cal.argmax(-1), probs.argmax(-1)))
brier = ((cal - F.one_hot(labels, k).float()) ** 2).sum(-1).mean()
print("brier", round(brier.item(), 2))
ent = D.Categorical(probs=cal).entropy()
print("entropy higher after scaling", bool(ent.mean() > D.Categorical(probs=probs).entropy().mean()))

# reliability diagram as a histogram of confidences
conf = cal.max(-1).values
hist = torch.histc(conf, bins=5, min=0, max=1)
print("histc", hist.tolist(), int(hist.sum()))
h2, edges = torch.histogram(conf, bins=5, range=(0.0, 1.0))
print("histogram", h2.tolist(), r(edges))
print(
    "bucketize",
    torch.bucketize(torch.tensor([0.0, 0.1, 0.5, 0.95, 1.0]), torch.tensor([0.1, 0.5, 0.9])).tolist(),
    torch.bucketize(torch.tensor([0.1, 0.5]), torch.tensor([0.1, 0.5, 0.9]), right=True).tolist(),
)
print(
    "searchsorted", torch.searchsorted(torch.tensor([0.1, 0.5, 0.9]), torch.tensor([0.5, 0.95]), side="right").tolist()
)
q = torch.quantile(conf, torch.tensor([0.1, 0.5, 0.9]))
print(
    "quantile ordered",
    bool((q[1:] >= q[:-1]).all()),
    "nanquantile",
    round(torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0]), 0.5).item(), 4),
)

# label smoothing as a calibration prior
ls = F.cross_entropy(logits[:4], labels[:4], label_smoothing=0.1)
manual = 0.9 * F.cross_entropy(logits[:4], labels[:4]) + 0.1 * (-F.log_softmax(logits[:4], -1).mean(-1)).mean()
print("label smoothing", round(ls.item(), 4), round(manual.item(), 4))
try:
    torch.bucketize(torch.tensor([0.5]), torch.tensor([[0.1, 0.9]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.histc(torch.tensor([1, 2]), bins=3)
except Exception as e:
    print(type(e).__name__, e)
try:
    F.cross_entropy(logits[:4], labels[:4], label_smoothing=1.5)
except Exception as e:
    print(type(e).__name__, e)
