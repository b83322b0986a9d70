"""OFT/BOFT: block-diagonal orthogonal fine-tuning through the Cayley transform, with its checks and merges."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class OFTLinear(nn.Module):
    def __init__(self, base: nn.Linear, block_size=4, coft=False, eps=6e-5):
        super().__init__()
        if base.out_features % block_size != 0:
            raise ValueError(f"out_features ({base.out_features}) must be divisible by block_size ({block_size})")
        self.base = base.requires_grad_(False)
        self.r = base.out_features // block_size
        self.block_size = block_size
        self.oft_r = nn.Parameter(torch.zeros(self.r, block_size, block_size))
        nn.init.kaiming_uniform_(self.oft_r, a=5**0.5)
        self.coft, self.eps = coft, eps

    def cayley_batch(self, data):
        b, r, c = data.shape
        skew = 0.5 * (data - data.transpose(1, 2))
        eye = torch.eye(r, device=data.device).unsqueeze(0).expand(b, r, c)
        return torch.linalg.solve(eye + skew, eye - skew, left=False)

    def project(self, R):
        I = torch.zeros_like(R)
        diff = R - I
        norm_diff = torch.norm(R - I)
        if norm_diff <= self.eps:
            return R
        return I + self.eps * (diff / norm_diff)

    def rotation(self):
        R = self.project(self.oft_r) if self.coft else self.oft_r
        Q = self.cayley_batch(R)
        return torch.block_diag(*Q)

    def forward(self, x):
        W = self.base.weight
        return F.linear(x, self.rotation() @ W, self.base.bias)


base = nn.Linear(6, 8)
layer = OFTLinear(base, block_size=4)
print(layer.oft_r.shape, layer.r)
R = layer.rotation()
print("rotation", tuple(R.shape), R.grad_fn.name())
print("orthogonal", torch.allclose(R @ R.T, torch.eye(8), atol=1e-5), "det", round(torch.linalg.det(R).item(), 4))
print("block zeros", R[:4, 4:].abs().max().item(), R[4:, :4].abs().max().item())
Q = layer.cayley_batch(layer.oft_r.detach())
print("cayley dets", torch.linalg.det(Q).round(decimals=4).tolist())
skew = 0.5 * (layer.oft_r - layer.oft_r.transpose(1, 2))
print("skew", torch.allclose(skew, -skew.mT))
eye = torch.eye(4).expand(2, 4, 4)
Q_inv = (eye - skew) @ torch.linalg.inv(eye + skew)
print("solve == inv form", torch.allclose(Q_inv, Q, atol=1e-5))
Q_left = torch.linalg.solve(eye + skew, eye - skew)
print("left solve also orthogonal", torch.allclose(Q_left @ Q_left.mT, eye, atol=1e-5))

x = torch.randn(5, 6)
y = torch.randn(5, 8)
opt = torch.optim.Adam([layer.oft_r], lr=0.05)
for step in range(4):
    opt.zero_grad()
    loss = F.mse_loss(layer(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4), round(layer.oft_r.grad.norm().item(), 4))
R = layer.rotation().detach()
print("still orthogonal", torch.allclose(R @ R.T, torch.eye(8), atol=1e-5))
print("row norms kept", torch.allclose((R @ base.weight).norm(dim=0), base.weight.norm(dim=0), atol=1e-5))

coft = OFTLinear(nn.Linear(6, 8), block_size=4, coft=True, eps=1e-3)
Rp = coft.project(coft.oft_r.detach())
print("coft norm", round(torch.norm(Rp).item(), 6))

# merge: W' = R W
with torch.no_grad():
    merged = nn.Linear(6, 8)
    merged.weight.copy_(R @ base.weight)
    merged.bias.copy_(base.bias)
    print("merged", torch.allclose(merged(x), layer(x), atol=1e-5))

print(torch.block_diag(torch.ones(1, 2), torch.tensor([[5.0]]), torch.zeros(0, 1)).tolist())
print(torch.block_diag(torch.tensor([1, 2]), torch.tensor(3.0)).dtype, torch.block_diag().shape)
try:
    OFTLinear(nn.Linear(4, 6), block_size=4)
except ValueError as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.zeros(2, 2), torch.ones(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.eye(3), torch.ones(2, 2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.block_diag(torch.ones(2, 2, 2))
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    torch.linalg.inv(torch.ones(2, 3))
except RuntimeError as e:
    print(type(e).__name__, e)
