"""simulation with convolutions and FFTs: Conway's Life and Gray-Scott reaction-diffusion on a torus (circular
padding), a spectral Poisson solver (rfftn/irfftn with fftfreq), a 3-D heat equation with replicate padding, the 1-D
wave equation by finite differences, and a learned Laplacian stencil fitted by gradient descent."""

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

torch.set_printoptions(precision=4, sci_mode=False)
rng = np.random.default_rng(29)


def r(x, k=8):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


board = torch.zeros(1, 1, 8, 8)
board[0, 0, 1, 2] = board[0, 0, 2, 3] = board[0, 0, 3, 1] = board[0, 0, 3, 2] = board[0, 0, 3, 3] = 1.0  # glider
kernel = torch.ones(1, 1, 3, 3)
kernel[0, 0, 1, 1] = 0.0
life = nn.Conv2d(1, 1, 3, padding=1, padding_mode="circular", bias=False)
with torch.no_grad():
    life.weight.copy_(kernel)
state = board
for gen in range(8):
    with torch.no_grad():
        nbrs = life(state)
    state = ((nbrs == 3) | ((state == 1) & (nbrs == 2))).float()
print("glider after 8", torch.nonzero(state[0, 0]).tolist(), int(state.sum()))
print("periodic shift", torch.equal(state, torch.roll(board, shifts=(2, 2), dims=(2, 3))))
print(life)

n = 32
U = torch.ones(1, 1, n, n, dtype=torch.float64)
V = torch.zeros(1, 1, n, n, dtype=torch.float64)
U[..., 12:20, 12:20] = 0.5
V[..., 12:20, 12:20] = 0.25
U = U + 0.01 * torch.from_numpy(rng.random((1, 1, n, n)))
lap = torch.tensor([[0.05, 0.2, 0.05], [0.2, -1.0, 0.2], [0.05, 0.2, 0.05]], dtype=torch.float64).view(1, 1, 3, 3)
Du, Dv, feed, kill = 0.16, 0.08, 0.035, 0.065
for step in range(200):
    Lu = F.conv2d(F.pad(U, (1, 1, 1, 1), mode="circular"), lap)
    Lv = F.conv2d(F.pad(V, (1, 1, 1, 1), mode="circular"), lap)
    uvv = U * V * V
    U = U + Du * Lu - uvv + feed * (1 - U)
    V = V + Dv * Lv + uvv - (feed + kill) * V
    if step % 50 == 49:
        print(f"gray-scott {step + 1} mean V {V.mean().item():.5f} max V {V.max().item():.5f}")
print("pattern rows", r(V[0, 0, 16, 10:18]))

# spectral Poisson: -lap(phi) = rho on the periodic unit square
m = 16
x = torch.arange(m, dtype=torch.float64) / m
X, Y = torch.meshgrid(x, x, indexing="ij")
phi_true = torch.sin(2 * math.pi * X) * torch.cos(4 * math.pi * Y)
rho = (4 * math.pi**2 + 16 * math.pi**2) * phi_true
kx = 2 * math.pi * torch.fft.fftfreq(m, d=1 / m)
ky = 2 * math.pi * torch.fft.rfftfreq(m, d=1 / m)
K2 = kx[:, None] ** 2 + ky[None, :] ** 2
K2[0, 0] = 1.0
rho_hat = torch.fft.rfftn(rho)
phi_hat = rho_hat / K2
phi_hat[0, 0] = 0
phi = torch.fft.irfftn(phi_hat, s=(m, m))
print("poisson error", round((phi - phi_true).abs().max().item(), 10), phi_hat.shape, phi_hat.dtype)
print("rfftn norm ortho", r(torch.fft.rfftn(rho, norm="ortho").abs()[1, :4]))
grad_x = torch.fft.irfftn(1j * kx[:, None] * torch.fft.rfftn(phi_true), s=(m, m))
print(
    "spectral derivative",
    round((grad_x - 2 * math.pi * torch.cos(2 * math.pi * X) * torch.cos(4 * math.pi * Y)).abs().max().item(), 8),
)
print("fftshift", torch.fft.fftshift(torch.fft.fftfreq(6)).tolist(), torch.fft.ifftshift(torch.arange(5)).tolist())

