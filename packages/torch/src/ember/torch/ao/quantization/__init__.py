"""`torch.ao.quantization`: `fuse_modules`, which folds eval-mode conv/linear + batch norm (+ ReLU) sequences of a
model into one module each (the rest become Identity), as PyTorch's; quantization itself (and QAT fusion) is absent."""

from __future__ import annotations

import copy

from ember import nn
from ember.nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval
from ember.torch._unsupported import UnsupportedError
from ember.torch.ao.nn import intrinsic as nni

__all__ = ["fuse_modules", "fuse_known_modules", "get_fuser_method", "fuse_conv_bn", "fuse_conv_bn_relu",
           "fuse_linear_bn", "fuse_convtranspose_bn"]


def _no_qat(what: str) -> None:
    raise UnsupportedError(f"{what} with is_qat=True (quantization-aware training) is not supported by ember: "
                           "it has no quantized modules; see docs/porting.md")


def fuse_conv_bn(is_qat, conv, bn):
    """A convolution with the batch norm after it folded in."""
    if conv.training != bn.training:
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    if is_qat:
        _no_qat("fuse_conv_bn")
    return fuse_conv_bn_eval(conv, bn)


def fuse_conv_bn_relu(is_qat, conv, bn, relu):
    """The folded convolution and its ReLU as a ConvReLU{1,2,3}d."""
    if not (conv.training == bn.training == relu.training):
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    if is_qat:
        _no_qat("fuse_conv_bn_relu")
    fused = {nn.Conv1d: nni.ConvReLU1d, nn.Conv2d: nni.ConvReLU2d, nn.Conv3d: nni.ConvReLU3d}.get(type(conv))
    if fused is None:
        raise NotImplementedError(f"Cannot fuse eval modules: {(conv, bn, relu)}")
    return fused(fuse_conv_bn_eval(conv, bn), relu)


def fuse_linear_bn(is_qat, linear, bn):
    """A linear layer with the BatchNorm1d after it folded in."""
    if linear.training != bn.training:
        raise AssertionError("Linear and BN both must be in the same mode (train or eval).")
    if is_qat:
        _no_qat("fuse_linear_bn")
    return fuse_linear_bn_eval(linear, bn)


def fuse_convtranspose_bn(is_qat, convt, bn):
    """A transposed convolution with the batch norm after it folded in."""
    if convt.training != bn.training:
        raise AssertionError("ConvTranspose and BN both must be in the same mode (train or eval).")
    if is_qat:
        raise Exception("Fusing ConvTranspose+BatchNorm not yet supported in QAT.")
    return fuse_conv_bn_eval(convt, bn, transpose=True)


def _sequential(cls):
    def fuse(is_qat, a, b):
        return cls(a, b)
    return fuse


_DEFAULT = {
    (nn.Conv1d, nn.BatchNorm1d): fuse_conv_bn, (nn.Conv2d, nn.BatchNorm2d): fuse_conv_bn,
    (nn.Conv3d, nn.BatchNorm3d): fuse_conv_bn,
    (nn.Conv1d, nn.BatchNorm1d, nn.ReLU): fuse_conv_bn_relu, (nn.Conv2d, nn.BatchNorm2d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv3d, nn.BatchNorm3d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv1d, nn.ReLU): _sequential(nni.ConvReLU1d), (nn.Conv2d, nn.ReLU): _sequential(nni.ConvReLU2d),
    (nn.Conv3d, nn.ReLU): _sequential(nni.ConvReLU3d),
    (nn.Linear, nn.BatchNorm1d): fuse_linear_bn, (nn.Linear, nn.ReLU): _sequential(nni.LinearReLU),
    (nn.BatchNorm2d, nn.ReLU): _sequential(nni.BNReLU2d), (nn.BatchNorm3d, nn.ReLU): _sequential(nni.BNReLU3d),
    (nn.ConvTranspose1d, nn.BatchNorm1d): fuse_convtranspose_bn,
    (nn.ConvTranspose2d, nn.BatchNorm2d): fuse_convtranspose_bn,
    (nn.ConvTranspose3d, nn.BatchNorm3d): fuse_convtranspose_bn,
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    """The function fusing modules of the types `op_list`."""
    method = {**_DEFAULT, **(additional_fuser_method_mapping or {})}.get(op_list)
    if method is None:
        raise AssertionError(f"did not find fuser method for: {op_list} ")
    return method


def fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping=None):
    """The fused module in place of the first of `mod_list` and Identity for the rest; the first module's forward
    pre-hooks and the last one's forward hooks move to the fused module."""
    types = tuple(type(m) for m in mod_list)
    fused = get_fuser_method(types, additional_fuser_method_mapping)(is_qat, *mod_list)
    for hook in mod_list[0]._forward_pre_hooks.values():
        fused.register_forward_pre_hook(hook)
    mod_list[0]._forward_pre_hooks.clear()
    for hook in mod_list[-1]._forward_hooks.values():
        fused.register_forward_hook(hook)
    mod_list[-1]._forward_hooks.clear()
    new = [fused]
    for _ in mod_list[1:]:
        identity = nn.Identity()
        identity.training = mod_list[0].training
        new.append(identity)
    return new


def _get(model, name: str):
    for part in name.split("."):
        model = getattr(model, part)
    return model


def _set(model, name: str, module) -> None:
    *path, last = name.split(".")
    setattr(_get(model, ".".join(path)) if path else model, last, module)


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules, fuse_custom_config_dict=None):
    """`model` (a copy unless `inplace`) with each list of submodule names in `modules_to_fuse` (or the one list)
    fused by `fuser_func`."""
    if not inplace:
        model = copy.deepcopy(model)
    extra = (fuse_custom_config_dict or {}).get("additional_fuser_method_mapping", {})
    groups = [modules_to_fuse] if all(isinstance(m, str) for m in modules_to_fuse) else modules_to_fuse
    for names in groups:
        for name, module in zip(names, fuser_func([_get(model, n) for n in names], False, extra)):
            _set(model, name, module)
    return model
