"""The mistakes molecular-ML code makes and PyTorch's exact words for them: edge indices of the wrong dtype or
shape for scatter/index_add/gather, batch vectors out of range, segment lengths that do not sum, float atom types
in one_hot and Embedding, cdist on mismatched feature sizes, forces taken from an energy that does not depend on
positions, a second autograd.grad without retain_graph, in-place updates of saved positions, sparse adjacency
misuse, and bitwise ops on float fingerprints."""

import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
x = torch.randn(5, 4)
pos = torch.randn(5, 3, requires_grad=True)
edge_index = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])
batch = torch.tensor([0, 0, 1, 1, 1])


def attempt(name, fn):
    try:
        out = fn()
        print(name, "ok", tuple(out.shape) if isinstance(out, torch.Tensor) else out)
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0][:200])


src, dst = edge_index
attempt("index_add float index", lambda: torch.zeros(5, 4).index_add(0, dst.float(), x[src]))
attempt("index_add int32 index", lambda: torch.zeros(5, 4).index_add(0, dst.int(), x[src]))
attempt("index_add 2d index", lambda: torch.zeros(5, 4).index_add(0, edge_index, x[src]))
attempt("index_add source rows", lambda: torch.zeros(5, 4).index_add(0, dst, x))
attempt("index_add oob", lambda: torch.zeros(3, 4).index_add(0, dst, x[src]))
attempt("index_add dtype", lambda: torch.zeros(5, 4, dtype=torch.float64).index_add(0, dst, x[src]))
attempt("scatter_add 1d index", lambda: torch.zeros(5, 4).scatter_add(0, dst, x[src]))
attempt("scatter_add int32", lambda: torch.zeros(5, 4).scatter_add(0, dst[:, None].expand(-1, 4).int(), x[src]))
attempt("scatter_reduce oob", lambda: torch.zeros(2, 4).scatter_reduce(0, batch[:, None].expand(-1, 4), x, "amax"))
attempt("scatter_reduce neg", lambda: torch.zeros(2, 4).scatter_reduce(0, -batch[:, None].expand(-1, 4) - 1, x, "sum"))
attempt("gather rows", lambda: x.gather(0, torch.tensor([[7, 0, 0, 0]])))
attempt("gather dims", lambda: x.gather(0, torch.tensor([1, 2])))
attempt("index_select 2d", lambda: x.index_select(0, edge_index))
attempt("fancy oob", lambda: x[torch.tensor([0, 5])])
attempt("segment lengths", lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([2, 2])))
attempt("segment float lengths", lambda: torch.segment_reduce(x, "sum", lengths=torch.tensor([2.0, 3.0])))
attempt("bincount minlength", lambda: torch.bincount(batch, minlength=-1))
attempt("repeat_interleave sizes", lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([2, 3])))
attempt("one_hot float", lambda: F.one_hot(torch.tensor([6.0, 1.0]), 10))
attempt("one_hot int32", lambda: F.one_hot(torch.tensor([6, 1], dtype=torch.int32), 10))
attempt("embedding float idx", lambda: nn.Embedding(10, 3)(torch.tensor([6.0, 1.0])))
attempt("embedding oob", lambda: nn.Embedding(5, 3)(torch.tensor([6])))
attempt("cdist features", lambda: torch.cdist(pos, x))
attempt("cdist batch", lambda: torch.cdist(torch.randn(2, 5, 3), torch.randn(3, 4, 3)))
attempt("cross dim", lambda: torch.linalg.cross(pos[:, :2], pos[:, :2]))
attempt("norm int", lambda: torch.linalg.vector_norm(edge_index))

# autograd mistakes
energy = (x ** 2).sum()
attempt("grad unrelated", lambda: torch.autograd.grad(energy, pos))
e2 = (pos ** 2).sum()
attempt("grad ok", lambda: torch.autograd.grad(e2, pos, retain_graph=False)[0])
attempt("grad twice", lambda: torch.autograd.grad(e2, pos))
attempt("allow_unused",
        lambda: torch.autograd.grad((pos ** 2).sum(), [pos, torch.ones(1, requires_grad=True)], allow_unused=True)[1])
attempt("materialize",
        lambda: torch.autograd.grad((pos ** 2).sum(), [pos, torch.ones(1, requires_grad=True)], allow_unused=True,
                                    materialize_grads=True)[1])
attempt("non-scalar", lambda: torch.autograd.grad(pos * 2, pos))
attempt("int requires_grad", lambda: torch.tensor([1, 2]).requires_grad_())
attempt("leaf in-place", lambda: pos.add_(1.0))
p2 = pos.detach().clone().requires_grad_(True)
r = p2 * 1.0
d = (r[0] - r[1]).norm()
r.mul_(2.0)
attempt("saved modified", lambda: d.backward())
p3 = pos.detach().clone().requires_grad_(True)
s = p3.exp()
s.add_(1.0)
attempt("exp inplace", lambda: s.sum().backward())

# sparse adjacency misuse
A = torch.sparse_coo_tensor(edge_index, torch.ones(4), (5, 5))
attempt("sparse indices uncoalesced", lambda: A.coalesce().indices().shape)
attempt("sparse + dense", lambda: A + torch.ones(5, 5))
attempt("sparse mm dims", lambda: torch.sparse.mm(A, torch.ones(4, 2)))
attempt("sparse reshape", lambda: A.reshape(25))
attempt("sparse numpy", lambda: A.numpy())
attempt("sparse int grad",
        lambda: torch.sparse_coo_tensor(edge_index, torch.ones(4, dtype=torch.long), (5, 5)).requires_grad_())

# fingerprints stored as floats
fp = (torch.rand(2, 16) > 0.5).float()
attempt("float and", lambda: fp[0] & fp[1])
attempt("float invert", lambda: ~fp[0])
attempt("bool sub", lambda: fp.bool()[0] - fp.bool()[1])
attempt("bool neg", lambda: -fp.bool()[0])
attempt("ok and", lambda: fp.bool()[0] & fp.bool()[1])
