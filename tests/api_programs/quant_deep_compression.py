"""Deep Compression (Han et al. 2016) on a small MLP: magnitude pruning with torch.nn.utils.prune (layer-wise and
global, with retraining under the masks), k-means weight sharing on the surviving weights with centroid
fine-tuning through index_add_, and the storage accounting (CSR-style relative indices, bits per weight, Huffman
code lengths from bincount)."""

import heapq

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

X = torch.randn(256, 20)
Y = (X[:, :5].sum(1) > 0).long() + (X[:, 5:10].sum(1) > 1).long()
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 3))


def train(steps, lr=0.1):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for _ in range(steps):
        loss = F.cross_entropy(model(X), Y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


def acc():
    with torch.no_grad():
        return (model(X).argmax(1) == Y).float().mean().item()


print("dense loss", round(train(60), 4), "acc", round(acc(), 4))
prune.l1_unstructured(model[0], "weight", amount=0.6)
prune.l1_unstructured(model[2], name="weight", amount=20)
print("buffers", [n for n, _ in model[0].named_buffers()], "params", [n for n, _ in model[0].named_parameters()])
print("hooks", [type(h).__name__ for h in model[0]._forward_pre_hooks.values()], prune.is_pruned(model))
print("sparsity", [round(float((m.weight == 0).float().mean()), 4) for m in (model[0], model[2])])
print("after prune acc", round(acc(), 4))
print("retrain loss", round(train(40), 4), "acc", round(acc(), 4))
zeros = model[0].weight[model[0].weight_mask == 0]
print("mask kept", int(model[0].weight_mask.sum()), "zeros stay zero", bool((zeros == 0).all()))

# a second, global round on top of the first (PruningContainer)
prune.global_unstructured([(model[0], "weight"), (model[2], "weight")], pruning_method=prune.L1Unstructured, amount=0.2)
print("container", type(model[0]._forward_pre_hooks[next(iter(model[0]._forward_pre_hooks))]).__name__)
tot = sum(int(m.weight_mask.numel()) for m in (model[0], model[2]))
kept = sum(int(m.weight_mask.sum()) for m in (model[0], model[2]))
print("global kept", kept, "of", tot)
for m in (model[0], model[2]):
    prune.remove(m, "weight")
print("removed", prune.is_pruned(model), [n for n, _ in model[0].named_parameters()])


# k-means weight sharing per layer (linear init over [min, max], as the paper)
def kmeans_share(w, bits, iters=15):
    nz = w[w != 0]
    k = 2**bits
    cent = torch.linspace(nz.min().item(), nz.max().item(), k)
    for _ in range(iters):
        idx = torch.cdist(nz.unsqueeze(1), cent.unsqueeze(1)).argmin(1)
        sums = torch.zeros(k).index_add_(0, idx, nz)
        counts = torch.bincount(idx, minlength=k).float()
        cent = torch.where(counts > 0, sums / counts.clamp(min=1), cent)
    return cent, idx


codebooks = {}
for li, bits in ((0, 4), (2, 2)):
    w = model[li].weight.data
    cent, idx = kmeans_share(w, bits)
    full_idx = torch.full(w.shape, -1, dtype=torch.long)
    full_idx[w != 0] = idx
    codebooks[li] = (cent, full_idx)
    shared = torch.where(full_idx >= 0, cent[full_idx.clamp(min=0)], torch.zeros(()))
    print("layer", li, "centroids", cent.round(decimals=3).tolist()[:4], "mse", round(F.mse_loss(shared, w).item(), 6))
    model[li].weight.data.copy_(shared)
print("shared acc", round(acc(), 4))

# centroid fine-tuning: gradients grouped by cluster
for _ in range(5):
    loss = F.cross_entropy(model(X), Y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for li, (cent, full_idx) in codebooks.items():
            g = model[li].weight.grad
            m = full_idx >= 0
            cent -= 0.05 * torch.zeros_like(cent).index_add_(0, full_idx[m], g[m])
            model[li].weight.copy_(torch.where(m, cent[full_idx.clamp(min=0)], torch.zeros(())))
print("finetuned loss", round(loss.item(), 4), "acc", round(acc(), 4))
print("distinct values", [torch.unique(model[i].weight).numel() for i in (0, 2)])

# storage: relative column indices with 4-bit gaps (filler zeros when a gap overflows)
w0 = model[0].weight.flatten()
pos = torch.nonzero(w0).flatten()
gaps = torch.diff(pos, prepend=torch.tensor([-1])) - 1
fillers = int((gaps // 16).sum())
print("nnz", pos.numel(), "max gap", gaps.max().item(), "fillers", fillers)
counts = torch.bincount(codebooks[0][1][codebooks[0][1] >= 0], minlength=16)
heap = [(c, i) for i, c in enumerate(counts.tolist()) if c > 0]
heapq.heapify(heap)
depth = {i: 0 for _, i in heap}
groups = {i: [i] for _, i in heap}
uid = 100
while len(heap) > 1:
    c1, a = heapq.heappop(heap)
    c2, b = heapq.heappop(heap)
    for s in groups[a] + groups[b]:
        depth[s] += 1
    groups[uid] = groups.pop(a) + groups.pop(b)
    heapq.heappush(heap, (c1 + c2, uid))
    uid += 1
huff_bits = sum(counts[i].item() * d for i, d in depth.items())
print("index bits fixed", 4 * pos.numel(), "huffman", huff_bits)
dense_bits = 32 * (model[0].weight.numel() + model[2].weight.numel())
sparse_bits = (4 + 4) * pos.numel() + 32 * 16 + (2 + 4) * int((model[2].weight != 0).sum()) + 32 * 4
print("compression ratio", round(dense_bits / sparse_bits, 3))
try:
    prune.l1_unstructured(model[0], "weight", amount=1.5)
except Exception as e:
    print(type(e).__name__, e)
try:
    prune.remove(model[0], "weight")
except Exception as e:
    print(type(e).__name__, e)
