"""Autograd through complex functions with real losses: Wirtinger grads, complex layers, phase retrieval, FFT losses."""

import math

import torch
import torch.nn as nn

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

# PyTorch's convention: grad is the conjugate Wirtinger derivative times 2 (df/dz*), for real-valued L
z = torch.tensor([1.0 + 2.0j, -0.5 + 0.25j], requires_grad=True)
loss = (z.abs() ** 2).sum()
loss.backward()
print("d|z|^2", z.grad, "== 2z", torch.allclose(z.grad, 2 * z.detach()))
z.grad = None
(z * z.conj()).real.sum().backward()
print("d(z z*)", z.grad)
z.grad = None
z.abs().sum().backward()
print("d|z|", z.grad, "== z/|z|", torch.allclose(z.grad, z.detach() / z.detach().abs()))
z.grad = None
z.angle().sum().backward()
print("d angle", z.grad)
z.grad = None
(z ** 2).real.sum().backward()
print("d Re(z^2)", z.grad)
z.grad = None
(z ** 2).imag.sum().backward()
print("d Im(z^2)", z.grad)
z.grad = None
torch.view_as_real(z * 1j).pow(2).sum().backward()
print("through view_as_real", z.grad)
print("grad_fn names", (z * 2).grad_fn.name(), z.abs().grad_fn.name(), z.real.grad_fn.name(),
      z.conj().grad_fn.name(), torch.view_as_real(z).grad_fn.name(), z.angle().grad_fn.name())

# gradient flowing from complex into real leaves
a = torch.tensor([0.3, -1.2], requires_grad=True)
b = torch.tensor([0.7, 0.4], requires_grad=True)
c = torch.complex(a, b)
(c.exp().abs() ** 2).sum().backward()
print("torch.complex grads", a.grad, b.grad)
r = torch.tensor([2.0], requires_grad=True)
th = torch.tensor([0.5], requires_grad=True)
pz = torch.polar(r, th)
(pz.real * 3 + pz.imag).sum().backward()
print("polar grads", r.grad, th.grad)

# gradcheck on complex functions
f64 = torch.randn(3, dtype=torch.complex128, requires_grad=True)
for name, fn in [("exp", torch.exp), ("sin", torch.sin), ("recip", torch.reciprocal), ("abs", torch.abs),
                 ("fft", torch.fft.fft), ("sgn", torch.sgn), ("conj", torch.conj)]:
    print("gradcheck", name, torch.autograd.gradcheck(fn, (f64,)))
print("gradcheck matmul", torch.autograd.gradcheck(lambda m, v: m @ v,
      (torch.randn(2, 3, dtype=torch.complex128, requires_grad=True), f64)))

# a complex linear layer trained on a phase-rotation task
W_true = torch.polar(torch.ones(4), torch.tensor([0.1, 0.7, -1.0, 2.0]))
X = torch.randn(64, 4, dtype=torch.complex64)
Y = X * W_true


class ComplexLinear(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, n, dtype=torch.cfloat) * 0.1)
        self.bias = nn.Parameter(torch.zeros(n, dtype=torch.cfloat))

    def forward(self, x):
        return x @ self.weight.T + self.bias


model = ComplexLinear(4)
print("params", [(n, p.dtype, tuple(p.shape)) for n, p in model.named_parameters()])
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(60):
    opt.zero_grad()
    err = model(X) - Y
    loss = (err.abs() ** 2).mean()
    loss.backward()
    opt.step()
    if step % 15 == 0:
        print(f"step {step} loss {loss.item():.4f} grad dtype {model.weight.grad.dtype}")
print("learned phases", model.weight.detach().diagonal().angle(), "final", round(loss.item(), 4))
print("adam state dtype", opt.state[model.weight]["exp_avg"].dtype, opt.state[model.weight]["exp_avg_sq"].dtype)
sgd = torch.optim.SGD([nn.Parameter(torch.ones(2, dtype=torch.cfloat))], lr=0.1, momentum=0.9)
p = sgd.param_groups[0]["params"][0]
for _ in range(3):
    sgd.zero_grad()
    (p * torch.tensor([1j, 2.0])).real.sum().backward()
    sgd.step()
print("sgd complex param", p.detach())

# phase retrieval: recover a signal from Fourier magnitudes by gradient descent on a real-valued loss
true = torch.zeros(32)
true[8:14] = torch.tensor([1.0, 2.0, 3.0, 2.5, 1.0, 0.5])
target_mag = torch.fft.fft(true).abs()
est = torch.rand(32, requires_grad=True)
opt2 = torch.optim.Adam([est], lr=0.05)
for it in range(150):
    opt2.zero_grad()
    mag = torch.fft.fft(est).abs()
    loss = ((mag - target_mag) ** 2).mean()
    loss.backward()
    opt2.step()
    with torch.no_grad():
        est.clamp_(min=0)
    if it % 50 == 0:
        print(f"phase retrieval it {it} loss {loss.item():.4f}")
print("magnitude fit", round(loss.item(), 4))

# spectral loss through stft (multi-resolution STFT loss, as vocoders use)
sig_t = torch.sin(torch.linspace(0, 40 * math.pi, 512))
pred = (sig_t + 0.3 * torch.randn(512)).requires_grad_()
total = 0.0
for n_fft in [64, 128]:
    w = torch.hann_window(n_fft)
    Sp = torch.stft(pred, n_fft, n_fft // 4, window=w, return_complex=True).abs()
    St = torch.stft(sig_t, n_fft, n_fft // 4, window=w, return_complex=True).abs()
    sc = torch.norm(St - Sp, p="fro") / torch.norm(St, p="fro")
    mag_l = torch.nn.functional.l1_loss(torch.log(Sp + 1e-2), torch.log(St + 1e-2))
    total = total + sc + mag_l
    print(f"n_fft {n_fft} sc {sc.item():.4f} log-mag {mag_l.item():.4f}")
total.backward()
print("stft loss grad", pred.grad.shape, round(pred.grad.norm().item(), 4), pred.grad[:3])

# rfft/irfft gradients and a complex leaf's grad via torch.autograd.grad
u = torch.randn(8, dtype=torch.float64, requires_grad=True)
spec = torch.fft.rfft(u)
g, = torch.autograd.grad((spec.abs() ** 2).sum(), u)
print("rfft half-spectrum energy grad", g[:3], "vs 16u", (2 * 8 * u.detach())[:3])
try:
    torch.autograd.grad(torch.fft.irfft(spec, n=8).sum(), u)
except RuntimeError as e:
    print("reused graph:", str(e)[:60])
spec = torch.fft.rfft(u)
h = torch.fft.irfft(spec * torch.tensor([1, 1, 0, 0, 0], dtype=torch.complex128), n=8)
gh, = torch.autograd.grad(h.sum(), u)
print("irfft lowpass grad", gh)
print("fft of real grad_fn", torch.fft.fft(u).grad_fn.name(), torch.fft.ifft(u).grad_fn.name(),
      torch.fft.fft2(u.view(2, 4)).grad_fn.name())
padded = torch.fft.rfft2(u.view(2, 4), s=(1, 12))
print("n/s resize nodes", padded.grad_fn.next_functions[0][0].name(),
      padded.grad_fn.next_functions[0][0].next_functions[0][0].name())
print("grad of complex output needs grad_outputs:")
try:
    torch.fft.fft(u).backward()
except RuntimeError as e:
    print("RuntimeError", e)
