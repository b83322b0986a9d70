"""Context-extension RoPE schemes as HF's rope utilities compute them: Llama 3.1's wavelength-banded scaling with
smooth interpolation, YaRN's correction range, linear ramp mask and attention mscale, dynamic NTK's base growth,
LongRoPE-style per-dimension factors, and checks of the frequency tables (monotonicity, unchanged high frequencies)."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=True)

dim, base = 32, 500000.0
inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).to(torch.float32) / dim))
print("inv_freq[:4]:", inv_freq[:4], inv_freq.dtype)


def llama3_inv_freq(inv_freq, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max=8192):
    low_freq_wavelen = original_max / low_freq_factor
    high_freq_wavelen = original_max / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = torch.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    smooth = (original_max / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    smoothed = (1 - smooth) * inv_freq_llama / factor + smooth * inv_freq_llama
    is_medium = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return torch.where(is_medium, smoothed, inv_freq_llama)


l3 = llama3_inv_freq(inv_freq)
ratio = inv_freq / l3
print("llama3 ratio:", ratio)
wavelen = 2 * math.pi / inv_freq
print("bands (high/medium/low):", (wavelen < 2048).sum().item(), ((wavelen >= 2048) & (wavelen <= 8192)).sum().item(),
      (wavelen > 8192).sum().item())
print("high freqs unchanged:", torch.equal(l3[wavelen < 2048], inv_freq[wavelen < 2048]),
      "low freqs / 8:", torch.allclose(ratio[wavelen > 8192], torch.full_like(ratio[wavelen > 8192], 8.0)))
print("monotone decreasing:", bool((l3[1:] < l3[:-1]).all()))


# YaRN
def find_correction_dim(num_rotations, dim, base, max_pos):
    return (dim * math.log(max_pos / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def find_correction_range(low_rot, high_rot, dim, base, max_pos):
    low = math.floor(find_correction_dim(low_rot, dim, base, max_pos))
    high = math.ceil(find_correction_dim(high_rot, dim, base, max_pos))
    return max(low, 0), min(high, dim - 1)


def linear_ramp_factor(lo, hi, n):
    if lo == hi:
        hi += 0.001
    return torch.clamp((torch.arange(n, dtype=torch.float32) - lo) / (hi - lo), 0, 1)


def yarn_get_mscale(scale=1.0, mscale=1.0):
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


factor, orig = 4.0, 4096
yb = 10000.0
pos_freqs = yb ** (torch.arange(0, dim, 2).float() / dim)
inv_extra = 1.0 / pos_freqs
inv_inter = 1.0 / (factor * pos_freqs)
lo, hi = find_correction_range(32, 1, dim, yb, orig)
print("correction range:", lo, hi, f"dims: {find_correction_dim(32, dim, yb, orig):.4f} "
      f"{find_correction_dim(1, dim, yb, orig):.4f}")
extrapolation = 1 - linear_ramp_factor(lo, hi, dim // 2)
print("extrapolation factor:", extrapolation)
yarn = inv_inter * (1 - extrapolation) + inv_extra * extrapolation
print("yarn/orig ratio:", (inv_extra / yarn))
print(f"mscale {yarn_get_mscale(factor):.4f} attention factor^2 {yarn_get_mscale(factor) ** 2:.4f}",
      f"deepseek mscale ratio {yarn_get_mscale(40, 1.0) / yarn_get_mscale(40, 1.0):.4f}")
t = torch.arange(16, dtype=torch.float32)
freqs = torch.outer(t, yarn)
cos = freqs.cos() * yarn_get_mscale(factor)
print("yarn cos[15,:4]:", cos[15, :4])


# dynamic NTK: base grows once seq_len exceeds the original context
def dynamic_base(seq_len, max_pos=2048, factor=2.0, dim=dim, base=10000.0):
    if seq_len <= max_pos:
        return base
    return base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))


for L in (1024, 2048, 4096, 8192):
    print(f"seq {L}: base {dynamic_base(L):.1f}")
b8k = dynamic_base(8192)
lowest = 1.0 / (b8k ** ((dim - 2) / dim))
print(f"lowest freq 8k {lowest:.4e} vs original {1.0 / (10000.0 ** ((dim - 2) / dim)):.4e}")

# LongRoPE-style per-dimension rescale factors (short and long)
short_factor = torch.linspace(1.0, 1.5, dim // 2)
long_factor = torch.linspace(1.0, 16.0, dim // 2) ** 0.9
inv_short = 1.0 / (short_factor * pos_freqs)
inv_long = 1.0 / (long_factor * pos_freqs)
scale = 131072 / 4096
attn_factor = math.sqrt(1 + math.log(scale) / math.log(4096))
print("long factors:", long_factor[[0, 5, 10, 15]], f"attention factor {attn_factor:.4f}")
print("long <= short everywhere:", bool((inv_long <= inv_short + 1e-12).all()))

# positions beyond the trained range: how many full rotations the lowest band makes
positions = torch.tensor([4096.0, 16384.0, 131072.0])
rot_orig = positions[:, None] * inv_extra[-1:] / (2 * math.pi)
rot_yarn = positions[:, None] * yarn[-1:] / (2 * math.pi)
print("rotations (orig):", rot_orig.flatten(), "\nrotations (yarn):", rot_yarn.flatten())
print("float16 cos table overflow-free:", torch.isfinite(torch.outer(positions, yarn).cos().half()).all().item())
torch.set_printoptions(sci_mode=False)
err = (torch.outer(positions.double(), yarn.double()).cos() - torch.outer(positions, yarn).cos().double()).abs()
print("float32 angles drift at long positions:", (err.max(1).values > 1e-4).tolist())
