"""Preparing a conv net for integer inference: folding BatchNorm into the preceding conv (weights and bias),
per-channel symmetric int8 weights and an affine uint8 activation, the convolution evaluated on integer-valued
float tensors with the zero-point correction computed by a ones-kernel conv, an int32 bias, and the fused
ReLU as a clamp at the output zero point."""

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)

conv = nn.Conv2d(3, 6, 3, padding=1, bias=False)
bn = nn.BatchNorm2d(6)
x = torch.rand(4, 3, 8, 8) * 2 - 0.5
bn.train()
for _ in range(5):
    bn(conv(x + 0.1 * torch.randn_like(x)))
bn.eval()
print("running_mean", bn.running_mean.round(decimals=4).tolist())
print("num_batches_tracked", bn.num_batches_tracked.item())


def fold(conv, bn):
    std = torch.sqrt(bn.running_var + bn.eps)
    w = conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1)
    b0 = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)
    b = (b0 - bn.running_mean) * bn.weight / std + bn.bias
    fused = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding, bias=True)
    fused.weight = nn.Parameter(w.detach())
    fused.bias = nn.Parameter(b.detach())
    return fused


with torch.no_grad():
    ref = F.relu(bn(conv(x)))
    fused = fold(conv, bn)
    out = F.relu(fused(x))
print("fold max diff < 1e-5", (ref - out).abs().max().item() < 1e-5)
print("fused", fused)

# quantize
w = fused.weight.detach()
w_scale = w.abs().amax(dim=(1, 2, 3)) / 127
w_q = torch.clamp(torch.round(w / w_scale.view(-1, 1, 1, 1)), -127, 127)
x_min, x_max = x.min().item(), x.max().item()
x_scale = (x_max - x_min) / 255
x_zp = int(round(-x_min / x_scale))
x_q = torch.clamp(torch.round(x / x_scale) + x_zp, 0, 255)
print("x qparams", round(x_scale, 6), x_zp, "w scales", w_scale.round(decimals=5).tolist())
print("w_q range", int(w_q.min()), int(w_q.max()), "x_q range", int(x_q.min()), int(x_q.max()))
bias_q = torch.round(fused.bias.detach() / (x_scale * w_scale)).to(torch.int32)
print("bias_q", bias_q.tolist(), bias_q.dtype)

# integer conv: sum (x_q - zp) * w_q ; padding must pad with the zero point, so subtract zp first
acc = F.conv2d(x_q - x_zp, w_q, padding=1)
acc_expanded = F.conv2d(F.pad(x_q, (1, 1, 1, 1), value=float(x_zp)), w_q) - x_zp * F.conv2d(
    torch.ones(1, 3, 10, 10), w_q
)
print("integer-valued", bool((acc == acc.round()).all()), "expansion equal", torch.equal(acc, acc_expanded))
acc_i32 = acc.to(torch.int32) + bias_q.view(1, -1, 1, 1)
print("acc int32 range", acc_i32.min().item(), acc_i32.max().item())
real = acc_i32.float() * (x_scale * w_scale).view(1, -1, 1, 1)
print("int vs float conv max err", round((real - fused(x).detach()).abs().max().item(), 4))

y = F.relu(real)
y_scale = y.max().item() / 255
y_q = torch.clamp(torch.round(real / y_scale), 0, 255).to(torch.uint8)
print("y_q", y_q.dtype, y_q.shape, "zero fraction", round((y_q == 0).float().mean().item(), 4))
deq = y_q.float() * y_scale
print("end-to-end max err", round((deq - ref).abs().max().item(), 4), "y step", round(y_scale, 5))
print("histogram of y_q", torch.histc(y_q.float(), bins=4, min=0, max=255).tolist())
print("bincount top", torch.bincount(y_q.flatten().long()).topk(3).indices.tolist())

# fusing in train mode is wrong: batch statistics differ
bn.train()
with torch.no_grad():
    diff = (F.relu(bn(conv(x))) - F.relu(fused(x))).abs().max().item()
print("train-mode mismatch > 0.01", diff > 0.01)
try:
    F.conv2d(x_q.to(torch.uint8), w_q.to(torch.int8))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.conv2d(x_q, w_q.to(torch.int8))
except Exception as e:
    print(type(e).__name__, e)
