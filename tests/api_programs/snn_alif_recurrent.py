"""A recurrent adaptive-LIF network (LSNN-style) with learnable per-neuron time constants and threshold adaptation."""
import torch

nn = torch.nn
F = torch.nn.functional


class PseudoDerivative(torch.autograd.Function):
    """Bellec et al.'s piecewise-linear pseudo-derivative, dampened by gamma."""

    @staticmethod
    def forward(v_scaled, gamma):
        return (v_scaled > 0).float()

    @staticmethod
    def setup_context(ctx, inputs, output):
        v_scaled, gamma = inputs
        ctx.save_for_backward(v_scaled)
        ctx.gamma = gamma

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        return g * ctx.gamma * torch.clamp(1 - v.abs(), min=0), None


class ALIFCell(nn.Module):
    def __init__(self, n_in, n_rec, tau_m=20.0, tau_a=200.0, beta_a=1.8, thr=0.5):
        super().__init__()
        self.w_in = nn.Parameter(torch.randn(n_in, n_rec) / n_in ** 0.5)
        self.w_rec = nn.Parameter(torch.randn(n_rec, n_rec) / n_rec ** 0.5)
        self.log_tau_m = nn.Parameter(torch.full((n_rec,), float(tau_m)).log())
        self.register_buffer("rho", torch.exp(torch.tensor(-1.0 / tau_a)))
        self.beta_a, self.thr = beta_a, thr
        self.register_buffer("no_self", 1 - torch.eye(n_rec))

    def forward(self, x, state):
        v, a, z = state
        alpha = torch.exp(-1.0 / self.log_tau_m.exp())
        a = self.rho * a + (1 - self.rho) * z
        thr = self.thr + self.beta_a * a
        w_rec = self.w_rec * self.no_self
        v = alpha * v + x @ self.w_in + z @ w_rec - z * thr
        z = PseudoDerivative.apply((v - thr) / thr, 0.3)
        return z, (v, a, z)

    def init_state(self, batch):
        n = self.w_rec.shape[0]
        return tuple(torch.zeros(batch, n) for _ in range(3))


torch.manual_seed(0)
cell = ALIFCell(3, 6)
readout = nn.Linear(6, 2)
x = (torch.rand(30, 4, 3) < 0.2).float()
target = torch.tensor([0, 1, 1, 0])
params = list(cell.parameters()) + list(readout.parameters())
opt = torch.optim.Adam(params, lr=1e-2)
print([n for n, _ in cell.named_parameters()], [n for n, _ in cell.named_buffers()])

for it in range(5):
    state = cell.init_state(4)
    zs = []
    for t in range(x.shape[0]):
        z, state = cell(x[t], state)
        zs.append(z)
    zs = torch.stack(zs)
    logits = readout(zs.mean(0))
    rate = zs.mean()
    loss = F.cross_entropy(logits, target) + 0.1 * (rate - 0.02) ** 2
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    opt.step()
    print(it, round(loss.item(), 4), round(rate.item(), 4), round(gn.item(), 4),
          cell.log_tau_m.grad.abs().sum().round(decimals=5).item())

print("tau_m", cell.log_tau_m.exp().round(decimals=3).tolist())
print("final adaptation", state[1].sum(1).round(decimals=4).tolist())
print("w_rec diag grad zero", bool((cell.w_rec.grad.diagonal() == 0).all()))

# e-prop-style: stop gradients through the recurrent spikes and compare
state = cell.init_state(4)
for t in range(x.shape[0]):
    v, a, z = state
    z, state = cell(x[t], (v, a, z.detach()))
out = readout(state[2]).sum()
g_stop = torch.autograd.grad(out, cell.w_in)[0]
print("stopped grad", g_stop.abs().sum().round(decimals=4).item())

# the state dict with buffers, loaded into a fresh cell
sd = cell.state_dict()
print(list(sd.keys()), sd["rho"].item().__round__(4))
fresh = ALIFCell(3, 6)
print(fresh.load_state_dict(sd))
try:
    fresh.load_state_dict({k: v for k, v in sd.items() if k != "rho"})
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
bad = dict(sd, w_rec=torch.zeros(5, 5))
try:
    fresh.load_state_dict(bad)
except Exception as e:
    print(type(e).__name__, e)
