"""PatchCore's greedy k-center coreset subsampling (anomalib/amazon reference): a sparse random projection of the
memory bank, iterative min-distance updates with torch.linalg.norm / cdist, argmax selection, seeded starts and the
coreset's coverage radius; plus approximate-greedy corner cases (ties, duplicates, k larger than the bank)."""

import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


def johnson_lindenstrauss_min_dim(n_samples, eps=0.1):
    denominator = (eps**2 / 2) - (eps**3 / 3)
    return int(4 * math.log(n_samples) / denominator)


class SparseRandomProjection:
    def __init__(self, eps=0.1, seed=0):
        self.eps, self.seed = eps, seed

    def fit(self, x, n_components):
        g = torch.Generator().manual_seed(self.seed)
        density = 1 / math.sqrt(x.shape[1])
        mask = torch.rand(n_components, x.shape[1], generator=g) < density
        signs = torch.randint(0, 2, (n_components, x.shape[1]), generator=g) * 2 - 1
        self.components = (mask * signs).to(x.dtype) * math.sqrt(1 / density) / math.sqrt(n_components)
        return self

    def transform(self, x):
        return x @ self.components.T


def greedy_coreset(features, sampling_ratio, seed=0, proj=8):
    reduced = SparseRandomProjection().fit(features, proj).transform(features)
    n = int(features.shape[0] * sampling_ratio)
    g = torch.Generator().manual_seed(seed)
    idx = int(torch.randint(high=reduced.shape[0], size=(1,), generator=g).item())
    min_distances = None
    selected = []
    for _ in range(n):
        dist = torch.linalg.norm(reduced - reduced[idx : idx + 1], dim=1, keepdims=True)
        min_distances = dist if min_distances is None else torch.minimum(min_distances, dist)
        idx = int(torch.argmax(min_distances).item())
        min_distances[idx] = 0
        selected.append(idx)
    return torch.tensor(selected), reduced


bank = torch.randn(60, 16)
print("jl dim", johnson_lindenstrauss_min_dim(60), johnson_lindenstrauss_min_dim(10**6, eps=0.5))
sel, reduced = greedy_coreset(bank, 0.1)
print("selected", sel.tolist(), sel.dtype)
print("unique", sel.unique().numel() == sel.numel())
proj = SparseRandomProjection().fit(bank, 8)
print("components", proj.components.shape, (proj.components != 0).sum().item(), proj.components.abs().unique())

# coverage radius of the coreset against the full (projected) bank
d = torch.cdist(reduced, reduced[sel])
print("cdist", d.shape, d.dtype, d.min(dim=1).values.max().round(decimals=4))
d_mm = torch.cdist(reduced, reduced[sel], compute_mode="use_mm_for_euclid_dist")
d_no = torch.cdist(reduced, reduced[sel], compute_mode="donot_use_mm_for_euclid_dist")
print("modes agree", torch.allclose(d_mm, d_no, atol=1e-4), (d_no[sel, torch.arange(len(sel))] == 0).all().item())
print("p=1", torch.cdist(reduced[:3], reduced[sel[:2]], p=1))
print("p=inf", torch.cdist(reduced[:3], reduced[sel[:2]], p=float("inf")))
print("p=0", torch.cdist(reduced[:3], reduced[:2], p=0))
print("p=3", torch.cdist(reduced[:3].double(), reduced[sel[:2]].double(), p=3))


# the cdist-based variant used by the original implementation (batched, float64)
def greedy_cdist(x, n, start=0):
    x = x.double().unsqueeze(0)
    chosen = [start]
    mind = torch.cdist(x, x[:, start : start + 1]).squeeze(-1).squeeze(0)
    for _ in range(n - 1):
        nxt = torch.argmax(mind).item()
        chosen.append(nxt)
        mind = torch.min(mind, torch.cdist(x, x[:, nxt : nxt + 1]).squeeze())
    return chosen, mind.max()


chosen, radius = greedy_cdist(reduced, 6)
print("cdist variant", chosen, radius.dtype, round(radius.item(), 4))

# ties and duplicates: argmax returns the first maximal index
dup = torch.tensor([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
print("dup", greedy_cdist(dup, 4)[0])
print("argmax ties", torch.argmax(torch.tensor([1.0, 3.0, 3.0, 2.0])).item(), torch.tensor([[2.0], [2.0]]).argmax())
print(
    "argmax nan",
    torch.argmax(torch.tensor([1.0, float("nan"), 3.0])).item(),
    torch.max(torch.tensor([1.0, float("nan")])),
)
print("minimum nan", torch.minimum(torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 0.0])))
print("fmin", torch.fmin(torch.tensor([1.0, float("nan")]), torch.tensor([float("nan"), 0.0])))
print("norm keepdims", torch.linalg.norm(dup, dim=1, keepdim=True).shape, torch.linalg.norm(dup, ord=1, dim=1))
try:
    torch.cdist(bank[:, :4], bank[:, :5])
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.cdist(bank, bank, p=-1)
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.cdist(bank.int(), bank.int())
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.cdist(bank[0], bank)
except RuntimeError as e:
    print("RuntimeError", e)
print(
    "empty", torch.cdist(torch.empty(0, 3), torch.randn(2, 3)).shape, torch.cdist(torch.randn(2, 0), torch.randn(3, 0))
)
x = torch.randn(4, 3, requires_grad=True)
y = torch.randn(2, 3)
torch.cdist(x, y).sum().backward()
print("grad", x.grad)
x.grad = None
torch.cdist(x, x).sum().backward()
print("self grad finite", torch.isfinite(x.grad).all().item(), x.grad)
print("F.pdist", F.pdist(dup), F.pairwise_distance(dup[:2], dup[2:4]))
