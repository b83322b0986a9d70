"""A small 1-d CNN classifying synthetic tones (raw waveform and log-spectrogram front ends), trained a few steps."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_printoptions(precision=4, sci_mode=False)
torch.manual_seed(0)

SR, LEN, CLASSES = 2000, 400, 4
FREQS = torch.tensor([100.0, 220.0, 450.0, 700.0])


def make_tones(n, gen):
    labels = torch.randint(0, CLASSES, (n,), generator=gen)
    t = torch.arange(LEN) / SR
    phase = 2 * math.pi * torch.rand(n, 1, generator=gen)
    detune = 1 + 0.02 * torch.randn(n, 1, generator=gen)
    amp = 0.5 + 0.5 * torch.rand(n, 1, generator=gen)
    wave = amp * torch.sin(2 * math.pi * FREQS[labels, None] * detune * t + phase)
    wave = wave + 0.3 * torch.randn(n, LEN, generator=gen)
    return wave.unsqueeze(1), labels


g = torch.Generator().manual_seed(123)
x_train, y_train = make_tones(96, g)
x_test, y_test = make_tones(32, g)
print("data", x_train.shape, x_train.dtype, y_train[:10].tolist(), torch.bincount(y_train).tolist())


class WaveCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 8, kernel_size=31, stride=2, padding=15, bias=False)
        self.bn1 = nn.BatchNorm1d(8)
        self.conv2 = nn.Conv1d(8, 16, kernel_size=9, padding=4, dilation=1)
        self.conv3 = nn.Conv1d(16, 16, kernel_size=9, padding=8, dilation=2, groups=4)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(16, CLASSES)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool1d(F.gelu(self.conv2(x)), 2)
        x = F.relu(self.conv3(x)) + x
        return self.fc(self.pool(x).flatten(1))


class SpecCNN(nn.Module):
    def __init__(self, n_fft=64):
        super().__init__()
        self.n_fft = n_fft
        self.register_buffer("window", torch.hann_window(n_fft), persistent=False)
        self.net = nn.Sequential(
            nn.Conv1d(n_fft // 2 + 1, 32, 3, padding=1), nn.ReLU(), nn.Dropout(0.1),
            nn.Conv1d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveMaxPool1d(1), nn.Flatten(), nn.Linear(32, CLASSES))

    def forward(self, x):
        spec = torch.stft(x.squeeze(1), self.n_fft, hop_length=16, window=self.window, return_complex=True)
        logmag = torch.log1p(spec.abs())
        return self.net(logmag)


def train(model, epochs, lr):
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(7))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        model.train()
        total = 0.0
        for xb, yb in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            total += loss.item() * xb.shape[0]
        model.eval()
        with torch.no_grad():
            logits = model(x_test)
            acc = (logits.argmax(1) == y_test).float().mean().item()
        lr_now = sched.get_last_lr()[0]
        print(f"  epoch {epoch} train loss {total / len(x_train):.4f} test acc {acc:.4f} lr {lr_now:.5f}")
    return model


torch.manual_seed(1)
wave_model = WaveCNN()
print(wave_model)
print("params", sum(p.numel() for p in wave_model.parameters()), wave_model.conv3.weight.shape)
print("feature shapes", wave_model.conv1(x_train[:2]).shape, wave_model(x_train[:2]).shape)
train(wave_model, 4, 0.01)
print("bn running mean", wave_model.bn1.running_mean[:4], wave_model.bn1.num_batches_tracked.item())

torch.manual_seed(2)
spec_model = SpecCNN()
print("buffers", [n for n, _ in spec_model.named_buffers()], list(spec_model.state_dict().keys())[:3])
print("spec input", torch.stft(x_train[:2].squeeze(1), 64, hop_length=16, window=torch.hann_window(64),
                               return_complex=True).shape)
train(spec_model, 4, 0.01)

with torch.no_grad():
    probs = F.softmax(spec_model(x_test[:6]), dim=-1)
print("probs", probs)
print("pred", probs.argmax(-1).tolist(), "true", y_test[:6].tolist())
cm = torch.zeros(CLASSES, CLASSES, dtype=torch.int64)
with torch.no_grad():
    pred = spec_model(x_test).argmax(-1)
cm.index_put_((y_test, pred), torch.ones_like(pred), accumulate=True)
print("confusion\n", cm)

# saliency: which input samples drive the logit
xs = x_test[:1].clone().requires_grad_(True)
spec_model(xs)[0, y_test[0]].backward()
sal = xs.grad.abs().squeeze()
print("saliency", sal.shape, round(sal.sum().item(), 4), sal.topk(3).indices.sort().values.tolist())

# TorchScript-free export: state dict round trip
sd = spec_model.state_dict()
clone = SpecCNN()
print(clone.load_state_dict(sd))
clone.eval()
with torch.no_grad():
    print("reloaded same", torch.allclose(clone(x_test[:4]), spec_model(x_test[:4])))
