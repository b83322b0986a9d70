"""Product quantization as FAISS's IndexPQ does it in torch: per-subspace k-means codebooks by cdist/argmin with
empty-cluster handling, uint8 codes, asymmetric distance computation through lookup tables and gather, symmetric
distances, and the reconstruction error; cdist's modes and gradients at zero distance."""

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)

n, d, M, K = 40, 8, 2, 4
dsub = d // M
x = torch.randn(n, d, dtype=torch.float64)


def kmeans(data, k, iters=6):
    cent = data[torch.randperm(data.shape[0])[:k]].clone()
    for _ in range(iters):
        assign = torch.cdist(data, cent).argmin(1)
        counts = torch.bincount(assign, minlength=k)
        sums = torch.zeros_like(cent).index_add_(0, assign, data)
        new = sums / counts.clamp(min=1).unsqueeze(1).to(data.dtype)
        cent = torch.where((counts == 0).unsqueeze(1), cent, new)
    return cent, assign


books = []
codes = torch.empty(n, M, dtype=torch.uint8)
for m in range(M):
    sub = x[:, m * dsub : (m + 1) * dsub]
    c, a = kmeans(sub, K)
    books.append(c)
    codes[:, m] = a.to(torch.uint8)
books = torch.stack(books)
print("codebooks", books.shape, books.dtype)
print("codes", codes[:6].tolist(), codes.dtype, torch.bincount(codes[:, 0].long(), minlength=K).tolist())

# reconstruction through gather on the stacked codebooks
rec = books[torch.arange(M), codes.long()].reshape(n, d)
print("rec via adv index", rec.shape)
rec2 = torch.gather(
    books.unsqueeze(0).expand(n, -1, -1, -1), 2, codes.long()[:, :, None, None].expand(-1, -1, 1, dsub)
).reshape(n, d)
print("gather agrees", torch.equal(rec, rec2), round(((x - rec) ** 2).sum(1).mean().item(), 4))

# ADC: per-query lookup table (M, K), distance = sum of table entries
q = torch.randn(3, d, dtype=torch.float64)
qs = q.view(3, M, dsub)
lut = ((qs.unsqueeze(2) - books.unsqueeze(0)) ** 2).sum(-1)
print("lut", lut.shape, lut[0])
adc = lut.gather(2, codes.long().T.unsqueeze(0).expand(3, -1, -1)).sum(1)
print("adc", adc.shape, adc[:, :5])
exact = torch.cdist(q, rec) ** 2
print("adc == dist to reconstruction", torch.allclose(adc, exact))
print("top3", adc.topk(3, largest=False).indices.tolist())
# inner-product ADC
lut_ip = torch.einsum("qmd,mkd->qmk", qs, books)
ip = lut_ip[:, torch.arange(M)[:, None], codes.long().T].sum(1)
print("ip adc", torch.allclose(ip, q @ rec.T))

# symmetric distance: codebook-to-codebook tables
sdc_tab = torch.cdist(books, books) ** 2
qcode = torch.stack([torch.cdist(qs[:, m], books[m]).argmin(1) for m in range(M)], 1)
sdc = sdc_tab[torch.arange(M), qcode[:, None, :], codes.long()[None, :, :]].sum(-1)
print("sdc", sdc.shape, sdc[0, :5])

# cdist variants
a = torch.tensor([[0.0, 0.0], [1.0, 1.0], [3.0, -1.0]])
b = torch.tensor([[0.0, 0.0], [2.0, 2.0]])
for p in (0.0, 1.0, 2.0, 3.0, float("inf")):
    print("p", p, torch.cdist(a, b, p=p).tolist())
for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
    print(mode, torch.cdist(a, b, compute_mode=mode).round(decimals=4).tolist())
print("batched", torch.cdist(a.expand(2, 3, 2), b.unsqueeze(0)).shape)
print("pdist", torch.pdist(a).tolist(), torch.nn.functional.pdist(a, p=1).tolist())

# the gradient at zero distance is 0, not NaN
a = a.clone().requires_grad_()
torch.cdist(a, b).sum().backward()
print("cdist grad", a.grad.round(decimals=4).tolist())
a.grad = None
torch.cdist(a, b, p=1).sum().backward()
print("cdist p1 grad", a.grad.tolist())
a.grad = None
torch.cdist(a, b, p=float("inf")).sum().backward()
print("cdist inf grad", a.grad.tolist())
a.grad = None
(a.unsqueeze(1) - b).norm(dim=-1).sum().backward()
print("norm grad", a.grad.round(decimals=4).tolist())

for fn in (
    lambda: torch.cdist(a, b.T),
    lambda: torch.cdist(a, b, p=-1),
    lambda: torch.cdist(a.int(), b.int()),
    lambda: torch.cdist(a[0], b),
    lambda: torch.cdist(a, b, compute_mode="fast"),
    lambda: torch.pdist(a.unsqueeze(0)),
    lambda: codes.long().T.unsqueeze(0).expand(3, -1, -1).view(3, -1),
):
    try:
        print("ok", fn().shape)
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])
