"""Transfer-learning and knowledge-distillation tutorials: a pretrained-style backbone frozen by requires_grad,
a replaced head (model.fc = nn.Linear(num_ftrs, 2)), train/val phases under torch.set_grad_enabled, best weights
via copy.deepcopy(state_dict()), param groups with different lr, add_param_group to unfreeze, ReduceLROnPlateau,
a feature-extractor hook, distillation with KL(soft targets) * T**2 plus a cosine-embedding hidden loss, and
torch.compile(model) in the loop (the same numbers as eager)."""

# ruff: noqa: UP008, UP032  (the tutorials' own idioms, kept as written)

import copy
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def det(m, scale=0.3):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_(1.0 + T(*p.shape) * 0.1 if ("bn" in name and name.endswith("weight")) else T(*p.shape) * scale)
    return m


def r(x, n=6):
    return np.round(x.detach().double().flatten()[:n].numpy(), 4).tolist()


class TinyResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = x + self.layer1(x)
        x = torch.flatten(self.avgpool(x), 1)
        return self.fc(x)


X, y = T(48, 3, 6, 6), torch.from_numpy(rng.integers(0, 2, 48))
X[y == 1] += 0.5
image_datasets = {"train": TensorDataset(X[:32], y[:32]), "val": TensorDataset(X[32:], y[32:])}
dataloaders = {x: DataLoader(image_datasets[x], batch_size=8, shuffle=False) for x in ["train", "val"]}
dataset_sizes = {x: len(image_datasets[x]) for x in ["train", "val"]}
class_names = ["ants", "bees"]
print("sizes", dataset_sizes, class_names)

model_conv = det(TinyResNet())
for param in model_conv.parameters():
    param.requires_grad = False
num_ftrs = model_conv.fc.in_features
model_conv.fc = nn.Linear(num_ftrs, len(class_names))
det(model_conv.fc)
print("trainable", [n for n, p in model_conv.named_parameters() if p.requires_grad], num_ftrs)
criterion = nn.CrossEntropyLoss()
optimizer_conv = optim.SGD(model_conv.fc.parameters(), lr=0.05, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=2, gamma=0.1)


def train_model(model, criterion, optimizer, scheduler, num_epochs=3):
    since = time.time()
    best_model_wts = copy.deepcopy(model.state_dict())
    best_acc = 0.0
    for epoch in range(num_epochs):
        print(f"Epoch {epoch}/{num_epochs - 1}")
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            running_corrects = 0
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    _, preds = torch.max(outputs, 1)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
                running_corrects += torch.sum(preds == labels.data)
            if phase == "train":
                scheduler.step()
            epoch_loss = running_loss / dataset_sizes[phase]
            epoch_acc = running_corrects.double() / dataset_sizes[phase]
            print(f"{phase} Loss: {epoch_loss:.4f} Acc: {epoch_acc:.4f}")
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model.state_dict())
    assert time.time() - since >= 0
    print(f"Best val Acc: {best_acc:4f}", type(best_acc).__name__, best_acc.dtype)
    model.load_state_dict(best_model_wts)
    return model


model_conv = train_model(model_conv, criterion, optimizer_conv, exp_lr_scheduler)
print("frozen_bn", r(model_conv.bn1.running_mean, 3), model_conv.bn1.num_batches_tracked.item())

# fine-tuning: unfreeze layer1 with a smaller lr, then ReduceLROnPlateau on the val loss
for p in model_conv.layer1.parameters():
    p.requires_grad_(True)
optimizer_conv.add_param_group({"params": model_conv.layer1.parameters(), "lr": 0.005})
print("groups", [(len(g["params"]), g["lr"], g["momentum"]) for g in optimizer_conv.param_groups])
plateau = lr_scheduler.ReduceLROnPlateau(optimizer_conv, mode="min", factor=0.5, patience=0, threshold=0.05)
for epoch in range(3):
    model_conv.train()
    for inputs, labels in dataloaders["train"]:
        optimizer_conv.zero_grad()
        criterion(model_conv(inputs), labels).backward()
        optimizer_conv.step()
    model_conv.eval()
    with torch.no_grad():
        val_loss = sum(criterion(model_conv(a), b).item() for a, b in dataloaders["val"]) / len(dataloaders["val"])
    plateau.step(val_loss)
    print("plateau", epoch, round(val_loss, 4), [round(g["lr"], 6) for g in optimizer_conv.param_groups])

features = {}


def get_activation(name):
    def hook(model, input, output):
        features[name] = output.detach()
    return hook


h = model_conv.avgpool.register_forward_hook(get_activation("avgpool"))
model_conv(X[:2])
h.remove()
print("hook", tuple(features["avgpool"].shape), r(features["avgpool"]))
backbone = nn.Sequential(*list(model_conv.children())[:-1])
print("children", [type(m).__name__ for m in backbone], len(list(model_conv.modules())))


