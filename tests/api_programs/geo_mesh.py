"""Triangle-mesh processing as pytorch3d/kaolin-style code writes it: an icosahedron subdivided once, face normals
and areas via linalg.cross, area-weighted vertex normals via index_add_, per-vertex scatter_reduce amax/mean with
include_self, unique edges, a uniform Laplacian as a sparse COO matrix with torch.sparse.mm, Laplacian smoothing,
edge-length and normal-consistency losses, and a mesh deformed toward a sphere by gradient descent."""

import math

import torch

torch.manual_seed(2)
torch.set_printoptions(precision=4, sci_mode=False)


def icosahedron():
    p = (1 + math.sqrt(5)) / 2
    v = torch.tensor(
        [[-1, p, 0], [1, p, 0], [-1, -p, 0], [1, -p, 0], [0, -1, p], [0, 1, p],
         [0, -1, -p], [0, 1, -p], [p, 0, -1], [p, 0, 1], [-p, 0, -1], [-p, 0, 1]],
        dtype=torch.float32,
    )
    f = torch.tensor(
        [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4], [11, 10, 2],
         [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9], [4, 9, 5],
         [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    )
    return v / v.norm(dim=1, keepdim=True), f


def unique_edges(faces):
    e = torch.cat([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]], 0)
    e, _ = e.sort(dim=1)
    edges, inv = torch.unique(e, dim=0, return_inverse=True)
    return edges, inv.view(3, -1).T


def subdivide(verts, faces):
    edges, face_edges = unique_edges(faces)
    mids = verts[edges].mean(1)
    mids = mids / mids.norm(dim=1, keepdim=True)
    V = verts.shape[0]
    new_verts = torch.cat([verts, mids])
    a, b, c = faces.unbind(1)
    ab, bc, ca = (face_edges + V).unbind(1)
    new_faces = torch.cat(
        [torch.stack([a, ab, ca], 1), torch.stack([ab, b, bc], 1), torch.stack([ca, bc, c], 1),
         torch.stack([ab, bc, ca], 1)]
    )
    return new_verts, new_faces


def face_normals(verts, faces):
    tri = verts[faces]
    n = torch.linalg.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0], dim=1)
    return n


def vertex_normals(verts, faces):
    fn = face_normals(verts, faces)
    vn = torch.zeros_like(verts)
    for k in range(3):
        vn.index_add_(0, faces[:, k], fn)
    return torch.nn.functional.normalize(vn, dim=1)


def laplacian(verts, edges):
    V = verts.shape[0]
    e = torch.cat([edges, edges.flip(1)], 0)
    deg = torch.zeros(V).scatter_add_(0, e[:, 0], torch.ones(e.shape[0]))
    w = 1.0 / deg[e[:, 0]]
    L = torch.sparse_coo_tensor(e.T, w, (V, V))
    eye_idx = torch.arange(V).expand(2, V)
    L = L - torch.sparse_coo_tensor(eye_idx, torch.ones(V), (V, V))
    return L.coalesce()


verts, faces = icosahedron()
print("icosahedron", verts.shape, faces.shape, verts.dtype, faces.dtype)
edges, _ = unique_edges(faces)
print("edges", edges.shape, "euler", verts.shape[0] - edges.shape[0] + faces.shape[0])
fn = face_normals(verts, faces)
areas = fn.norm(dim=1) / 2
print("face areas", areas[:4], "total", round(areas.sum().item(), 4))
centroids = verts[faces].mean(1)
print("outward", ((fn * centroids).sum(1) > 0).all().item())

verts, faces = subdivide(verts, faces)
edges, _ = unique_edges(faces)
print("subdivided", verts.shape, faces.shape, edges.shape)
print("euler", verts.shape[0] - edges.shape[0] + faces.shape[0])
print("area", round((face_normals(verts, faces).norm(dim=1) / 2).sum().item(), 4), "sphere", round(4 * math.pi, 4))

vn = vertex_normals(verts, faces)
print("vertex normals", vn[:3])
print("normals ~ positions", round((vn - verts).norm(dim=1).max().item(), 4))

# per-vertex reductions over incident faces
fa = face_normals(verts, faces).norm(dim=1) / 2
idx = faces.reshape(-1)
vals = fa.repeat_interleave(3)
amax = torch.zeros(verts.shape[0]).scatter_reduce(0, idx, vals, reduce="amax", include_self=False)
mean = torch.zeros(verts.shape[0]).scatter_reduce(0, idx, vals, reduce="mean", include_self=False)
mean_self = torch.ones(verts.shape[0]).scatter_reduce(0, idx, vals, reduce="mean", include_self=True)
valence = torch.bincount(idx, minlength=verts.shape[0])
print("valence", valence.unique(return_counts=True))
print("max area", amax[:6])
print("mean area", mean[:6])
print("mean incl self", mean_self[:6])

L = laplacian(verts, edges)
print("laplacian", L.shape, L.layout, L._nnz(), L.is_coalesced())
print("row sums zero", torch.sparse.sum(L, dim=1).to_dense().abs().max().item() < 1e-6)
dense = L.to_dense()
print("symmetric pattern", torch.equal(dense != 0, dense.T != 0))
lv = torch.sparse.mm(L, verts)
print("L @ V", lv[:3].round(decimals=4) + 0.0)
print("matches dense", torch.allclose(lv, dense @ verts, atol=1e-6))

# noisy mesh, Laplacian smoothing
noisy = verts + 0.05 * torch.randn_like(verts)
smooth = noisy.clone()
for _ in range(5):
    smooth = smooth + 0.5 * torch.sparse.mm(L, smooth)
rad = lambda v: v.norm(dim=1)  # noqa: E731
print("radius std noisy/smooth", round(rad(noisy).std().item(), 4), round(rad(smooth).std().item(), 4))

# deformation toward the unit sphere from a squashed start
target_r = 1.0
base = verts * torch.tensor([1.5, 0.7, 1.0])
offset = torch.zeros_like(base, requires_grad=True)
opt = torch.optim.SGD([offset], lr=0.5, momentum=0.9)
for it in range(40):
    v = base + offset
    e = v[edges[:, 0]] - v[edges[:, 1]]
    l_edge = (e.norm(dim=1) - e.norm(dim=1).mean().detach()).pow(2).mean()
    l_lap = torch.sparse.mm(L, v).norm(dim=1).mean()
    n = face_normals(v, faces)
    if it == 0:
        print("normal nodes", type(n.grad_fn).__name__, type(n.norm(dim=1).grad_fn).__name__)
    n = n / n.norm(dim=1, keepdim=True)
    l_radius = (v.norm(dim=1) - target_r).pow(2).mean()
    loss = l_radius + 0.1 * l_edge + 0.01 * l_lap
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 10 == 0:
        print(f"it {it:2d} loss {loss.item():.4f} radius {l_radius.item():.4f} edge {l_edge.item():.5f}")
v = (base + offset).detach()
print("radii", v.norm(dim=1).aminmax())
print("bbox", v.amin(0), v.amax(0))
