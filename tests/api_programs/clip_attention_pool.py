"""CLIP's ModifiedResNet pieces: anti-aliased Bottleneck downsampling with AvgPool2d, a 3-conv stem, and the
AttentionPool2d head that calls F.multi_head_attention_forward directly with separate q/k/v projection weights,
the mean token prepended and a spatial positional embedding; checked against a hand-written attention."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.avgpool = nn.AvgPool2d(stride) if stride > 1 else nn.Identity()
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride > 1 or inplanes != planes * self.expansion:
            self.downsample = nn.Sequential(
                OrderedDict(
                    [
                        ("-1", nn.AvgPool2d(stride)),
                        ("0", nn.Conv2d(inplanes, planes * self.expansion, 1, stride=1, bias=False)),
                        ("1", nn.BatchNorm2d(planes * self.expansion)),
                    ]
                )
            )

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.avgpool(out)
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class AttentionPool2d(nn.Module):
    def __init__(self, spacial_dim, embed_dim, num_heads, output_dim=None):
        super().__init__()
        self.positional_embedding = nn.Parameter(torch.randn(spacial_dim**2 + 1, embed_dim) / embed_dim**0.5)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.c_proj = nn.Linear(embed_dim, output_dim or embed_dim)
        self.num_heads = num_heads

    def forward(self, x):
        x = x.flatten(start_dim=2).permute(2, 0, 1)  # NCHW -> (HW)NC
        x = torch.cat([x.mean(dim=0, keepdim=True), x], dim=0)  # (HW+1)NC
        x = x + self.positional_embedding[:, None, :].to(x.dtype)
        x, w = F.multi_head_attention_forward(
            query=x[:1],
            key=x,
            value=x,
            embed_dim_to_check=x.shape[-1],
            num_heads=self.num_heads,
            q_proj_weight=self.q_proj.weight,
            k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight,
            in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None,
            bias_v=None,
            add_zero_attn=False,
            dropout_p=0,
            out_proj_weight=self.c_proj.weight,
            out_proj_bias=self.c_proj.bias,
            use_separate_proj_weight=True,
            training=self.training,
            need_weights=True,
        )
        return x.squeeze(0), w


from collections import OrderedDict  # noqa: E402  (as the original file has it at the top)

stem = nn.Sequential(
    nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
    nn.BatchNorm2d(8),
    nn.ReLU(inplace=True),
    nn.Conv2d(8, 8, 3, padding=1, bias=False),
    nn.BatchNorm2d(8),
    nn.ReLU(inplace=True),
    nn.Conv2d(8, 16, 3, padding=1, bias=False),
    nn.BatchNorm2d(16),
    nn.ReLU(inplace=True),
    nn.AvgPool2d(2),
)
block = Bottleneck(16, 8, stride=2)
pool = AttentionPool2d(2, 32, 4, output_dim=10)
print(block.downsample)
x = torch.randn(2, 3, 16, 16)
h = stem(x)
print("stem", tuple(h.shape), round(h.mean().item(), 4))
h = block(h)
print("block", tuple(h.shape), round(h.sum().item(), 4), h.grad_fn.__class__.__name__)
out, w = pool(h)
print("pooled", tuple(out.shape), out[0, :4].round(decimals=4).tolist())
print("weights", tuple(w.shape), w.sum(-1).round(decimals=4).tolist(), w[0].round(decimals=4).tolist())

# the same attention by hand
t = h.flatten(2).permute(2, 0, 1)
t = torch.cat([t.mean(0, keepdim=True), t]) + pool.positional_embedding[:, None]
q = pool.q_proj(t[:1]) * (8**-0.5)
k, v = pool.k_proj(t), pool.v_proj(t)
L, N, E = q.shape
qh = q.reshape(L, N * 4, 8).transpose(0, 1)
kh = k.reshape(-1, N * 4, 8).transpose(0, 1)
vh = v.reshape(-1, N * 4, 8).transpose(0, 1)
att = torch.bmm(qh, kh.transpose(1, 2)).softmax(-1)
o = torch.bmm(att, vh).transpose(0, 1).reshape(L, N, E)
o = pool.c_proj(o).squeeze(0)
print("by hand", torch.allclose(o, out, atol=1e-5), torch.allclose(att.view(N, 4, 1, 5).mean(1), w, atol=1e-6))

out.pow(2).sum().backward()
print(
    "grads",
    round(pool.q_proj.weight.grad.norm().item(), 4),
    round(pool.positional_embedding.grad.abs().sum().item(), 4),
    round(stem[0].weight.grad.norm().item(), 4),
)
pool.eval()
with torch.no_grad():
    o2, w2 = pool(h)
print("eval same", torch.allclose(o2, out), w2.shape)
print("avgpool", nn.AvgPool2d(2), F.avg_pool2d(torch.arange(16.0).view(1, 1, 4, 4), 2).flatten().tolist())
try:
    F.multi_head_attention_forward(
        t,
        t,
        t,
        32,
        4,
        None,
        None,
        None,
        None,
        False,
        0.0,
        pool.c_proj.weight,
        pool.c_proj.bias,
        use_separate_proj_weight=False,
    )
except Exception as e:
    print(type(e).__name__, e)
try:
    pool(torch.randn(2, 32, 3, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    F.multi_head_attention_forward(
        t,
        t,
        t,
        30,
        4,
        None,
        None,
        None,
        None,
        False,
        0.0,
        pool.c_proj.weight,
        pool.c_proj.bias,
        use_separate_proj_weight=True,
        q_proj_weight=pool.q_proj.weight,
        k_proj_weight=pool.k_proj.weight,
        v_proj_weight=pool.v_proj.weight,
    )
except Exception as e:
    print(type(e).__name__, e)
