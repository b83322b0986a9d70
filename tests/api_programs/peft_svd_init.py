"""LoRA initialisations from the weight: PiSSA's principal SVD split, OLoRA's QR, residual bases and their checks."""

import math
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
base = nn.Linear(12, 8)
W = base.weight.detach().clone()
r = 3

# PiSSA: principal singular components go to the adapter, the residual stays frozen
U, S, Vh = torch.linalg.svd(W, full_matrices=False)
print("S", S.round(decimals=4).tolist())
Ur, Sr, Vhr = U[:, :r], S[:r], Vh[:r]
lora_A = torch.diag(torch.sqrt(Sr)) @ Vhr
lora_B = Ur @ torch.diag(torch.sqrt(Sr))
residual = W - lora_B @ lora_A
print("shapes", tuple(lora_A.shape), tuple(lora_B.shape))
print("exact split", torch.allclose(residual + lora_B @ lora_A, W, atol=1e-6))
print("residual spectrum", torch.linalg.svdvals(residual)[:4].round(decimals=4).tolist())
print(
    "residual rank",
    torch.linalg.matrix_rank(residual, atol=1e-4).item(),
    "norm",
    round(torch.linalg.norm(residual).item(), 4),
)
print(
    "orthonormal", torch.allclose(U.T @ U, torch.eye(8), atol=1e-5), torch.allclose(Vh @ Vh.T, torch.eye(8), atol=1e-5)
)
sv = torch.linalg.svd(W)
print(type(sv).__name__, sv.U.shape, sv.S.shape, sv.Vh.shape)

# OLoRA: QR of the weight
Q, R = torch.linalg.qr(W)
print("qr", tuple(Q.shape), tuple(R.shape), torch.allclose(Q @ R, W, atol=1e-6), torch.allclose(R, torch.triu(R)))
Qr, Rr = Q[:, :r], R[:r]
print("olora delta rank", torch.linalg.matrix_rank(Qr @ Rr).item())
Qc, Rc = torch.linalg.qr(W, mode="complete")
print("complete", tuple(Qc.shape), tuple(Rc.shape))
Qt, Rt = torch.linalg.qr(W.T, mode="r")
print("mode r", Qt.numel(), tuple(Rt.shape))

# scale-corrected init: residual with the scaling folded in
scaling = 16 / r
A2, B2 = lora_A / math.sqrt(scaling), lora_B / math.sqrt(scaling)
print("scaled product", torch.allclose(B2 @ A2 * scaling, lora_B @ lora_A, atol=1e-6))


class Pissa(nn.Module):
    def __init__(self, base, A, B, scaling):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(A.clone())
        self.lora_B = nn.Parameter(B.clone())
        self.scaling = scaling

    def forward(self, x):
        return self.base(x) + F.linear(F.linear(x, self.lora_A), self.lora_B) * self.scaling


with torch.no_grad():
    base.weight.copy_(W - B2 @ A2 * scaling)
layer = Pissa(base.requires_grad_(False), A2, B2, scaling)
x = torch.randn(5, 12)
print("init equals original", torch.allclose(layer(x), F.linear(x, W, base.bias), atol=1e-5))
opt = torch.optim.SGD([layer.lora_A, layer.lora_B], lr=0.01)
y = torch.randn(5, 8)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(layer(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))

# converting a trained PiSSA adapter into a plain LoRA delta (rank doubles)
with torch.no_grad():
    dA = torch.cat([layer.lora_A, A2], dim=0)
    dB = torch.cat([layer.lora_B, -B2], dim=1)
    delta = dB @ dA * scaling
    expect = (layer.lora_B @ layer.lora_A - B2 @ A2) * scaling
print("converted", tuple(dA.shape), tuple(dB.shape), torch.allclose(delta, expect, atol=1e-6))

# low-rank approximations of the delta
print(
    "pinv",
    tuple(torch.linalg.pinv(lora_A).shape),
    torch.allclose(lora_A @ torch.linalg.pinv(lora_A), torch.eye(r), atol=1e-5),
)
print(
    "eigvalsh of gram",
    torch.linalg.eigvalsh(lora_A @ lora_A.T).round(decimals=4).tolist(),
    (Sr).round(decimals=4).tolist(),
)
print("svd grad check", torch.autograd.gradcheck(lambda m: torch.linalg.svdvals(m), (W.double().requires_grad_(),)))
try:
    torch.linalg.qr(W, mode="full")
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.linalg.svd(torch.randn(3))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.diag(torch.randn(2, 2, 2))
except RuntimeError as e:
    print(type(e).__name__, e)
