"""Low-rank compression beyond Linear: a conv split into a k x k conv with r filters and a 1 x 1 conv,
a factorised embedding (ALBERT style), rank picked by matrix_rank tolerances and energy, plus the legacy
torch.svd API and randomized svd_lowrank / pca_lowrank as compression scripts still call them."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def split_conv(conv, rank):
    out_c, in_c, kh, kw = conv.weight.shape
    U, S, Vh = torch.linalg.svd(conv.weight.detach().reshape(out_c, -1), full_matrices=False)
    first = nn.Conv2d(in_c, rank, (kh, kw), stride=conv.stride, padding=conv.padding, bias=False)
    second = nn.Conv2d(rank, out_c, 1, bias=conv.bias is not None)
    with torch.no_grad():
        first.weight.copy_((S[:rank, None] * Vh[:rank]).reshape(rank, in_c, kh, kw))
        second.weight.copy_(U[:, :rank].reshape(out_c, rank, 1, 1))
        if conv.bias is not None:
            second.bias.copy_(conv.bias)
    return nn.Sequential(first, second)


conv = nn.Conv2d(4, 10, 3, padding=1)
with torch.no_grad():  # make the filters nearly rank 3, as trained filters often are
    base = torch.randn(10, 3) @ torch.randn(3, 36)
    conv.weight.copy_((base + 0.01 * torch.randn(10, 36)).reshape(10, 4, 3, 3))
x = torch.randn(2, 4, 8, 8)
flat = conv.weight.detach().reshape(10, -1)
print(
    "ranks",
    torch.linalg.matrix_rank(flat).item(),
    torch.linalg.matrix_rank(flat, atol=0.5).item(),
    torch.linalg.matrix_rank(flat, rtol=0.05).item(),
    torch.linalg.matrix_rank(flat, hermitian=False).dtype,
)
for rank in (1, 3, 6):
    fac = split_conv(conv, rank)
    err = (fac(x) - conv(x)).abs().max().item()
    n = sum(p.numel() for p in fac.parameters())
    print(
        "rank",
        rank,
        "params",
        n,
        "vs",
        sum(p.numel() for p in conv.parameters()),
        "rel err",
        round(err / conv(x).abs().max().item(), 4),
    )
print(split_conv(conv, 3))

# legacy torch.svd returns V, not Vh
U, S, V = torch.svd(flat)
print(
    "torch.svd",
    tuple(U.shape),
    tuple(S.shape),
    tuple(V.shape),
    torch.allclose(U @ torch.diag(S) @ V.T, flat, atol=1e-4),
)
Uf, Sf, Vf = torch.svd(flat, some=False)
print("some=False", tuple(Uf.shape), tuple(Vf.shape))
U0, S0, V0 = torch.svd(flat, compute_uv=False)
print(
    "compute_uv=False",
    tuple(U0.shape),
    tuple(V0.shape),
    float(U0.abs().sum()),
    float(V0.abs().sum()),
    torch.allclose(S0, torch.linalg.svdvals(flat)),
)
res = torch.linalg.svd(flat, full_matrices=False)
print(type(res).__name__, tuple(res.U.shape), tuple(res.S.shape), tuple(res.Vh.shape))

# randomized low-rank SVD on an exactly rank-3 matrix recovers its spectrum
exact = base[:, :20]
Ur, Sr, Vr = torch.svd_lowrank(exact, q=5, niter=3)
print(
    "svd_lowrank",
    tuple(Ur.shape),
    tuple(Sr.shape),
    tuple(Vr.shape),
    torch.allclose(Sr[:3], torch.linalg.svdvals(exact)[:3], rtol=1e-3),
)
Up, Sp, Vp = torch.pca_lowrank(exact, q=3)
print("pca_lowrank", tuple(Up.shape), tuple(Sp.shape), tuple(Vp.shape))
centered = exact - exact.mean(0, keepdim=True)
print("pca matches centered svd", torch.allclose(Sp, torch.linalg.svdvals(centered)[:3], rtol=1e-3))

# factorised embedding: vocab x d  ->  vocab x r  then  r x d
emb = nn.Embedding(50, 16)
with torch.no_grad():
    emb.weight.copy_(torch.randn(50, 4) @ torch.randn(4, 16))
U, S, Vh = torch.linalg.svd(emb.weight.detach(), full_matrices=False)
energy = S.pow(2).cumsum(0) / S.pow(2).sum()
r = int(torch.searchsorted(energy, torch.tensor(0.999))) + 1
print("chosen rank", r, "energy", round(energy[r - 1].item(), 4))
small = nn.Embedding(50, r)
proj = nn.Linear(r, 16, bias=False)
with torch.no_grad():
    small.weight.copy_(U[:, :r] * S[:r])
    proj.weight.copy_(Vh[:r].T)
ids = torch.tensor([[1, 7, 49], [0, 3, 3]])
print(
    "embedding err",
    round((proj(small(ids)) - emb(ids)).abs().max().item(), 4),
    "params",
    emb.weight.numel(),
    "->",
    small.weight.numel() + proj.weight.numel(),
)

try:
    torch.linalg.svd(torch.ones(4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.matrix_rank(flat, atol=0.1, tol=0.1)
except Exception as e:
    print(type(e).__name__, str(e)[:90])
