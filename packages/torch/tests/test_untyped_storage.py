"""torch.UntypedStorage / StorageBase: `nbytes()` callable as in PyTorch while core keeps reading the
int, the same object as the tensor's storage, allocation, bytes access, copy, resize, sharing."""

import pickle

import numpy as np
import pytest

import ember.torch as torch
from ember.core.storage import Storage


def test_tensor_storage_is_an_untyped_storage_with_callable_nbytes():
    x = torch.arange(6.0)
    s = x.untyped_storage()
    assert isinstance(s, torch.UntypedStorage) and isinstance(s, torch.StorageBase) and isinstance(s, Storage)
    assert s is x.untyped_storage() is x[2:].untyped_storage()
    assert s.nbytes() == 24 and s.nbytes == 24 and s.size() == len(s) == 24 and s.element_size() == 1
    assert s.nbytes + 1 == 25 and np.empty(s.nbytes, np.uint8).size == 24  # still an int to core code
    assert (x * 2).tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0] and x.view(2, 3).sum().item() == 15.0
    assert pickle.loads(pickle.dumps(x)).tolist() == x.tolist()
    x.resize_(10)
    assert s.nbytes() == 40 and s.data_ptr() == x.data_ptr()


def test_allocate_read_write_copy_and_resize():
    u = torch.UntypedStorage(4)
    assert u.nbytes() == 4 and u.device == torch.device("cpu") and not u.is_cuda and u.get_device() is None
    assert u.fill_(3).tolist() == [3, 3, 3, 3]
    u[1] = 9
    assert u[1] == 9 and u[1:3].tolist() == [9, 3] and list(u) == [3, 9, 3, 3]
    v = torch.UntypedStorage([1, 2, 3, 4])
    assert u.copy_(v).tolist() == [1, 2, 3, 4]
    w = u.clone()
    w[0] = 0
    assert u[0] == 1 and w.untyped() is w
    with pytest.raises(RuntimeError, match="^size does not match, self was 4 bytes but src was 2 bytes$"):
        u.copy_(torch.UntypedStorage(2))
    assert u.resize_(6).tolist() == [1, 2, 3, 4, 0, 0] and u.nbytes() == 6
    t = torch.empty(0, dtype=torch.uint8).set_(u)
    assert t.tolist() == [1, 2, 3, 4, 0, 0]
    assert torch.UntypedStorage.from_buffer(b"\x05\x06", byte_order="native", dtype=torch.uint8).tolist() == [5, 6]
    assert torch.UntypedStorage.from_buffer(b"\x01\x02\x03\x04", "big", dtype=torch.int16).tolist() == [2, 1, 4, 3]
    with pytest.raises(RuntimeError, match="^argument 'dtype' cannot be None$"):
        torch.UntypedStorage.from_buffer(b"\x05\x06")


def test_a_slice_of_a_storage_aliases_its_bytes():
    x = torch.zeros(2)
    u = x.untyped_storage()
    w = u[4:8]
    assert w.nbytes() == 4 and w.data_ptr() == u.data_ptr() + 4
    w[3] = 64
    assert x.tolist() == [0.0, 2.0] and u[6:100].nbytes() == 2
    with pytest.raises(RuntimeError, match="^Trying to slice with a step of 2, but only a step of 1 is supported$"):
        u[::2]


def test_share_memory_moves_the_bytes_in_place():
    x = torch.arange(4.0)
    s = x.untyped_storage()
    assert not s.is_shared()
    assert s.share_memory_() is s and s.is_shared()
    x[0] = 5.0
    assert s.tolist()[:4] == list(np.float32(5.0).tobytes())


@pytest.mark.torch
def test_matches_pytorch():
    real = pytest.importorskip("torch")
    for values in ([0.5, -1.0, 3.0], [1.0]):
        a, b = real.tensor(values).untyped_storage(), torch.tensor(values).untyped_storage()
        assert a.nbytes() == b.nbytes() and a.size() == b.size() and a.tolist() == b.tolist()
        assert a.element_size() == b.element_size() and a[1:].tolist() == b[1:].tolist()
    assert real.UntypedStorage(5).nbytes() == torch.UntypedStorage(5).nbytes()
    assert isinstance(real.zeros(1).untyped_storage(), real.StorageBase)


def test_classproperty_reads_from_the_class_and_instances():
    class A:
        n = 3

        @torch.classproperty
        def twice(cls):
            return cls.n * 2

        @torch.classproperty
        @staticmethod
        def seven():
            return 7

    assert A.twice == A().twice == 6 and A.seven == 7
    A.n = 5
    assert A.twice == 10


def test_data_tensors_have_their_owners_storage_when_seen_or_saved():
    """`.data` carries its own version counter (NOTE [ .data's version counter ]) over its owner's memory: its
    `untyped_storage()` is the owner's, and a checkpoint holding both keeps one storage, as PyTorch's."""
    import io

    p = torch.nn.Parameter(torch.arange(4.0))
    st = p.data.untyped_storage()
    assert type(st).__name__ == "UntypedStorage" and st.nbytes() == 16 and st.data_ptr() == p.data_ptr()
    buf = io.BytesIO()
    torch.save({"a": p, "b": p.data, "c": p.data[1:]}, buf)
    buf.seek(0)
    d = torch.load(buf)
    d["b"][0] = 7.0
    assert d["a"].tolist() == [7.0, 1.0, 2.0, 3.0] and d["c"].tolist() == [1.0, 2.0, 3.0]
    q = p.data
    q.share_memory_()
    assert p.is_shared()
