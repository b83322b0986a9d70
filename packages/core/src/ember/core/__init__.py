"""ember-core: devices, dtypes, strided tensors, the op registry and CPU/CUDA kernels.

Importing it compiles nothing: Numba kernels are built on first use and cached on disk.
"""

from types import ModuleType as _ModuleType

from ember.core import dtypes as _dtypes
from ember.core.device import device, get_default_device, set_default_device
from ember.core.dispatch import get_op, register_dispatch_hook, registered_ops, remove_dispatch_hook
from ember.core.dtypes import (
    bfloat16, bool, double, dtype, float, float16, float32, float64, get_default_dtype, half, int, int8, int16, int32,
    int64, long, promote_types, result_type, set_default_dtype, short, uint8,
)
from ember.core.dtypes import cdouble, cfloat, chalf, complex32, complex64, complex128, get_default_complex_dtype
from ember.core.dtypes import (  # noqa: E402 - NOTE [ Restricted dtypes ]
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, uint16, uint32, uint64,
)
from ember.core.dtypes import (  # noqa: E402 - NOTE [ Shell dtypes ]
    bit, bits1x8, bits2x4, bits4x2, bits8, bits16, float4_e2m1fn_x2, int1, int2, int3, int4, int5, int6, int7, qint8,
    qint32, quint2x4, quint4x2, quint8, uint1, uint2, uint3, uint4, uint5, uint6, uint7,
)
from ember.core import host_heap as _host_heap  # noqa: F401 - glibc's heap thresholds, set at import
from ember.core.storage import Storage
from ember.core.tensor import Size, Tensor
from ember.core.creation import (
    arange, as_tensor, asarray, empty, empty_like, empty_strided, eye, from_numpy, full, full_like, linspace,
    logspace, ones, ones_like, scalar_tensor, tensor, zeros, zeros_like,
)
from ember.core.printing import set_printoptions
from ember.core.settings import *  # noqa: F403
from ember.core.legacy import (
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
    ShortTensor,
)
from ember.core.ops.elementwise import *  # noqa: F403
from ember.core.ops.arith import *  # noqa: F403
from ember.core.ops.layout import *  # noqa: F403
from ember.core.ops.indexing import *  # noqa: F403
from ember.core.ops.join import *  # noqa: F403
from ember.core.random import *  # noqa: F403
from ember.core.ops.reduce import *  # noqa: F403
from ember.core.ops.sorting import *  # noqa: F403
from ember.core.ops import sorting_composite as _sorting_composite  # noqa: F401 - the family's "any" kernels
from ember.core.ops.linalg import *  # noqa: F403
from ember.core.ops.linalg_solvers import *  # noqa: F403
from ember.core.ops import linalg_eig as _linalg_eig  # noqa: F401 - fills linalg.eig, linalg.eigvals
from ember.core.ops import linalg_ldl as _linalg_ldl  # noqa: F401 - fills linalg.ldl_factor(_ex), ldl_solve
from ember.core.ops.linalg_lobpcg import lobpcg
from ember.core.ops.linalg_composite import *  # noqa: F403
from ember.core.ops.removed_linalg import *  # noqa: F403
from ember.core.ops.activation import *  # noqa: F403
from ember.core.ops.conv import *  # noqa: F403
from ember.core.ops.dropout import *  # noqa: F403
from ember.core.ops.embedding import *  # noqa: F403
from ember.core.ops.normalization import *  # noqa: F403
from ember.core.ops.padding import *  # noqa: F403
from ember.core.ops.pool import *  # noqa: F403
from ember.core.ops.rnn_cells import *  # noqa: F403
from ember.core.ops.softmax import *  # noqa: F403
from ember.core.ops.special import *  # noqa: F403
from ember.core.ops.upsample import *  # noqa: F403
from ember.core.ops.complex import *  # noqa: F403
from ember.core.ops import complex as _complex_ops
from ember.core import methods as _methods
from ember.core import fft
from ember.core.ops.sampling import *  # noqa: F403
from ember.core.ops.unpool import *  # noqa: F403
from ember.core.ops.ctc import *  # noqa: F403
from ember.core.ops.fractional_pool import *  # noqa: F403
from ember.core.ops.numeric import *  # noqa: F403
from ember.core.ops.windows import *  # noqa: F403
from ember.core.ops.spectral import *  # noqa: F403
from ember.core.ops.tensor_utils import *  # noqa: F403
from ember.core.sparse import (  # noqa: E402
    sparse_bsc, sparse_bsr, sparse_compressed_tensor, sparse_coo, sparse_coo_tensor, sparse_csc, sparse_csc_tensor,
    sparse_csr, sparse_csr_tensor,
)
from ember.core.ops.tensor_extras import *  # noqa: F403
from ember.core.ops import composite_kernels as _composite_kernels  # noqa: F401 - "any" kernels of composed ops
from ember.core.ops import einsum_composite as _einsum_composite  # noqa: F401 - einsum's "any" kernel
from ember.core.ops import norm_composite as _norm_composite  # noqa: F401 - the norms' "any" kernels
from ember.core import cuda  # noqa: E402 - after the star imports, which export the method `cuda`
from ember.core.cuda.interop import from_dlpack
from ember.core import special, testing
from ember.core.env_info import collect_env
from ember.core.parallel import (
    get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads,
)

__version__ = "0.3.0"

# the public API: the names bound above (each from a module's `__all__`) and the public subnamespaces;
# the other submodules (dispatch, dtypes, ops ...) are bound by the import system, not exported
__all__ = [_n for _n, _v in globals().items() if not _n.startswith("_")
           and (not isinstance(_v, _ModuleType) or _n in ("cuda", "fft", "special", "testing"))]

_complex_ops._install_ordering_checks()  # after every op it checks is declared
_methods.seal_readonly()  # after every property is attached
