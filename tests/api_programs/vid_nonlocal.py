"""Non-local neural networks (Wang et al.): embedded-Gaussian, dot-product and concatenation pairwise functions
over space-time with bmm/softmax, max-pool subsampling of phi/g, zero-initialised BatchNorm3d residual output."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class NonLocal3d(nn.Module):
    def __init__(self, c, mode="embedded_gaussian", sub_sample=True, inter=None):
        super().__init__()
        self.mode, self.inter = mode, inter or max(c // 2, 1)
        self.theta = nn.Conv3d(c, self.inter, 1)
        self.phi = nn.Conv3d(c, self.inter, 1)
        self.g = nn.Conv3d(c, self.inter, 1)
        if mode == "concatenation":
            self.concat_project = nn.Sequential(nn.Conv2d(2 * self.inter, 1, 1, bias=False), nn.ReLU())
        self.W = nn.Sequential(nn.Conv3d(self.inter, c, 1), nn.BatchNorm3d(c))
        nn.init.constant_(self.W[1].weight, 0)
        nn.init.constant_(self.W[1].bias, 0)
        self.sub = nn.MaxPool3d(kernel_size=(1, 2, 2)) if sub_sample else nn.Identity()

    def forward(self, x, return_attn=False):
        b, c, t, h, w = x.shape
        g_x = self.sub(self.g(x)).view(b, self.inter, -1).permute(0, 2, 1)
        theta_x = self.theta(x).view(b, self.inter, -1).permute(0, 2, 1)
        phi_x = self.sub(self.phi(x)).view(b, self.inter, -1)
        if self.mode == "embedded_gaussian":
            f = torch.bmm(theta_x, phi_x)
            attn = F.softmax(f, dim=-1)
        elif self.mode == "dot_product":
            f = torch.matmul(theta_x, phi_x)
            attn = f / f.size(-1)
        else:
            n, m = theta_x.size(1), phi_x.size(2)
            th = theta_x.permute(0, 2, 1).unsqueeze(3).expand(-1, -1, -1, m)
            ph = phi_x.unsqueeze(2).expand(-1, -1, n, -1)
            f = self.concat_project(torch.cat([th, ph], 1)).squeeze(1)
            attn = f / m
        y = torch.bmm(attn, g_x).permute(0, 2, 1).contiguous().view(b, self.inter, t, h, w)
        z = self.W(y) + x
        return (z, attn) if return_attn else z


x = torch.randn(2, 8, 4, 6, 6)
for mode in ["embedded_gaussian", "dot_product", "concatenation"]:
    torch.manual_seed(1)
    blk = NonLocal3d(8, mode)
    z, attn = blk(x, return_attn=True)
    print(mode, tuple(attn.shape), "identity at init", torch.allclose(z, x), round(attn.sum(-1).mean().item(), 4))
    with torch.no_grad():
        blk.W[1].weight.fill_(1.0)
    z = blk(x)
    print("  residual", round((z - x).abs().mean().item(), 4), type(z.grad_fn).__name__)

blk = NonLocal3d(8, sub_sample=False, inter=2)
print(blk)
xr = x.clone().requires_grad_()
z, attn = blk(xr, return_attn=True)
print("rows", tuple(attn.shape), round(attn.max().item(), 4), round(attn.min().item(), 6) >= 0)
(z.sum() + attn[:, 0].max()).backward()
print("grad x", round(xr.grad.abs().sum().item(), 4), "theta grad", round(blk.theta.weight.grad.abs().sum().item(), 4))

q = torch.arange(12.0).view(1, 3, 4) / 10
k = torch.arange(8.0).view(1, 4, 2) / 10
print("bmm", torch.bmm(q, k).round(decimals=4).tolist())
print("baddbmm", torch.baddbmm(torch.ones(1, 3, 2), q, k, beta=0.5, alpha=2).round(decimals=4).tolist())
print(
    "softmax dtype",
    F.softmax(q, -1, dtype=torch.float64).dtype,
    F.log_softmax(q, dim=1).round(decimals=4)[0, :, 0].tolist(),
)
scores = torch.tensor([[1.0, float("-inf"), 2.0], [float("-inf")] * 3])
print("masked softmax", F.softmax(scores, -1).tolist())

for bad in [
    lambda: torch.bmm(q, q),
    lambda: torch.bmm(q[0], k[0]),
    lambda: torch.bmm(q, k.double()),
    lambda: F.softmax(q, dim=3),
    lambda: blk(x[:, :4]),
]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