# knowledge distillation
class DeepNN(nn.Module):
    def __init__(self, num_classes=2):
        super(DeepNN, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Linear(8 * 3 * 3, 16), nn.ReLU(), nn.Dropout(0.1),
                                        nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)


class LightNN(nn.Module):
    def __init__(self, num_classes=2):
        super(LightNN, self).__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(nn.Linear(4 * 3 * 3, 16), nn.ReLU(), nn.Dropout(0.1),
                                        nn.Linear(16, num_classes))

    def forward(self, x):
        x = self.features(x)
        flattened_conv_output = torch.flatten(x, 1)
        x = self.classifier(flattened_conv_output)
        return x, flattened_conv_output


teacher, student = det(DeepNN()), det(LightNN())
total_params_deep = "{:,}".format(sum(p.numel() for p in teacher.parameters()))
total_params_light = sum(p.numel() for p in student.parameters())
print(f"DeepNN parameters: {total_params_deep}", f"LightNN parameters: {total_params_light:,}")


def train_knowledge_distillation(teacher, student, train_loader, epochs, learning_rate, T, soft_target_loss_weight,
                                 ce_loss_weight):
    ce_loss = nn.CrossEntropyLoss()
    optimizer = optim.Adam(student.parameters(), lr=learning_rate)
    teacher.eval()
    student.eval()  # the tutorial calls student.train(); eval keeps dropout's draws out of the printed numbers
    for epoch in range(epochs):
        running_loss = 0.0
        for inputs, labels in train_loader:
            optimizer.zero_grad()
            with torch.no_grad():
                teacher_logits = teacher(inputs)
            student_logits, _ = student(inputs)
            soft_targets = nn.functional.softmax(teacher_logits / T, dim=-1)
            soft_prob = nn.functional.log_softmax(student_logits / T, dim=-1)
            soft_targets_loss = (torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0]
                                 * (T**2))
            kl = F.kl_div(soft_prob, soft_targets, reduction="batchmean") * T * T
            label_loss = ce_loss(student_logits, labels)
            loss = soft_target_loss_weight * soft_targets_loss + ce_loss_weight * label_loss
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        print(f"Epoch {epoch + 1}/{epochs}, Loss: {running_loss / len(train_loader):.4f}",
              f"kl==manual {abs(kl.item() - soft_targets_loss.item()) < 1e-5}")


train_knowledge_distillation(teacher, student, dataloaders["train"], epochs=2, learning_rate=0.01, T=2,
                             soft_target_loss_weight=0.25, ce_loss_weight=0.75)
cos = nn.CosineEmbeddingLoss()
a, b = T(4, 6), T(4, 6)
print("cosine", round(cos(a, b, target=torch.ones(4)).item(), 4),
      round(cos(a, b, torch.tensor([1, -1, 1, -1])).item(), 4))
print("kl_log_target", round(F.kl_div(F.log_softmax(a, 1), F.log_softmax(b, 1), reduction="batchmean",
                                      log_target=True).item(), 4))
print("mse_hidden", round(nn.MSELoss()(F.avg_pool1d(a.unsqueeze(1), 2).squeeze(1), b[:, :3]).item(), 4))


def test_acc(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for inputs, labels in loader:
            outputs = model(inputs)
            outputs = outputs[0] if isinstance(outputs, tuple) else outputs
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return 100 * correct / total


print(f"Teacher accuracy: {test_acc(teacher, dataloaders['val']):.2f}%",
      f"Student accuracy: {test_acc(student, dataloaders['val']):.2f}%")

# torch.compile in the training loop: the same numbers as eager
eager, compiled_src = det(TinyResNet(2)), TinyResNet(2)
compiled_src.load_state_dict(eager.state_dict())
compiled = torch.compile(compiled_src)
print("compiled", type(compiled).__name__, compiled._orig_mod is compiled_src)
oe = optim.AdamW(eager.parameters(), lr=0.01, weight_decay=0.01)
oc = optim.AdamW(compiled.parameters(), lr=0.01, weight_decay=0.01)
for step, (inputs, labels) in enumerate(dataloaders["train"]):
    losses = []
    for model, opt in ((eager, oe), (compiled, oc)):
        model.train()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(inputs), labels, label_smoothing=0.1)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print("step", step, round(losses[0], 4), abs(losses[0] - losses[1]) < 1e-4)
print("same_weights", torch.allclose(eager.fc.weight, compiled_src.fc.weight, atol=1e-4), r(compiled_src.fc.weight))
print("compiled_keys", list(compiled.state_dict().keys())[:3])
