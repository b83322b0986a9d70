"""Per-sample gradients of a spiking network with torch.func: functional_call, vmap(grad) through a
surrogate Function."""

import torch
from torch.func import functional_call, grad, vmap, jacrev

nn = torch.nn
F = torch.nn.functional


class Spike(torch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(u, slope):
        return (u > 0).to(u.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        u, slope = inputs
        ctx.save_for_backward(u)
        ctx.slope = slope

    @staticmethod
    def backward(ctx, g):
        (u,) = ctx.saved_tensors
        return g / (1 + ctx.slope * u.abs()) ** 2, None


class SNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 5)
        self.fc2 = nn.Linear(5, 2)

    def forward(self, x_seq):  # x_seq: [T, 3] for one sample
        u1 = torch.zeros(5)
        u2 = torch.zeros(2)
        count = torch.zeros(2)
        for x in x_seq:
            u1 = 0.8 * u1 + self.fc1(x)
            s1 = Spike.apply(u1 - 0.5, 5.0)
            u1 = u1 - s1 * 0.5
            u2 = 0.8 * u2 + self.fc2(s1)
            s2 = Spike.apply(u2 - 0.5, 5.0)
            u2 = u2 - s2 * 0.5
            count = count + s2 + 0.1 * u2
        return count


torch.manual_seed(0)
model = SNN()
params = {k: v.detach() for k, v in model.named_parameters()}
xb = torch.rand(4, 6, 3) * 2
yb = torch.tensor([0, 1, 1, 0])


def loss_one(p, x, y):
    out = functional_call(model, p, (x,))
    return F.cross_entropy(out.unsqueeze(0), y.unsqueeze(0))


per_sample = vmap(grad(loss_one), in_dims=(None, 0, 0))(params, xb, yb)
print({k: tuple(v.shape) for k, v in per_sample.items()})
print("per-sample fc2.bias", per_sample["fc2.bias"].round(decimals=4).tolist())

# the batch gradient is the mean of the per-sample ones
model.zero_grad()
batch_loss = torch.stack([loss_one(dict(model.named_parameters()), xb[i], yb[i]) for i in range(4)]).mean()
batch_loss.backward()
print("batch loss", round(batch_loss.item(), 4))
for k, p in model.named_parameters():
    print(k, torch.allclose(per_sample[k].mean(0), p.grad, atol=1e-6))

# per-sample gradient norms, clipped (DP-SGD style)
norms = torch.stack([v.flatten(1).norm(dim=1) for v in per_sample.values()]).norm(dim=0)
print("norms", norms.round(decimals=4).tolist())
factor = (1.0 / norms).clamp(max=1.0)
clipped = {k: (v * factor.view(-1, *[1] * (v.dim() - 1))).mean(0) for k, v in per_sample.items()}
print("clipped fc1.bias", clipped["fc1.bias"].round(decimals=4).tolist())

# the Jacobian of the spike counts with respect to the input of one sample
jac = jacrev(lambda x: functional_call(model, params, (x,)))(xb[0])
print("jacobian", jac.shape, round(jac.abs().sum().item(), 4))


# value and grad together, with aux output
def loss_aux(p, x, y):
    out = functional_call(model, p, (x,))
    return F.cross_entropy(out.unsqueeze(0), y.unsqueeze(0)), out.argmax()


g, pred = grad(loss_aux, has_aux=True)(params, xb[1], yb[1])
print("aux pred", pred.item(), round(g["fc1.weight"].abs().sum().item(), 4))
try:
    grad(lambda p: functional_call(model, p, (xb[0],)))(params)
except Exception as e:
    print(type(e).__name__, e)
