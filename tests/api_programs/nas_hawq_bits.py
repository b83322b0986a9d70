"""Mixed-precision bit allocation (HAWQ-style): per-layer Hessian traces by Hutchinson's estimator with Rademacher
vectors and double backward, quantization perturbations per candidate bit width through symmetric fake
quantization, a sensitivity-weighted greedy allocation under a size budget, and the quantized model's loss."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(10, 24), nn.Tanh(), nn.Linear(24, 16), nn.Tanh(), nn.Linear(16, 3))
X, Y = torch.randn(64, 10), torch.randint(0, 3, (64,))
opt = torch.optim.Adam(net.parameters(), lr=0.02)
for _ in range(30):
    opt.zero_grad()
    F.cross_entropy(net(X), Y).backward()
    opt.step()
base_loss = F.cross_entropy(net(X), Y).item()
print("trained loss", round(base_loss, 4))
layers = [m for m in net if isinstance(m, nn.Linear)]


def hutchinson(samples=16, seed=0):
    gen = torch.Generator().manual_seed(seed)
    ws = [m.weight for m in layers]
    loss = F.cross_entropy(net(X), Y)
    grads = torch.autograd.grad(loss, ws, create_graph=True)
    traces = torch.zeros(len(ws), dtype=torch.float64)
    for _ in range(samples):
        vs = [torch.randint(0, 2, w.shape, generator=gen).float().mul_(2).sub_(1) for w in ws]
        hv = torch.autograd.grad(grads, ws, grad_outputs=vs, retain_graph=True)
        traces += torch.tensor([(h * v).sum().item() for h, v in zip(hv, vs)], dtype=torch.float64)
    return traces / samples


def exact_trace(i):
    w = layers[i].weight
    g = torch.autograd.grad(F.cross_entropy(net(X), Y), w, create_graph=True)[0].flatten()
    rows = [torch.autograd.grad(g[j], w, retain_graph=True)[0].flatten()[j] for j in range(g.numel())]
    return torch.stack(rows).sum().item()


tr = hutchinson()
print("hutchinson traces", tr.round(decimals=3).tolist(), tr.dtype)
print("exact last layer", round(exact_trace(2), 3), "relative gap", round(abs(tr[2].item() - exact_trace(2)) /
                                                                             abs(exact_trace(2)), 2) < 0.5)
avg_tr = tr / torch.tensor([m.weight.numel() for m in layers], dtype=torch.float64)
print("normalised", avg_tr.round(decimals=5).tolist())


def quant_sym(w, bits):
    qmax = 2 ** (bits - 1) - 1
    scale = w.detach().abs().amax(dim=1).clamp(min=1e-8) / qmax
    return torch.fake_quantize_per_channel_affine(w, scale, torch.zeros(w.shape[0], dtype=torch.int32), 0,
                                                  -qmax - 1, qmax)


sens = {}
for i, m in enumerate(layers):
    for b in (2, 4, 8):
        dw = (quant_sym(m.weight.detach(), b) - m.weight.detach()).pow(2).sum().item()
        sens[(i, b)] = avg_tr[i].item() * dw
print("sensitivity", {f"{i}:{b}": f"{v:.3e}" for (i, b), v in sens.items()})

sizes = torch.tensor([m.weight.numel() for m in layers])
budget = int(sizes.sum().item() * 3)
bits = [8, 8, 8]
while sum(int(s) * b for s, b in zip(sizes, bits)) > budget:
    options = []
    for i, b in enumerate(bits):
        if b > 2:
            nb = b // 2
            options.append((sens[(i, nb)] - sens[(i, b)], i, nb))
    cost, i, nb = min(options)
    bits[i] = nb
    print("lower layer", i, "to", nb, "bits, cost", f"{cost:.3e}")
print("allocation", bits, "size bits", sum(int(s) * b for s, b in zip(sizes, bits)), "budget", budget)
with torch.no_grad():
    originals = [m.weight.clone() for m in layers]
    for m, b in zip(layers, bits):
        m.weight.copy_(quant_sym(m.weight, b))
    mixed = F.cross_entropy(net(X), Y).item()
    for m, w0 in zip(layers, originals):
        m.weight.copy_(quant_sym(w0, 4))
    uniform = F.cross_entropy(net(X), Y).item()
    for m, w0 in zip(layers, originals):
        m.weight.copy_(w0)
print("mixed", round(mixed, 4), "uniform4", round(uniform, 4), "fp32", round(base_loss, 4))
print("distinct levels", [len(torch.unique(quant_sym(w0, b)[0])) <= 2 ** b for w0, b in zip(originals, bits)])
try:
    torch.autograd.grad(F.cross_entropy(net(X), Y), layers[0].weight, create_graph=True)[0].sum().backward(
        inputs=[torch.ones(2)])
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.autograd.grad([torch.ones(2, requires_grad=True) * 2], [layers[0].weight], grad_outputs=[torch.ones(3)])
except Exception as e:
    print(type(e).__name__, e)
