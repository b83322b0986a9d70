"""A leaky integrate-and-fire network with a fast-sigmoid surrogate gradient, trained by BPTT."""
import torch

nn = torch.nn
F = torch.nn.functional


class SpikeFn(torch.autograd.Function):
    """Heaviside forward, fast-sigmoid derivative backward (SuperSpike)."""

    @staticmethod
    def forward(ctx, mem, slope):
        ctx.save_for_backward(mem)
        ctx.slope = slope
        return (mem > 0).to(mem.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        (mem,) = ctx.saved_tensors
        grad = grad_out / (ctx.slope * mem.abs() + 1.0) ** 2
        return grad, None


spike = SpikeFn.apply


class LIF(nn.Module):
    def __init__(self, beta=0.9, threshold=1.0, slope=25.0, reset="subtract"):
        super().__init__()
        self.beta = beta
        self.threshold = threshold
        self.slope = slope
        self.reset = reset

    def forward(self, x, mem):
        mem = self.beta * mem + x
        spk = spike(mem - self.threshold, self.slope)
        if self.reset == "subtract":
            mem = mem - spk * self.threshold
        else:
            mem = mem * (1.0 - spk)
        return spk, mem

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}, reset={self.reset}"


class SNN(nn.Module):
    def __init__(self, n_in=8, n_hid=16, n_out=3, reset="subtract"):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hid)
        self.lif1 = LIF(reset=reset)
        self.fc2 = nn.Linear(n_hid, n_out)
        self.lif2 = LIF(beta=0.8, reset=reset)

    def forward(self, x):
        T, B, _ = x.shape
        mem1 = torch.zeros(B, self.fc1.out_features)
        mem2 = torch.zeros(B, self.fc2.out_features)
        spk_rec, mem_rec = [], []
        for t in range(T):
            s1, mem1 = self.lif1(self.fc1(x[t]), mem1)
            s2, mem2 = self.lif2(self.fc2(s1), mem2)
            spk_rec.append(s2)
            mem_rec.append(mem2)
        return torch.stack(spk_rec), torch.stack(mem_rec)


torch.manual_seed(0)
T, B = 12, 6
x = (torch.rand(T, B, 8) < 0.3).float() * 2.0
y = torch.tensor([0, 1, 2, 0, 1, 2])

for reset in ("subtract", "zero"):
    torch.manual_seed(1)
    net = SNN(reset=reset)
    print(net)
    opt = torch.optim.Adam(net.parameters(), lr=5e-3)
    for step in range(6):
        spk, mem = net(x)
        counts = spk.sum(0)
        loss = F.cross_entropy(counts, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(reset, step, round(loss.item(), 4), counts.sum().item(),
              round(net.fc1.weight.grad.abs().sum().item(), 4))
    print("spk", spk.shape, spk.dtype, spk.grad_fn.__class__.__name__)
    print("mem grad_fn", mem.grad_fn.__class__.__name__)
    print("counts", counts.tolist())
    acc = (counts.argmax(1) == y).float().mean()
    print("acc", round(acc.item(), 4))

s = spike(torch.tensor([-0.5, 0.0, 0.2], requires_grad=True), 10.0)
print(s, s.grad_fn.__class__.__name__, s.grad_fn.name())
print(SpikeFn.apply.__name__ if hasattr(SpikeFn.apply, "__name__") else "apply")
try:
    SpikeFn.apply(torch.ones(2, requires_grad=True))
except Exception as e:
    print(type(e).__name__, e)
try:
    SpikeFn()(torch.ones(2), 1.0)
except Exception as e:
    print(type(e).__name__, e)
