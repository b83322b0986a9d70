"""Complex tensors as physics and DSP code handles them: constructors, views, conj bits, in-place real/imag, matmul."""

import math

import torch

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

re, im = torch.randn(3), torch.randn(3)
z = torch.complex(re, im)
print("complex", z, z.dtype, z.shape)
print("complex double", torch.complex(re.double(), im.double()).dtype)
print("literal", torch.tensor([1 + 2j, -3j]), torch.tensor([1 + 2j]).dtype)
print("default complex", torch.zeros(2, dtype=torch.cfloat), torch.ones(1, dtype=torch.cdouble))
print("randn complex", torch.randn(2, dtype=torch.complex64))
print("empty repr", torch.tensor([], dtype=torch.complex64))
print("scalar repr", torch.tensor(1 - 1j), torch.tensor(2j).item())
print("is_complex", z.is_complex(), re.is_complex(), torch.is_complex(z), z.is_floating_point())

print("real/imag", z.real, z.imag)
print("abs/angle", z.abs(), z.angle(), torch.abs(z).dtype)
print("angle of reals", torch.tensor([-2.0, 0.0, 3.0]).angle())
r, theta = torch.tensor([1.0, 2.0]), torch.tensor([0.0, math.pi / 2])
p = torch.polar(r, theta)
print("polar", p, torch.allclose(p.abs(), r), p.angle())
print("sgn", torch.sgn(z), torch.sgn(torch.tensor([0j])))

# view_as_real / view_as_complex share memory
vr = torch.view_as_real(z)
print("view_as_real", vr.shape, vr.stride(), vr.dtype)
vr[0, 0] = 10.0
print("write through view", z[0])
buf = torch.arange(8.0).reshape(4, 2)
c = torch.view_as_complex(buf)
print("view_as_complex", c, c.shape, c.stride())
buf[1, 1] = -1.0
print("shared", c[1])
try:
    torch.view_as_complex(torch.arange(6.0).reshape(2, 3))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    torch.view_as_complex(torch.arange(8.0).reshape(4, 2).t())
except RuntimeError as e:
    print("RuntimeError", e)

# real and imag are views written in place
w = torch.zeros(4, dtype=torch.complex64)
w.real = torch.tensor([1.0, 2.0, 3.0, 4.0])
w.imag[1:3] = 5.0
w.real.mul_(2)
print("in-place real/imag", w)
w.imag.copy_(torch.tensor([-1.0, -1.0, -1.0, -1.0]))
print("imag copy_", w, w.real.stride(), w.real.is_contiguous())
try:
    torch.randn(3).imag
except RuntimeError as e:
    print("RuntimeError", e)

# conj is lazy; resolve_conj and conj_physical materialize
zc = z.conj()
print("is_conj", zc.is_conj(), z.is_conj(), zc)
print("resolve_conj", zc.resolve_conj().is_conj(), torch.equal(zc.resolve_conj(), zc))
print("conj_physical", z.conj_physical().is_conj(), torch.conj_physical(z))
print("conj of real is itself", re.conj() is re, re.conj().is_conj())
zz = z.clone()
zz.conj_physical_()
print("conj_physical_", zz)
print("conj shares storage", zc.data_ptr() == z.data_ptr())
try:
    torch.view_as_real(zc)
except RuntimeError as e:
    print("RuntimeError", e)
print("view_as_real(resolve_conj)", torch.view_as_real(zc.resolve_conj())[:, 1])
print("conj().imag", zc.imag, "neg bit", zc.imag.is_neg())
print("adjoint", torch.randn(2, 3, dtype=torch.complex64).mH.shape, z.reshape(3, 1).adjoint())

# arithmetic and promotion
print("promote", (z + 1).dtype, (z * 2.5).dtype, (z + torch.ones(3, dtype=torch.float64)).dtype,
      (z + torch.ones(3, dtype=torch.int64)).dtype)
print("z*conj(z) = |z|^2", torch.allclose((z * z.conj()).real, z.abs() ** 2))
print("division", z / (1 + 1j), 1 / torch.tensor([2j]))
print("exp/log", torch.exp(1j * torch.tensor([0.0, math.pi])), torch.log(torch.tensor([-1 + 0j])))
print("sqrt of -1", torch.sqrt(torch.tensor([-1.0 + 0j])), torch.sqrt(torch.tensor([-1.0])))
print("pow", torch.tensor([1j]) ** 2, torch.tensor([2 + 0j]) ** 0.5)
print("reductions", z.sum(), z.mean(), z.prod())
print("vdot/dot", torch.vdot(z, z), torch.dot(z, z))
print("isclose", torch.isclose(torch.tensor([1 + 1j]), torch.tensor([1 + 1.00001j])))
print("eq/ne", z == z.conj().conj(), (z != z.conj()).tolist())

# complex matmul: a unitary DFT matrix and a rotation
n = 4
k = torch.arange(n)
Fm = torch.exp(-2j * math.pi * k[:, None] * k[None] / n) / math.sqrt(n)
print("dft matrix", Fm.dtype, Fm[1])
print("unitary", torch.allclose(Fm @ Fm.conj().T, torch.eye(n, dtype=Fm.dtype), atol=1e-6))
v = torch.randn(n, dtype=torch.complex64)
print("matches fft ortho", torch.allclose(Fm @ v, torch.fft.fft(v, norm="ortho"), atol=1e-5))
A = torch.randn(2, 3, 3, dtype=torch.complex128)
B = torch.randn(2, 3, 2, dtype=torch.complex128)
print("bmm", torch.bmm(A, B).shape, (A @ B)[0, 0], torch.einsum("bij,bjk->bik", A, B)[0, 0])
H = A[0] + A[0].mH
evals = torch.linalg.eigvalsh(H)
print("hermitian eigvals real", evals.dtype, evals)
print("mixed matmul", torch.matmul(A[0], A[0].real.to(torch.complex128)).shape)
try:
    A[0] @ A[0].real
except RuntimeError as e:
    print("RuntimeError", e)

# ordering is undefined for complex
for fn in [lambda: z.max(), lambda: torch.sort(z), lambda: z > 0, lambda: torch.clamp(z, 0, 1)]:
    try:
        fn()
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
print("sort by abs", z[z.abs().argsort()])
print("to real warns and drops imag", z.real.to(torch.float32).dtype)
print("cat complex/real", torch.cat([z, re]).dtype)
print("tolist", torch.tensor([1 + 2j, 3.5 - 1j]).tolist())
print("numpy", torch.tensor([1 + 2j]).numpy().dtype, torch.from_numpy(z.numpy()).dtype)
