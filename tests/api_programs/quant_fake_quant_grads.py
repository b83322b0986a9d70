"""Fake quantization as QAT code calls it: per-tensor and per-channel affine fake-quant with tensor and Python
qparams, their straight-through gradients, channel axes, dtypes, non-contiguous inputs and the misuse PyTorch
rejects."""

import torch

torch.manual_seed(0)
x = torch.linspace(-2.0, 2.0, 11, requires_grad=True)

# per-tensor, Python scale / zero_point (int8 symmetric)
y = torch.fake_quantize_per_tensor_affine(x, 0.25, 0, -8, 7)
print("int8 values", y.detach().tolist())
print("grad_fn", type(y.grad_fn).__name__)
y.sum().backward()
print("STE grad", x.grad.tolist())

# tensor qparams (scale float32, zero_point int32), asymmetric uint8
x.grad = None
s = torch.tensor([0.02])
zp = torch.tensor([128], dtype=torch.int32)
y = torch.fake_quantize_per_tensor_affine(x, s, zp, 0, 255)
(y * torch.arange(11.0)).sum().backward()
print("uint8 tensor-qparam", y.detach().round(decimals=4).tolist())
print("weighted grad", x.grad.tolist())
print("grad_fn tensor qparams", type(y.grad_fn).__name__)

# per-channel over a conv weight, axis 0 and axis 1
w = torch.randn(4, 3, 2, 2, requires_grad=True)
amax = w.detach().abs().amax(dim=(1, 2, 3))
scale = amax / 127
zp0 = torch.zeros(4, dtype=torch.int32)
wq = torch.fake_quantize_per_channel_affine(w, scale, zp0, 0, -127, 127)
err = (wq - w).abs()
half_step = scale.view(4, 1, 1, 1) / 2
print("per-channel err", round(err.max().item(), 4), "<= half step", bool((err <= half_step + 1e-7).all()))
print("grad_fn per-channel", type(wq.grad_fn).__name__)
(wq**2).sum().backward()
print("grad equals 2*wq", torch.allclose(w.grad, 2 * wq.detach()))

# a tight scale makes values clip: their gradient is zero
w.grad = None
tight = scale / 4
wq = torch.fake_quantize_per_channel_affine(w, tight, zp0, 0, -127, 127)
wq.sum().backward()
print("clipped fraction", round(1 - w.grad.mean().item(), 4))
print("clipped per channel", (w.grad == 0).sum(dim=(1, 2, 3)).tolist())

s1 = torch.tensor([0.1, 0.2, 0.05])
z1 = torch.tensor([0, 2, -3], dtype=torch.int32)
wq1 = torch.fake_quantize_per_channel_affine(w.detach(), s1, z1, 1, -8, 7)
print("axis=1", wq1[0, :, 0, 0].round(decimals=4).tolist(), wq1.shape)

# non-contiguous input (transposed) and 0-size tensors
xt = torch.randn(3, 5).t()
print("transposed", xt.is_contiguous(), torch.fake_quantize_per_tensor_affine(xt, 0.5, 1, -4, 3)[0].tolist())
print("empty", torch.fake_quantize_per_tensor_affine(torch.empty(0, 3), 0.1, 0, -8, 7).shape)

# dtypes of the input carry through
for dt in (torch.float64, torch.float16, torch.bfloat16):
    v = torch.tensor([0.33, -1.27, 0.5], dtype=dt)
    out = torch.fake_quantize_per_tensor_affine(v, 0.1, 0, -128, 127)
    print(dt, out.dtype, out.float().round(decimals=4).tolist())

# ties: nearbyint rounds half to even
t = torch.tensor([0.05, 0.15, 0.25, -0.05, -0.15])
print("ties", torch.fake_quantize_per_tensor_affine(t, 0.1, 0, -128, 127).round(decimals=4).tolist())

# quant_min == quant_max collapses to one level
print("one level", torch.fake_quantize_per_tensor_affine(t, 0.1, 3, 3, 3).round(decimals=4).tolist())

# misuse
bad = [
    ("qmin > qmax", lambda: torch.fake_quantize_per_tensor_affine(t, 0.1, 0, 5, -5)),
    ("zp out of range", lambda: torch.fake_quantize_per_tensor_affine(t, 0.1, 300, 0, 255)),
    ("int input", lambda: torch.fake_quantize_per_tensor_affine(torch.arange(4), 0.1, 0, 0, 255)),
    ("channel count", lambda: torch.fake_quantize_per_channel_affine(w.detach(), s1, z1, 0, -8, 7)),
    ("axis", lambda: torch.fake_quantize_per_channel_affine(w.detach(), s1, z1, 5, -8, 7)),
    ("zp len", lambda: torch.fake_quantize_per_channel_affine(w.detach(), scale, z1, 0, -8, 7)),
]
for name, fn in bad:
    try:
        fn()
        print(name, "accepted")
    except Exception as e:
        print(name, type(e).__name__, str(e).split("\n")[0])
