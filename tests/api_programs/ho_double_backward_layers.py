"""Double backward through layers as gradient-regularization research code does it: the input-gradient norm of a
small CNN (conv2d, batch_norm, layer_norm, pooling, linear) penalised with create_graph=True, through mse_loss and
cross_entropy, and second derivatives of the losses checked against their closed forms."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, stride=2)
        self.ln = nn.LayerNorm(4)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = F.softplus(self.bn(self.conv(x)))
        h = torch.tanh(self.conv2(h))
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return self.fc(self.ln(h))


net = Net().double()
x = torch.randn(4, 2, 6, 6, dtype=torch.float64, requires_grad=True)
y = torch.tensor([0, 2, 1, 2])

logits = net(x)
loss = F.cross_entropy(logits, y)
(gx,) = torch.autograd.grad(loss, x, create_graph=True)
print("loss:", round(loss.item(), 4), "gx shape:", tuple(gx.shape), "gx requires_grad:", gx.requires_grad)
print("input-grad norm per sample:", gx.flatten(1).norm(dim=1).detach())
penalty = gx.pow(2).sum()
total = loss + 10.0 * penalty
net.zero_grad()
total.backward()
for name, p in net.named_parameters():
    print(f"{name:12s} grad norm {p.grad.norm().item():.6f}")
print("x.grad norm:", round(x.grad.norm().item(), 6))
print("bn running_mean:", net.bn.running_mean)

# the same penalty in eval mode (batch norm from running stats)
net.eval()
x2 = x.detach().clone().requires_grad_()
out = net(x2)
(g2,) = torch.autograd.grad(F.mse_loss(out, torch.zeros_like(out)), x2, create_graph=True)
(gg,) = torch.autograd.grad(g2.abs().sum(), x2)
print("eval grad-of-grad norm:", round(gg.norm().item(), 6))
net.train()

# double backward of conv2d alone: grad w.r.t. weight of the input-gradient
w = torch.randn(3, 2, 3, 3, dtype=torch.float64, requires_grad=True)
inp = torch.randn(1, 2, 5, 5, dtype=torch.float64, requires_grad=True)
o = F.conv2d(inp, w, padding=1)
(gi,) = torch.autograd.grad(o.pow(2).sum(), inp, create_graph=True)
(gw,) = torch.autograd.grad(gi.sum(), w)
print("conv gi grad_fn:", type(gi.grad_fn).__name__, "gw:", gw.shape, round(gw.sum().item(), 4))
print("gw[0,0]:\n", gw[0, 0])

# mse_loss: d/dp of d/dp is 2/N everywhere
p = torch.randn(5, dtype=torch.float64, requires_grad=True)
t = torch.randn(5, dtype=torch.float64)
(gp,) = torch.autograd.grad(F.mse_loss(p, t), p, create_graph=True)
print("mse grad == 2(p-t)/N:", torch.allclose(gp, 2 * (p - t) / 5), type(gp.grad_fn).__name__)
hess_rows = [torch.autograd.grad(gp[i], p, retain_graph=True)[0] for i in range(5)]
print("mse hessian diag:", torch.stack(hess_rows).diagonal())
for red in ["sum", "none"]:
    (gs,) = torch.autograd.grad(F.mse_loss(p, t, reduction=red).sum(), p, create_graph=True)
    (hs,) = torch.autograd.grad(gs.sum(), p)
    print(f"mse {red}: second derivative {hs}")

# cross_entropy with label smoothing and weights: Hessian = diag(p) - pp^T per sample
z = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
tgt = torch.tensor([1, 0, 3])
for kw in [{}, {"label_smoothing": 0.1}, {"weight": torch.tensor([1.0, 2.0, 0.5, 1.0], dtype=torch.float64)},
           {"reduction": "sum"}]:
    ce = F.cross_entropy(z, tgt, **kw)
    (gz,) = torch.autograd.grad(ce, z, create_graph=True)
    (hz,) = torch.autograd.grad((gz * torch.arange(4.0, dtype=torch.float64)).sum(), z)
    print("ce", kw.keys() and list(kw)[0] if kw else "plain", "loss", round(ce.item(), 4),
          "hvp row0", [round(v, 4) for v in hz[0].tolist()])
pz = z.detach().softmax(1)
(gz,) = torch.autograd.grad(F.cross_entropy(z, tgt, reduction="sum"), z, create_graph=True)
H0 = torch.stack([torch.autograd.grad(gz[0, j], z, retain_graph=True)[0][0] for j in range(4)])
print("ce hessian (sample 0) == diag(p)-pp^T:", torch.allclose(H0, torch.diag(pz[0]) - torch.outer(pz[0], pz[0])))

# nll_loss over log_softmax, and binary_cross_entropy_with_logits
lp = F.log_softmax(z, dim=1)
(gl,) = torch.autograd.grad(F.nll_loss(lp, tgt), z, create_graph=True)
print("nll grad grad_fn:", type(gl.grad_fn).__name__)
(hl,) = torch.autograd.grad(gl.pow(2).sum(), z)
print("nll grad-norm grad:\n", hl)
b = torch.randn(4, dtype=torch.float64, requires_grad=True)
lbl = torch.tensor([1.0, 0.0, 1.0, 0.0], dtype=torch.float64)
(gb,) = torch.autograd.grad(F.binary_cross_entropy_with_logits(b, lbl, reduction="sum"), b, create_graph=True)
(hb,) = torch.autograd.grad(gb.sum(), b)
print("bce-logits d2 == s(1-s):", torch.allclose(hb, b.sigmoid() * (1 - b.sigmoid())))

# layer_norm and batch_norm functional double backward against gradgradcheck
ln_in = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
ln_w = torch.randn(5, dtype=torch.float64, requires_grad=True)
print("layer_norm gradgradcheck:",
      torch.autograd.gradgradcheck(lambda a, g: F.layer_norm(a, (5,), g), (ln_in, ln_w)))
bn_in = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
print("batch_norm gradgradcheck:",
      torch.autograd.gradgradcheck(lambda a: F.batch_norm(a, None, None, training=True), (bn_in,)))
print("conv2d gradgradcheck:", torch.autograd.gradgradcheck(
    lambda a, k: F.conv2d(a, k, stride=2), (torch.randn(1, 1, 5, 5, dtype=torch.float64, requires_grad=True),
                                           torch.randn(2, 1, 3, 3, dtype=torch.float64, requires_grad=True))))
