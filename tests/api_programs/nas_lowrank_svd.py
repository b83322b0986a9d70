"""Low-rank compression of a trained network: truncated SVD of Linear weights into two Linear layers with the rank
chosen by spectral energy, a Conv2d split into a k x k conv with r filters and a 1x1 conv, Tucker-style channel
factorisation through torch.linalg.svd on unfolded kernels, and the accuracy and parameter trade-off."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
torch.set_printoptions(precision=4)

# a weight with decaying spectrum so that truncation has something to find
U, _ = torch.linalg.qr(torch.randn(16, 16))
V, _ = torch.linalg.qr(torch.randn(12, 12))
S = torch.tensor([5.0, 3.0, 2.0, 1.0, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.001])
lin = nn.Linear(12, 16)
with torch.no_grad():
    lin.weight.copy_(U[:, :12] @ torch.diag(S) @ V.T)
u, s, vh = torch.linalg.svd(lin.weight.detach(), full_matrices=False)
print("shapes", tuple(u.shape), tuple(s.shape), tuple(vh.shape), s.dtype)
print("singular", s.round(decimals=4).tolist())
energy = torch.cumsum(s ** 2, 0) / (s ** 2).sum()
rank = int(torch.searchsorted(energy, torch.tensor(0.999)).item()) + 1
print("energy", energy.round(decimals=5).tolist()[:6], "rank@99.9%", rank)
print("matrix_rank", torch.linalg.matrix_rank(lin.weight.detach()).item(),
      torch.linalg.matrix_rank(lin.weight.detach(), atol=0.04).item(),
      torch.linalg.matrix_rank(lin.weight.detach(), rtol=0.05).item())


def factorize_linear(layer, r):
    u, s, vh = torch.linalg.svd(layer.weight.detach(), full_matrices=False)
    root = s[:r].sqrt()
    first = nn.Linear(layer.in_features, r, bias=False)
    second = nn.Linear(r, layer.out_features, bias=layer.bias is not None)
    with torch.no_grad():
        first.weight.copy_(root.unsqueeze(1) * vh[:r])
        second.weight.copy_(u[:, :r] * root)
        if layer.bias is not None:
            second.bias.copy_(layer.bias)
    return nn.Sequential(first, second)


x = torch.randn(5, 12)
for r in [1, 3, rank, 12]:
    f = factorize_linear(lin, r)
    err = (f(x) - lin(x)).norm() / lin(x).norm()
    n = sum(p.numel() for p in f.parameters())
    eckart = s[r:].pow(2).sum().sqrt() if r < 12 else torch.tensor(0.0)
    w_err = torch.linalg.matrix_norm(f[1].weight @ f[0].weight - lin.weight, "fro")
    print("r", r, "params", n, "vs", lin.weight.numel() + 16, "rel err", round(err.item(), 4),
          "eckart-young", bool(torch.isclose(w_err, eckart, atol=1e-4)))
print(factorize_linear(lin, 3))

# conv k x k -> (k x k, r filters) + 1 x 1 via SVD of the (out, in*k*k) unfolding
conv = nn.Conv2d(4, 8, 3, padding=1)
W = conv.weight.detach().reshape(8, -1)
u, s, vh = torch.linalg.svd(W, full_matrices=False)
r = 3
first = nn.Conv2d(4, r, 3, padding=1, bias=False)
second = nn.Conv2d(r, 8, 1)
with torch.no_grad():
    first.weight.copy_((torch.diag(s[:r]) @ vh[:r]).reshape(r, 4, 3, 3))
    second.weight.copy_(u[:, :r].reshape(8, r, 1, 1))
    second.bias.copy_(conv.bias)
img = torch.randn(2, 4, 6, 6)
approx = second(first(img))
print("conv split", tuple(approx.shape), round(((approx - conv(img)).norm() / conv(img).norm()).item(), 4),
      sum(p.numel() for p in (first.weight, second.weight, second.bias)), conv.weight.numel() + 8)
full = nn.Conv2d(4, 8, 3, padding=1, bias=True)
with torch.no_grad():
    full.weight.copy_((u[:, :8] @ torch.diag(s) @ vh).reshape(8, 4, 3, 3))
    full.bias.copy_(conv.bias)
print("full rank reconstruction", torch.allclose(full(img), conv(img), atol=1e-5))

# Tucker-2 on channels: mode-0 and mode-1 unfoldings
w4 = conv.weight.detach()
U0 = torch.linalg.svd(w4.reshape(8, -1), full_matrices=False).U[:, :4]
U1 = torch.linalg.svd(w4.permute(1, 0, 2, 3).reshape(4, -1), full_matrices=False).U[:, :2]
core = torch.einsum("oihw,or,is->rshw", w4, U0, U1)
recon = torch.einsum("rshw,or,is->oihw", core, U0, U1)
print("tucker core", tuple(core.shape), round(((recon - w4).norm() / w4.norm()).item(), 4))
print("orthonormal", torch.allclose(U0.T @ U0, torch.eye(4), atol=1e-5))
uh, sh, vhh = torch.linalg.svd(torch.randn(3, 5, 4), full_matrices=True)
print("batched full", tuple(uh.shape), tuple(sh.shape), tuple(vhh.shape))
print("svdvals", torch.allclose(torch.linalg.svdvals(W), s, atol=1e-5))
U2, S2, V2 = torch.svd(W)
print("legacy svd", tuple(U2.shape), tuple(V2.shape), torch.allclose(U2 @ torch.diag(S2) @ V2.T, W, atol=1e-5))

# fine-tune the factorised layer to recover
f = factorize_linear(lin, 2)
opt = torch.optim.SGD(f.parameters(), lr=0.05)
target = lin(x).detach()
for step in range(4):
    loss = F.mse_loss(f(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("ft", step, round(loss.item(), 5))
try:
    torch.linalg.svd(torch.randn(3, 4).int())
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.svd(torch.randn(4))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.svd(W, driver="gesvd")
except Exception as e:
    print(type(e).__name__, e)
