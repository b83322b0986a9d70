"""FourCastNet's AFNO mixer: patch embedding, rfft2 over the token grid with norm="ortho", block-diagonal complex
MLPs through einsum on real/imag parts, softshrink sparsity, hard mode thresholding, irfft2 back with s=, grads."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class AFNO2D(nn.Module):
    def __init__(self, hidden_size, num_blocks=2, sparsity_threshold=0.01, hard_thresholding_fraction=1.0):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_blocks = num_blocks
        self.block_size = hidden_size // num_blocks
        self.sparsity_threshold = sparsity_threshold
        self.hard_thresholding_fraction = hard_thresholding_fraction
        self.scale = 0.02
        self.w1 = nn.Parameter(self.scale * torch.randn(2, num_blocks, self.block_size, self.block_size))
        self.b1 = nn.Parameter(self.scale * torch.randn(2, num_blocks, self.block_size))
        self.w2 = nn.Parameter(self.scale * torch.randn(2, num_blocks, self.block_size, self.block_size))
        self.b2 = nn.Parameter(self.scale * torch.randn(2, num_blocks, self.block_size))

    def forward(self, x):
        bias = x
        dtype = x.dtype
        x = x.float()
        B, H, W, C = x.shape
        x = torch.fft.rfft2(x, dim=(1, 2), norm="ortho")
        x = x.reshape(B, x.shape[1], x.shape[2], self.num_blocks, self.block_size)
        o1_real = torch.zeros([B, H, W // 2 + 1, self.num_blocks, self.block_size])
        o1_imag = torch.zeros_like(o1_real)
        o2_real = torch.zeros(x.shape)
        o2_imag = torch.zeros(x.shape)
        total_modes = H // 2 + 1
        kept = int(total_modes * self.hard_thresholding_fraction)
        sl = (slice(None), slice(total_modes - kept, total_modes + kept), slice(None, kept))
        o1_real[sl] = F.relu(
            torch.einsum("...bi,bio->...bo", x[sl].real, self.w1[0])
            - torch.einsum("...bi,bio->...bo", x[sl].imag, self.w1[1])
            + self.b1[0]
        )
        o1_imag[sl] = F.relu(
            torch.einsum("...bi,bio->...bo", x[sl].imag, self.w1[0])
            + torch.einsum("...bi,bio->...bo", x[sl].real, self.w1[1])
            + self.b1[1]
        )
        o2_real[sl] = (
            torch.einsum("...bi,bio->...bo", o1_real[sl], self.w2[0])
            - torch.einsum("...bi,bio->...bo", o1_imag[sl], self.w2[1])
            + self.b2[0]
        )
        o2_imag[sl] = (
            torch.einsum("...bi,bio->...bo", o1_imag[sl], self.w2[0])
            + torch.einsum("...bi,bio->...bo", o1_real[sl], self.w2[1])
            + self.b2[1]
        )
        x = torch.stack([o2_real, o2_imag], dim=-1)
        x = F.softshrink(x, lambd=self.sparsity_threshold)
        x = torch.view_as_complex(x)
        x = x.reshape(B, x.shape[1], x.shape[2], C)
        x = torch.fft.irfft2(x, s=(H, W), dim=(1, 2), norm="ortho")
        return x.type(dtype) + bias


torch.manual_seed(0)
torch.set_printoptions(precision=4)
patch = nn.Conv2d(3, 8, kernel_size=2, stride=2)
x = torch.randn(2, 3, 8, 12)
tok = patch(x).permute(0, 2, 3, 1)
print("tokens", tuple(tok.shape), tok.is_contiguous(), tok.stride())
for frac in (1.0, 0.5):
    m = AFNO2D(8, num_blocks=2, hard_thresholding_fraction=frac)
    y = m(tok)
    print("afno", frac, tuple(y.shape), y.dtype, round((y - tok).abs().sum().item(), 4))
y.pow(2).mean().backward()
print("grads", [(n, tuple(p.grad.shape), round(p.grad.norm().item(), 4)) for n, p in m.named_parameters()])

z = torch.randn(1, 4, 6, 2)
Z = torch.fft.rfft2(z, dim=(1, 2), norm="ortho")
print("rfft2", Z.shape, Z.dtype, Z.is_contiguous(), Z.stride())
back = torch.fft.irfft2(Z, s=(4, 6), dim=(1, 2), norm="ortho")
print("roundtrip", torch.allclose(back, z, atol=1e-6), round(Z.abs().pow(2).sum().item(), 4))
print(
    "odd W",
    torch.fft.irfft2(torch.fft.rfft2(torch.randn(4, 5)), s=(4, 5)).shape,
    torch.fft.irfft2(torch.fft.rfft2(torch.randn(4, 5))).shape,
)
ss = torch.tensor([-0.03, -0.01, 0.0, 0.005, 0.02, 0.5])
print("softshrink", F.softshrink(ss, 0.01), nn.Softshrink(0.015)(ss), nn.Softshrink(0.25))
print("hardshrink", F.hardshrink(ss, 0.01), nn.Hardshrink())
ssg = ss.clone().requires_grad_()
F.softshrink(ssg, 0.01).sum().backward()
print("softshrink grad", ssg.grad)
print("half", F.softshrink(ss.half(), 0.01).dtype, F.softshrink(ss.to(torch.bfloat16), 0.01))
try:
    F.softshrink(ss, -0.1)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.view_as_complex(torch.randn(3, 3))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.view_as_complex(torch.randn(4, 2)[::2])
except RuntimeError as e:
    print(type(e).__name__, e)
vc = torch.view_as_complex(torch.randn(2, 3, 2))
print("view_as_complex", vc.shape, vc.stride(), torch.view_as_real(vc).stride(), vc.dtype)
print("double", torch.view_as_complex(torch.randn(2, 2, dtype=torch.float64)).dtype)
