"""`torch.nn.modules.container`: PyTorch's module path for these ember.nn layers.

Not provided: Container.
"""

from ember.nn.modules.container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential

__all__ = ["ModuleDict", "ModuleList", "ParameterDict", "ParameterList", "Sequential"]
