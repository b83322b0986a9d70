"""MLP-Mixer and axial attention written with torch.func.rearrange, trained for a few steps: token mixing by
transposing patterns, space-to-depth downsampling, axial attention over rows then columns, and gradient checks."""
import torch
from torch.func import rearrange

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class MixerBlock(nn.Module):
    def __init__(self, tokens, channels):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(channels), nn.LayerNorm(channels)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, 2 * tokens), nn.GELU(), nn.Linear(2 * tokens, tokens))
        self.channel_mlp = nn.Sequential(nn.Linear(channels, 2 * channels), nn.GELU(),
                                         nn.Linear(2 * channels, channels))

    def forward(self, x):
        y = rearrange(self.norm1(x), "b n c -> b c n")
        x = x + rearrange(self.token_mlp(y), "b c n -> b n c")
        return x + self.channel_mlp(self.norm2(x))


class AxialAttention(nn.Module):
    def __init__(self, channels, heads=2):
        super().__init__()
        self.heads = heads
        self.to_qkv = nn.Linear(channels, 3 * channels)
        self.out = nn.Linear(channels, channels)

    def attend(self, x):
        q, k, v = rearrange(self.to_qkv(x), "b n (three h d) -> three b h n d", three=3, h=self.heads)
        o = F.scaled_dot_product_attention(q, k, v)
        return self.out(rearrange(o, "b h n d -> b n (h d)"))

    def forward(self, x):
        b, h, w, c = x.shape
        rows = rearrange(x, "b h w c -> (b h) w c")
        x = x + rearrange(self.attend(rows), "(b h) w c -> b h w c", h=h)
        cols = rearrange(x, "b h w c -> (b w) h c")
        return x + rearrange(self.attend(cols), "(b w) h c -> b h w c", w=w)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(3 * 4, 16)
        self.axial = AxialAttention(16)
        self.mixer = MixerBlock(tokens=16, channels=64)
        self.head = nn.Linear(64, 3)

    def forward(self, img):
        x = rearrange(img, "b c (h s1) (w s2) -> b h w (c s1 s2)", s1=2, s2=2)
        x = self.axial(self.stem(x))
        x = rearrange(x, "b (h s1) (w s2) c -> b (h w) (s1 s2 c)", s1=2, s2=2)
        x = self.mixer(x)
        return self.head(x.mean(dim=1))


img = torch.randn(4, 3, 16, 16)
labels = torch.tensor([0, 1, 2, 1])
net = Net()
print("params", sum(p.numel() for p in net.parameters()))
s2d = rearrange(img, "b c (h s1) (w s2) -> b h w (c s1 s2)", s1=2, s2=2)
print("space to depth", tuple(s2d.shape), torch.equal(rearrange(s2d, "b h w (c s1 s2) -> b c (h s1) (w s2)",
                                                                s1=2, s2=2), img))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(5):
    loss = F.cross_entropy(net(img), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))
with torch.no_grad():
    pred = net(img)
print("pred", pred.argmax(-1).tolist(), round(pred.abs().sum().item(), 4))
print("stem grad", round(net.stem.weight.grad.abs().sum().item(), 4))

x = torch.randn(2, 4, 4, 16, dtype=torch.float64, requires_grad=True)
layer = AxialAttention(16).double()
ok = torch.autograd.gradcheck(lambda t: layer(t).sum(), (x,), eps=1e-6, atol=1e-5)
print("gradcheck through rearranges:", ok)
