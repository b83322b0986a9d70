"""View and complex-number docstring examples: view_as_real/complex, as_strided, conj/neg bits, real/imag writes."""

import torch

x = torch.tensor([[0.4737 - 0.3839j], [-0.2098 - 0.6699j], [0.3470 - 0.9451j], [-0.5174 - 1.3136j]])
print("view_as_real", torch.view_as_real(x), torch.view_as_real(x).shape, torch.view_as_real(x).dtype)
r = torch.tensor([[1.6116, -0.5772], [-1.4606, -0.9120], [0.0786, -1.7497], [-0.6561, -1.6623]])
print(
    "view_as_complex", torch.view_as_complex(r), torch.view_as_complex(r).dtype, torch.view_as_complex(r.double()).dtype
)
vr = torch.view_as_real(x)
vr[0, 0, 1] = 5.0
print("shared storage", x[0], torch.view_as_complex(vr).data_ptr() == x.data_ptr())
t = torch.arange(9.0).reshape(3, 3)
print("as_strided", torch.as_strided(t, (2, 2), (1, 2)), torch.as_strided(t, (2, 2), (1, 2), 1))
print("as_strided overlap", t.as_strided((3, 3), (1, 1)), t.as_strided((2,), (4,), 0).is_contiguous())
print("diagonal view", t.diagonal(), t.diagonal(1), t.diagonal(-1).stride(), t.diagonal(0, 0, 1).storage_offset())
print(
    "unfold view", torch.arange(6).unfold(0, 3, 3).stride(), t.t().is_contiguous(), t.t().contiguous().is_contiguous()
)
z = torch.tensor([-1 + 1j, -2 + 2j, 3 - 3j])
print("conj", z.conj(), z.conj().is_conj(), torch.conj_physical(z).is_conj(), z.conj().resolve_conj().is_conj())
print("conj real", torch.tensor([1.0]).conj().is_conj(), torch.is_conj(z.conj()), torch.tensor([1, 2]).conj())
print("neg bit", z.conj().imag.is_neg(), z.conj().imag.resolve_neg().is_neg(), z.conj().imag)
zz = torch.zeros(3, dtype=torch.complex64)
zz.real = torch.tensor([1.0, 2.0, 3.0])
zz.imag.fill_(-1)
print("real imag writes", zz, zz.real.stride(), zz.imag.storage_offset())
zz.real.mul_(10)
print("in-place through real", zz, torch.real(zz).dtype, torch.imag(zz).shape)
print("abs angle", torch.abs(z), torch.angle(z), z.abs().dtype, torch.polar(torch.tensor([2.0]), torch.tensor([0.0])))
print("complex arithmetic", z * 1j, z / (1 + 1j), z.pow(2), z @ z, torch.vdot(z, z), torch.dot(z, z))
print("complex reductions", z.sum(), z.mean(), z.prod(), torch.linalg.vector_norm(z), z.cumsum(0))
print("complex compare", z == z.conj().conj(), torch.isclose(z, z + 1e-9), z.isreal(), torch.tensor([1 + 0j]).isreal())
print(
    "complex casts",
    z.to(torch.complex128).dtype,
    torch.tensor([1.5]).to(torch.complex64),
    torch.complex(torch.tensor(1.0), torch.tensor(2.0)),
)
print("complex sort-free", z.abs().argsort(), z[z.abs() > 2], torch.where(z.real > 0, z, torch.zeros_like(z)))
e = torch.tensor([1.0, 2.0, 3.0, 4.0])
v = e.view(2, 2)
v[0, 0] = 100
print("view writes", e, e._version, v._base is e, v.is_contiguous(), e[::2]._base is e)
s = e.narrow(0, 1, 2)
s.zero_()
print("narrow writes", e, s.storage_offset(), e.untyped_storage().nbytes())
d = e.detach()
d[3] = -1
print("detach shares", e, d.requires_grad, torch.equal(e, d))
u = e.unsqueeze(0).expand(3, 4)
print("expand view", u.stride(), u.is_contiguous(), u.contiguous().stride(), u.sum(0))
for bad in [
    lambda: torch.view_as_complex(torch.ones(3)),
    lambda: torch.view_as_complex(torch.ones(2, 3)),
    lambda: torch.view_as_complex(torch.ones(4, 2)[::2]),
    lambda: torch.view_as_complex(torch.ones(2, 2, dtype=torch.int64)),
    lambda: torch.view_as_real(torch.ones(2)),
    lambda: torch.view_as_real(z.conj()),
    lambda: torch.as_strided(t, (4, 4), (4, 1)),
    lambda: torch.as_strided(t, (2,), (1, 1)),
    lambda: setattr(torch.ones(2), "imag", torch.ones(2)),
    lambda: torch.ones(2).imag,
    lambda: z.max(),
    lambda: z < z,
    lambda: torch.tensor([1 + 1j]).clamp(0, 1),
    lambda: torch.ones(4).view(2, 2).view(-1).T.view(4).shape,
    lambda: torch.ones(2, 2).t().view(4),
]:
    try:
        out = bad()
        print("ok", out)
    except Exception as e:
        print(type(e).__name__, ":", str(e).split("\n")[0])
