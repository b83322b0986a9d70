"""VGG-11 with batch norm built by make_layers from a cfg list (narrow widths), torchvision's _initialize_weights,
and the model-inspection code people run on it: a torchsummary-style table from forward hooks on leaf modules, a
MACs/FLOPs counter by module type, named_modules filtering, buffers, and hooks removed through their handles."""

from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn

rng = np.random.default_rng(11)

cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
}


def make_layers(cfg, batch_norm=False, div=16):
    layers = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            v = int(v) // div
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Module):
    def __init__(self, features, num_classes=10, init_weights=True, dropout=0.5, hidden=64):
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((2, 2))
        c = [m for m in features.modules() if isinstance(m, nn.Conv2d)][-1].out_channels
        self.classifier = nn.Sequential(
            nn.Linear(c * 2 * 2, hidden), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(hidden, hidden), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(hidden, num_classes),
        )
        if init_weights:
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

    def forward(self, x):
        x = self.features(x)
        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


model = VGG(make_layers(cfgs["A"], batch_norm=True), num_classes=10)
print("conv biases zero", all(float(m.bias.abs().sum()) == 0 for m in model.modules() if isinstance(m, nn.Conv2d)))
print("bn weights one", all(bool((m.weight == 1).all()) for m in model.modules() if isinstance(m, nn.BatchNorm2d)))
w = model.features[0].weight
print("kaiming std ok", abs(w.std().item() - (2.0 / (w.shape[0] * 9)) ** 0.5) < 0.15, w.shape)
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
print(model.features[:4])
print("len features", len(model.features), "last", model.features[-1])


def summary(model, input_size, batch_size=-1):
    summary = OrderedDict()
    hooks = []

    def register_hook(module):
        def hook(module, input, output):
            class_name = str(module.__class__).split(".")[-1].split("'")[0]
            module_idx = len(summary)
            m_key = f"{class_name}-{module_idx + 1}"
            summary[m_key] = OrderedDict()
            summary[m_key]["input_shape"] = list(input[0].size())
            summary[m_key]["input_shape"][0] = batch_size
            summary[m_key]["output_shape"] = list(output.size())
            summary[m_key]["output_shape"][0] = batch_size
            params = 0
            if hasattr(module, "weight") and hasattr(module.weight, "size"):
                params += torch.prod(torch.LongTensor(list(module.weight.size())))
                summary[m_key]["trainable"] = module.weight.requires_grad
            if hasattr(module, "bias") and hasattr(module.bias, "size"):
                params += torch.prod(torch.LongTensor(list(module.bias.size())))
            summary[m_key]["nb_params"] = params

        if not isinstance(module, nn.Sequential) and not isinstance(module, nn.ModuleList) and module is not model:
            hooks.append(module.register_forward_hook(hook))

    x = torch.from_numpy(rng.standard_normal((2, *input_size)).astype(np.float32))
    model.apply(register_hook)
    model(x)
    for h in hooks:
        h.remove()
    print("-" * 64)
    print("{:>20}  {:>25} {:>15}".format("Layer (type)", "Output Shape", "Param #"))
    print("=" * 64)
    total_params = 0
    trainable_params = 0
    total_output = 0
    for layer in summary:
        line_new = "{:>20}  {:>25} {:>15}".format(
            layer, str(summary[layer]["output_shape"]), "{:,}".format(summary[layer]["nb_params"]))
        total_params += summary[layer]["nb_params"]
        total_output += np.prod(summary[layer]["output_shape"])
        if "trainable" in summary[layer] and summary[layer]["trainable"]:
            trainable_params += summary[layer]["nb_params"]
        print(line_new)
    print("=" * 64)
    print(f"Total params: {total_params:,}")
    print(f"Trainable params: {trainable_params:,}")
    print(f"Non-trainable params: {total_params - trainable_params:,}")
    print(f"Forward/backward pass size (MB): {abs(2. * total_output * 4. / (1024 ** 2.)):0.4f}")
    print("types", type(total_params).__name__, total_params.dtype, type(summary["Conv2d-1"]["nb_params"]))
    return summary


model.eval()
s = summary(model, (3, 32, 32))
print("leaf hooks left", sum(len(m._forward_hooks) for m in model.modules()))


def count_macs(model, x):
    macs = {}

    def conv_hook(m, inp, out):
        k = m.kernel_size[0] * m.kernel_size[1] * (m.in_channels // m.groups)
        macs.setdefault("Conv2d", 0)
        macs["Conv2d"] += out.numel() * k

    def linear_hook(m, inp, out):
        macs.setdefault("Linear", 0)
        macs["Linear"] += m.in_features * m.out_features * out.shape[0]

    def bn_hook(m, inp, out):
        macs.setdefault("BatchNorm2d", 0)
        macs["BatchNorm2d"] += 2 * inp[0].numel()

    handles = []
    for name, m in model.named_modules():
        if isinstance(m, nn.Conv2d):
            handles.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(linear_hook))
        elif isinstance(m, nn.BatchNorm2d):
            handles.append(m.register_forward_hook(bn_hook))
    with torch.no_grad():
        out = model(x)
    for h in handles:
        h.remove()
    return macs, out


x = torch.from_numpy(rng.standard_normal((1, 3, 32, 32)).astype(np.float32))
macs, out = count_macs(model, x)
print("macs", macs, "total GFLOPs %.6f" % (2 * sum(macs.values()) / 1e9))
print("out", tuple(out.shape), np.round(out.numpy()[0, :5].astype(np.float64), 4).tolist())

convs = [n for n, m in model.named_modules() if isinstance(m, nn.Conv2d)]
bns = [n for n, m in model.named_modules(prefix="vgg") if isinstance(m, nn.BatchNorm2d)]
print("convs", convs)
print("bns", bns[:3])
print("buffers", [(n, tuple(b.shape), b.dtype) for n, b in model.named_buffers()][:3])
print("n buffers", len(list(model.buffers())), "n modules", len(list(model.modules())))
sd = model.state_dict()
print("sd size", len(sd), "num_batches_tracked", sd["features.1.num_batches_tracked"])
model.train()
model(torch.from_numpy(rng.standard_normal((2, 3, 32, 32)).astype(np.float32)))
rm = model.features[1].running_mean[:3].numpy().astype(np.float64)
print("after train forward", model.features[1].num_batches_tracked, np.round(rm, 4).tolist())
