"""MSA processing and direct-coupling analysis: an integer-encoded alignment with gap masks and gap-fraction column
filters, sequence reweighting by an identity threshold (pairwise identity through one-hot matmuls), weighted
frequencies with pseudocounts, the covariance matrix inverted into couplings (mean-field DCA), Frobenius norms per
residue pair with APC, torch.cov with frequency/analytic weights, and conservation entropy with xlogy."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
aa = "ARNDCQEGHILKMFPSTWYV-"
msa_txt = ["MKV-LAGH", "MRV-LAGH", "MKIELSGH", "-KVELAG-", "MKVQLAGN", "LKV-IAGH", "MRIELSGH"]
msa = torch.tensor([[aa.index(c) for c in s] for s in msa_txt])
N, L = msa.shape
q = len(aa)
gap = msa.eq(q - 1)
print(
    "msa",
    msa.shape,
    msa.dtype,
    "gaps per col",
    gap.sum(0).tolist(),
    "per seq",
    gap.float().mean(1).round(decimals=4).tolist(),
)
keep = gap.float().mean(0) <= 0.5
print("kept cols", keep.nonzero().squeeze(1).tolist(), msa[:, keep].shape)

oh = F.one_hot(msa, q).to(torch.float64)
ident = torch.einsum("nlq,mlq->nm", oh, oh) / L
print("identity row0", ident[0].round(decimals=4).tolist())
w = 1.0 / (ident >= 0.8).sum(1).to(torch.float64)
neff = w.sum()
print("weights", w.round(decimals=4).tolist(), "Neff", round(neff.item(), 4))

lam = 0.5
fi = (w[:, None, None] * oh).sum(0) / neff
fi = (1 - lam) * fi + lam / q
fij = torch.einsum("n,nia,njb->iajb", w, oh, oh) / neff
fij = (1 - lam) * fij + lam / q**2
eye = torch.eye(L, dtype=torch.bool)
idx = torch.arange(L)
print("split-index shape", fij[idx, :, idx, :].shape, fij[idx, :, idx].shape, fij[:, 0, idx, 0].shape)
fij[idx, :, idx, :] = torch.diag_embed(fi)
print("fi sums", fi.sum(-1).round(decimals=4).unique().tolist(), "fij", fij.shape)
C = fij - fi[:, :, None, None] * fi[None, None, :, :]
C = C[:, : q - 1, :, : q - 1].reshape(L * (q - 1), L * (q - 1))
print("C symmetric", torch.allclose(C, C.T), "rank", torch.linalg.matrix_rank(C).item())
J = -torch.linalg.inv(C + 1e-2 * torch.eye(C.shape[0], dtype=torch.float64))
J = J.view(L, q - 1, L, q - 1)
fn = torch.linalg.matrix_norm(J.permute(0, 2, 1, 3), ord="fro")
fn = fn.masked_fill(eye, 0.0)
apc = fn - fn.sum(0, keepdim=True) * fn.sum(1, keepdim=True) / fn.sum()
iu = torch.triu_indices(L, L, 1)
scores = apc[iu[0], iu[1]]
order = scores.argsort(descending=True, stable=True)[:4]
print("top pairs", iu[:, order].T.tolist(), scores[order].round(decimals=4).tolist())
sol, info = torch.linalg.solve_ex(
    C + 1e-2 * torch.eye(C.shape[0], dtype=torch.float64), torch.ones(C.shape[0], 1, dtype=torch.float64)
)
print("solve_ex info", info.item(), sol.shape)
L_ch, info = torch.linalg.cholesky_ex(C[:20, :20] + 1e-2 * torch.eye(20, dtype=torch.float64))
print(
    "cholesky_ex", info.item(), torch.allclose(L_ch @ L_ch.T, C[:20, :20] + 1e-2 * torch.eye(20, dtype=torch.float64))
)

feat = oh[:, :, :4].reshape(N, -1).T
fw = torch.tensor([1, 2, 1, 1, 3, 1, 1])
cw = torch.cov(feat, correction=1, fweights=fw, aweights=w)
print("cov weighted", cw.shape, round(cw.trace().item(), 4), round(torch.cov(feat).sum().item(), 4))
print("corrcoef nan cols", torch.corrcoef(feat[:3]).isnan().sum().item())

ent = -torch.special.xlogy(fi, fi).sum(-1)
raw = (w[:, None, None] * oh).sum(0) / neff
ent_raw = -torch.xlogy(raw, raw).sum(-1)
print("entropy", ent.round(decimals=4).tolist())
print(
    "entropy raw",
    ent_raw.round(decimals=4).tolist(),
    torch.special.entr(raw).sum(-1).round(decimals=4).tolist() == ent_raw.round(decimals=4).tolist(),
)
cons = msa.mode(0)
print("consensus", "".join(aa[i] for i in cons.values.tolist()), cons.indices.tolist())
hamming = torch.cdist(oh.flatten(1), oh.flatten(1), p=0) / 2
print("hamming p=0", hamming[0].tolist())
print("cdist p=1", (torch.cdist(oh.flatten(1), oh.flatten(1), p=1) / 2)[0].tolist())
try:
    torch.cov(feat, fweights=torch.tensor([1.0] * 7))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(feat, aweights=-w)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.inv(torch.zeros(3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cov(torch.zeros(2, 2, 2))
except Exception as e:
    print(type(e).__name__, e)
