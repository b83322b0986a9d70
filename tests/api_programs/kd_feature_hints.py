"""FitNets hints and attention transfer: forward hooks capture features, 1x1 regressors match channels."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


teacher = nn.Sequential(
    block(3, 16), nn.MaxPool2d(2), block(16, 32), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 4)
)
student = nn.Sequential(
    block(3, 8), nn.MaxPool2d(2), block(8, 8), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 4)
)
teacher.eval().requires_grad_(False)
print("teacher trainable", sum(p.numel() for p in teacher.parameters() if p.requires_grad))
print("student params", sum(p.numel() for p in student.parameters()))

feats = {}


def save(name):
    def hook(module, inputs, output):
        feats[name] = output

    return hook


handles = [
    teacher[0].register_forward_hook(save("t0")),
    teacher[2].register_forward_hook(save("t2")),
    student[0].register_forward_hook(save("s0")),
    student[2].register_forward_hook(save("s2")),
]
print(type(handles[0]).__name__, handles[0].id != handles[1].id)

regressors = nn.ModuleDict({"0": nn.Conv2d(8, 16, 1), "2": nn.Conv2d(8, 32, 1)})
x = torch.randn(4, 3, 8, 8)
y = torch.tensor([0, 1, 2, 3])
teacher(x)
out = student(x)
print({k: tuple(v.shape) for k, v in sorted(feats.items())})


def at(f, p=2):
    return F.normalize(f.pow(p).mean(1).flatten(1))


hint = sum(F.mse_loss(regressors[k](feats["s" + k]), feats["t" + k]) for k in ["0", "2"])
at_loss = sum((at(feats["s" + k]) - at(feats["t" + k])).pow(2).mean() for k in ["0", "2"])
print("hint", round(hint.item(), 4), "at", round(at_loss.item(), 4))
print("at map", tuple(at(feats["t2"]).shape), at(feats["t2"]).norm(dim=1).round(decimals=4).tolist())
cos = F.cosine_similarity(regressors["2"](feats["s2"]).flatten(1), feats["t2"].flatten(1), dim=1)
print("cos", cos.round(decimals=4).tolist())
sl1 = F.smooth_l1_loss(regressors["0"](feats["s0"]), feats["t0"], beta=0.5)
print("smooth_l1", round(sl1.item(), 4))
loss = F.cross_entropy(out, y) + hint + 100 * at_loss
loss.backward()
print("regressor grad", round(regressors["2"].weight.grad.abs().sum().item(), 4))
print("student conv grad", round(student[0][0].weight.grad.abs().sum().item(), 4))
print("teacher grad", teacher[0][0].weight.grad)

# Gram-matrix (FSP-style) and similarity-preserving KD
fs, ft = feats["s2"].flatten(2), feats["t2"].flatten(2)
gs = F.normalize(fs.flatten(1) @ fs.flatten(1).t(), dim=1)
gt = F.normalize(ft.flatten(1) @ ft.flatten(1).t(), dim=1)
print("sp", round(F.mse_loss(gs, gt, reduction="sum").item() / 16, 4))
gram = torch.bmm(fs, fs.transpose(1, 2)) / fs.shape[-1]
print("gram", tuple(gram.shape), round(gram.sum().item(), 4))

for h in handles:
    h.remove()
feats.clear()
student(x)
print("after remove", len(feats))

# hooks on the module that raise
student[5].register_forward_hook(lambda m, i, o: o * 2)
print("doubled", student(x).shape, round(student(x).sum().item(), 4))
try:
    F.mse_loss(feats.get("s0", torch.zeros(1, 8, 4, 4)), torch.zeros(1, 16, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
try:
    regressors["0"](torch.randn(1, 16, 4, 4))
except Exception as e:
    print(type(e).__name__, e)
