"""torch.cuda's per-device RNG state, StreamContext/ExternalStream, device_of, arch list and the
deprecated memory names: with a device (the simulator) and without one."""

from __future__ import annotations


import pytest

import ember.core as E

cuda = E.cuda
no_device = pytest.mark.skipif(cuda.is_available(), reason="checks the behaviour without a CUDA device")
with_device = pytest.mark.skipif(not cuda.is_available(), reason="no CUDA device or simulator")


@no_device
def test_without_a_device():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        cuda.get_rng_state()
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        cuda.initial_seed()
    assert cuda.get_rng_state_all() == [] and cuda.default_generators == ()
    assert cuda.get_arch_list() == [] and cuda.get_gencode_flags() == ""
    cuda.set_rng_state_all([])
    cuda.seed()
    cuda.seed_all()
    with cuda.device_of(E.zeros(1)):
        assert cuda.current_device() == 0
    with cuda.StreamContext(None):
        pass
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        cuda.set_sync_debug_mode("warn")


def test_rng_state_round_trips_through_the_cuda_generator():
    g = E.random.default_generator_for("cuda:0")
    cuda.manual_seed(123)
    state = g.get_state()
    g.manual_seed(7)
    cuda.set_rng_state(state)
    assert g.initial_seed() == 123 and g.get_state().equal(state)


def test_deprecated_memory_names_warn_like_pytorch():
    with pytest.warns(FutureWarning, match="renamed to `torch.cuda.memory_reserved`"):
        assert cuda.memory_cached() == cuda.memory_reserved()
    with pytest.warns(FutureWarning, match="renamed to `torch.cuda.max_memory_reserved`"):
        assert cuda.max_memory_cached() == cuda.max_memory_reserved()
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):
        cuda.reset_max_memory_allocated()
    with pytest.warns(FutureWarning, match="resets /all/ peak memory stats"):
        cuda.reset_max_memory_cached()
    assert cuda.has_half is True and cuda.has_magma is False


def test_memory_stats_as_nested_dict_nests_the_dotted_keys():
    flat, nested = cuda.memory_stats(), cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == flat["allocated_bytes.all.current"]
    assert nested["num_ooms"] == flat["num_ooms"] and not cuda.is_current_stream_capturing()
    assert cuda.is_bf16_supported() is cuda.is_available() and cuda.is_tf32_supported() is False


