"""k-means as people write it in torch: seeded random init with randperm, k-means++ seeding with
torch.multinomial on squared distances, Lloyd iterations with cdist/argmin and index_add_/bincount centroid
updates, scatter_reduce means, inertia, empty-cluster handling, and mini-batch k-means."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

centers_true = torch.tensor([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0], [3.0, -3.0]])
n_per = 40
X = torch.cat([c + 0.7 * torch.randn(n_per, 2) for c in centers_true])
y_true = torch.arange(4).repeat_interleave(n_per)
print("X", X.shape, X.dtype, "first rows", X[:2])
print("labels", y_true.shape, torch.bincount(y_true).tolist())


def assign(X, C):
    d = torch.cdist(X, C)
    dmin, lab = d.min(dim=1)
    return lab, (dmin ** 2).sum()


def update(X, lab, k, C_old):
    sums = torch.zeros(k, X.shape[1]).index_add_(0, lab, X)
    counts = torch.bincount(lab, minlength=k).to(X.dtype)
    empty = counts == 0
    C = sums / counts.clamp(min=1).unsqueeze(1)
    C[empty] = C_old[empty]
    return C, counts


def kmeans(X, C0, iters=20, tol=1e-6):
    C = C0.clone()
    k = C.shape[0]
    history = []
    for it in range(iters):
        lab, inertia = assign(X, C)
        C_new, counts = update(X, lab, k, C)
        shift = (C_new - C).norm(dim=1).max()
        history.append(round(inertia.item(), 2))
        C = C_new
        if shift < tol:
            break
    return C, lab, history, it + 1


# plain random init: k distinct points
perm = torch.randperm(X.shape[0])
print("randperm head", perm[:6].tolist())
C0 = X[perm[:4]]
C, lab, hist, n_it = kmeans(X, C0)
print("random init: iterations", n_it, "inertia history", hist[:5], "final", hist[-1])
order = C[:, 0].argsort()
print("centers sorted by x\n", C[order])


def kmeans_pp(X, k, gen):
    n = X.shape[0]
    first = torch.randint(0, n, (1,), generator=gen)
    C = X[first]
    for _ in range(1, k):
        d2 = torch.cdist(X, C).pow(2).min(dim=1).values
        probs = d2 / d2.sum()
        nxt = torch.multinomial(probs, 1, generator=gen)
        C = torch.cat([C, X[nxt]], dim=0)
    return C


g = torch.Generator().manual_seed(1234)
Cpp = kmeans_pp(X, 4, g)
print("k-means++ init\n", Cpp)
C2, lab2, hist2, n_it2 = kmeans(X, Cpp)
print("k-means++: iterations", n_it2, "final inertia", hist2[-1])
sizes = torch.bincount(lab2, minlength=4)
print("cluster sizes", sizes.tolist(), "sorted", sizes.sort(descending=True).values.tolist())

# contingency table between true labels and clusters
cont = torch.bincount(y_true * 4 + lab2, minlength=16).reshape(4, 4)
print("contingency\n", cont)
purity = cont.max(dim=1).values.sum().item() / X.shape[0]
print("purity", round(purity, 4))

# scatter_reduce mean as an alternative centroid update
idx = lab2.unsqueeze(1).expand(-1, 2)
C_sr = torch.zeros(4, 2).scatter_reduce(0, idx, X, reduce="mean", include_self=False)
print("scatter_reduce mean matches", torch.allclose(C_sr, C2, atol=1e-5))
C_amax = torch.full((4, 2), -1e9).scatter_reduce(0, idx, X, reduce="amax")
print("per-cluster max", C_amax[order].round(decimals=3))

# empty cluster: seed one centroid far away
C_bad = torch.cat([Cpp[:3], torch.tensor([[50.0, 50.0]])])
lab_b, _ = assign(X, C_bad)
C_b, counts_b = update(X, lab_b, 4, C_bad)
print("counts with a far centroid", counts_b.tolist(), "kept", C_b[3].tolist())

# elbow curve
for k in (1, 2, 3, 4, 5, 6):
    gk = torch.Generator().manual_seed(k)
    Ck = kmeans_pp(X, k, gk)
    _, _, hk, _ = kmeans(X.clone(), Ck)
    print(f"k={k} inertia={hk[-1]:.2f}")

# mini-batch k-means with per-centroid learning rates
torch.manual_seed(5)
Cm = Cpp.clone()
seen = torch.zeros(4)
for step in range(30):
    b = X[torch.randint(0, X.shape[0], (16,))]
    lb = torch.cdist(b, Cm).argmin(dim=1)
    for j, xj in zip(lb.tolist(), b):
        seen[j] += 1
        eta = 1.0 / seen[j]
        Cm[j] = (1 - eta) * Cm[j] + eta * xj
_, inert_m = assign(X, Cm)
print("mini-batch seen", seen.tolist(), "inertia", round(inert_m.item(), 2))

# silhouette score on the final clustering
D = torch.cdist(X, X)
same = lab2.unsqueeze(0) == lab2.unsqueeze(1)
a = (D * same).sum(1) / (same.sum(1) - 1).clamp(min=1)
b = torch.full((X.shape[0],), float("inf"))
for j in range(4):
    m = lab2 == j
    mean_to_j = D[:, m].mean(dim=1)
    b = torch.where(lab2 != j, torch.minimum(b, mean_to_j), b)
s = (b - a) / torch.maximum(a, b)
print("silhouette", round(s.mean().item(), 4), "min", round(s.min().item(), 4))
