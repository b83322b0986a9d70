"""`torch.utils`: `data` (ember.data, the same module objects) and `checkpoint`."""

import ember.data as _data
from ember.torch._alias import alias as _alias

data = _alias(__name__ + ".data", _data)

from ember.torch.utils import checkpoint  # noqa: E402
