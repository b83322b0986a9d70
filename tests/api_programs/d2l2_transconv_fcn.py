"""d2l.ai chapter 14 continued, as the book writes it: transposed convolution by hand against
nn.ConvTranspose2d (padding, stride, channels), convolution as a matrix multiply, the FCN bilinear-kernel
initialisation and upsampling, Pascal VOC colormap-to-label mapping with random crops, and neural style
transfer's content, Gram-matrix style and total-variation losses optimised through a synthesized image."""

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

rng = np.random.default_rng(17)


def r(x, k=6):
    return np.round(x.detach().double().flatten()[:k].numpy(), 4).tolist()


def trans_conv(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] + h - 1, X.shape[1] + w - 1))
    for i in range(X.shape[0]):
        for j in range(X.shape[1]):
            Y[i: i + h, j: j + w] += X[i, j] * K
    return Y


X = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
print(trans_conv(X, K))
X, K = X.reshape(1, 1, 2, 2), K.reshape(1, 1, 2, 2)
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
tconv.weight.data = K
print(tconv(X))
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, padding=1, bias=False)
tconv.weight.data = K
print(tconv(X))
tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, stride=2, bias=False)
tconv.weight.data = K
print(tconv(X))
X = torch.from_numpy(rng.standard_normal((1, 10, 16, 16)).astype(np.float32))
conv = nn.Conv2d(10, 20, kernel_size=5, padding=2, stride=3)
tconv = nn.ConvTranspose2d(20, 10, kernel_size=5, padding=2, stride=3)
print(tconv(conv(X)).shape == X.shape, conv(X).shape, tconv)
print(nn.ConvTranspose2d(20, 10, kernel_size=5, padding=2, stride=3, output_padding=2)(conv(X)).shape)


def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


X = torch.arange(9.0).reshape(3, 3)
K = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
Y = corr2d(X, K)
print(Y)


def kernel2matrix(K):
    k, W = torch.zeros(5), torch.zeros((4, 9))
    k[:2], k[3:5] = K[0, :], K[1, :]
    W[0, :5], W[1, 1:6], W[2, 3:8], W[3, 4:] = k, k, k, k
    return W


W = kernel2matrix(K)
print(W)
print(Y == torch.matmul(W, X.reshape(-1)).reshape(2, 2))
Z = trans_conv(Y, K)
print(Z == torch.matmul(W.T, Y.reshape(-1)).reshape(3, 3))
print(torch.allclose(F.conv_transpose2d(Y[None, None], K[None, None]), Z[None, None]))


def bilinear_kernel(in_channels, out_channels, kernel_size):
    factor = (kernel_size + 1) // 2
    if kernel_size % 2 == 1:
        center = factor - 1
    else:
        center = factor - 0.5
    og = (torch.arange(kernel_size).reshape(-1, 1), torch.arange(kernel_size).reshape(1, -1))
    filt = (1 - torch.abs(og[0] - center) / factor) * (1 - torch.abs(og[1] - center) / factor)
    weight = torch.zeros((in_channels, out_channels, kernel_size, kernel_size))
    weight[range(in_channels), range(out_channels), :, :] = filt
    return weight


