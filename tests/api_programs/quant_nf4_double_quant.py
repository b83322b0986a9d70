"""QLoRA's 4-bit NormalFloat storage: the NF4 code book built from normal quantiles (Normal.icdf), block-wise
absmax scaling, nearest-code lookup by bucketize on midpoints, nibble packing, double quantization of the block
scales to 8 bits, and the dequantized matmul against float, compared with uniform int4."""

import torch

torch.manual_seed(0)
Normal = torch.distributions.Normal


def nf4_code():
    offset = 0.9677
    n = Normal(torch.tensor(0.0), torch.tensor(1.0))
    pos = n.icdf(torch.linspace(offset, 0.5, 9)[:-1])
    neg = -n.icdf(torch.linspace(offset, 0.5, 8)[:-1])
    v = torch.cat([pos, torch.zeros(1), neg])
    v = v / v.abs().max()
    return torch.sort(v).values


code = nf4_code()
print("code", code.numel(), code.round(decimals=4).tolist())
print("symmetric-ish", round(code.sum().item(), 4), "has zero", bool((code == 0).any()))
mid = (code[1:] + code[:-1]) / 2

W = torch.randn(32, 64) * 0.02
block = 64
flat = W.flatten().view(-1, block)
absmax = flat.abs().amax(dim=1, keepdim=True)
normed = flat / absmax
idx = torch.bucketize(normed, mid)
idx_ref = (normed.unsqueeze(-1) - code).abs().argmin(-1)
print("bucketize == argmin", torch.equal(idx, idx_ref), idx.dtype, "range", idx.min().item(), idx.max().item())
counts = torch.bincount(idx.flatten(), minlength=16)
print("code usage", counts.tolist())
packed = (idx[:, 0::2] | (idx[:, 1::2] << 4)).to(torch.uint8)
print("packed", packed.shape, packed.dtype, "bytes", packed.numel(), "vs fp16", W.numel() * 2)
lo, hi = (packed & 0xF).long(), (packed >> 4).long()
idx_back = torch.stack([lo, hi], -1).flatten(1)
print("unpack ok", torch.equal(idx_back, idx))

# double quantization of the fp32 absmax constants (blocks of 256 in the paper; 8 here)
c = absmax.flatten()
c_mean = c.mean()
cc = (c - c_mean).view(-1, 8)
c_scale = cc.abs().amax(dim=1, keepdim=True) / 127
cq = torch.round(cc / c_scale).to(torch.int8)
c_deq = (cq.float() * c_scale).flatten() + c_mean
print("absmax int8", cq.dtype, cq.shape, "max rel err", round(((c_deq - c) / c).abs().max().item(), 5))
bits_per_param = 4 + 8 / block + 32 / (block * 8)
print("bits/param", round(bits_per_param, 4), "vs single quant", 4 + 32 / block)

W_nf4 = (code[idx_back] * c_deq.unsqueeze(1)).view_as(W)
scale4 = absmax / 7
W_int4 = (torch.clamp(torch.round(flat / scale4), -8, 7) * scale4).view_as(W)
x = torch.randn(8, 64)
ref = x @ W.t()
for name, Wq in (("nf4+dq", W_nf4), ("int4", W_int4)):
    err = (x @ Wq.t() - ref).norm() / ref.norm()
    print(name, "weight mse", round(((Wq - W) ** 2).mean().item() * 1e6, 4), "e-6  out rel err", round(err.item(), 4))
print("dtypes", W_nf4.dtype, code.dtype, idx_back.dtype)
print(
    "bucketize right",
    torch.bucketize(torch.tensor([-1.0, 0.0, 1.0]), mid, right=True).tolist(),
    torch.bucketize(torch.tensor([0.0]), torch.tensor([0.0]), out_int32=True).dtype,
)
print("searchsorted", torch.searchsorted(mid, torch.tensor([[-0.9, 0.1], [0.5, 0.95]]), side="right").tolist())
try:
    torch.bucketize(torch.tensor([0.0]), torch.zeros(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    Normal(torch.tensor(0.0), torch.tensor(1.0)).icdf(torch.tensor(1.5))
except Exception as e:
    print(type(e).__name__, e)
