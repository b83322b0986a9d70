"""torch.nn.utils.parametrizations in a training loop: weight_norm's g/v split on Linear and Conv1d (dim choices),
spectral_norm's power iteration in train and eval mode (u/v buffers, n_power_iterations), orthogonal with each
orthogonal_map, the keys they put in state dicts, and a resumed model that reproduces the weights."""

import io

import torch
from torch import nn
from torch.nn.utils import parametrizations as P
from torch.nn.utils import parametrize

torch.manual_seed(3)
torch.set_printoptions(precision=4)

# weight_norm: weight = g * v / ||v|| (norm over every dim but `dim`)
lin = P.weight_norm(nn.Linear(4, 3))
pw = lin.parametrizations.weight
print(lin)
print(sorted(lin.state_dict().keys()))
print("g", pw.original0.shape, "v", pw.original1.shape)
print("g equals row norms", torch.allclose(pw.original0.squeeze(1), lin.weight.norm(dim=1)))
conv = P.weight_norm(nn.Conv1d(2, 3, 3), dim=None)
g0 = conv.parametrizations.weight.original0
print("dim=None g", g0.shape, round(g0.item(), 4))
conv2 = P.weight_norm(nn.Conv1d(2, 3, 3), name="weight", dim=1)
print("dim=1 g", tuple(conv2.parametrizations.weight.original0.shape))

x = torch.randn(8, 4)
y = torch.randn(8, 3)
opt = torch.optim.Adam(lin.parameters(), lr=0.05)
for step in range(5):
    opt.zero_grad()
    loss = nn.functional.mse_loss(lin(x), y)
    loss.backward()
    gn = pw.original0.grad.norm().item()
    opt.step()
    print("wn step", step, round(loss.item(), 4), round(gn, 4))
print("g after", pw.original0.squeeze(1))
print("row norms", lin.weight.norm(dim=1))

# spectral_norm: sigma estimated by power iteration on each training forward
torch.manual_seed(4)
sn = P.spectral_norm(nn.Linear(5, 4), n_power_iterations=3)
ps = sn.parametrizations.weight[0]
print(type(ps).__name__, ps.n_power_iterations, ps.dim, ps.eps)
print(sorted(sn.state_dict().keys()))
print("u", ps._u)
print("v", ps._v)
W = sn.parametrizations.weight.original
true_sigma = torch.linalg.matrix_norm(W, ord=2).item()
for i in range(4):
    sn(torch.randn(2, 5))
    est = torch.linalg.matrix_norm(sn.weight, ord=2).item()
    print("train forward", i, round(est, 4))
print("true sigma", round(true_sigma, 4))
u_before = ps._u.clone()
sn.eval()
w1 = sn.weight
w2 = sn.weight
print("eval keeps u", torch.equal(u_before, ps._u), torch.equal(w1, w2))
sn.train()

# spectral_norm on a conv (dim 0 reshaped) and a ConvTranspose (dim 1 by default)
cnv = P.spectral_norm(nn.Conv2d(2, 4, 3))
ct = P.spectral_norm(nn.ConvTranspose2d(3, 2, 3))
print("conv u/v", tuple(cnv.parametrizations.weight[0]._u.shape), tuple(cnv.parametrizations.weight[0]._v.shape))
print("convT dim", ct.parametrizations.weight[0].dim, tuple(ct.parametrizations.weight[0]._u.shape))

# orthogonal: every map keeps Q^T Q = I
for omap in ["matrix_exp", "cayley", "householder"]:
    torch.manual_seed(5)
    m = P.orthogonal(nn.Linear(4, 4, bias=False), orthogonal_map=omap)
    Q = m.weight
    err = (Q.T @ Q - torch.eye(4)).abs().max().item()
    po = m.parametrizations.weight[0]
    print(omap, type(po).__name__, po.orthogonal_map, round(err, 5) < 1e-5, sorted(m.state_dict().keys()))
    o = torch.optim.SGD(m.parameters(), lr=0.1)
    tgt = torch.tensor([[0.0, 0.0, 1.0, 0.0]])
    e1 = torch.tensor([[1.0, 0.0, 0.0, 0.0]])
    for _ in range(20):
        o.zero_grad()
        lo = ((m(e1) - tgt) ** 2).sum()
        lo.backward()
        o.step()
    Q = m.weight
    print("  loss", round(lo.item(), 3), "orth", round((Q.T @ Q - torch.eye(4)).abs().max().item(), 4) < 1e-4)

# a tall orthogonal matrix, without trivialization
tall = P.orthogonal(nn.Linear(3, 5, bias=False), use_trivialization=False)
Qt = tall.weight
print("tall", tuple(Qt.shape), round((Qt.T @ Qt - torch.eye(3)).abs().max().item(), 4) < 1e-5)

# save and resume: the same weights come back
buf = io.BytesIO()
torch.save({"wn": lin.state_dict(), "sn": sn.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
lin2 = P.weight_norm(nn.Linear(4, 3))
sn2 = P.spectral_norm(nn.Linear(5, 4), n_power_iterations=3)
print(lin2.load_state_dict(ck["wn"]), sn2.load_state_dict(ck["sn"]))
sn.eval()
sn2.eval()
print("resumed equal", torch.equal(lin2.weight, lin.weight), torch.allclose(sn2.weight, sn.weight))

# bake the weights in
parametrize.remove_parametrizations(lin2, "weight")
print(type(lin2).__name__, sorted(lin2.state_dict().keys()), torch.equal(lin2.weight, lin.weight))
print(lin2.weight)
