"""A variational autoencoder (the PyTorch examples' MLP VAE) trained for a few epochs on synthetic
binary images, with the reparameterisation trick and the closed-form KL term."""

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
# 256 "images" of 8x8 pixels: noisy stripes of two orientations
base = torch.zeros(2, 8, 8)
base[0, :, ::2] = 1.0
base[1, ::2, :] = 1.0
labels = torch.randint(0, 2, (256,))
images = (base[labels] * 0.9 + 0.05 * torch.rand(256, 8, 8)).clamp(0, 1)
loader = DataLoader(TensorDataset(images, labels), batch_size=32, shuffle=True)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)
epoch_losses = []
for epoch in range(1, 6):
    model.train()
    train_loss = 0
    for data, _ in loader:
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    epoch_losses.append(train_loss / len(loader.dataset))
    print(f"====> Epoch: {epoch} Average loss: {epoch_losses[-1]:.4f}")

model.eval()
with torch.no_grad():
    sample = model.decode(torch.randn(16, 4)).view(16, 1, 8, 8)
assert sample.shape == (16, 1, 8, 8) and 0 <= sample.min().item() and sample.max().item() <= 1
assert epoch_losses[-1] < 0.8 * epoch_losses[0], epoch_losses
print("OK")
