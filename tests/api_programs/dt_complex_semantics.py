"""Complex dtypes as signal-processing code meets them: promotion, parts and views, casts, division, errors."""

import warnings

import torch

torch.set_printoptions(precision=4)


def c4(z):
    return [complex(round(v.real, 4), round(v.imag, 4)) for v in z.reshape(-1).tolist()]


def attempt(tag, fn):
    try:
        res = fn()
        if isinstance(res, torch.Tensor):
            vals = c4(res) if res.is_complex() else [round(v, 4) for v in res.float().reshape(-1).tolist()]
            print(f"{tag:<26}", vals, str(res.dtype).replace("torch.", ""))
        else:
            print(f"{tag:<26}", res)
    except (RuntimeError, TypeError, ValueError) as e:
        print(f"{tag:<26}", type(e).__name__ + ":", e)


z = torch.tensor([1 + 2j, -3 + 0.5j, 0j])
print("default complex", z.dtype, torch.tensor([1j]).dtype, torch.tensor(1j, dtype=torch.complex128).dtype)
attempt("z + int tensor", lambda: z + torch.tensor([1, 2, 3]))
attempt("z + f64 tensor", lambda: z + torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
attempt("z + bool", lambda: z + torch.tensor([True, False, True]))
attempt("z * 0-dim f64", lambda: z * torch.tensor(2.0, dtype=torch.float64))
attempt("f32 * 1j", lambda: torch.tensor([1.0, 2.0]) * 1j)
attempt("int * 1j", lambda: torch.tensor([1, 2]) * 1j)
attempt("f64 * complex scalar", lambda: torch.tensor([1.0], dtype=torch.float64) * (1 + 1j))
attempt("c128 + c64", lambda: z.to(torch.complex128) + z)
attempt("z / 0", lambda: z / 0)
attempt("z / 0j", lambda: z / torch.tensor(0j))
attempt("z ** 2", lambda: z ** 2)
attempt("z ** 0.5", lambda: z ** 0.5)
attempt("2 ** z", lambda: 2 ** z)
attempt("z @ z", lambda: z @ z)
attempt("vdot", lambda: torch.vdot(z, z))
attempt("z == conj", lambda: z == z.conj())
attempt("isclose", lambda: torch.isclose(z, z + 1e-9))

# parts, views and their dtypes
attempt("real", lambda: z.real)
attempt("imag", lambda: z.imag)
attempt("abs", lambda: z.abs())
attempt("angle", lambda: z.angle())
attempt("view_as_real", lambda: torch.view_as_real(z))
print("view_as_real shape", torch.view_as_real(z).shape, torch.view_as_real(z).stride())
attempt("view_as_complex", lambda: torch.view_as_complex(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
attempt("view_as_complex f64", lambda: torch.view_as_complex(torch.ones(2, 2, dtype=torch.float64)))
attempt("view_as_complex bad", lambda: torch.view_as_complex(torch.ones(2, 3)))
attempt("view_as_complex int", lambda: torch.view_as_complex(torch.ones(2, 2, dtype=torch.long)))
attempt("complex(re, im)", lambda: torch.complex(torch.tensor([1.0]), torch.tensor([2.0])))
ones64 = torch.ones(1, dtype=torch.float64)
attempt("complex f64 parts", lambda: torch.complex(ones64, ones64))
attempt("complex mixed parts", lambda: torch.complex(torch.ones(1), torch.ones(1, dtype=torch.float64)))
attempt("complex int parts", lambda: torch.complex(torch.ones(1, dtype=torch.long), torch.ones(1, dtype=torch.long)))
attempt("polar", lambda: torch.polar(torch.tensor([2.0]), torch.tensor([torch.pi / 2])))
w = z.clone()
w.real[0] = 10.0
w.imag.mul_(-1)
attempt("write through parts", lambda: w)
attempt("real of conj", lambda: z.conj().imag)
print("conj flags", z.conj().is_conj(), z.conj().resolve_conj().is_conj(), z.conj().imag.is_neg())

# casts
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    r = z.to(torch.float32)
print("to float32", r.tolist(), [str(w.category.__name__) for w in caught][:1])
attempt("to int64", lambda: torch.tensor([2.7 - 1j, -2.7 + 5j]).to(torch.int64))
attempt("to bool", lambda: torch.tensor([0j, 1j, 1 + 0j]).bool())
attempt("to complex128", lambda: z.to(torch.complex128))
attempt("float.to(complex64)", lambda: torch.tensor([1.5]).to(torch.complex64))
attempt("type promotion cfloat", lambda: torch.tensor([1], dtype=torch.int8).to(torch.cfloat))
attempt("real float .real", lambda: torch.tensor([1.5]).real)
attempt("float += complex", lambda: torch.tensor([1.0]).add_(1j))
attempt("copy_ complex->float", lambda: torch.zeros(2).copy_(torch.tensor([1 + 1j, 2 - 1j])))
attempt("index_put complex", lambda: torch.zeros(2, dtype=torch.complex64).index_put_((torch.tensor([1]),),
                                                                                       torch.tensor(3 + 1j)))
attempt("finfo complex", lambda: (torch.finfo(torch.complex64).eps, torch.finfo(torch.complex128).bits))
attempt("is_complex", lambda: (z.is_complex(), torch.is_complex(z.real), z.is_floating_point()))
attempt("dtype props", lambda: (torch.complex64.is_complex, torch.complex64.to_real(), torch.float16.to_complex(),
                                torch.complex128.itemsize))

# FFT round trip keeps dtypes
torch.manual_seed(0)
sig = torch.randn(8)
spec = torch.fft.rfft(sig)
print("rfft", spec.dtype, spec.shape, "irfft", torch.fft.irfft(spec, n=8).dtype)
print("roundtrip err < 1e-6", bool((torch.fft.irfft(spec, n=8) - sig).abs().max() < 1e-6))
print("fft of f64", torch.fft.fft(sig.double()).dtype, "fft of int", torch.fft.fft(torch.arange(4)).dtype)
print("power", [round(v, 4) for v in (spec.abs() ** 2).tolist()])
print("phase", [round(v, 4) for v in spec.angle().tolist()])
