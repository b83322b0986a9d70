"""DP-SGD through PyTorch's Expanded Weights entry point: call_for_per_sample_grads fills each parameter's
grad_sample, which is clipped, noised from a seeded generator and written to .grad for a private federated client
update; the per-sample gradients are checked against torch.func and the mean-reduction scaling is printed."""

import torch
from torch.func import functional_call, grad, vmap
from torch.nn.utils._per_sample_grad import call_for_per_sample_grads

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)
model = nn.Sequential(nn.Conv1d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6, 8), nn.Tanh(), nn.Linear(8, 3))
X = torch.randn(10, 2, 8)
Y = torch.randint(0, 3, (10,))

out = call_for_per_sample_grads(model)(X)
loss = F.cross_entropy(out, Y, reduction="sum")
loss.backward()
print("loss", round(loss.item(), 4), out.shape)
print("grad_sample", [tuple(p.grad_sample.shape) for p in model.parameters()])
print("grad untouched", [p.grad is None for p in model.parameters()])

params = {k: v.detach() for k, v in model.named_parameters()}
ref = vmap(grad(lambda p, x, y: F.cross_entropy(functional_call(model, p, (x[None],)), y[None], reduction="sum")),
           in_dims=(None, 0, 0))(params, X, Y)
print("matches torch.func", all(torch.allclose(p.grad_sample, ref[k], atol=1e-5) for k, p in model.named_parameters()))

C, sigma = 1.0, 0.8
flat = torch.cat([p.grad_sample.flatten(1) for p in model.parameters()], dim=1)
norms = flat.norm(dim=1)
factor = (C / (norms + 1e-6)).clamp(max=1.0)
print("per-sample norms", norms.round(decimals=4).tolist())
gen = torch.Generator().manual_seed(17)
for p in model.parameters():
    clipped = torch.einsum("n,n...->...", factor, p.grad_sample)
    p.grad = (clipped + sigma * C * torch.randn(p.shape, generator=gen)) / len(X)
    p.grad_sample = None
opt = torch.optim.SGD(model.parameters(), lr=0.5)
opt.step()
with torch.no_grad():
    print("after private step", round(F.cross_entropy(model(X), Y).item(), 4))

# a local epoch of private steps in mini-batches, mean reduction
for i in range(0, 10, 5):
    xb, yb = X[i:i + 5], Y[i:i + 5]
    F.cross_entropy(call_for_per_sample_grads(model, batch_size=5, loss_reduction="mean")(xb), yb).backward()
    gs = [p.grad_sample for p in model.parameters()]
    print("batch", i // 5, "bias grad_sample sum", round(gs[-1].sum().item(), 4),
          "mean of samples", round(gs[-1].mean(0).abs().sum().item(), 4))
    opt.zero_grad()
    for p in model.parameters():
        n = p.grad_sample.flatten(1).norm(dim=1)
        p.grad = (p.grad_sample * (C / (n + 1e-6)).clamp(max=1.0).view(-1, *[1] * (p.dim()))).mean(0)
        del p.grad_sample
    opt.step()
print("epoch done", hasattr(model[0].weight, "grad_sample"), round(model[5].bias.sum().item(), 4))

frozen = nn.Linear(4, 2)
frozen.weight.requires_grad_(False)
call_for_per_sample_grads(frozen)(torch.randn(3, 4)).pow(2).sum().backward()
print("frozen", hasattr(frozen.weight, "grad_sample"), tuple(frozen.bias.grad_sample.shape))
try:
    call_for_per_sample_grads(frozen)
except Exception as e:
    print(type(e).__name__, str(e)[:66])
try:
    call_for_per_sample_grads(model, loss_reduction="none")
except Exception as e:
    print(type(e).__name__, e)
try:
    call_for_per_sample_grads(nn.Bilinear(2, 2, 1))(torch.ones(3, 2), torch.ones(4, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    call_for_per_sample_grads(model, batch_size=-2)
except Exception as e:
    print(type(e).__name__, e)