conv_trans = nn.ConvTranspose2d(3, 3, kernel_size=4, padding=1, stride=2, bias=False)
conv_trans.weight.data.copy_(bilinear_kernel(3, 3, 4))
print(bilinear_kernel(3, 3, 4)[0, 0], bilinear_kernel(3, 3, 4)[0, 1].abs().sum().item())
img = torch.from_numpy(rng.random((1, 3, 6, 5)).astype(np.float32))
out = conv_trans(img)
print("upsample", img.shape, out.shape, out.grad_fn.name(), r(out[0, 0, 2], 6))
ref = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=False)
print("vs_interp", r((out - ref)[0, 0, 2:-2, 2:-2].abs().max(), 1))
num_classes = 5
net = nn.Sequential()
net.add_module("backbone", nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1))
net.add_module("final_conv", nn.Conv2d(8, num_classes, kernel_size=1))
net.add_module("transpose_conv", nn.ConvTranspose2d(num_classes, num_classes, kernel_size=4, padding=1, stride=2))
W = bilinear_kernel(num_classes, num_classes, 4)
net.transpose_conv.weight.data.copy_(W)
with torch.no_grad():
    for name, p in net.named_parameters():
        if not name.startswith("transpose_conv.weight"):
            p.copy_(torch.from_numpy((0.2 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
X = torch.from_numpy(rng.random((2, 3, 8, 10)).astype(np.float32))
out = net(X)
print("fcn", out.shape, [n for n, _ in net.named_children()], r(out[1, 2, 3], 5))
target = torch.from_numpy(rng.integers(0, num_classes, (2, 8, 10)))


def loss(inputs, targets):
    return F.cross_entropy(inputs, targets, reduction="none").mean(1).mean(1)


l = loss(out, target)
l.sum().backward()
print("fcn_loss", l.shape, r(l, 2), r(net.transpose_conv.weight.grad[0, 0, 1], 4), net[0].weight.grad.shape)

# VOC label mapping
VOC_COLORMAP = [[0, 0, 0], [128, 0, 0], [0, 128, 0], [128, 128, 0], [0, 0, 128], [128, 0, 128],
                [0, 128, 128], [128, 128, 128], [64, 0, 0], [192, 0, 0], [64, 128, 0]]
VOC_CLASSES = ["background", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat",
               "chair", "cow"]


def voc_colormap2label():
    colormap2label = torch.zeros(256 ** 3, dtype=torch.long)
    for i, colormap in enumerate(VOC_COLORMAP):
        colormap2label[(colormap[0] * 256 + colormap[1]) * 256 + colormap[2]] = i
    return colormap2label


def voc_label_indices(colormap, colormap2label):
    colormap = colormap.permute(1, 2, 0).numpy().astype("int32")
    idx = ((colormap[:, :, 0] * 256 + colormap[:, :, 1]) * 256 + colormap[:, :, 2])
    return colormap2label[idx]


lab = torch.from_numpy(rng.integers(0, len(VOC_COLORMAP), (6, 7)))
colors = torch.tensor(VOC_COLORMAP, dtype=torch.uint8)[lab].permute(2, 0, 1)
print("colormap", colors.shape, colors.dtype, colors[:, 1, 1])
y = voc_label_indices(colors, voc_colormap2label())
print("labels", y[:2, :4], torch.equal(y, lab), VOC_CLASSES[int(y[0, 0])])


def voc_rand_crop(feature, label, height, width, top, left):
    feature = feature[:, top:top + height, left:left + width]
    label = label[:, top:top + height, left:left + width]
    return feature, label


feat = torch.arange(3 * 6 * 7, dtype=torch.float32).reshape(3, 6, 7)
f, lb = voc_rand_crop(feat, colors, 4, 5, 1, 2)
print("crop", f.shape, lb.shape, f[0, 0].tolist(), lb.is_contiguous())
mean, std = torch.tensor([0.485, 0.456, 0.406]), torch.tensor([0.229, 0.224, 0.225])
norm = (colors.float() / 255 - mean[:, None, None]) / std[:, None, None]
print("normalize", norm.dtype, r(norm[:, 0, 0], 3))
pred = out.argmax(dim=1)
print("label2image", torch.tensor(VOC_COLORMAP)[pred[0, :2, :3]].shape)


# style transfer
def gram(X):
    num_channels, n = X.shape[1], X.numel() // X.shape[1]
    X = X.reshape((num_channels, n))
    return torch.matmul(X, X.T) / (num_channels * n)


def content_loss(Y_hat, Y):
    return torch.square(Y_hat - Y.detach()).mean()


def style_loss(Y_hat, gram_Y):
    return torch.square(gram(Y_hat) - gram_Y.detach()).mean()


def tv_loss(Y_hat):
    return 0.5 * (torch.abs(Y_hat[:, :, 1:, :] - Y_hat[:, :, :-1, :]).mean() +
                  torch.abs(Y_hat[:, :, :, 1:] - Y_hat[:, :, :, :-1]).mean())


content_weight, style_weight, tv_weight = 1, 1e3, 10
feat_net = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU())
with torch.no_grad():
    for p in feat_net.parameters():
        p.copy_(torch.from_numpy((0.3 * rng.standard_normal(tuple(p.shape))).astype(np.float32)))
for p in feat_net.parameters():
    p.requires_grad_(False)
style_layers, content_layers = [1, 3], [3]


def extract_features(X, content_layers, style_layers):
    contents, styles = [], []
    for i in range(len(feat_net)):
        X = feat_net[i](X)
        if i in style_layers:
            styles.append(X)
        if i in content_layers:
            contents.append(X)
    return contents, styles


content_img = torch.from_numpy(rng.random((1, 3, 8, 8)).astype(np.float32))
style_img = torch.from_numpy(rng.random((1, 3, 8, 8)).astype(np.float32))
contents_Y, _ = extract_features(content_img, content_layers, style_layers)
_, styles_Y = extract_features(style_img, content_layers, style_layers)
styles_Y_gram = [gram(Y) for Y in styles_Y]
print("gram", styles_Y_gram[0].shape, r(styles_Y_gram[1][0], 4), torch.allclose(styles_Y_gram[0], styles_Y_gram[0].T))


class SynthesizedImage(nn.Module):
    def __init__(self, img_shape, **kwargs):
        super(SynthesizedImage, self).__init__(**kwargs)  # noqa: UP008
        self.weight = nn.Parameter(torch.rand(*img_shape))

    def forward(self):
        return self.weight


gen_img = SynthesizedImage(content_img.shape)
gen_img.weight.data.copy_(content_img.data)
trainer = torch.optim.Adam(gen_img.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.StepLR(trainer, 3, 0.8)
for epoch in range(6):
    trainer.zero_grad()
    X = gen_img()
    contents_Y_hat, styles_Y_hat = extract_features(X, content_layers, style_layers)
    contents_l = [content_loss(Y_hat, Y) * content_weight for Y_hat, Y in zip(contents_Y_hat, contents_Y)]
    styles_l = [style_loss(Y_hat, Y) * style_weight for Y_hat, Y in zip(styles_Y_hat, styles_Y_gram)]
    tv_l = tv_loss(X) * tv_weight
    l = sum(10 * styles_l + contents_l + [tv_l])
    l.backward()
    trainer.step()
    scheduler.step()
    print(epoch + 1, [round(float(sum(ls)), 4) for ls in (contents_l, styles_l)], round(float(tv_l), 4))
print("synth", r(gen_img.weight, 4), gen_img.weight.grad.shape, scheduler.get_last_lr())