# 3-D heat equation with insulated (replicate) boundaries
T = torch.zeros(1, 1, 6, 6, 6)
T[..., 2:4, 2:4, 2:4] = 1.0
lap3 = torch.zeros(1, 1, 3, 3, 3)
lap3[0, 0, 1, 1, :] = lap3[0, 0, 1, :, 1] = lap3[0, 0, :, 1, 1] = 1.0
lap3[0, 0, 1, 1, 1] = -6.0
heat0 = T.sum().item()
for step in range(20):
    T = T + 0.1 * F.conv3d(F.pad(T, (1,) * 6, mode="replicate"), lap3)
print(
    "heat conserved",
    round(T.sum().item(), 4),
    heat0,
    "corner",
    round(T[0, 0, 0, 0, 0].item(), 5),
    "max",
    round(T.max().item(), 5),
)
print("reflect pad 3d", F.pad(torch.arange(8.0).view(1, 1, 2, 2, 2), (1, 1, 1, 1, 1, 1), mode="reflect").shape)
print("circular pad 3d", r(F.pad(torch.arange(8.0).view(1, 1, 2, 2, 2), (1, 0, 0, 1, 1, 0), mode="circular")[0, 0, 0]))
up3 = nn.ConvTranspose3d(1, 1, 2, stride=2, bias=False)
with torch.no_grad():
    up3.weight.fill_(1.0)
print("conv_transpose3d upsample", up3(T).shape, round(up3(T).sum().item(), 4), round(8 * T.sum().item(), 4))

# 1-D wave equation, leapfrog
N, c, dx, dt = 64, 1.0, 1.0 / 64, 0.5 / 64
xs = torch.arange(N, dtype=torch.float64) * dx
u_prev = torch.exp(-200 * (xs - 0.5) ** 2)
u = u_prev.clone()
stencil = torch.tensor([[[1.0, -2.0, 1.0]]], dtype=torch.float64)
energy0 = None
for step in range(60):
    lap1 = F.conv1d(F.pad(u.view(1, 1, -1), (1, 1), mode="circular"), stencil).view(-1) / dx**2
    u_next = 2 * u - u_prev + (c * dt) ** 2 * lap1
    u_prev, u = u, u_next
    if step % 20 == 19:
        print(f"wave {step + 1} left peak at {xs[u[: N // 2].argmax()].item():.4f} height {u.max().item():.4f}")

# learn a 3x3 stencil that reproduces the reaction-diffusion laplacian
fields = torch.from_numpy(rng.standard_normal((6, 1, 10, 10))).float()
target = F.conv2d(F.pad(fields, (1, 1, 1, 1), mode="circular"), lap.float())
learned = nn.Conv2d(1, 1, 3, padding=1, padding_mode="circular", bias=True)
with torch.no_grad():
    learned.weight.zero_()
    learned.bias.zero_()
opt = torch.optim.LBFGS(learned.parameters(), lr=1.0, max_iter=20, history_size=10, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = F.mse_loss(learned(fields), target)
    loss.backward()
    return loss


for it in range(2):
    loss = opt.step(closure)
    print(f"lbfgs {it} loss {loss.item():.6f}")
print("learned stencil", r(learned.weight, 9), round(learned.bias.item(), 5))
try:
    F.pad(torch.ones(1, 1, 2, 2), (3, 3, 0, 0), mode="circular")
except RuntimeError as e:
    print("RuntimeError", str(e))
try:
    F.pad(torch.ones(1, 1, 3, 3), (3, 3, 0, 0), mode="reflect")
except RuntimeError as e:
    print("RuntimeError", str(e))
