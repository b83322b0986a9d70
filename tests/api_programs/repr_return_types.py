"""torch.return_types as users print and take apart: reprs of max/min/topk/sort/kthvalue/median/mode/cummax,
aminmax, linalg results (svd, qr, eigh, slogdet, lu_factor, lstsq, inv_ex, cholesky_ex), frexp, histogram;
indexing, unpacking, attribute access, tuple behaviour, out= twins, pickling and building one by hand."""

import pickle

import torch

torch.manual_seed(0)
torch.set_printoptions(precision=4)
x = torch.randn(3, 5)

res = torch.max(x, dim=1)
print(res)
print(type(res), type(res).__name__, type(res).__module__, type(res).__qualname__)
print(isinstance(res, tuple), len(res), res.n_fields, res.n_sequence_fields, res.n_unnamed_fields)
vals, idx = res
print(vals, idx, res[0] is res.values, res[-1] is res.indices)
print(res[:1], tuple(res)[1].dtype, list(map(lambda t: t.shape, res)))
print(res == (res.values, res.indices), res + ("extra",))
print(res.index(res.values))
print(torch.min(x, 0, keepdim=True))
print(x.max(-1).indices.tolist(), x.argmax(-1).tolist())

print(torch.topk(x, k=2, dim=1))
print(torch.topk(x.flatten(), 3, largest=False, sorted=True))
print(torch.sort(x[0], descending=True))
print(torch.sort(torch.tensor([3, 1, 2, 1]), stable=True))
print(torch.argsort(x[1]), x.sort(dim=0).indices)
print(torch.kthvalue(x, 2, dim=1))
print(torch.median(x, dim=0))
print(torch.nanmedian(torch.tensor([[1.0, float("nan"), 3.0], [2.0, 2.0, float("nan")]]), dim=1))
print(torch.mode(torch.tensor([[1, 2, 2], [3, 3, 1]]), dim=1))
print(torch.cummax(torch.tensor([1.0, 3.0, 2.0, 5.0]), dim=0))
print(torch.cummin(torch.tensor([[4, 2], [1, 3]]), dim=0))
print(torch.aminmax(x), torch.aminmax(x, dim=0, keepdim=True).max.shape)

# the linalg family
a = torch.tensor([[4.0, 1.0], [1.0, 3.0]])
u, s, vh = torch.linalg.svd(a)
print(type(torch.linalg.svd(a)).__name__, s)
print(torch.linalg.svd(a).S, torch.svd(a).V.shape)
print(torch.linalg.eigh(a))
q, r = torch.linalg.qr(a)
print(type(torch.linalg.qr(a)).__name__, torch.allclose(q @ r, a))
print(torch.linalg.slogdet(a))
sign, logabs = torch.linalg.slogdet(-a)
print(sign, logabs)
print(torch.linalg.lu_factor(a))
print(torch.linalg.inv_ex(a))
print(torch.linalg.cholesky_ex(a))
print(torch.linalg.lstsq(a, torch.tensor([[1.0], [2.0]])))
print(torch.linalg.lu(a).P)
print(torch.frexp(torch.tensor([8.0, 0.3, -5.0])))
print(torch.histogram(torch.tensor([1.0, 2.0, 1.0, 4.0]), bins=3))

# results from out= calls and by hand
v_out, i_out = torch.empty(3), torch.empty(3, dtype=torch.long)
r = torch.max(x, 1, out=(v_out, i_out))
print(type(r).__name__, r.values is v_out, v_out)
r2 = torch.sort(x[2], out=(torch.empty(5), torch.empty(5, dtype=torch.long)))
print(r2)
made = torch.return_types.max((torch.tensor([1.0]), torch.tensor([0])))
print(made, made.values)
try:
    torch.return_types.topk((torch.tensor([1.0]),))
except TypeError as e:
    print("TypeError", e)
back = pickle.loads(pickle.dumps(torch.topk(x[0], 2)))
print(type(back).__name__, back.indices)

# typical uses: dict of named results, loops over fields
stats = {name: getattr(torch.median(x, 1), name) for name in ("values", "indices")}
print(stats)
for field, t in zip(("values", "indices"), torch.min(x, 1)):
    print(field, t)
print(str(torch.max(x, 0)) == repr(torch.max(x, 0)), f"{torch.max(x[0], 0)}")
print([torch.max(row, 0).indices.item() for row in x])
print(torch.var_mean(x, dim=1), torch.std_mean(x, dim=0, correction=0))
print(torch.unique(torch.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True))