@pytest.mark.cuda
@with_device
def test_sync_debug_mode_flags_implicit_synchronizations_only():
    x = E.ones(2, device="cuda")
    try:
        cuda.set_sync_debug_mode("warn")
        assert cuda.get_sync_debug_mode() == 1
        with pytest.warns(UserWarning, match="called a synchronizing CUDA operation"):
            x.cpu()
        cuda.set_sync_debug_mode(2)
        with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
            x.sum().item()
        cuda.synchronize()  # an explicit one passes
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`"):
            cuda.set_sync_debug_mode("loud")
    finally:
        cuda.set_sync_debug_mode("default")
    assert x.cpu().numpy().tolist() == [1.0, 1.0]


@pytest.mark.cuda
@with_device
def test_with_a_device():
    cuda.manual_seed(5)
    a = E.rand(4, device="cuda")
    states = cuda.get_rng_state_all()
    assert len(states) == cuda.device_count() and states[0].equal(cuda.get_rng_state())
    b = E.rand(4, device="cuda")
    cuda.set_rng_state_all(states)
    assert E.rand(4, device="cuda").cpu().equal(b.cpu()) and not a.cpu().equal(b.cpu())
    assert cuda.initial_seed() == 5
    assert cuda.default_generators[0] is E.random.default_generator_for("cuda")
    s = cuda.Stream()
    with cuda.StreamContext(s):
        assert cuda.current_stream() == s
    assert cuda.current_stream() != s
    x = E.zeros(1, device="cuda")
    with cuda.device_of(x):
        assert cuda.current_device() == 0
    flags = cuda.get_gencode_flags()
    assert all(f"compute_{a[3:]}" in flags for a in cuda.get_arch_list())


class _FakeNVML:
    """Stands in for nvidia-ml-py: handles are the NVML indices asked for."""

    class NVMLError_DriverNotLoaded(Exception):  # noqa: N801 - pynvml's name
        pass

    class _Rates:
        gpu, memory = 37, 12

    class _Memory:
        used = 1 << 30

    @staticmethod
    def nvmlInit():
        pass

    @staticmethod
    def nvmlDeviceGetHandleByIndex(i):
        return i

    nvmlDeviceGetUtilizationRates = staticmethod(lambda h: _FakeNVML._Rates)
    nvmlDeviceGetTemperature = staticmethod(lambda h, sensor: 60 + h)
    nvmlDeviceGetPowerUsage = staticmethod(lambda h: 250_000)
    nvmlDeviceGetClockInfo = staticmethod(lambda h, kind: 1980 if kind == 1 else 0)
    nvmlDeviceGetMemoryInfo = staticmethod(lambda h: _FakeNVML._Memory)

    class _Process:
        pid, usedGpuMemory = 4242, 3 << 20

    nvmlDeviceGetComputeRunningProcesses = staticmethod(lambda h: [_FakeNVML._Process] if h == 3 else [])


def test_nvml_readings_and_visible_device_mapping(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pynvml", _FakeNVML)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3,1")
    assert cuda.utilization() == 37 and cuda.memory_usage() == 12
    assert cuda.temperature() == 63 and cuda.temperature(1) == 61  # device 0 is NVML's 3, device 1 is its 1
    assert cuda.power_draw() == 250_000 and cuda.clock_rate() == 1980 and cuda.device_memory_used() == 1 << 30
    with pytest.raises(RuntimeError, match=r"device 2 is not visible \(CUDA_VISIBLE_DEVICES=\[3, 1\]\)"):
        cuda.temperature(2)
    assert cuda.list_gpu_processes() == "GPU:3\nprocess       4242 uses        3.000 MB GPU memory"
    assert cuda.list_gpu_processes(1) == "GPU:1\nno processes are running"


def test_nvml_readings_need_nvidia_ml_py(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pynvml", None)
    with pytest.raises(ModuleNotFoundError, match="nvidia-ml-py does not seem to be installed"):
        cuda.utilization()


def test_cuda_errors():
    cuda.check_error(cuda.cudaStatus.SUCCESS)
    with pytest.raises(cuda.CudaError, match=r"\(34\)") as info:
        cuda.check_error(cuda.cudaStatus.ERROR_NOT_READY)
    assert isinstance(info.value, RuntimeError) and info.value.code == 34
    assert issubclass(cuda.DeferredCudaCallError, Exception)


class _HostBackend:
    """Host memory standing in for a 64 MiB device."""

    def malloc(self, nbytes):
        import numpy as np

        return np.zeros(nbytes, np.uint8)

    def free(self, segment):
        pass

    def address(self, segment):
        return segment.ctypes.data

    def total_memory(self):
        return 64 << 20

    def view(self, segment, offset, nbytes):
        return segment[offset:offset + nbytes]

    def record_event(self, stream):
        return None

    def event_query(self, event):
        return True

    def event_synchronize(self, event):
        pass


def test_memory_fraction_caps_what_the_allocator_reserves():
    from ember.core.cuda.allocator import CachingAllocator, OutOfMemoryError

    alloc = CachingAllocator(_HostBackend())
    assert alloc.memory_fraction() == 1.0
    alloc.set_memory_fraction(0.5)
    a = alloc.malloc(20 << 20)  # 20 MiB of the 32 allowed
    with pytest.raises(OutOfMemoryError, match=r"limited to 0.5 of the device's memory"):
        alloc.malloc(20 << 20)
    alloc.free(a)
    b = alloc.malloc(30 << 20)  # the cached segment was given back first, so this fits
    assert alloc.memory_reserved() <= 32 << 20
    alloc.free(b)


@no_device
def test_memory_fraction_without_a_device():
    with pytest.raises(RuntimeError, match="CUDA is not available"):
        cuda.set_per_process_memory_fraction(0.5)


@pytest.mark.cuda
@with_device
def test_memory_fraction_arguments():
    assert cuda.get_per_process_memory_fraction() == 1.0
    with pytest.raises(TypeError, match="Invalid type for fraction argument, must be `float`"):
        cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match=r"Invalid fraction value: 1.5. Allowed range: 0~1"):
        cuda.set_per_process_memory_fraction(1.5)
    cuda.set_per_process_memory_fraction(0.75)
    try:
        assert cuda.get_per_process_memory_fraction() == 0.75
    finally:
        cuda.set_per_process_memory_fraction(1.0)
    cuda.reset_accumulated_memory_stats()
    assert cuda.memory_stats()["num_device_alloc"] == 0


@no_device
def test_pinning_ipc_and_the_memory_summary_without_a_device_raise_runtime_errors():
    """PyTorch raises RuntimeError for each (Numba's driver error is an ImportError, which `except RuntimeError`
    in user code would miss)."""
    from ember.core.cuda.transfer import pin_memory

    with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
        pin_memory(E.ones(2))
    for f in (cuda.ipc_collect, cuda.memory_summary):
        with pytest.raises(RuntimeError, match="CUDA is not available"):
            f()
