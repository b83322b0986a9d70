"""Dihedral augmentation of Go 9x9 training samples as AlphaGo Zero does it: the eight symmetries of board planes by
rot90/flip/transpose, the same maps applied to flat policy targets (with the pass move kept last), inverse maps,
index permutations built once and applied with gather/index_select, and the errors of rot90 and flip."""

import torch

torch.manual_seed(0)
N = 9
planes = (torch.rand(4, 17, N, N) < 0.3).float()
policy = torch.softmax(torch.randn(4, N * N + 1), dim=-1)
value = torch.tensor([1.0, -1.0, 0.0, 1.0])


def sym(x, k):
    """k in 0..7: rotate by k%4 quarter turns, then transpose if k >= 4 (dims are the last two)."""
    y = torch.rot90(x, k % 4, dims=(-2, -1))
    return y.transpose(-2, -1) if k >= 4 else y


def inv_sym(x, k):
    if k >= 4:
        x = x.transpose(-2, -1)
    return torch.rot90(x, -(k % 4), dims=(-2, -1))


def sym_policy(p, k):
    board = p[..., :-1].reshape(*p.shape[:-1], N, N)
    return torch.cat([sym(board, k).flatten(-2), p[..., -1:]], dim=-1)


for k in range(8):
    s = sym(planes, k)
    back = inv_sym(s, k)
    ps = sym_policy(policy, k)
    print(k, tuple(s.shape), s.is_contiguous(), torch.equal(back, planes), round(ps.sum().item(), 4),
          round(ps[0, :5].sum().item(), 4), ps[:, -1].equal(policy[:, -1]))

# the permutation view: perm[k][i] is the source square of target square i
idx = torch.arange(N * N).reshape(N, N)
perms = torch.stack([sym(idx, k).flatten() for k in range(8)])
print("perms", perms.shape, perms.dtype, perms[1, :10].tolist())
print("each a permutation", (perms.sort(dim=1).values == torch.arange(N * N)).all().item())
flat = planes.flatten(-2)
gathered = flat.index_select(-1, perms[3])
print("index_select matches rot90", torch.equal(gathered.reshape_as(planes), sym(planes, 3)))
g = torch.gather(policy[:, :-1], 1, perms[5].expand(4, -1))
print("gather matches", torch.allclose(g, sym_policy(policy, 5)[:, :-1]))

# the group's structure: composing two rotations, inverses through argsort
inv = perms.argsort(dim=1)
print("argsort inverse", torch.equal(perms[2][inv[2]], torch.arange(N * N)))
comp = perms[1][perms[1]]
print("rot90 twice is rot180", torch.equal(comp, perms[2]))
print("flip equivalents", torch.equal(sym(idx, 2), idx.flip(0, 1)), torch.equal(sym(idx, 4), idx.t()),
      torch.equal(torch.fliplr(idx), idx.flip(1)), torch.equal(torch.flipud(idx), idx.flip(0)))
print("rot90 strides", torch.rot90(idx, 1).stride(), idx.flip(0).stride(), idx.t().stride())

# a random symmetry per sample, applied in one go with a batched gather
ks = torch.randint(0, 8, (4,))
print("ks", ks.tolist())
aug = torch.gather(flat, 2, perms[ks][:, None, :].expand(-1, 17, -1)).reshape_as(planes)
ref = torch.stack([sym(planes[i], int(ks[i])) for i in range(4)])
print("batched gather == loop", torch.equal(aug, ref))
aug_pol = torch.cat([torch.gather(policy[:, :-1], 1, perms[ks]), policy[:, -1:]], 1)
print("policy mass kept", aug_pol.sum(1).round(decimals=4).tolist(), value.tolist())

# test-time augmentation: average a fixed "network" over the 8 views, mapped back
w = torch.randn(17, N, N)
def net(x):
    return (x * w).sum(1).flatten(-2)
tta = torch.stack([inv_sym(net(sym(planes, k)).reshape(4, N, N), k).flatten(-2) for k in range(8)]).mean(0)
print("tta", tta.shape, round(tta.sum().item(), 4), round(tta.abs().max().item(), 4))
sym_inv = torch.stack([net(sym(planes, k)).sum(1) for k in range(8)])
print("sum per view", sym_inv.round(decimals=3)[:, 0].tolist())

# the misuse
for bad in [
    lambda: torch.rot90(idx, 1, dims=(0, 0)),
    lambda: torch.rot90(idx, 1, dims=(0,)),
    lambda: torch.rot90(idx, 1, dims=(0, 2)),
    lambda: idx.flip(0, 0),
    lambda: idx.flip(2),
    lambda: torch.fliplr(torch.arange(3)),
    lambda: flat.index_select(-1, perms[3].float()),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
