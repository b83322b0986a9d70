"""`torch.nn.modules.container`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]

from ember.nn.modules.more import Container  # noqa: E402

__all__ += ["Container"]
