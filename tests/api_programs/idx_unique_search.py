"""unique and sorted search as vocabulary, binning and dedup code uses them: unique sorted/unsorted with
return_inverse and return_counts (inverse round-trips), unique along dim=0/1 for rows and columns, unique of
floats with -0.0/nan, unique_consecutive with and without dim, searchsorted with right=, side=, sorter= and
out_int32, bucketize for histogram binning with boundaries, batched searchsorted over rows, and the errors for
mismatched shapes and unsorted inputs."""

import torch

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        print(f"{name}:", fn())
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")


tokens = torch.randint(0, 8, (20,))
print("tokens:", tokens)
vocab, inv, cnt = torch.unique(tokens, return_inverse=True, return_counts=True)
print("vocab:", vocab)
print("inverse:", inv)
print("counts:", cnt, "sum", cnt.sum().item())
print("round trip:", torch.equal(vocab[inv], tokens))
print("most frequent:", vocab[cnt.argmax()].item(), "x", cnt.max().item())
u1 = torch.unique(tokens, sorted=True)
print("sorted:", u1)
print("inverse dtype:", inv.dtype, "counts dtype:", cnt.dtype)
print("method form:", tokens.unique(return_counts=True)[1])

# 2-d input without dim: flattened; inverse keeps the input's shape
g = torch.tensor([[3, 1, 3], [2, 1, 2]])
u, i = torch.unique(g, return_inverse=True)
print("2-d unique:", u, "inverse:\n", i)

# rows and columns
rows = torch.tensor([[1, 2], [0, 5], [1, 2], [0, 1], [0, 5]])
ur, ir, cr = torch.unique(rows, dim=0, return_inverse=True, return_counts=True)
print("unique rows:\n", ur, "\ninverse:", ir, "counts:", cr)
cols = rows.t()
uc, ic = torch.unique(cols, dim=1, return_inverse=True)
print("unique cols:\n", uc, "\ninverse:", ic)
print("dim=-1 same:", torch.equal(torch.unique(cols, dim=-1), uc))
print("3-d dim=1:\n", torch.unique(torch.tensor([[[1, 1], [0, 0], [1, 1]], [[2, 2], [3, 3], [2, 2]]]), dim=1))

# floats: -0.0 == 0.0, nan never equal
f = torch.tensor([0.5, -0.0, 0.0, float("nan"), 0.5, float("nan"), -1.25])
uf, cf = torch.unique(f, return_counts=True)
print("float unique:", uf, "counts:", cf)
print("bool unique:", torch.unique(torch.tensor([True, False, True])))
print("empty unique:", torch.unique(torch.tensor([], dtype=torch.long), return_counts=True))

# unique_consecutive: run-length encoding
runs = torch.tensor([1, 1, 2, 2, 2, 3, 1, 1, 4])
val, rinv, rcnt = torch.unique_consecutive(runs, return_inverse=True, return_counts=True)
print("rle values:", val, "counts:", rcnt, "inverse:", rinv)
print("decode:", torch.equal(val.repeat_interleave(rcnt), runs))
rr = torch.tensor([[1, 1], [1, 1], [2, 0], [1, 1], [1, 1]])
print("consecutive rows:", torch.unique_consecutive(rr, dim=0, return_counts=True))
print("consecutive 2-d flat:", torch.unique_consecutive(torch.tensor([[1, 1], [1, 2]])))

# searchsorted: left/right, side=, sorter=, out_int32, scalar values
edges = torch.tensor([0.0, 1.0, 2.5, 2.5, 4.0])
q = torch.tensor([-1.0, 0.0, 1.5, 2.5, 4.0, 9.0])
print("left:", torch.searchsorted(edges, q))
print("right:", torch.searchsorted(edges, q, right=True))
print("side=right:", torch.searchsorted(edges, q, side="right"))
print("side=left:", torch.searchsorted(edges, q, side="left"))
print("int32:", torch.searchsorted(edges, q, out_int32=True).dtype)
print("scalar value:", torch.searchsorted(edges, 2.5), torch.searchsorted(edges, 2.5, right=True))
unsorted = torch.tensor([4.0, 0.0, 2.5, 1.0])
sorter = torch.argsort(unsorted)
print("sorter:", torch.searchsorted(unsorted, torch.tensor([0.5, 3.0]), sorter=sorter))
batch_seq = torch.tensor([[0, 2, 4, 6], [1, 3, 5, 7]])
batch_q = torch.tensor([[3, 6, 9], [3, 6, 9]])
print("batched:\n", torch.searchsorted(batch_seq, batch_q))
print("batched right:\n", torch.searchsorted(batch_seq, batch_q, right=True))
print("int seq float values:", torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([2.5, 3.0])))

# bucketize: histogram binning
data = torch.randn(12)
bounds = torch.tensor([-1.0, 0.0, 1.0])
b = torch.bucketize(data, bounds)
print("data:", data)
print("bins:", b)
print("bins right:", torch.bucketize(data, bounds, right=True))
print("hist:", torch.bincount(b, minlength=4))
print("bucketize 2-d:\n", torch.bucketize(torch.tensor([[0.0, 1.0], [-2.0, 3.0]]), bounds, out_int32=True))
print("bucketize scalar:", torch.bucketize(0.5, bounds), torch.bucketize(torch.tensor(1.0), bounds, right=True))
print("bucketize nan:", torch.bucketize(torch.tensor([float("nan"), float("inf")]), bounds))
print("histc:", torch.histc(data, bins=4, min=-2, max=2))
hv, he = torch.histogram(data, bins=3)
print("histogram:", hv, he)

# out= buffers reused across batches
buf = torch.empty(0, dtype=torch.long)
for chunk in data.split(5):
    torch.bucketize(chunk, bounds, out=buf)
    print("bucketize out=:", buf.tolist(), tuple(buf.shape))
buf32 = torch.empty(6, dtype=torch.int32)
print("searchsorted out_int32 out=:", torch.searchsorted(edges, q, out_int32=True, out=buf32) is buf32, buf32)

# errors
attempt("searchsorted out dtype", lambda: torch.searchsorted(edges, q, out=buf32))
attempt("unique dim of 0-dim", lambda: torch.unique(torch.tensor(3), dim=0))
attempt("unique rows of (3, 0)", lambda: torch.unique(torch.zeros(3, 0), dim=0))
attempt("searchsorted 0-dim boundaries", lambda: torch.searchsorted(torch.tensor(1.0), q))
attempt("searchsorted batch mismatch", lambda: torch.searchsorted(batch_seq, torch.tensor([[1], [2], [3]])))
attempt("searchsorted side+right", lambda: torch.searchsorted(edges, q, side="left", right=True))
attempt("searchsorted bad side", lambda: torch.searchsorted(edges, q, side="middle"))
attempt("sorter shape", lambda: torch.searchsorted(unsorted, q, sorter=torch.tensor([0, 1])))
attempt("sorter out of range", lambda: torch.searchsorted(unsorted, q, sorter=torch.tensor([0, 1, 2, 9])))
attempt("bucketize 2-d boundaries", lambda: torch.bucketize(q, batch_seq))
attempt("unique bad dim", lambda: torch.unique(rows, dim=2))
attempt("unique_consecutive bad dim", lambda: torch.unique_consecutive(rows, dim=-3))
