"""What `nvidia-smi` reports about a device (`torch.cuda.utilization`, `temperature`, `power_draw`,
`clock_rate`, `memory_usage`, `device_memory_used`), read through NVML's Python binding
(`nvidia-ml-py`, imported on first use); without it, PyTorch's ModuleNotFoundError."""

from __future__ import annotations

import os

__all__ = ["utilization", "memory_usage", "temperature", "power_draw", "clock_rate", "device_memory_used",
           "list_gpu_processes"]


def _handle(device=None):
    """NVML's handle of `device` (an index among the visible devices, as CUDA numbers them)."""
    try:
        import pynvml
    except ImportError as e:
        raise ModuleNotFoundError("nvidia-ml-py does not seem to be installed or it can't be imported.") from e
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as e:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from e
    idx = _nvml_index(device)
    return pynvml, pynvml.nvmlDeviceGetHandleByIndex(idx)


def _nvml_index(device) -> int:
    from ember.core.cuda import _device_index

    idx = _device_index(device)
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        ordinals = [int(v) for v in visible.split(",") if v.strip().lstrip("-").isdigit()]
        if not 0 <= idx < len(ordinals):
            raise RuntimeError(f"device {idx} is not visible (CUDA_VISIBLE_DEVICES={ordinals})")
        idx = ordinals[idx]
    return idx


def utilization(device=None) -> int:
    """Percent of the last sample period in which a kernel ran on the device."""
    nvml, h = _handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(h).gpu


def memory_usage(device=None) -> int:
    """Percent of the last sample period in which device memory was read or written."""
    nvml, h = _handle(device)
    return nvml.nvmlDeviceGetUtilizationRates(h).memory


def temperature(device=None) -> int:
    """The GPU die's temperature in degrees Celsius."""
    nvml, h = _handle(device)
    return nvml.nvmlDeviceGetTemperature(h, 0)


def power_draw(device=None) -> int:
    """The board's power draw in milliwatts."""
    nvml, h = _handle(device)
    return nvml.nvmlDeviceGetPowerUsage(h)


def clock_rate(device=None) -> int:
    """The SM clock in MHz."""
    nvml, h = _handle(device)
    return nvml.nvmlDeviceGetClockInfo(h, 1)


def device_memory_used(device=None) -> int:
    """Bytes of device memory in use by every process, as the driver counts them."""
    nvml, h = _handle(device)
    return nvml.nvmlDeviceGetMemoryInfo(h).used


def list_gpu_processes(device=None) -> str:
    """A printout of the processes running on the device and their memory, in PyTorch's format (a
    line saying why where NVML cannot be reached)."""
    try:
        import pynvml
    except ImportError:
        return "pynvml module not found, please install nvidia-ml-py"
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded:
        return "cuda driver can't be loaded, is cuda enabled?"
    idx = _nvml_index(device)
    procs = pynvml.nvmlDeviceGetComputeRunningProcesses(pynvml.nvmlDeviceGetHandleByIndex(idx))
    lines = [f"GPU:{idx}"]
    if not procs:
        lines.append("no processes are running")
    for p in procs:
        lines.append(f"process {p.pid:>10d} uses {p.usedGpuMemory / (1024 * 1024):>12.3f} MB GPU memory")
    return "\n".join(lines)
