"""`torch.utils.model_zoo`: the old name of `torch.hub.load_state_dict_from_url` (`load_url`), which model code
written before torch.hub (and torchvision) still imports."""

from ember.torch.hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
