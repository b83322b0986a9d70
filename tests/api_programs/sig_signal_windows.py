"""torch.signal.windows beside the torch.*_window builders: sym, dtypes, parameters, spectral leakage, errors."""

import math

import torch
from torch.signal import windows

torch.set_printoptions(precision=4, sci_mode=False)

M = 7
print("hann sym", windows.hann(M))
print("hann periodic", windows.hann(M, sym=False), torch.allclose(windows.hann(M, sym=False), torch.hann_window(M)))
print("hamming", windows.hamming(M), torch.allclose(windows.hamming(M, sym=False), torch.hamming_window(M)))
print("blackman", windows.blackman(M))
print("bartlett", windows.bartlett(M), windows.bartlett(6, sym=False))
print("cosine", windows.cosine(M), windows.cosine(M, sym=False))
print("gaussian", windows.gaussian(M), windows.gaussian(M, std=0.5))
print("exponential", windows.exponential(M), windows.exponential(M, tau=3.0), windows.exponential(6, sym=False))
print("exponential center", windows.exponential(M, center=1.0, sym=False, tau=2.0))
print("kaiser", windows.kaiser(M), windows.kaiser(M, beta=2.0, sym=False))
print("torch.kaiser_window agrees", torch.allclose(windows.kaiser(M, beta=12.0, sym=False), torch.kaiser_window(M)))
print("nuttall", windows.nuttall(M))
print("general_cosine", windows.general_cosine(M, a=[0.46, 0.23, 0.31]))
print("general_cosine = hann", torch.allclose(windows.general_cosine(M, a=[0.5, 0.5]), windows.hann(M)))
print("general_hamming", windows.general_hamming(M, alpha=0.6), windows.general_hamming(M, alpha=0.54, sym=False))

print("dtypes", windows.hann(4, dtype=torch.float64).dtype, windows.gaussian(4).dtype, windows.kaiser(4).dtype)
print("requires_grad", windows.cosine(3, requires_grad=True).requires_grad, windows.hann(3).layout)
print("differentiable windows", windows.hann(4, requires_grad=True),
      windows.gaussian(3, requires_grad=True).grad_fn.name(), windows.bartlett(4, requires_grad=True).grad_fn.name(),
      windows.kaiser(1, requires_grad=True).is_leaf)
print("float32 rounding", f"{windows.blackman(5, sym=False)[0].item():.3e}",
      [f"{v:.9f}" for v in windows.hamming(4, sym=False).tolist()])
print("M=1", windows.hann(1), windows.gaussian(1), windows.kaiser(1), windows.bartlett(1))
print("M=0", windows.hann(0), windows.nuttall(0).shape)
print("M=2", windows.hann(2), windows.blackman(2), windows.exponential(2))
with torch.no_grad():
    torch.set_default_dtype(torch.float64)
    print("default dtype follows", windows.hamming(3).dtype, torch.hann_window(3).dtype)
    torch.set_default_dtype(torch.float32)

# window properties used in spectral analysis
N = 64
for name in ["hann", "hamming", "blackman", "nuttall", "kaiser", "gaussian", "bartlett", "cosine"]:
    w = getattr(windows, name)(N, sym=False, dtype=torch.float64)
    coherent_gain = w.mean()
    enbw = N * (w**2).sum() / w.sum() ** 2
    W = torch.fft.rfft(w, n=N * 16).abs()
    W = 20 * torch.log10(W / W[0] + 1e-12)
    rising = (W[1:] > W[:-1]).nonzero()
    first_null = int(rising[0]) if rising.numel() else W.numel() - 1
    sidelobe = W[first_null:].max()
    print(f"{name:9s} gain {coherent_gain:.4f} enbw {enbw:.4f} mainlobe {first_null / 16:.4f} bins "
          f"sidelobe {sidelobe:.1f} dB")

# leakage: an off-bin tone seen through different windows
n = torch.arange(N, dtype=torch.float64)
tone = torch.cos(2 * math.pi * 10.5 * n / N)
for name, w in [("rect", torch.ones(N, dtype=torch.float64)), ("hann", torch.hann_window(N, dtype=torch.float64)),
                ("blackman", torch.blackman_window(N, dtype=torch.float64))]:
    S = torch.fft.rfft(tone * w).abs()
    far = S[20:].max() / S.max()
    print(f"leakage {name:8s} peak bins {S.topk(2).indices.sort().values.tolist()} far/peak {far.item():.5f}")

# COLA: periodic hann at 50% overlap sums to a constant; symmetric does not
for sym in [False, True]:
    w = windows.hann(32, sym=sym)
    acc = torch.zeros(32 * 5)
    for start in range(0, 32 * 5 - 32 + 1, 16):
        acc[start:start + 32] += w
    mid = acc[32:-32]
    print(f"hann sym={sym} overlap-add min {mid.min().item():.4f} max {mid.max().item():.4f}")

for fn in [lambda: windows.gaussian(5, std=0.0), lambda: windows.exponential(5, tau=-1.0),
           lambda: windows.kaiser(5, beta=-1.0), lambda: windows.hann(-2), lambda: windows.hann(4, dtype=torch.int64),
           lambda: windows.exponential(5, center=2.0), lambda: torch.hann_window(4, dtype=torch.int32),
           lambda: windows.general_cosine(5, a=0.5)]:
    try:
        fn()
        print("no error")
    except Exception as e:
        print(type(e).__name__, e)
