"""The paper's Listing 2: one GAN training step with two `Adam` optimizers, `backward()` on each
loss, and `fake.detach()` so the discriminator's loss does not reach the generator.

The step function is the paper's code with only the imports changed; the helpers it names
(`create_discriminator`, `get_noise`, `loss`, labels) are defined here for a toy task: the
generator learns to imitate samples of N(3, 0.5^2).

Run: `python docs/tutorials/listing2_gan_step.py` (EMBER_TUTORIAL_QUICK=1 for a short run).
"""

import os

import ember.autograd as torch
import ember.nn as nn
import ember.optim as optim

BATCH = 64
torch.manual_seed(0)


def create_discriminator():
    return nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())


def create_generator():
    return nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))


def get_noise():
    return torch.randn(BATCH, 4)


def get_real_sample():
    return 3.0 + 0.5 * torch.randn(BATCH, 1)


loss = nn.BCELoss()
real_label = torch.ones(BATCH, 1)
fake_label = torch.zeros(BATCH, 1)

discriminator = create_discriminator()
generator = create_generator()
optimD = optim.Adam(discriminator.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimG = optim.Adam(generator.parameters(), lr=2e-3, betas=(0.5, 0.999))


def step(real_sample):
    # (1) Update Discriminator
    errD_real = loss(discriminator(real_sample), real_label)
    errD_real.backward()
    fake = generator(get_noise())
    errD_fake = loss(discriminator(fake.detach()), fake_label)
    errD_fake.backward()
    optimD.step()
    # (2) Update Generator
    errG = loss(discriminator(fake), real_label)
    errG.backward()
    optimG.step()
    return errD_real.item() + errD_fake.item(), errG.item()


def main() -> None:
    steps = 5 if os.environ.get("EMBER_TUTORIAL_QUICK") == "1" else 600
    for i in range(steps):
        optimD.zero_grad()
        optimG.zero_grad()
        err_d, err_g = step(get_real_sample())
        if i % max(steps // 5, 1) == 0 or i == steps - 1:
            with torch.no_grad():
                sample = generator(torch.randn(1000, 4))
            print(f"step {i:4d}  D loss {err_d:.3f}  G loss {err_g:.3f}  "
                  f"generated mean {sample.mean().item():.2f} std {sample.std().item():.2f}")


if __name__ == "__main__":
    main()
