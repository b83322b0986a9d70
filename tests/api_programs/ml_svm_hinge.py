"""Support vector machines trained in torch: a primal linear SVM with hinge loss by subgradient descent and by
SGD on nn.Linear, squared hinge with LBFGS, F.multi_margin_loss for the Crammer-Singer multi-class SVM (and
F.hinge_embedding_loss / F.soft_margin_loss), a kernel SVM dual by projected gradient with an RBF Gram matrix,
support vectors via nonzero, and margins."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

n = 60
X = torch.cat([torch.randn(n // 2, 2, dtype=dt) + 1.6, torch.randn(n // 2, 2, dtype=dt) - 1.6])
y = torch.cat([torch.ones(n // 2, dtype=dt), -torch.ones(n // 2, dtype=dt)])
print("X", X.shape, X.dtype, "labels", torch.unique(y).tolist())

# primal subgradient descent (Pegasos-style step sizes)
lam = 0.01
w = torch.zeros(2, dtype=dt)
b = torch.zeros((), dtype=dt)
for t in range(1, 301):
    margin = y * (X @ w + b)
    active = margin < 1
    gw = lam * w - (y[active].unsqueeze(1) * X[active]).sum(0) / n
    gb = -y[active].sum() / n
    eta = 1.0 / (lam * t)
    w, b = w - eta * gw * 0.05, b - eta * gb * 0.05
    if t in (1, 10, 100, 300):
        obj = 0.5 * lam * w.dot(w) + F.relu(1 - y * (X @ w + b)).mean()
        print(f"iter {t:3d} objective {obj.item():.4f} active {int(active.sum())}")
print("w", w, "b", round(b.item(), 4), "margin width", round((2 / w.norm()).item(), 4))
print("train accuracy", ((X @ w + b).sign() == y).double().mean().item())

# autograd + optim.SGD on nn.Linear with hinge loss
torch.manual_seed(1)
lin = nn.Linear(2, 1).double()
opt = torch.optim.SGD(lin.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
for epoch in range(60):
    opt.zero_grad()
    scores = lin(X).squeeze(1)
    loss = torch.clamp(1 - y * scores, min=0).mean()
    loss.backward()
    opt.step()
print("sgd hinge loss", round(loss.item(), 4), "weight", lin.weight.detach(), "bias", lin.bias.detach())
print("hinge_embedding_loss", round(F.hinge_embedding_loss(1 - y * scores.detach(), torch.ones_like(y)).item(), 4),
      "soft_margin_loss", round(F.soft_margin_loss(scores.detach(), y).item(), 4))

# squared hinge with LBFGS
w2 = torch.zeros(3, dtype=dt, requires_grad=True)
Xa = torch.cat([X, torch.ones(n, 1, dtype=dt)], 1)
lbfgs = torch.optim.LBFGS([w2], max_iter=100, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = F.relu(1 - y * (Xa @ w2)).pow(2).mean() + 0.5 * lam * w2[:2].pow(2).sum()
    loss.backward()
    return loss


lbfgs.step(closure)
print("squared hinge w", w2.detach(), "loss", round(closure().item(), 4))

# multi-class: Crammer-Singer via multi_margin_loss
torch.manual_seed(2)
K = 3
cent = torch.tensor([[0.0, 3.0], [3.0, -1.5], [-3.0, -1.5]], dtype=dt)
yk = torch.randint(0, K, (90,))
Xk = cent[yk] + torch.randn(90, 2, dtype=dt)
clf = nn.Linear(2, K).double()
opt_k = torch.optim.Adam(clf.parameters(), lr=0.05)
for step in range(150):
    opt_k.zero_grad()
    out = clf(Xk)
    loss_k = F.multi_margin_loss(out, yk, p=1, margin=1.0) + 1e-3 * clf.weight.pow(2).sum()
    loss_k.backward()
    opt_k.step()
pred_k = clf(Xk).argmax(1)
print("multi-margin loss", round(loss_k.item(), 4), "acc", round((pred_k == yk).double().mean().item(), 4))
out = clf(Xk[:4]).detach()
manual = (F.relu(1 - out.gather(1, yk[:4, None]) + out).sum(1) - 1) / K
print("manual per-sample", manual, "\nbuilt-in", F.multi_margin_loss(out, yk[:4], reduction="none"))
print("p=2 weighted", round(F.multi_margin_loss(out, yk[:4], p=2, weight=torch.tensor([1.0, 2.0, 0.5],
                                                                                       dtype=dt)).item(), 4))
print("multilabel_margin", F.multilabel_margin_loss(out, torch.tensor([[0, 1, -1], [2, -1, 0], [1, -1, 2],
                                                                         [0, 2, 1]]), reduction="none"))

# kernel SVM dual: maximise sum(a) - 1/2 a^T Q a, 0 <= a <= C, by projected gradient (no bias)
Xr = torch.rand(80, 2, dtype=dt) * 4 - 2
yr = torch.where(Xr.pow(2).sum(1) < 1.6, 1.0, -1.0).to(dt)
gamma = 1.0
Kmat = torch.exp(-gamma * torch.cdist(Xr, Xr).pow(2))
Q = (yr.unsqueeze(1) * yr.unsqueeze(0)) * Kmat
print("gram", Kmat.shape, "symmetric", torch.allclose(Kmat, Kmat.T), "min eig >= 0",
      torch.linalg.eigvalsh(Kmat).min().item() > -1e-10)
C = 5.0
alpha = torch.zeros(80, dtype=dt)
step = 1.0 / torch.linalg.eigvalsh(Q).max()
for it in range(400):
    grad = 1 - Q @ alpha
    alpha = (alpha + step * grad).clamp(0, C)
dual = alpha.sum() - 0.5 * alpha @ Q @ alpha
sv = torch.nonzero(alpha > 1e-6).squeeze(1)
bound = (alpha > C - 1e-6).sum()
print("dual objective", round(dual.item(), 4), "support vectors", sv.numel(), "at bound", int(bound))
f_train = Kmat @ (alpha * yr)
print("kernel svm train acc", ((f_train.sign() == yr).double().mean()).item())
grid = torch.tensor([[0.0, 0.0], [1.5, 1.5], [0.5, -0.5], [-1.9, 0.1]], dtype=dt)
f_grid = torch.exp(-gamma * torch.cdist(grid, Xr[sv]).pow(2)) @ (alpha[sv] * yr[sv])
print("decision values", f_grid, "classes", f_grid.sign().tolist())

for name, fn in [("3-D scores", lambda: F.multi_margin_loss(torch.zeros(2, 3, 4), torch.tensor([0, 1]))),
                 ("no classes", lambda: F.multi_margin_loss(torch.zeros(3, 0), torch.tensor([0, 0, 0]))),
                 ("p=3", lambda: F.multi_margin_loss(out, yk[:4], p=3))]:
    try:
        fn()
    except (RuntimeError, ValueError) as e:
        print(f"{name}: {type(e).__name__}: {e}")
one = F.multi_margin_loss(torch.tensor([0.5, 0.75, 0.125]), torch.tensor([1]), reduction="none")
print("one sample, reduction='none'", one, one.shape)
