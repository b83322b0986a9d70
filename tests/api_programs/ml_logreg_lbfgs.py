"""Logistic and softmax regression fitted the scikit-learn way in torch: optim.LBFGS with
line_search_fn='strong_wolfe' and a closure, L2 penalties, binary_cross_entropy_with_logits and cross_entropy,
predicted probabilities, decision thresholds, a confusion matrix via bincount, and the Newton/IRLS solution for
comparison."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)

n, d = 120, 3
X = torch.randn(n, d, dtype=torch.float64)
w_true = torch.tensor([1.5, -2.0, 0.5], dtype=torch.float64)
logits_true = X @ w_true + 0.3
y = torch.bernoulli(torch.sigmoid(logits_true))
print("X", X.shape, X.dtype, "y mean", round(y.mean().item(), 4), "y dtype", y.dtype)

perm = torch.randperm(n)
tr, te = perm[:90], perm[90:]
Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
mu, sd = Xtr.mean(0), Xtr.std(0, correction=0)
Xtr_s, Xte_s = (Xtr - mu) / sd, (Xte - mu) / sd
print("standardized train mean", Xtr_s.mean(0).abs().max().item() < 1e-12, "std", Xtr_s.std(0, correction=0))

C = 1.0
w = torch.zeros(d, dtype=torch.float64, requires_grad=True)
b = torch.zeros((), dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([w, b], lr=1, max_iter=100, tolerance_grad=1e-10, tolerance_change=1e-12,
                        history_size=10, line_search_fn="strong_wolfe")
n_calls = 0


def closure():
    global n_calls
    n_calls += 1
    opt.zero_grad()
    z = Xtr_s @ w + b
    loss = F.binary_cross_entropy_with_logits(z, ytr, reduction="sum") + 0.5 / C * w.pow(2).sum()
    loss.backward()
    return loss


loss0 = opt.step(closure)
print("initial loss", round(loss0.item(), 4))
final = closure()
print("final loss", round(final.item(), 4), "grad norm small", w.grad.norm().item() < 1e-6)
print("closure calls > 5", n_calls > 5)
st = opt.state[opt._params[0]]
print("lbfgs state keys", sorted(k for k in st.keys()))
print("w", w.detach(), "b", round(b.item(), 4))

# Newton / IRLS reference for the same penalised objective
Xa = torch.cat([Xtr_s, torch.ones(len(tr), 1, dtype=torch.float64)], 1)
beta = torch.zeros(d + 1, dtype=torch.float64)
reg = torch.diag(torch.tensor([1.0 / C] * d + [0.0], dtype=torch.float64))
for it in range(25):
    p = torch.sigmoid(Xa @ beta)
    g = Xa.T @ (p - ytr) + reg @ beta
    H = Xa.T @ (Xa * (p * (1 - p)).unsqueeze(1)) + reg
    step = torch.linalg.solve(H, g)
    beta = beta - step
    if step.norm() < 1e-12:
        break
print("newton iterations", it + 1, "matches lbfgs", torch.allclose(beta[:d], w.detach(), atol=1e-6))

with torch.no_grad():
    proba = torch.sigmoid(Xte_s @ w + b)
pred = (proba >= 0.5).long()
print("test proba head", proba[:5])
cm = torch.bincount(yte.long() * 2 + pred, minlength=4).reshape(2, 2)
print("confusion\n", cm)
tn, fp, fn, tp = cm.flatten().tolist()
acc = (tp + tn) / cm.sum().item()
prec = tp / max(tp + fp, 1)
rec = tp / max(tp + fn, 1)
print(f"acc={acc:.4f} precision={prec:.4f} recall={rec:.4f}")
nll = F.binary_cross_entropy(proba, yte)
print("test log loss", round(nll.item(), 4))

# softmax (multinomial) regression on 3 classes, nn.Linear + LBFGS
torch.manual_seed(1)
K = 3
means = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
yk = torch.randint(0, K, (150,))
Xk = (means[yk] + 0.8 * torch.randn(150, 2)).double()
model = nn.Linear(2, K).double()
opt2 = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=50, line_search_fn="strong_wolfe")
losses = []


def closure2():
    opt2.zero_grad()
    out = model(Xk)
    loss = F.cross_entropy(out, yk) + 1e-3 * model.weight.pow(2).sum()
    loss.backward()
    return loss


for epoch in range(3):
    losses.append(round(opt2.step(closure2).item(), 4))
print("softmax losses per outer step", losses)
with torch.no_grad():
    logits = model(Xk)
    probs = logits.softmax(dim=1)
    pred_k = probs.argmax(dim=1)
print("probs sum to one", torch.allclose(probs.sum(1), torch.ones(150, dtype=torch.float64)))
cmk = torch.bincount(yk * K + pred_k, minlength=K * K).reshape(K, K)
print("3-class confusion\n", cmk)
print("per-class recall", (cmk.diag().float() / cmk.sum(1).float()))
print("accuracy", round((pred_k == yk).float().mean().item(), 4))
print("logits centred differences", (logits - logits.mean(1, keepdim=True))[:2])

# a closure that returns a non-scalar fails the way PyTorch fails
try:
    bad = torch.optim.LBFGS([torch.zeros(2, requires_grad=True)])
    bad.step()
except TypeError as e:
    print("TypeError:", e)
