"""`torch.fx.passes`: analyses over a GraphModule (`shape_prop.ShapeProp`)."""

from ember.torch.fx.passes import shape_prop  # noqa: F401

__all__ = ["shape_prop"]
