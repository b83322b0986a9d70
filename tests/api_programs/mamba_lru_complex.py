"""A Linear Recurrent Unit (Orvieto et al.): a complex diagonal recurrence parametrised by nu_log/theta_log on
the ring, gamma normalisation, the complex input projection built with torch.complex, a sequential scan against a
parallel scan by cumprod/cumsum of complex numbers, and complex gradients flowing into real parameters."""

import math
import torch
import torch.nn as nn

torch.manual_seed(0)


class LRU(nn.Module):
    def __init__(self, d_in, d_hidden, r_min=0.4, r_max=0.9, max_phase=2 * math.pi):
        super().__init__()
        u1, u2 = torch.rand(d_hidden), torch.rand(d_hidden)
        self.nu_log = nn.Parameter(torch.log(-0.5 * torch.log(u1 * (r_max**2 - r_min**2) + r_min**2)))
        self.theta_log = nn.Parameter(torch.log(max_phase * u2))
        lam_abs = torch.exp(-torch.exp(self.nu_log.detach()))
        self.gamma_log = nn.Parameter(torch.log(torch.sqrt(1 - lam_abs**2)))
        self.B_re = nn.Parameter(torch.randn(d_hidden, d_in) / math.sqrt(2 * d_in))
        self.B_im = nn.Parameter(torch.randn(d_hidden, d_in) / math.sqrt(2 * d_in))
        self.C_re = nn.Parameter(torch.randn(d_in, d_hidden) / math.sqrt(d_hidden))
        self.C_im = nn.Parameter(torch.randn(d_in, d_hidden) / math.sqrt(d_hidden))
        self.D = nn.Parameter(torch.randn(d_in))

    def lam(self):
        return torch.exp(-torch.exp(self.nu_log) + 1j * torch.exp(self.theta_log))

    def forward(self, x, parallel=False):
        lam = self.lam()
        B = torch.complex(self.B_re, self.B_im) * torch.exp(self.gamma_log).unsqueeze(-1)
        C = torch.complex(self.C_re, self.C_im)
        Bu = x.to(torch.cfloat) @ B.T
        if parallel:
            T = x.shape[1]
            powers = torch.cumprod(lam.expand(T, -1), dim=0)
            h = powers * torch.cumsum(Bu / powers, dim=1)
        else:
            h = torch.zeros(x.shape[0], lam.shape[0], dtype=torch.cfloat)
            hs = []
            for t in range(x.shape[1]):
                h = lam * h + Bu[:, t]
                hs.append(h)
            h = torch.stack(hs, 1)
        return (h @ C.T).real + x * self.D


lru = LRU(3, 5)
lam = lru.lam()
print("lam", lam.dtype, lam.abs().round(decimals=4).tolist())
print("angle", torch.angle(lam).round(decimals=4).tolist())
print("on ring", bool((lam.abs() < 1).all()), lam.real.shape, lam.conj().imag.round(decimals=4).tolist()[:2])
x = torch.randn(2, 7, 3)
y_seq = lru(x)
y_par = lru(x, parallel=True)
print("y", tuple(y_seq.shape), y_seq.dtype, round(y_seq.sum().item(), 4))
print("par==seq", torch.allclose(y_seq, y_par, atol=1e-4))

y_seq.pow(2).sum().backward()
for n, p in lru.named_parameters():
    print(n, p.grad.dtype, round(p.grad.abs().sum().item(), 4))

# complex helpers
z = torch.complex(torch.tensor([3.0, 0.0]), torch.tensor([4.0, -2.0]))
print("complex", z, z.abs().tolist(), torch.angle(z).round(decimals=4).tolist())
print("polar", torch.polar(torch.tensor([2.0]), torch.tensor([math.pi / 2])).real.abs().item() < 1e-6)
print("exp(i pi)", torch.exp(torch.tensor(1j * math.pi)).real.item())
print("conj_physical", torch.conj_physical(z).tolist(), z.conj().is_conj(), torch.is_conj(z.conj().resolve_conj()))
print("view_as_real", torch.view_as_real(z).tolist(), torch.view_as_real(z).shape)
zz = torch.tensor([1 + 1j, 2 - 1j], requires_grad=True)
(zz.abs() ** 2).sum().backward()
print("wirtinger", zz.grad.tolist())
w = torch.tensor([0.5, 1.5], requires_grad=True)
torch.exp(1j * w).real.sum().backward()
print("real-to-complex grad", w.grad.round(decimals=4).tolist())
print("cfloat mm dtype", (torch.ones(2, 2, dtype=torch.cfloat) @ torch.ones(2, 2, dtype=torch.cfloat)).dtype)
print(
    "promote",
    (torch.ones(2) * 1j).dtype,
    (torch.ones(2, dtype=torch.float64) * 1j).dtype,
    torch.result_type(torch.ones(1, dtype=torch.cfloat), torch.ones(1, dtype=torch.float64)),
)
try:
    torch.complex(torch.ones(2), torch.ones(2, dtype=torch.float64))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.ones(2, dtype=torch.cfloat) @ torch.ones(2, 2)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.cfloat_tensor = torch.zeros(2, dtype=torch.cfloat).clamp(min=0)
except Exception as e:
    print(type(e).__name__, e)
