"""`torch.nn.modules.container`: PyTorch's module path for these ember.nn layers."""

from ember.nn.modules.container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["Container", "ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
