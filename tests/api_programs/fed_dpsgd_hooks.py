"""Opacus-style per-sample gradients with module hooks: forward hooks capture activations, full backward hooks
capture output gradients, and einsum forms each Linear's per-example weight and bias gradient; then per-layer
and flat clipping, the noisy sum written into .grad, and an ordinary optimizer step."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 10), nn.ReLU(), nn.Linear(10, 3))
acts, grads_out = {}, {}


def fwd_hook(mod, inp, out):
    acts[mod] = inp[0].detach()


def bwd_hook(mod, grad_input, grad_output):
    grads_out[mod] = grad_output[0].detach()


handles = []
for m in model.modules():
    if isinstance(m, nn.Linear):
        handles.append(m.register_forward_hook(fwd_hook))
        handles.append(m.register_full_backward_hook(bwd_hook))
print("handles", len(handles), type(handles[0]).__name__)

X = torch.randn(16, 6)
Y = torch.randint(0, 3, (16,))
loss = F.cross_entropy(model(X), Y, reduction="sum")
loss.backward()
print("loss", round(loss.item(), 4))

per_sample = {}
for m in model.modules():
    if isinstance(m, nn.Linear):
        a, g = acts[m], grads_out[m]
        per_sample[m.weight] = torch.einsum("ni,nj->nij", g, a)
        per_sample[m.bias] = g
for p, g in per_sample.items():
    print("shape", tuple(g.shape), "sum matches .grad", torch.allclose(g.sum(0), p.grad, atol=1e-5))

# flat clipping
C = 0.8
flat = torch.cat([g.reshape(g.shape[0], -1) for g in per_sample.values()], dim=1)
norms = torch.linalg.vector_norm(flat, ord=2, dim=1)
scale = torch.clamp(C / (norms + 1e-6), max=1.0)
print("norms", norms[:5].round(decimals=4).tolist(), "frac clipped", round((norms > C).float().mean().item(), 4))

# per-layer clipping, a budget split evenly across the 4 tensors
per_layer_C = C / len(per_sample) ** 0.5
layer_scales = []
for g in per_sample.values():
    n = g.reshape(g.shape[0], -1).norm(dim=1)
    layer_scales.append((per_layer_C / (n + 1e-6)).clamp(max=1.0))
print("layer scale means", [round(s.mean().item(), 4) for s in layer_scales])

gen = torch.Generator().manual_seed(7)
sigma = 1.0
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for p, g in per_sample.items():
    clipped_sum = torch.einsum("n,n...->...", scale, g)
    noise = torch.randn(clipped_sum.shape, generator=gen) * sigma * C
    p.grad = (clipped_sum + noise) / X.shape[0]
print("grad norms", [round(p.grad.norm().item(), 4) for p in model.parameters()])
opt.step()
print("bias after", model[2].bias.detach().round(decimals=4).tolist())

for h in handles:
    h.remove()
acts.clear()
model(X)
print("hooks removed", len(acts), len(model[0]._forward_hooks), len(model[0]._backward_hooks))

# clip_grad_norm_ is the non-private baseline: total-norm clipping of the batch gradient
model.zero_grad()
F.cross_entropy(model(X), Y).backward()
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
print(
    "total norm", round(total.item(), 4), round(nn.utils.get_total_norm([p.grad for p in model.parameters()]).item(), 4)
)
v = nn.utils.clip_grad_value_(model.parameters(), 0.05)
print("clip value", v, round(max(p.grad.abs().max().item() for p in model.parameters()), 4))

try:
    model[0].register_full_backward_hook(lambda m, gi, go: (torch.zeros(3),))
    F.cross_entropy(model(X), Y).backward()
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.einsum("ni,nj->nij", torch.zeros(4, 3), torch.zeros(5, 2))
except Exception as e:
    print(type(e).__name__, e)
