"""Structured pruning followed by network surgery: L2 filter pruning of a conv-BN-conv block (dim=0 for
filters, dim=1 for the next layer's inputs), then physically slicing the kept channels into smaller
modules, with sparsity statistics and sparse storage of what remains."""

import torch
import torch.nn.utils.prune as prune

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

block = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.BatchNorm2d(8),
    nn.ReLU(),
    nn.Conv2d(8, 6, 3, padding=1),
    nn.BatchNorm2d(6),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    nn.Linear(6, 2),
)
x = torch.randn(5, 3, 10, 10)
block.train()
for _ in range(3):
    block(x)
block.eval()

prune.ln_structured(block[0], "weight", amount=0.375, n=2, dim=0)
filter_norms = block[0].weight_orig.detach().flatten(1).norm(dim=1)
keep = torch.nonzero(block[0].weight_mask.flatten(1).sum(1)).flatten()
print("filter norms", filter_norms.round(decimals=4).tolist())
print("kept filters", keep.tolist(), "dtype", keep.dtype)
prune.ln_structured(block[3], "weight", amount=2, n=1, dim=1)
print("conv2 input channels kept", (block[3].weight_mask.sum(dim=(0, 2, 3)) > 0).nonzero().flatten().tolist())
prune.ln_structured(block[3], "weight", amount=1, n=float("inf"), dim=0)
print("conv2 filters kept", (block[3].weight_mask.sum(dim=(1, 2, 3)) > 0).int().tolist())

for name, module in block.named_modules():
    if prune.is_pruned(module) and hasattr(module, "weight_mask"):
        mask = module.weight_mask
        print(
            name,
            "zeros",
            int(torch.sum(mask == 0)),
            "of",
            mask.numel(),
            "per-filter nonzero",
            torch.count_nonzero(module.weight, dim=(1, 2, 3)).tolist(),
        )

ref = block(x).detach()
for idx in (0, 3):
    prune.remove(block[idx], "weight")


def shrink_conv(conv, out_idx=None, in_idx=None):
    w = conv.weight.detach()
    b = conv.bias.detach() if conv.bias is not None else None
    if out_idx is not None:
        w = w.index_select(0, out_idx)
        b = b.index_select(0, out_idx) if b is not None else None
    if in_idx is not None:
        w = w.index_select(1, in_idx)
    new = nn.Conv2d(w.shape[1], w.shape[0], conv.kernel_size, conv.stride, conv.padding, bias=b is not None)
    with torch.no_grad():
        new.weight.copy_(w)
        if b is not None:
            new.bias.copy_(b)
    return new


def shrink_bn(bn, idx):
    new = nn.BatchNorm2d(len(idx), eps=bn.eps, momentum=bn.momentum)
    new.load_state_dict(
        {
            "weight": bn.weight[idx].detach(),
            "bias": bn.bias[idx].detach(),
            "running_mean": bn.running_mean[idx],
            "running_var": bn.running_var[idx],
            "num_batches_tracked": bn.num_batches_tracked,
        }
    )
    return new


# the bias of a pruned filter still passes through BN; fold it into the next conv's bias before slicing
dropped = torch.tensor([i for i in range(8) if i not in keep.tolist()])
with torch.no_grad():
    bn = block[1]
    const = F.relu(
        bn.bias
        - bn.running_mean * bn.weight / (bn.running_var + bn.eps).sqrt()
        + block[0].bias * bn.weight / (bn.running_var + bn.eps).sqrt()
    )
    folded = (block[3].weight[:, dropped].sum(dim=(2, 3)) * const[dropped]).sum(1)
    block[3].bias.add_(folded)
small = nn.Sequential(
    shrink_conv(block[0], out_idx=keep),
    shrink_bn(block[1], keep),
    nn.ReLU(),
    shrink_conv(block[3], in_idx=keep),
    block[4],
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    nn.Flatten(),
    block[8],
).eval()
print(small[0], small[1], small[3], sep="\n")
print("same output", torch.allclose(small(x), ref, atol=1e-4), round((small(x) - ref).abs().max().item(), 4))
dense_params = sum(p.numel() for p in block.parameters())
small_params = sum(p.numel() for p in small.parameters())
print("params", dense_params, "->", small_params, "ratio", round(small_params / dense_params, 4))

w = small[3].weight.detach()
sp = w.reshape(w.shape[0], -1).to_sparse()
print("coo nnz", sp._nnz(), tuple(sp.indices().shape), sp.layout)
csr = w.reshape(w.shape[0], -1).to_sparse_csr()
print("csr", tuple(csr.crow_indices().shape), tuple(csr.col_indices().shape), csr.layout)
print("zero filters", int((w.flatten(1).abs().sum(1) == 0).sum()), "density", round(sp._nnz() / w.numel(), 4))
try:
    prune.ln_structured(small[8], "weight", amount=0.5, n=2, dim=2)
except Exception as e:
    print(type(e).__name__, e)
try:
    prune.ln_structured(small[8], "weight", amount=3, n=2, dim=0)
except Exception as e:
    print(type(e).__name__, e)
