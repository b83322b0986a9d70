"""Tacotron 2's decoder loop: a prenet whose dropout stays on at inference, LSTMCell steps with zoneout-free
teacher forcing, reduction-factor frame grouping, a postnet with BatchNorm1d, stop-token BCE with pos_weight, and
the masked mel losses a training step computes."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(1)
torch.set_printoptions(precision=4, sci_mode=False)
N_MELS, R = 4, 2


class Prenet(nn.Module):
    def __init__(self, d_in, sizes=(8, 8)):
        super().__init__()
        dims = [d_in, *sizes]
        self.layers = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in zip(dims[:-1], dims[1:]))

    def forward(self, x):
        for linear in self.layers:
            x = F.dropout(F.relu(linear(x)), p=0.5, training=True)
        return x


class Decoder(nn.Module):
    def __init__(self, enc=6, hid=10):
        super().__init__()
        self.prenet = Prenet(N_MELS * R)
        self.rnn = nn.LSTMCell(8 + enc, hid)
        self.proj = nn.Linear(hid + enc, N_MELS * R)
        self.gate = nn.Linear(hid + enc, 1)

    def forward(self, memory, mels):
        B = memory.size(0)
        frames = mels.transpose(1, 2).contiguous()
        frames = frames.view(B, frames.size(1) // R, -1)
        go = memory.new_zeros(B, 1, N_MELS * R)
        inputs = self.prenet(torch.cat((go, frames[:, :-1]), dim=1))
        h = c = memory.new_zeros(B, self.rnn.hidden_size)
        ctx = memory.mean(1)
        outs, gates = [], []
        for t in range(inputs.size(1)):
            h, c = self.rnn(torch.cat((inputs[:, t], ctx), -1), (h, c))
            hc = torch.cat((h, ctx), dim=1)
            outs.append(self.proj(hc))
            gates.append(self.gate(hc))
        mel = torch.stack(outs, 1).view(B, -1, N_MELS).transpose(1, 2)
        gate = torch.stack(gates, 1).view(B, -1).repeat_interleave(R, dim=1)
        return mel, gate


class Postnet(nn.Module):
    def __init__(self):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv1d(N_MELS, 8, 5, padding=2),
            nn.BatchNorm1d(8),
            nn.Tanh(),
            nn.Dropout(0.5),
            nn.Conv1d(8, N_MELS, 5, padding=2),
            nn.BatchNorm1d(N_MELS),
            nn.Dropout(0.5),
        )

    def forward(self, x):
        return x + self.convs(x)


B, T = 2, 8
memory = torch.randn(B, 5, 6)
mels = torch.randn(B, N_MELS, T)
out_lens = torch.tensor([8, 6])
dec, post = Decoder(), Postnet()
mel, gate = dec(memory, mels)
mel_post = post(mel)
print(mel.shape, gate.shape, mel.is_contiguous(), mel.stride())
mask = torch.arange(T)[None, :] < out_lens[:, None]
gate_target = (torch.arange(T)[None, :] >= (out_lens[:, None] - 1)).float()
print(gate_target)
m3 = mask.unsqueeze(1).expand_as(mel)
mel_loss = F.mse_loss(mel.masked_select(m3), mels.masked_select(m3)) + F.mse_loss(
    mel_post.masked_select(m3), mels.masked_select(m3)
)
crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor(5.0))
gate_loss = crit(gate[mask], gate_target[mask])
print(round(mel_loss.item(), 4), round(gate_loss.item(), 4), crit)
(mel_loss + gate_loss).backward()
print(round(dec.gate.weight.grad.norm().item(), 4), round(post.convs[1].weight.grad.norm().item(), 4))
print(post.convs[1].running_mean, post.convs[1].num_batches_tracked)
nn.utils.clip_grad_norm_(list(dec.parameters()) + list(post.parameters()), 1.0)

# The prenet's dropout stays on in eval(); the postnet's does not.
dec.eval(), post.eval()
torch.manual_seed(3)
a = dec.prenet(torch.ones(1, N_MELS * R))
torch.manual_seed(3)
b = dec.prenet(torch.ones(1, N_MELS * R))
print(torch.equal(a, b), bool((a == 0).any()), dec.prenet.training)
with torch.no_grad():
    y = post(mel)
print(y.requires_grad, torch.allclose(post(mel.detach()), y))
print(torch.sigmoid(gate[:, -3:]).round(decimals=4).detach())
stop = torch.sigmoid(gate) > 0.5
print(stop.dtype, stop.int().argmax(1), stop.any(1))

# Per-sample weights instead of a scalar pos_weight, reduction="none", and the shape errors.
l = F.binary_cross_entropy_with_logits(gate, gate_target, pos_weight=torch.full((T,), 3.0), reduction="none")
print(l.shape, l.sum(1).round(decimals=4).detach())
try:
    F.binary_cross_entropy_with_logits(gate, gate_target[:, :5])
except ValueError as e:
    print(type(e).__name__, e)
try:
    mels.view(B, -1, N_MELS * R * 3)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    mels.transpose(1, 2).view(B, T // R, -1)
except RuntimeError as e:
    print(type(e).__name__, e)
print(nn.LSTMCell(3, 4, bias=False), dec.rnn.weight_ih.shape, dec.rnn.bias_hh.shape)
