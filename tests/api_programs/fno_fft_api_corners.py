"""torch.fft's less common corners: hfft/ihfft/hfft2/ihfftn, n= padding and trimming, norm modes over dims,
fftshift/ifftshift with dims, fftfreq/rfftfreq with d= and dtypes, out=, integer and double inputs, and errors."""

import torch

torch.manual_seed(0)


def c(t):
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t.resolve_conj())
    return t.double().flatten()[:6].round(decimals=4).tolist()


x = torch.arange(8, dtype=torch.float32) ** 1.5 / 5
z = torch.complex(torch.linspace(-1, 1, 6), torch.linspace(0, 2, 6))
for norm in (None, "backward", "ortho", "forward"):
    print("fft", norm, c(torch.fft.fft(x, norm=norm)), c(torch.fft.ifft(z, norm=norm)))
print("n pad", tuple(torch.fft.fft(x, n=12).shape), c(torch.fft.fft(x, n=12)))
print("n trim", c(torch.fft.fft(x, n=5)), c(torch.fft.rfft(x, n=5)))
print("hfft", c(torch.fft.hfft(z)), tuple(torch.fft.hfft(z).shape), tuple(torch.fft.hfft(z, n=7).shape))
print("ihfft", c(torch.fft.ihfft(x)), torch.fft.ihfft(x).dtype, tuple(torch.fft.ihfft(x).shape))
print("roundtrip", torch.allclose(torch.fft.hfft(torch.fft.ihfft(x), n=8), x, atol=1e-5))

m = torch.randn(4, 6)
for norm in ("backward", "ortho", "forward"):
    print("fft2", norm, c(torch.fft.fft2(m, norm=norm)), c(torch.fft.rfft2(m, norm=norm)))
print("ihfft2", tuple(torch.fft.ihfft2(m).shape), c(torch.fft.ihfft2(m)))
print(
    "hfft2",
    tuple(torch.fft.hfft2(torch.fft.ihfft2(m), s=m.shape).shape),
    torch.allclose(torch.fft.hfft2(torch.fft.ihfft2(m), s=m.shape), m, atol=1e-5),
)
print("ihfftn", tuple(torch.fft.ihfftn(m, dim=0).shape), tuple(torch.fft.hfftn(torch.fft.ihfftn(m)).shape))
print("fftn s", tuple(torch.fft.fftn(m, s=(3, 8)).shape), c(torch.fft.fftn(m, s=(3, 8))))
print("fftn dim", tuple(torch.fft.fftn(m, dim=(0,)).shape), c(torch.fft.fftn(m, s=(5,), dim=(1,))))
print("rfftn", tuple(torch.fft.rfftn(m, s=(4, 9)).shape), tuple(torch.fft.irfftn(torch.fft.rfftn(m), s=(4, 6)).shape))
print("irfftn noS", tuple(torch.fft.irfftn(torch.fft.rfftn(m)).shape))

print("fftfreq", torch.fft.fftfreq(5).tolist(), torch.fft.fftfreq(6, d=0.5).tolist())
print("rfftfreq", torch.fft.rfftfreq(7, d=2.0).tolist(), torch.fft.rfftfreq(4, dtype=torch.float64).dtype)
print("freq dtype", torch.fft.fftfreq(4).dtype, torch.fft.fftfreq(4, dtype=torch.float64).tolist())
g = torch.arange(12).reshape(3, 4)
print("fftshift", torch.fft.fftshift(g).tolist(), torch.fft.fftshift(g, dim=1).tolist())
print("ifftshift", torch.fft.ifftshift(g, dim=(0,)).tolist(), torch.fft.ifftshift(torch.fft.fftshift(g)).equal(g))
print("shift freq", torch.fft.fftshift(torch.fft.fftfreq(6)).tolist())

print("int input", torch.fft.fft(torch.arange(4)).dtype, c(torch.fft.fft(torch.arange(4))))
print("double", torch.fft.rfft(x.double()).dtype, torch.fft.irfft(torch.fft.rfft(x.double())).dtype)
print("bool", torch.fft.fft(torch.tensor([True, False, True])).dtype)
out = torch.empty(5, dtype=torch.complex64)
r = torch.fft.rfft(x, out=out)
print("out", r is out, c(out))
b = torch.randn(2, 3, 8)
print("batched dim", c(torch.fft.fft(b, dim=1)), torch.fft.fft(b, dim=1).is_contiguous())
print(
    "noncontig", c(torch.fft.rfft(b.transpose(1, 2), dim=1)), tuple(torch.fft.rfft(b.transpose(1, 2), dim=1).stride())
)
print("empty dim", tuple(torch.fft.fftn(m, dim=()).shape))

for name, fn in [
    ("norm", lambda: torch.fft.fft(x, norm="bad")),
    ("n0", lambda: torch.fft.fft(x, n=0)),
    ("rfft complex", lambda: torch.fft.rfft(z)),
    ("ihfft complex", lambda: torch.fft.ihfft(z)),
    ("dim", lambda: torch.fft.fft(x, dim=2)),
    ("s len", lambda: torch.fft.fftn(m, s=(2, 3), dim=(0,))),
    ("dup dim", lambda: torch.fft.fftn(m, dim=(0, 0))),
    ("irfft n", lambda: torch.fft.irfft(torch.zeros(1, dtype=torch.cfloat))),
    ("fftfreq neg", lambda: torch.fft.fftfreq(-1)),
    ("half", lambda: torch.fft.fft(torch.ones(4, dtype=torch.float16))),
    ("out dtype", lambda: torch.fft.rfft(x, out=torch.empty(5))),
]:
    try:
        r = fn()
        print(name, "ok", tuple(r.shape), r.dtype)
    except Exception as e:
        print(name, type(e).__name__, e)
