"""Pseudo-spectral PDE solvers as the FNO papers generate their data: spectral derivatives with fftfreq wavenumbers,
a Poisson solve with the zero mode removed, viscous Burgers with 2/3 dealiasing and RK4, 2-D Navier-Stokes
vorticity steps with rfft2 wavenumbers, the heat equation by exponential integration, and energy spectra."""

import math

import torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

N = 32
L = 2 * math.pi
x = torch.arange(N) * L / N
k = torch.fft.fftfreq(N, d=L / N) * 2 * math.pi
print("wavenumbers", k[:6].round(decimals=4).tolist(), k.dtype)
f = torch.sin(3 * x) + 0.5 * torch.cos(5 * x)
df = torch.fft.ifft(1j * k * torch.fft.fft(f)).real
print("d/dx err", round((df - (3 * torch.cos(3 * x) - 2.5 * torch.sin(5 * x))).abs().max().item(), 8) < 1e-9)
kr = torch.fft.rfftfreq(N, d=L / N) * 2 * math.pi
d2f = torch.fft.irfft(-(kr ** 2) * torch.fft.rfft(f), n=N)
print("d2/dx2", d2f[:4].round(decimals=4).tolist())

kx = torch.fft.fftfreq(N, 1 / N).view(-1, 1)
ky = torch.fft.rfftfreq(N, 1 / N).view(1, -1)
k2 = kx ** 2 + ky ** 2
X, Y = torch.meshgrid(x, x, indexing="ij")
rhs = torch.sin(X) * torch.cos(2 * Y)
rhs_hat = torch.fft.rfft2(rhs)
inv = torch.where(k2 == 0, torch.zeros_like(k2), 1 / k2)
phi = torch.fft.irfft2(-rhs_hat * inv, s=(N, N))
print("poisson", round((phi + rhs / 5).abs().max().item(), 8) < 1e-9, tuple(rhs_hat.shape), rhs_hat.dtype)
u_hat = rhs_hat / k2
print("zero mode", u_hat[0, 0], torch.isfinite(u_hat[1:]).all().item())


def burgers_rhs(u_hat, nu, k, dealias):
    u = torch.fft.irfft(u_hat, n=N)
    ux = torch.fft.irfft(1j * k * u_hat, n=N)
    nonlin = torch.fft.rfft(u * ux) * dealias
    return -nonlin - nu * k ** 2 * u_hat


dealias = (kr.abs() < (2 / 3) * kr.abs().max()).to(torch.float64)
print("dealias kept", int(dealias.sum().item()), "of", dealias.numel())
u_hat = torch.fft.rfft(torch.sin(x) + 0.2)
dt, nu = 0.01, 0.05
energies = []
for step in range(60):
    k1 = burgers_rhs(u_hat, nu, kr, dealias)
    k2_ = burgers_rhs(u_hat + 0.5 * dt * k1, nu, kr, dealias)
    k3 = burgers_rhs(u_hat + 0.5 * dt * k2_, nu, kr, dealias)
    k4 = burgers_rhs(u_hat + dt * k3, nu, kr, dealias)
    u_hat = u_hat + dt / 6 * (k1 + 2 * k2_ + 2 * k3 + k4)
    if step % 20 == 19:
        u = torch.fft.irfft(u_hat, n=N)
        energies.append(round(0.5 * u.pow(2).mean().item(), 6))
print("burgers energy", energies, round(torch.fft.irfft(u_hat, n=N).mean().item(), 6))
print("burgers u", torch.fft.irfft(u_hat, n=N)[::8].round(decimals=4).tolist())

u0 = torch.exp(-4 * (x - math.pi) ** 2)
for t in (0.1, 0.5):
    ut = torch.fft.irfft(torch.fft.rfft(u0) * torch.exp(-(kr ** 2) * t), n=N)
    print("heat", t, round(ut.max().item(), 4), round(ut.sum().item() * L / N, 4))

w = torch.sin(X) * torch.sin(Y) + 0.1 * torch.cos(3 * X)
lap = torch.where(k2 == 0, torch.ones_like(k2), k2)
w_hat = torch.fft.rfft2(w)
for step in range(3):
    psi_hat = w_hat / lap
    psi_hat[0, 0] = 0
    u_vel = torch.fft.irfft2(1j * ky * psi_hat, s=(N, N))
    v_vel = torch.fft.irfft2(-1j * kx * psi_hat, s=(N, N))
    wx = torch.fft.irfft2(1j * kx * w_hat, s=(N, N))
    wy = torch.fft.irfft2(1j * ky * w_hat, s=(N, N))
    adv = torch.fft.rfft2(u_vel * wx + v_vel * wy)
    w_hat = (w_hat - 0.01 * adv) / (1 + 0.01 * 1e-3 * k2)
    print("ns", step, round(torch.fft.irfft2(w_hat, s=(N, N)).pow(2).mean().item(), 6),
          round(u_vel.abs().max().item(), 4))

field = torch.fft.irfft2(w_hat, s=(N, N))
Eh = torch.fft.fftshift(torch.fft.fft2(field, norm="ortho").abs() ** 2)
kk = torch.fft.fftshift(torch.sqrt(torch.fft.fftfreq(N, 1 / N)[:, None] ** 2 + torch.fft.fftfreq(N, 1 / N)[None] ** 2))
shell = kk.round().long().flatten()
spectrum = torch.zeros(shell.max() + 1).index_add_(0, shell, Eh.flatten())
print("spectrum", spectrum[:6].round(decimals=4).tolist(), torch.bincount(shell)[:6].tolist())
print("parseval", round(spectrum.sum().item() - field.pow(2).sum().item(), 6))
torch.set_default_dtype(torch.float32)
print("default back", torch.fft.fftfreq(4).dtype, torch.fft.rfft(torch.ones(4)).dtype)
