"""Merging several LoRA task vectors: linear, SVD re-truncation, TIES trim/elect/disjoint-merge, magnitude pruning."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
d_out, d_in, r = 6, 8, 2
adapters = {}
for name in ("math", "code", "chat"):
    A = torch.randn(r, d_in) * 0.3
    B = torch.randn(d_out, r) * 0.3
    adapters[name] = (A, B)
weights = {"math": 0.5, "code": 0.3, "chat": 0.2}
deltas = {k: B @ A for k, (A, B) in adapters.items()}
print({k: round(v.norm().item(), 4) for k, v in deltas.items()})

# linear (cat) combination: stack A's and scaled B's, rank adds up
A_cat = torch.cat([adapters[k][0] * weights[k] ** 0.5 for k in adapters], dim=0)
B_cat = torch.cat([adapters[k][1] * weights[k] ** 0.5 for k in adapters], dim=1)
print("cat shapes", tuple(A_cat.shape), tuple(B_cat.shape))
lin = sum(weights[k] * deltas[k] for k in deltas)
print("cat == weighted sum", torch.allclose(B_cat @ A_cat, lin, atol=1e-6))

# svd re-truncation to a new rank, with quantile clamping as peft does
U, S, Vh = torch.linalg.svd(lin, full_matrices=False)
print("svd shapes", tuple(U.shape), tuple(S.shape), tuple(Vh.shape), S.round(decimals=4).tolist())
new_r = 3
U, S, Vh = U[:, :new_r], S[:new_r], Vh[:new_r, :]
U = U @ torch.diag(S)
dist = torch.cat([U.flatten(), Vh.flatten()])
hi = torch.quantile(dist, 0.99)
lo = -hi
print(
    "quantile",
    round(hi.item(), 4),
    round(torch.quantile(dist, torch.tensor([0.25, 0.5]), interpolation="nearest").sum().item(), 4),
)
U = U.clamp(lo, hi)
Vh = Vh.clamp(lo, hi)
print("svd err", round((U @ Vh - lin).norm().item(), 4), "rank", torch.linalg.matrix_rank(U @ Vh).item())


def magnitude_prune(t, density):
    k = int(density * t.numel())
    mask = torch.zeros_like(t).reshape(-1)
    top = torch.topk(t.abs().reshape(-1), k=k, largest=True)
    mask[top.indices] = 1
    return t * mask.reshape(t.shape)


def elect_sign(stacked, method="total"):
    if method == "total":
        sign_mag = stacked.sum(dim=0)
    else:
        sign_mag = stacked.sign().sum(dim=0)
    majority = torch.where(sign_mag >= 0, 1, -1)
    return stacked.sign() == majority


def ties(task_tensors, w, density):
    task_tensors = [magnitude_prune(t, density) for t in task_tensors]
    stacked = torch.stack(task_tensors, dim=0)
    mask = elect_sign(stacked)
    wt = torch.tensor(w, dtype=stacked.dtype).view(-1, *([1] * (stacked.dim() - 1)))
    weighted = stacked * wt
    mixed = (weighted * mask).sum(dim=0)
    num = (mask * wt).sum(dim=0)
    return mixed / torch.where(num == 0, torch.ones_like(num), num)


tt = [deltas[k] for k in deltas]
w = [weights[k] for k in deltas]
merged = ties(tt, w, density=0.5)
print("ties", merged.shape, round(merged.abs().sum().item(), 4), (merged == 0).sum().item())
print("pruned nnz", [int((magnitude_prune(t, 0.5) != 0).sum()) for t in tt])
print(elect_sign(torch.stack(tt), "frequency").sum().item(), elect_sign(torch.stack(tt)).dtype)
print(torch.where(torch.tensor([0.0, -1.0, 2.0]) >= 0, 1, -1), torch.where(torch.tensor([True, False]), 1.5, 0).dtype)

# kthvalue-based threshold (another trim form)
flat = tt[0].abs().flatten()
kth = torch.kthvalue(flat, int(0.5 * flat.numel()))
print("kth", round(kth.values.item(), 4), kth.indices.item(), type(kth).__name__)
print(round(tt[0].abs().median().item(), 4), round(torch.nanquantile(flat, 0.5).item(), 4))

# apply merged delta to a base layer in place
base = nn.Linear(d_in, d_out)
with torch.no_grad():
    before = base.weight.clone()
    base.weight.add_(merged, alpha=2.0)
print("applied", round((base.weight - before).abs().sum().item(), 4), base.weight.requires_grad, base.weight.is_leaf)

# errors
try:
    torch.quantile(torch.randn(5), 1.5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.quantile(torch.randn(5).long(), 0.5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.topk(torch.randn(4), k=5)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.stack([tt[0], torch.zeros(3, 3)])
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.quantile(torch.randn(5), 0.5, interpolation="cubic")
except RuntimeError as e:
    print(type(e).__name__, e)
