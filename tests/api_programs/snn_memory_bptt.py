"""Saving memory in long BPTT runs of a spiking layer: saved-tensor hooks, save_on_cpu, checkpointed time chunks."""
import torch
from torch.utils.checkpoint import checkpoint

nn = torch.nn
F = torch.nn.functional


class Spike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u):
        ctx.save_for_backward(u)
        return (u > 0).to(u.dtype)

    @staticmethod
    def backward(ctx, g):
        (u,) = ctx.saved_tensors
        return g / (1 + 5 * u.abs()) ** 2


class Layer(nn.Module):
    def __init__(self, n_in, n_out, beta=0.85):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.beta = beta

    def step(self, x, u):
        u = self.beta * u + self.fc(x)
        s = Spike.apply(u - 1.0)
        return s, u - s

    def chunk(self, xs, u):
        outs = []
        for x in xs:
            s, u = self.step(x, u)
            outs.append(s)
        return torch.stack(outs), u


torch.manual_seed(0)
layer = Layer(5, 4)
xs = torch.rand(16, 3, 5) * 1.5


def run(mode):
    layer.zero_grad()
    u = torch.zeros(3, 4)
    if mode == "plain":
        spikes, u = layer.chunk(xs, u)
    elif mode.startswith("ckpt"):
        reentrant = mode == "ckpt-reentrant"
        parts = []
        for c in range(0, 16, 4):
            s, u = checkpoint(layer.chunk, xs[c:c + 4], u, use_reentrant=reentrant)
            parts.append(s)
        spikes = torch.cat(parts)
    loss = ((spikes.sum(0) - 3.0) ** 2).mean() + 0.1 * u.pow(2).mean()
    loss.backward()
    return loss.item(), spikes.sum().item(), layer.fc.weight.grad.clone()


ref = run("plain")
print("plain", round(ref[0], 4), ref[1], ref[2].abs().sum().round(decimals=4).item())
# the reentrant variant needs an input that requires grad: the first chunk's inputs have none
try:
    run("ckpt-reentrant")
except Exception as e:
    print(type(e).__name__, e)
got = run("ckpt")
print("ckpt", round(got[0], 4), got[1], torch.allclose(got[2], ref[2], atol=1e-6))

# counting and transforming what autograd saves
packed = []


def pack(t):
    packed.append((tuple(t.shape), t.dtype))
    return t.to(torch.float16)


def unpack(t):
    return t.to(torch.float32)


layer.zero_grad()
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    s, u = layer.step(xs[0], torch.zeros(3, 4))
print("packed", len(packed), sorted(set(packed), key=str))
(s.sum() + u.sum()).backward()
print("half-saved grad", layer.fc.weight.grad.abs().sum().round(decimals=2).item())

layer.zero_grad()
with torch.autograd.graph.save_on_cpu():
    spikes, u = layer.chunk(xs, torch.zeros(3, 4))
spikes.sum().backward()
print("save_on_cpu grad", layer.fc.weight.grad.abs().sum().round(decimals=4).item())

# hooks that refuse to be nested under disable_saved_tensors_hooks
with torch.autograd.graph.disable_saved_tensors_hooks("SNN hooks disabled for this block"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            pass
    except Exception as e:
        print(type(e).__name__, e)
    s, u = layer.step(xs[1], torch.zeros(3, 4))
    print("plain step ok", s.shape)

# a pack hook that returns an object other than a tensor
store = {}


def pack_id(t):
    key = len(store)
    store[key] = t.detach().clone()
    return key


def unpack_id(key):
    return store[key]


layer.zero_grad()
with torch.autograd.graph.saved_tensors_hooks(pack_id, unpack_id):
    s, u = layer.step(xs[2], torch.zeros(3, 4))
print("stored", len(store), [tuple(v.shape) for v in store.values()])
(s * torch.arange(4.0)).sum().backward()
print("keyed grad", layer.fc.bias.grad.round(decimals=4).tolist())

# the saved tensors of the Function node and their unpacking
s = Spike.apply(torch.tensor([0.5, -0.5], requires_grad=True))
print(type(s.grad_fn).__name__, [t.tolist() for t in s.grad_fn.saved_tensors])
s.sum().backward()
try:
    s.grad_fn.saved_tensors
except Exception as e:
    print(type(e).__name__, str(e)[:90])
