"""A convolutional SNN with rate-coded input, threshold-dependent batch norm over time, and an ATan surrogate."""
import math
import torch

nn = torch.nn
F = torch.nn.functional


class ATan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha=2.0):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return x.ge(0).to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        a = ctx.alpha
        return g * (a / 2) / (1 + (math.pi / 2 * a * x).pow(2)), None


class MultiStepLIF(nn.Module):
    """Runs a whole [T, B, ...] sequence; membrane state is local to the call."""

    def __init__(self, tau=2.0, v_th=1.0, detach_reset=False):
        super().__init__()
        self.tau, self.v_th, self.detach_reset = tau, v_th, detach_reset

    def forward(self, x_seq):
        v = torch.zeros_like(x_seq[0])
        out = []
        for x in x_seq.unbind(0):
            v = v + (x - v) / self.tau
            s = ATan.apply(v - self.v_th)
            r = s.detach() if self.detach_reset else s
            v = v * (1 - r)
            out.append(s)
        return torch.stack(out)

    def extra_repr(self):
        return f"tau={self.tau}, v_th={self.v_th}, detach_reset={self.detach_reset}"


class TdBN(nn.BatchNorm2d):
    """Batch norm over time and batch together (T*B as the batch), scaled by alpha * v_th."""

    def __init__(self, c, alpha=1.0, v_th=1.0):
        super().__init__(c)
        self.alpha, self.v_th = alpha, v_th

    def forward(self, x_seq):
        T, B = x_seq.shape[:2]
        y = super().forward(x_seq.flatten(0, 1))
        return (y * self.alpha * self.v_th).unflatten(0, (T, B))


class SeqConv(nn.Conv2d):
    def forward(self, x_seq):
        T, B = x_seq.shape[:2]
        return super().forward(x_seq.reshape(T * B, *x_seq.shape[2:])).view(T, B, -1, *x_seq.shape[-2:])


class CSNN(nn.Module):
    def __init__(self, detach_reset=False):
        super().__init__()
        self.conv1 = SeqConv(1, 4, 3, padding=1, bias=False)
        self.bn1 = TdBN(4)
        self.lif1 = MultiStepLIF(detach_reset=detach_reset)
        self.fc = nn.Linear(4 * 4 * 4, 3)
        self.lif2 = MultiStepLIF(detach_reset=detach_reset)

    def forward(self, x_seq):
        s = self.lif1(self.bn1(self.conv1(x_seq)))
        T, B = s.shape[:2]
        s = F.avg_pool2d(s.flatten(0, 1), 2).view(T, B, -1)
        return self.lif2(self.fc(s) * 4)


torch.manual_seed(0)
images = torch.rand(6, 1, 8, 8)
labels = torch.tensor([0, 1, 2, 0, 1, 2])
T = 5
spikes_in = torch.bernoulli(images.unsqueeze(0).expand(T, -1, -1, -1, -1))
print("input spikes", spikes_in.shape, spikes_in.mean().round(decimals=4).item())

for detach_reset in (False, True):
    torch.manual_seed(1)
    net = CSNN(detach_reset)
    opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
    for step in range(4):
        out = net(spikes_in)
        rate = out.mean(0)
        loss = F.mse_loss(rate, F.one_hot(labels, 3).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(detach_reset, step, round(loss.item(), 4), out.sum().item(),
              round(net.conv1.weight.grad.abs().sum().item(), 4))
    print("running_mean", net.bn1.running_mean.round(decimals=4).tolist(), net.bn1.num_batches_tracked.item())
print(net)

net.eval()
with torch.no_grad():
    out = net(spikes_in)
print("eval rate", out.mean(0).argmax(1).tolist(), out.requires_grad)
print("firing rates per layer", round(net.lif1(net.bn1(net.conv1(spikes_in))).mean().item(), 4))
try:
    net.conv1(spikes_in[0])
except Exception as e:
    print(type(e).__name__, str(e)[:100])
