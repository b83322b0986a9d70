"""A toy t-SNE and a UMAP-like embedding in torch: pairwise squared distances, per-point Gaussian bandwidths by
bisection on the perplexity, symmetrised affinities, the Student-t low-dimensional kernel, KL divergence with
F.kl_div and by hand, early exaggeration with momentum gradient descent via autograd, and a fuzzy cross-entropy
embedding with negative sampling."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
dt = torch.float64

n_per, d = 15, 6
centers = torch.randn(3, d, dtype=dt) * 4
labels = torch.arange(3).repeat_interleave(n_per)
X = centers[labels] + torch.randn(3 * n_per, d, dtype=dt)
n = X.shape[0]
print("X", X.shape, "labels", torch.bincount(labels).tolist())

D = torch.cdist(X, X).pow(2)
print("D symmetric", torch.allclose(D, D.T), "diag zero", D.diagonal().abs().max().item() < 1e-10)


def conditional_p(D, perplexity, iters=60):
    target = math.log(perplexity)
    lo = torch.full((D.shape[0], 1), 1e-10, dtype=D.dtype)
    hi = torch.full((D.shape[0], 1), 1e4, dtype=D.dtype)
    mask = ~torch.eye(D.shape[0], dtype=torch.bool)
    for _ in range(iters):
        beta = (lo + hi) / 2
        logits = (-D * beta).masked_fill(~mask, float("-inf"))
        P = torch.softmax(logits, dim=1)
        H = -(torch.special.xlogy(P, P)).sum(1, keepdim=True)
        too_flat = H > target
        lo = torch.where(too_flat, beta, lo)
        hi = torch.where(too_flat, hi, beta)
    return P, beta.squeeze(1), H.squeeze(1)


P_cond, beta, H = conditional_p(D, perplexity=8.0)
print("entropies ~ log(8)", round(math.log(8.0), 4), H.min().item() > 2.07, H.max().item() < 2.09)
print("beta quantiles", torch.quantile(beta, torch.tensor([0.0, 0.5, 1.0], dtype=dt)))
P = (P_cond + P_cond.T) / (2 * n)
print("P sums to one", round(P.sum().item(), 6), "symmetric", torch.allclose(P, P.T))
print("P within-cluster mass", round((P * (labels[:, None] == labels[None, :])).sum().item(), 4))


def q_matrix(Y):
    num = 1.0 / (1.0 + torch.cdist(Y, Y).pow(2))
    num = num * (1 - torch.eye(len(Y), dtype=Y.dtype))
    return num / num.sum(), num


torch.manual_seed(1)
Y = (1e-2 * torch.randn(n, 2, dtype=dt)).requires_grad_()
velocity = torch.zeros_like(Y)
lr = 20.0
for it in range(250):
    exag = 4.0 if it < 60 else 1.0
    mom = 0.5 if it < 60 else 0.8
    Q, num = q_matrix(Y)
    kl = (exag * P * (torch.log(exag * P.clamp_min(1e-12)) - torch.log(Q.clamp_min(1e-12)))).sum()
    g, = torch.autograd.grad(kl, Y)
    with torch.no_grad():
        velocity = mom * velocity - lr * g
        Y += velocity
        Y -= Y.mean(0)
    if it in (0, 59, 60, 249):
        print(f"iter {it:3d} kl {kl.item():.4f} grad norm {g.norm().item():.4f}")

with torch.no_grad():
    Q, num = q_matrix(Y)
    mask = ~torch.eye(n, dtype=torch.bool)
    kl_manual = (P[mask] * (P[mask].log() - Q[mask].log())).sum()
    kl_fn = F.kl_div(Q[mask].log(), P[mask], reduction="sum")
print("final KL", round(kl_manual.item(), 4), "F.kl_div agrees", torch.allclose(kl_manual, kl_fn))
print("kl_div log_target agrees", torch.allclose(kl_fn, F.kl_div(Q[mask].log(), P[mask].log(), reduction="sum",
                                                                  log_target=True)))

# analytical t-SNE gradient vs autograd
Yd = Y.detach().requires_grad_()
Qd, numd = q_matrix(Yd)
kl_d = (P[mask] * (P[mask].log() - Qd[mask].log())).sum()
g_auto, = torch.autograd.grad(kl_d, Yd)
PQ = (P - Qd.detach()) * numd.detach()
g_analytic = 4 * (PQ.sum(1, keepdim=True) * Yd.detach() - PQ @ Yd.detach())
print("analytic gradient matches", torch.allclose(g_auto, g_analytic, atol=1e-10))

Ye = Y.detach()
centroids = torch.stack([Ye[labels == c].mean(0) for c in range(3)])
within = torch.stack([(Ye[labels == c] - centroids[c]).norm(dim=1).mean() for c in range(3)])
between = torch.pdist(centroids)
print("within-cluster spread", within, "between", between)
print("separated", (between.min() > 2 * within.max()).item())
nn_idx = torch.cdist(Ye, Ye).fill_diagonal_(float("inf")).argmin(1)
print("1-NN label agreement in embedding", (labels[nn_idx] == labels).double().mean().item())

# trustworthiness-like check: overlap of 5-NN sets
k = 5
hi_nn = D.fill_diagonal_(float("inf")).topk(k, largest=False).indices
lo_nn = torch.cdist(Ye, Ye).fill_diagonal_(float("inf")).topk(k, largest=False).indices
overlap = torch.tensor([len(set(a.tolist()) & set(b.tolist())) for a, b in zip(hi_nn, lo_nn)], dtype=dt) / k
print("mean 5-NN overlap", round(overlap.mean().item(), 4))

# UMAP-like: fuzzy graph from kNN, cross-entropy with negative sampling, optimised by Adam
rho = D.topk(1, largest=False).values
sigma = torch.ones(n, 1, dtype=dt)
W = torch.exp(-(D.gather(1, hi_nn) - rho) / sigma)
graph = torch.zeros(n, n, dtype=dt).scatter_(1, hi_nn, W)
graph = graph + graph.T - graph * graph.T
print("graph edges", int((graph > 0).sum()), "max weight", round(graph.max().item(), 4))
rows, cols = graph.nonzero(as_tuple=True)
wts = graph[rows, cols]
torch.manual_seed(2)
Z = torch.randn(n, 2, dtype=dt, requires_grad=True)
opt = torch.optim.Adam([Z], lr=0.05)
a_, b_ = 1.58, 0.9
for ep in range(120):
    opt.zero_grad()
    dist2 = (Z[rows] - Z[cols]).pow(2).sum(1)
    q_pos = 1 / (1 + a_ * dist2.pow(b_))
    neg = torch.randint(0, n, (len(rows), 3))
    dneg = (Z[rows].unsqueeze(1) - Z[neg]).pow(2).sum(-1)
    q_neg = 1 / (1 + a_ * dneg.clamp_min(1e-6).pow(b_))
    loss = -(wts * torch.log(q_pos.clamp_min(1e-6))).sum() - torch.log((1 - q_neg).clamp_min(1e-6)).sum()
    loss = loss / len(rows)
    loss.backward()
    opt.step()
    if ep in (0, 119):
        print(f"umap epoch {ep} loss {loss.item():.4f}")
Zd = Z.detach()
nn_z = torch.cdist(Zd, Zd).fill_diagonal_(float("inf")).argmin(1)
print("UMAP-like 1-NN agreement", (labels[nn_z] == labels).double().mean().item())
