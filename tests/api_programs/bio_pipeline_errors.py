"""The mistakes computational-biology code makes and PyTorch's exact words for them: one-hot of unknown bases,
k-mer windows longer than the read, Conv1d on length-last tensors, distogram bins that are not sorted, CSR count
matrices reduced without keepdim, sparse/dense mixing in size factors, wrong-dtype atom indices in message passing,
Kabsch on a batch of non-square covariances, rate matrices with the wrong shape, and lgamma of integer counts."""

import warnings

import torch

nn = torch.nn
F = torch.nn.functional
warnings.simplefilter("ignore")
torch.manual_seed(0)


def attempt(label, fn):
    try:
        out = fn()
        if isinstance(out, torch.Tensor):
            desc = (out.layout, out.dtype, tuple(out.shape))
            if out.layout == torch.strided and out.numel() <= 8:
                desc += (out.float().round(decimals=4).tolist(),)
            print(label, "ok", *desc)
        else:
            print(label, "ok", out)
    except Exception as e:
        print(label, type(e).__name__, e)


codes = torch.tensor([[0, 1, 2, 3, 4], [3, 3, 2, 1, 0]])
attempt("one_hot N as 4 of 4", lambda: F.one_hot(codes, num_classes=4))
attempt("one_hot negative", lambda: F.one_hot(torch.tensor([-1, 2]), 4))
attempt("one_hot int32", lambda: F.one_hot(codes.int(), 5))
attempt("kmer too long", lambda: codes.unfold(1, 6, 1))
attempt("kmer step 0", lambda: codes.unfold(1, 2, 0))
attempt("unfold negative size", lambda: codes.unfold(1, -1, 1))
x = F.one_hot(codes, 5).float()
conv = nn.Conv1d(5, 3, 3)
attempt("conv length-last", lambda: conv(x))
attempt("conv channels-first", lambda: conv(x.transpose(1, 2)))
attempt("conv int input", lambda: conv(codes[:, None].repeat(1, 5, 1)))
attempt("conv kernel > length", lambda: nn.Conv1d(5, 3, 9)(x.transpose(1, 2)))
attempt("maxpool too small", lambda: F.max_pool1d(torch.zeros(1, 3, 2), 3))

d = torch.tensor([[3.0, 7.5], [12.0, 25.0]])
attempt("bucketize unsorted", lambda: torch.bucketize(d, torch.tensor([8.0, 2.0, 16.0])))
attempt("bucketize int boundaries", lambda: torch.bucketize(d, torch.tensor([2, 8, 16])))
attempt(
    "searchsorted sorter wrong", lambda: torch.searchsorted(torch.tensor([8.0, 2.0]), d, sorter=torch.tensor([0, 5]))
)
attempt("searchsorted 2d mismatch", lambda: torch.searchsorted(torch.tensor([[1.0, 2.0]]), d))

counts = torch.tensor([[0.0, 3.0, 1.0], [2.0, 0.0, 0.0]]).to_sparse_csr()
attempt("csr row sums", lambda: counts.sum(1))
attempt("csr row sums keepdim", lambda: counts.sum(1, keepdim=True))
attempt("csc col sums", lambda: counts.to_sparse_csc().sum(0, keepdim=True))
attempt("csr total", lambda: counts.sum())
try:
    torch.sparse.sum(counts, 1)
except NotImplementedError as e:
    print("sparse.sum of csr", str(e)[:77])
coo = counts.to_sparse_coo()
attempt(
    "coo values uncoalesced",
    lambda: torch.sparse_coo_tensor(torch.tensor([[0, 0], [1, 1]]), torch.ones(2), (2, 3)).values(),
)
attempt("coo + dense", lambda: coo + torch.ones(2, 3))
attempt("dense + coo", lambda: torch.ones(2, 3) + coo)
attempt("coo mH", lambda: coo.mH)
attempt("coo H 3d", lambda: torch.zeros(2, 2, 2).to_sparse().H)
attempt("sparse mm shapes", lambda: torch.sparse.mm(coo, torch.ones(2, 2)))

h = torch.randn(4, 2)
edge = torch.tensor([[0, 1, 2], [1, 2, 3]])
attempt("index_add float index", lambda: torch.zeros(4, 2).index_add_(0, edge[1].float(), h[edge[0]]))
attempt("index_add shape", lambda: torch.zeros(4, 2).index_add_(0, edge[1], h))
attempt(
    "scatter_reduce bad reduce",
    lambda: torch.zeros(4, 2).scatter_reduce(0, edge[1][:, None].expand(3, 2), h[:3], "median"),
)
attempt("scatter index too big", lambda: torch.zeros(4, 2).scatter_(0, torch.tensor([[4, 0]]), 1.0))
attempt("index_select int32", lambda: h.index_select(0, edge[1].int()))
attempt("gather dims", lambda: h.gather(0, edge))

P = torch.randn(2, 5, 3)
attempt("svd batch", lambda: torch.linalg.svd(P.mT @ P)[1].shape)
attempt("det non-square", lambda: torch.linalg.det(P))
attempt("cross dim", lambda: torch.linalg.cross(P, P, dim=1))
attempt("cross broadcast", lambda: torch.linalg.cross(P, torch.ones(3, 3)))
attempt("matrix_exp batch", lambda: torch.linalg.matrix_exp(torch.zeros(2, 4, 4)).shape)
attempt("matrix_exp vector", lambda: torch.linalg.matrix_exp(torch.zeros(4)))
attempt("eigh non-square", lambda: torch.linalg.eigh(torch.zeros(3, 4)))
attempt("lgamma int", lambda: torch.lgamma(torch.tensor([1, 5, 10])))
attempt("lgamma_ int", lambda: torch.tensor([1, 5]).lgamma_())
attempt("digamma bool", lambda: torch.digamma(torch.tensor([True, False])))
attempt("logsumexp dim out", lambda: torch.logsumexp(torch.zeros(2, 3), dim=2))
attempt("xlogy int", lambda: torch.xlogy(torch.tensor([0, 2]), torch.tensor([0, 3])))
attempt("cdist dims", lambda: torch.cdist(torch.zeros(3, 2), torch.zeros(3, 4)))
attempt("cdist 1d", lambda: torch.cdist(torch.zeros(3), torch.zeros(3)))
attempt("topk k too big", lambda: torch.zeros(2, 3).topk(4))
attempt("cov 3d", lambda: torch.cov(torch.zeros(2, 2, 2)))
attempt("pca_lowrank q", lambda: torch.pca_lowrank(torch.zeros(4, 3), q=4))
attempt("pca_lowrank sparse 3d", lambda: torch.pca_lowrank(torch.zeros(2, 3, 2).to_sparse(), q=1))
