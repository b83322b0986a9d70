"""The mistakes segmentation code makes, with PyTorch's words for them: channels-last logits, squeezed batch-1
targets, BatchNorm in an ASPP pooling branch on a batch of one, in-place ReLU on a saved skip, DataParallel
'module.' prefixes and class-count mismatches when loading checkpoints, argmax before the loss, and the warnings
of implicit softmax dims, deprecated upsample functions and legacy loss arguments."""

import warnings

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


def attempt(label, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn()
            print(label, "ok", res)
        except Exception as e:
            print(label, type(e).__name__, str(e).strip())
    for w in caught:
        print("  warning", w.category.__name__, str(w.message).splitlines()[0])


logits = torch.randn(2, 3, 4, 5, requires_grad=True)
target = torch.randint(0, 3, (2, 4, 5))
attempt("channels-last logits", lambda: F.cross_entropy(logits.permute(0, 2, 3, 1), target))
attempt("squeezed target", lambda: F.cross_entropy(logits[:1], target[:1].squeeze()))
attempt("target with channel", lambda: F.cross_entropy(logits, target[:, None]))
attempt("float target", lambda: F.cross_entropy(logits, target.float()))
attempt("bce long target", lambda: F.binary_cross_entropy_with_logits(logits[:, 0], target))
attempt("argmax then backward", lambda: F.l1_loss(logits.argmax(1).float(), target.float()).backward())
attempt("batch mismatch", lambda: F.cross_entropy(logits, target[:1]))

pool_branch = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.ReLU())
attempt("bn batch of one", lambda: pool_branch(torch.randn(1, 3, 8, 8)).shape)
pool_branch.eval()
attempt("bn batch of one eval", lambda: tuple(pool_branch(torch.randn(1, 3, 8, 8)).shape))
attempt("bn 1x1 batch of two", lambda: tuple(pool_branch.train()(torch.randn(2, 3, 8, 8)).shape))


def inplace_skip():
    conv = nn.Conv2d(3, 3, 3, padding=1)
    x = torch.randn(1, 3, 4, 4, requires_grad=True)
    skip = torch.sigmoid(conv(x))
    out = F.relu_(skip)
    (out * skip).sum().backward()
    return "no error"


def inplace_skip_tanh():
    x = torch.randn(1, 3, 4, 4, requires_grad=True)
    skip = torch.tanh(x)
    y = skip.clone()
    skip.add_(1.0)
    (y * skip).sum().backward()
    return round(x.grad.sum().item(), 4)


attempt("in-place relu on saved sigmoid", inplace_skip)
attempt("in-place add on saved tanh", inplace_skip_tanh)

net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Conv2d(4, 5, 1))
state = {"module." + k: v for k, v in net.state_dict().items()}
attempt("module prefix", lambda: net.load_state_dict(state))
fixed = {k.removeprefix("module."): v for k, v in state.items()}
attempt("prefix stripped", lambda: net.load_state_dict(fixed))
other = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Conv2d(4, 21, 1))
attempt("class count", lambda: other.load_state_dict(net.state_dict()))
sd = {k: v for k, v in net.state_dict().items() if not k.startswith("1.")}
attempt("head dropped strict=False", lambda: other.load_state_dict(sd, strict=False))
nn.modules.utils.consume_prefix_in_state_dict_if_present(state, "module.")
attempt("consume_prefix", lambda: sorted(state.keys()))

attempt("implicit softmax dim", lambda: tuple(F.softmax(logits.detach()).shape))
attempt("nn.Softmax()", lambda: tuple(nn.Softmax()(logits.detach()).shape))
attempt("F.upsample", lambda: tuple(F.upsample(logits.detach(), scale_factor=2, mode="nearest").shape))
attempt("upsample_bilinear", lambda: tuple(F.upsample_bilinear(logits.detach(), scale_factor=2).shape))
attempt("size_average", lambda: nn.CrossEntropyLoss(size_average=False).reduction)
attempt("reduce", lambda: nn.NLLLoss(reduce=False, ignore_index=255).reduction)
attempt(
    "bilinear without align_corners",
    lambda: tuple(F.interpolate(logits.detach(), scale_factor=2, mode="bilinear").shape),
)
attempt("sigmoid", lambda: round(F.sigmoid(logits).sum().item(), 4))
attempt("uint8 invert", lambda: (~torch.tensor([0, 1, 255], dtype=torch.uint8)).tolist())
attempt("mask 255 as bool", lambda: torch.tensor([0, 1, 255], dtype=torch.uint8).bool().tolist())
attempt(
    "grid_sample int",
    lambda: F.grid_sample(torch.ones(1, 1, 2, 2, dtype=torch.long), torch.zeros(1, 1, 1, 2), align_corners=False),
)
attempt("dice on float labels", lambda: F.one_hot(target.float(), 3))
attempt("mean of long", lambda: target.mean())
attempt("nanmean all nan", lambda: torch.tensor([float("nan")] * 2).nanmean().item())
