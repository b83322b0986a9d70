"""Sparse voxel convolution in plain torch as MinkowskiEngine/spconv ports write it: coordinates hashed to int64
keys, kernel offsets from cartesian_prod, neighbour lookup by searchsorted on sorted keys with isin masks, a
gather-matmul-scatter submanifold conv with index_add_, a strided conv by floor_divide downsampling with
unique(return_inverse), the same features as a sparse COO tensor (coalesce, to_dense, sparse.sum), and a check
against a dense Conv3d."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
G = 6
occ = torch.rand(G, G, G) < 0.25
coords = occ.nonzero()
n = coords.shape[0]
feats = torch.randn(n, 2)
print("active", n, coords.dtype, coords[:3].tolist())


def key(c):
    return (c[:, 0] * (G + 2) + c[:, 1]) * (G + 2) + c[:, 2]


keys = key(coords)
sorted_keys, order = torch.sort(keys)
print("keys sorted unique", bool((sorted_keys[1:] > sorted_keys[:-1]).all()), keys.dtype)
r = torch.tensor([-1, 0, 1])
offsets = torch.cartesian_prod(r, r, r)
print("offsets", offsets.shape, offsets[:4].tolist(), offsets[13].tolist())


def neighbours(coords, offsets):
    maps = []
    for k, off in enumerate(offsets):
        q = coords + off
        inside = ((q >= 0) & (q < G)).all(1)
        qk = key(q.clamp(0, G - 1))
        pos = torch.searchsorted(sorted_keys, qk).clamp(max=len(sorted_keys) - 1)
        hit = inside & (sorted_keys[pos] == qk)
        assert torch.equal(hit, inside & torch.isin(qk, keys))
        maps.append((torch.nonzero(hit, as_tuple=True)[0], order[pos[hit]]))
    return maps


maps = neighbours(coords, offsets)
print("pairs per offset", [m[0].numel() for m in maps[:9]], sum(m[0].numel() for m in maps))
W = torch.randn(27, 2, 4) * 0.3


def subm_conv(feats, W, maps):
    out = torch.zeros(feats.shape[0], W.shape[-1])
    for k, (o, i) in enumerate(maps):
        out.index_add_(0, o, feats[i] @ W[k])
    return out


out = subm_conv(feats, W, maps)
print("subm conv", out.shape, out.sum().round(decimals=4).item())
dense_in = torch.zeros(1, 2, G, G, G)
dense_in[0, :, coords[:, 0], coords[:, 1], coords[:, 2]] = feats.t()
weight = W.view(3, 3, 3, 2, 4).permute(4, 3, 0, 1, 2)
dense_out = F.conv3d(dense_in, weight, padding=1)
at_active = dense_out[0, :, coords[:, 0], coords[:, 1], coords[:, 2]].t()
print("matches dense conv", torch.allclose(at_active, out, atol=1e-5))

down = torch.div(coords, 2, rounding_mode="floor")
dcoords, dinv = torch.unique(down, dim=0, return_inverse=True)
pooled = torch.zeros(len(dcoords), 2).index_reduce_(0, dinv, feats, "amax", include_self=False)
print("strided", dcoords.shape, pooled.sum().round(decimals=4).item())
dense_pool = F.max_pool3d(dense_in.masked_fill(dense_in == 0, -1e4), 2)
print("pool matches", torch.allclose(dense_pool[0, :, dcoords[:, 0], dcoords[:, 1], dcoords[:, 2]].t(), pooled))
up = pooled[dinv]
print("unpool by inverse", up.shape, torch.equal(up[0], pooled[dinv[0]]))

sp = torch.sparse_coo_tensor(coords.t(), feats, size=(G, G, G, 2))
print("sparse", sp.layout, sp.is_coalesced(), sp.sparse_dim(), sp.dense_dim(), sp._nnz())
dup = torch.sparse_coo_tensor(torch.cat([coords, coords[:3]]).t(), torch.cat([feats, feats[:3]]), (G, G, G, 2))
c = dup.coalesce()
extra = torch.zeros(G, G, G, 2).index_put_(tuple(coords[:3].t()), feats[:3])
print("coalesce", dup._nnz(), c._nnz(), c.is_coalesced(), torch.allclose(c.to_dense(), sp.to_dense() + extra))
print("to_dense", torch.equal(sp.to_dense().permute(3, 0, 1, 2), dense_in[0]))
print("sparse.sum", torch.sparse.sum(sp, dim=(0, 1, 2)).round(decimals=4).tolist(),
      torch.sparse.sum(sp).round(decimals=4).item())
print("indices", c.indices().shape, c.values().shape, c.indices()[:, :3].tolist())

w1 = nn.Parameter(W.clone())
opt = torch.optim.Adam([w1], lr=0.01)
target = torch.randn(n, 4)
for step in range(3):
    pred = subm_conv(feats, w1, maps)
    loss = F.smooth_l1_loss(pred, target, beta=0.5)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("train", step, round(loss.item(), 4), (w1.grad.abs().sum((1, 2)) > 0).sum().item())

for call in [lambda: torch.searchsorted(keys, sorted_keys),
             lambda: torch.searchsorted(sorted_keys.float(), sorted_keys),
             lambda: torch.sparse_coo_tensor(coords.t(), feats, size=(G, G, 2, 2), check_invariants=True),
             lambda: torch.cartesian_prod(torch.ones(2, 2))]:
    try:
        print(call().shape)
    except Exception as e:
        print(type(e).__name__, e)
