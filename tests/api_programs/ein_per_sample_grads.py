"""Second-order and per-example quantities written with einsum, as optimization research code does: per-sample
gradients of linear layers (Goodfellow's trick) checked against a loop and torch.func, K-FAC factors, the
empirical Fisher, an empirical NTK, and Gauss-Newton products, with batched bilinear forms."""

import torch
import torch.nn.functional as F
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
torch.set_printoptions(precision=4)

N, Din, Dh, C = 6, 4, 5, 3
net = torch.nn.Sequential(torch.nn.Linear(Din, Dh), torch.nn.Tanh(), torch.nn.Linear(Dh, C))
x = torch.randn(N, Din)
y = torch.randint(0, C, (N,))
print("targets", y.tolist())

# forward with stored activations and backward with stored output grads (as hooks would capture them)
acts, gouts = {}, {}


def save_in(mod, inp, out):
    acts[mod] = inp[0].detach()


def save_gout(mod, gin, gout):
    gouts[mod] = gout[0].detach()


layers = [net[0], net[2]]
hs = [m.register_forward_hook(save_in) for m in layers] + [m.register_full_backward_hook(save_gout) for m in layers]
logits = net(x)
loss = F.cross_entropy(logits, y, reduction="sum")
loss.backward()
print("loss", round(loss.item(), 4))
for h in hs:
    h.remove()

# per-sample weight gradients: g_n a_n^T
ps = {m: torch.einsum("ni,nj->nij", gouts[m], acts[m]) for m in layers}
for k, m in enumerate(layers):
    print(f"layer {k} per-sample grads", tuple(ps[m].shape), "sum == .grad:",
          torch.allclose(ps[m].sum(0), m.weight.grad, atol=1e-5))
    print(f"layer {k} per-sample bias grads == gout:", torch.allclose(gouts[m].sum(0), m.bias.grad, atol=1e-5))
# per-sample gradient norms without materializing them: |g|^2 |a|^2 for a linear layer
norms_fast = torch.einsum("ni,ni->n", gouts[net[2]], gouts[net[2]]) * torch.einsum("nj,nj->n", acts[net[2]],
                                                                                      acts[net[2]])
norms_full = ps[net[2]].flatten(1).pow(2).sum(1)
print("per-sample squared norms", norms_full)
print("norm trick matches:", torch.allclose(norms_fast, norms_full, atol=1e-5))

# the same with torch.func
params = {k: v.detach() for k, v in net.named_parameters()}


def loss_one(p, xi, yi):
    out = functional_call(net, p, (xi.unsqueeze(0),))
    return F.cross_entropy(out, yi.unsqueeze(0))


g_func = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, x, y)
print("vmap(grad) shapes", {k: tuple(v.shape) for k, v in g_func.items()})
print("einsum == torch.func:", torch.allclose(g_func["2.weight"], ps[net[2]], atol=1e-5),
      torch.allclose(g_func["0.weight"], ps[net[0]], atol=1e-5))
# and a Python loop
loop = []
for i in range(N):
    net.zero_grad()
    F.cross_entropy(net(x[i:i + 1]), y[i:i + 1]).backward()
    loop.append(net[2].weight.grad.clone())
print("einsum == loop:", torch.allclose(torch.stack(loop), ps[net[2]], atol=1e-5))

# DP-SGD style clipping with per-sample norms, then averaging
flat = torch.cat([ps[m].flatten(1) for m in layers] + [gouts[m] for m in layers], 1)
norms = flat.norm(dim=1)
clip = 1.0
factors = (clip / (norms + 1e-6)).clamp(max=1.0)
clipped_w2 = torch.einsum("n,nij->ij", factors, ps[net[2]]) / N
print("per-sample norms", norms)
print("clip factors", factors)
print("clipped mean grad (layer 2) norm", round(clipped_w2.norm().item(), 4))

# K-FAC factors: A = E[a a^T] (with a bias column), G = E[g g^T]
a2 = torch.cat([acts[net[2]], torch.ones(N, 1)], 1)
A = torch.einsum("ni,nj->ij", a2, a2) / N
G = torch.einsum("ni,nj->ij", gouts[net[2]], gouts[net[2]]) / N
print("A", tuple(A.shape), "symmetric:", torch.allclose(A, A.T), "G", tuple(G.shape))
print("A eigenvalues", torch.linalg.eigvalsh(A))
damp = 0.1
Wg = torch.cat([net[2].weight.grad, net[2].bias.grad.unsqueeze(1)], 1)
precond = torch.linalg.solve(G + damp * torch.eye(C), Wg) @ torch.linalg.inv(A + damp * torch.eye(Dh + 1))
print("preconditioned step", tuple(precond.shape), "norm", round(precond.norm().item(), 4))
# the Kronecker identity behind it: (A kron G) vec(V) == vec(G V A)
V = torch.randn(C, Dh + 1)
vecV = V.T.reshape(-1)
lhs = torch.kron(A, G) @ vecV
rhs = (G @ V @ A).T.reshape(-1)
print("kron identity:", torch.allclose(lhs, rhs, atol=1e-4))

# empirical Fisher of the last layer's weight and its trace
pw = ps[net[2]].flatten(1)
fisher = torch.einsum("ni,nj->ij", pw, pw) / N
print("fisher", tuple(fisher.shape), "trace", round(torch.trace(fisher).item(), 4),
      "== mean squared norm:", torch.allclose(torch.trace(fisher), norms_full.mean(), atol=1e-5))

# empirical NTK of the logits: J J^T with J from torch.func.jacrev
from torch.func import jacrev  # noqa: E402


def logits_fn(p, xi):
    return functional_call(net, p, (xi.unsqueeze(0),)).squeeze(0)


J = vmap(jacrev(logits_fn), in_dims=(None, 0))(params, x)
ntk = sum(torch.einsum("nc...,md...->nmcd", J[k], J[k]) for k in J)
print("NTK", tuple(ntk.shape))
ntk_trace = torch.einsum("nncc->n", ntk)
print("NTK diagonal traces", ntk_trace)
ntk_mat = ntk.permute(0, 2, 1, 3).reshape(N * C, N * C)
print("NTK symmetric PSD:", torch.allclose(ntk_mat, ntk_mat.T, atol=1e-5),
      bool(torch.linalg.eigvalsh(ntk_mat).min() > -1e-4))

# Gauss-Newton vector product: J^T H J v with the softmax Hessian, per sample by einsum
p_soft = logits.detach().softmax(-1)
H = torch.diag_embed(p_soft) - torch.einsum("nc,nd->ncd", p_soft, p_soft)
print("softmax Hessians", tuple(H.shape), "rows sum to 0:", torch.allclose(H.sum(-1), torch.zeros(N, C), atol=1e-6))
v = {k: torch.randn_like(t) for k, t in params.items()}
Jv = sum(torch.einsum("nc...,...->nc", J[k], v[k]) for k in J)
HJv = torch.einsum("ncd,nd->nc", H, Jv)
GNv = {k: torch.einsum("nc...,nc->...", J[k], HJv) for k in J}
vGv = sum((GNv[k] * v[k]).sum() for k in J)
print("v^T GN v", round(vGv.item(), 4), ">= 0:", bool(vGv >= -1e-6))
quad = torch.einsum("nc,ncd,nd->", Jv, H, Jv)
print("as a batched bilinear form:", torch.allclose(vGv, quad, atol=1e-5))
