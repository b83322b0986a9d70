"""A 3-D FNO block with rfftn over (t, x, y) and irfftn(s=) beside the factorized spectral weights of TFNO (CP factors
contracted by einsum on complex tensors), per-mode complex parameters stored through view_as_real, channel mixing
as complex matmul, and the gradients of each parametrization."""

import torch
import torch.nn as nn

torch.manual_seed(0)


def r(t, k=6):
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t.resolve_conj())
    return t.double().flatten()[:k].round(decimals=4).tolist()


class SpectralConv3d(nn.Module):
    def __init__(self, cin, cout, m1, m2, m3):
        super().__init__()
        self.cout, self.m = cout, (m1, m2, m3)
        scale = 1 / (cin * cout)
        self.weights = nn.ParameterList(
            [nn.Parameter(scale * torch.rand(cin, cout, m1, m2, m3, dtype=torch.cfloat)) for _ in range(4)]
        )

    def forward(self, x):
        b, _, d1, d2, d3 = x.shape
        m1, m2, m3 = self.m
        x_ft = torch.fft.rfftn(x, dim=[-3, -2, -1])
        out = torch.zeros(b, self.cout, d1, d2, d3 // 2 + 1, dtype=torch.cfloat)
        slices = [
            (slice(None, m1), slice(None, m2)),
            (slice(-m1, None), slice(None, m2)),
            (slice(None, m1), slice(-m2, None)),
            (slice(-m1, None), slice(-m2, None)),
        ]
        for w, (s1, s2) in zip(self.weights, slices):
            out[:, :, s1, s2, :m3] = torch.einsum("bixyz,ioxyz->boxyz", x_ft[:, :, s1, s2, :m3], w)
        return torch.fft.irfftn(out, s=(d1, d2, d3))


class CPSpectralConv1d(nn.Module):
    """Spectral weights as a rank-R CP factorization: W[i, o, k] = sum_r a[i, r] b[o, r] c[k, r]."""

    def __init__(self, cin, cout, modes, rank):
        super().__init__()
        self.modes = modes
        self.a = nn.Parameter(torch.randn(cin, rank, 2) * 0.3)
        self.b = nn.Parameter(torch.randn(cout, rank, 2) * 0.3)
        self.c = nn.Parameter(torch.randn(modes, rank, 2) * 0.3)

    def weight(self):
        a, b, c = (torch.view_as_complex(p) for p in (self.a, self.b, self.c))
        return torch.einsum("ir,or,kr->iok", a, b, c)

    def forward(self, x):
        x_ft = torch.fft.rfft(x, norm="ortho")
        out = torch.zeros(x.shape[0], self.b.shape[0], x_ft.shape[-1], dtype=x_ft.dtype)
        out[..., : self.modes] = torch.einsum("bik,iok->bok", x_ft[..., : self.modes], self.weight())
        return torch.fft.irfft(out, n=x.shape[-1], norm="ortho")


conv3 = SpectralConv3d(2, 3, 2, 2, 2)
print(
    "params",
    sum(p.numel() for p in conv3.parameters()),
    [tuple(p.shape) for p in conv3.weights][:1],
    type(conv3.weights).__name__,
    len(conv3.weights),
)
vol = torch.randn(2, 2, 6, 8, 8)
y = conv3(vol)
print("3d", tuple(y.shape), y.dtype, r(y))
y.pow(2).mean().backward()
print("3d grads", [round(w.grad.abs().sum().item(), 4) for w in conv3.weights], conv3.weights[0].grad.dtype)
ft = torch.fft.rfftn(vol, dim=(-3, -2, -1))
print("rfftn", tuple(ft.shape), r(ft[0, 0, 0, 0]), tuple(torch.fft.irfftn(ft, dim=(-3, -2, -1)).shape))
print("rfftn s", tuple(torch.fft.rfftn(vol, s=(4, 4, 4)).shape), tuple(torch.fft.irfftn(ft, s=(6, 8, 9)).shape))
print(
    "fftn roundtrip",
    torch.allclose(torch.fft.ifftn(torch.fft.fftn(vol, dim=(2, 3, 4)), dim=(2, 3, 4)).real, vol, atol=1e-5),
)

cp = CPSpectralConv1d(3, 2, modes=5, rank=4)
W = cp.weight()
print("cp weight", tuple(W.shape), W.dtype, r(W), W.grad_fn.name())
sig = torch.randn(4, 3, 16)
target = torch.roll(sig[:, :2], 1, -1)
opt = torch.optim.Adam(cp.parameters(), lr=0.05)
for step in range(5):
    opt.zero_grad()
    loss = (cp(sig) - target).pow(2).mean()
    loss.backward()
    opt.step()
    print("cp step", step, round(loss.item(), 4), round(cp.c.grad.norm().item(), 4))
print("view_as_complex grad_fn", torch.view_as_complex(cp.a).grad_fn.name(), torch.view_as_complex(cp.a)._base is cp.a)

dense = nn.Parameter(torch.randn(3, 2, 5, dtype=torch.cfloat))
x_ft = torch.fft.rfft(sig)[..., :5]
a = torch.einsum("bik,iok->bok", x_ft, dense)
b_ = (x_ft.permute(2, 0, 1) @ dense.permute(2, 0, 1)).permute(1, 2, 0)
print("einsum vs matmul", torch.allclose(a, b_, atol=1e-5), a.dtype)
a.abs().sum().backward()
print("dense grad", r(dense.grad), dense.grad.is_conj())
sd = cp.state_dict()
print("state", {kk: (tuple(v.shape), v.dtype) for kk, v in sd.items()})
print("complex param as real", r(torch.view_as_real(dense)), torch.view_as_real(dense).requires_grad)
try:
    torch.view_as_complex(cp.a[:, :, :1])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.rfftn(vol.to(torch.cfloat), dim=(-3, -2, -1))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.irfftn(ft, s=(6, 8))
except Exception as e:
    print(type(e).__name__, e)
