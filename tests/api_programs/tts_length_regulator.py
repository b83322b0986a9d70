"""FastSpeech's length regulator and duration predictor: repeat_interleave with tensor repeats per utterance,
pad_sequence to a batch, max_len truncation, speed control by rounding scaled log-durations, the MSE on log(d+1),
and the errors bad durations raise."""

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(4)
torch.set_printoptions(precision=4, sci_mode=False)


class DurationPredictor(nn.Module):
    def __init__(self, d=6, f=8, k=3):
        super().__init__()
        self.conv1 = nn.Conv1d(d, f, k, padding=k // 2)
        self.ln1 = nn.LayerNorm(f)
        self.conv2 = nn.Conv1d(f, f, k, padding=k // 2)
        self.ln2 = nn.LayerNorm(f)
        self.linear = nn.Linear(f, 1)

    def forward(self, x, mask):
        x = F.relu(self.conv1(x.transpose(1, 2))).transpose(1, 2)
        x = F.dropout(self.ln1(x), 0.1, self.training)
        x = F.relu(self.conv2(x.transpose(1, 2))).transpose(1, 2)
        x = self.ln2(x)
        return self.linear(x).squeeze(-1).masked_fill(mask, 0.0)


def length_regulate(x, durations, max_len=None):
    out = [torch.repeat_interleave(xi, di, dim=0) for xi, di in zip(x, durations)]
    mel_len = torch.tensor([o.size(0) for o in out], dtype=torch.long)
    out = pad_sequence(out, batch_first=True)
    if max_len is not None:
        out = F.pad(out, (0, 0, 0, max_len - out.size(1)))
    return out, mel_len


def expand_by_index(x, durations):
    total = durations.sum(-1)
    cum = torch.cumsum(durations, dim=-1)
    frames = torch.arange(int(total.max()))
    idx = torch.searchsorted(cum, frames.expand(len(x), -1).contiguous(), right=True)
    idx = idx.clamp(max=x.size(1) - 1)
    return torch.gather(x, 1, idx.unsqueeze(-1).expand(-1, -1, x.size(-1))), total


B, T, D = 2, 5, 6
x = torch.randn(B, T, D, requires_grad=True)
src_lens = torch.tensor([5, 3])
src_mask = torch.arange(T)[None] >= src_lens[:, None]
dur = torch.tensor([[1, 2, 0, 3, 1], [2, 2, 1, 0, 0]])
y, mel_len = length_regulate(x, dur)
print(y.shape, mel_len, y.grad_fn.name())
print(torch.equal(y[0, 1], y[0, 2]), torch.equal(y[0, 2], x[0, 1].detach()), y[1, 5:].abs().sum().item())
y2, t2 = expand_by_index(x, dur)
print(torch.allclose(y2[0], y[0]), t2, y2.shape)
y.sum().backward()
print(x.grad[:, :, 0])
y3, _ = length_regulate(x.detach(), dur, max_len=10)
print(y3.shape, y3[:, 7:].abs().sum().item())

dp = DurationPredictor()
log_d = dp(x.detach(), src_mask)
print(log_d.shape, (log_d[1, 3:] == 0).all().item())
target = torch.log(dur.float() + 1)
loss = F.mse_loss(log_d.masked_select(~src_mask), target.masked_select(~src_mask))
loss.backward()
print(round(loss.item(), 4), round(dp.linear.weight.grad.norm().item(), 4))
dp.eval()
for control in (1.0, 1.3):
    d_round = torch.clamp(torch.round(torch.exp(dp(x.detach(), src_mask)) - 1) * control, min=0).long()
    d_round = d_round.masked_fill(src_mask, 0)
    print(control, d_round.dtype, d_round.sum(1))
print(torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5, 2.4999])), torch.round(torch.tensor([1.2345]), decimals=2))

print(torch.repeat_interleave(torch.tensor([2, 0, 3])))
print(torch.repeat_interleave(torch.arange(3), 2), torch.arange(6).view(2, 3).repeat_interleave(2))
print(torch.arange(6).view(2, 3).repeat_interleave(torch.tensor([1, 2]), dim=0))
print(torch.tensor([[1, 2], [3, 4]]).repeat_interleave(3, dim=1, output_size=6))
for bad in (torch.tensor([1, -1, 2]), torch.tensor([1, 2]), torch.tensor([1.0, 2.0, 1.0])):
    try:
        torch.repeat_interleave(torch.arange(3), bad)
    except RuntimeError as e:
        print(type(e).__name__, e)
try:
    torch.repeat_interleave(torch.arange(3), torch.tensor([[1, 1, 1]]))
except RuntimeError as e:
    print(type(e).__name__, e)
print(pad_sequence([torch.ones(2), torch.ones(4)], padding_value=-1.0))
print(pad_sequence([torch.ones(2, 1), torch.ones(3, 1)], batch_first=True, padding_side="left").squeeze(-1))
print(pad_sequence([torch.ones(0, 3), torch.ones(2, 3)], batch_first=True).shape)
