"""The spatial-transformer and neural-style-transfer tutorials: a localization net regressing theta initialised to
the identity, F.affine_grid + F.grid_sample, then style transfer: a Normalization module, ContentLoss/StyleLoss
layers inserted into a copied feature stack, gram matrices, model.requires_grad_(False), an input image optimised
by LBFGS with a closure that clamps input_img.data, and a trimmed model by isinstance over children()."""

# ruff: noqa: UP008, UP032  (the tutorials' own idioms, kept as written)

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m, scale=0.3):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(T(*p.shape) * scale)
    return m


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=5)
        self.conv2 = nn.Conv2d(4, 8, kernel_size=3)
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(8 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 10)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 4, kernel_size=5), nn.MaxPool2d(2, stride=2), nn.ReLU(True),
            nn.Conv2d(4, 6, kernel_size=3), nn.MaxPool2d(2, stride=2), nn.ReLU(True))
        self.fc_loc = nn.Sequential(nn.Linear(6 * 2 * 2, 16), nn.ReLU(True), nn.Linear(16, 3 * 2))
        det(self)
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 6 * 2 * 2)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return x, theta

    def forward(self, x):
        x, theta = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 8 * 2 * 2)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1), theta


model = Net()
data, target = T(8, 1, 16, 16), torch.from_numpy(rng.integers(0, 10, 8))
model.eval()
with torch.no_grad():
    out, theta = model(data)
    warped, _ = model.stn(data)
print("identity_theta", r(theta[0]), torch.allclose(warped, data, atol=1e-5))
optimizer = optim.SGD(model.parameters(), lr=0.001)
for epoch in range(3):
    optimizer.zero_grad()
    output, theta = model(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    print("stn", epoch, round(loss.item(), 4), r(theta[0]))
with torch.no_grad():
    out, _ = model(data)
    test_loss = F.nll_loss(out, target, reduction="sum").item()
    pred = out.max(1, keepdim=True)[1]
    correct = pred.eq(target.view_as(pred)).sum().item()
print("test", round(test_loss / 8, 4), correct)
rot = torch.tensor([[[0.8660, -0.5, 0.1], [0.5, 0.8660, -0.2]]])
img = T(1, 2, 5, 7)
for mode in ["bilinear", "nearest"]:
    for pad in ["zeros", "border", "reflection"]:
        for ac in [False, True]:
            g = F.affine_grid(rot, img.size(), align_corners=ac)
            out = F.grid_sample(img, g, mode=mode, padding_mode=pad, align_corners=ac)
            print("grid_sample", mode, pad, ac, r(out, 5))
x = img.clone().requires_grad_()
th = rot.clone().requires_grad_()
F.grid_sample(x, F.affine_grid(th, x.size(), align_corners=False), align_corners=False).square().sum().backward()
print("grads", r(th.grad), r(x.grad))

# neural style transfer
imsize = 12
style_img = torch.sigmoid(T(1, 3, imsize, imsize))
content_img = torch.sigmoid(T(1, 3, imsize, imsize))
assert style_img.size() == content_img.size(), "we need to import style and content images of the same size"


class ContentLoss(nn.Module):
    def __init__(self, target):
        super(ContentLoss, self).__init__()
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


cnn = det(nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(8, 8, 3, padding=1),
                        nn.ReLU(inplace=True), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
                        nn.Conv2d(8, 8, 3, padding=1))).eval()
cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


content_layers_default = ["conv_4"]
style_layers_default = ["conv_1", "conv_2", "conv_3", "conv_4"]


def get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img,
                               content_layers=content_layers_default, style_layers=style_layers_default):
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = "conv_{}".format(i)
        elif isinstance(layer, nn.ReLU):
            name = "relu_{}".format(i)
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = "pool_{}".format(i)
        elif isinstance(layer, nn.BatchNorm2d):
            name = "bn_{}".format(i)
        else:
            raise RuntimeError("Unrecognized layer: {}".format(layer.__class__.__name__))
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break
    model = model[: (i + 1)]
    return model, style_losses, content_losses


input_img = content_img.clone()


def get_input_optimizer(input_img):
    optimizer = optim.LBFGS([input_img], max_iter=5)
    return optimizer


def run_style_transfer(cnn, normalization_mean, normalization_std, content_img, style_img, input_img, num_steps=6,
                       style_weight=10, content_weight=1):
    print("Building the style transfer model..")
    model, style_losses, content_losses = get_style_model_and_losses(cnn, normalization_mean, normalization_std,
                                                                     style_img, content_img)
    print("model", [n for n, _ in model.named_children()])
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    print("frozen", any(p.requires_grad for p in model.parameters()), input_img.requires_grad)
    optimizer = get_input_optimizer(input_img)
    print("Optimizing..")
    run = [0]
    while run[0] <= num_steps:

        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            if run[0] % 3 == 0:
                print("run {}:".format(run), "Style Loss : {:4f} Content Loss: {:4f}".format(
                    style_score.item(), content_score.item()))
            return style_score + content_score

        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img


output = run_style_transfer(cnn, cnn_normalization_mean, cnn_normalization_std, content_img, style_img, input_img)
print("output", tuple(output.shape), r(output), bool(output.min() >= 0), bool(output.max() <= 1))
input_img.data.clamp_(0.2, 0.8)
print("data_clamp", round(input_img.min().item(), 4), round(input_img.max().item(), 4), input_img.requires_grad)
unloader = lambda t: (t.cpu().clone().squeeze(0).permute(1, 2, 0).numpy() * 255).astype(np.uint8)  # noqa: E731
image = unloader(output.detach())
print("unloaded", image.shape, image.dtype, int(image[0, 0, 0]))
