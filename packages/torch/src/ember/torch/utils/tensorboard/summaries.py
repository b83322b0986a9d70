"""TensorBoard summary protos from ember tensors, numpy arrays or numbers, built on the
`tensorboard` package's own protos, as PyTorch's `torch.utils.tensorboard.summary` builds them."""

from __future__ import annotations

import numbers

import numpy as np

from ember.torch.utils.tensorboard.png import encode_png

__all__ = ["to_numpy", "scalar", "histogram", "image", "text", "hparams", "figure_to_image"]


def to_numpy(value) -> np.ndarray:
    """An ember tensor (any device, with or without grad), a numpy array or a number as numpy."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, numbers.Number | np.generic):
        return np.asarray(value)
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        return value.detach().cpu().numpy()
    if isinstance(value, list | tuple):
        return np.asarray(value)
    raise TypeError(f"expected a tensor, a numpy array or a number; got {type(value).__name__}")


def scalar(tag: str, value, new_style: bool = False, double_precision: bool = False):
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto

    array = to_numpy(value).squeeze()
    if array.ndim != 0:
        raise ValueError(f"add_scalar: scalar should be 0D; got a value of shape {tuple(array.shape)}")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=number)])
    dtype, field = ("DT_DOUBLE", "double_val") if double_precision else ("DT_FLOAT", "float_val")
    tensor = TensorProto(dtype=dtype, tensor_shape=TensorShapeProto(), **{field: [number]})
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=meta)])


def _tensorflow_bins() -> np.ndarray:
    """TensorFlow's default histogram edges: ±1e-12 growing by 10% up to 1e20, and 0."""
    positive = 1e-12 * 1.1 ** np.arange(int(np.ceil(np.log(1e20 / 1e-12) / np.log(1.1))))
    return np.concatenate([-positive[::-1], [0.0], positive])


def histogram(tag: str, values, bins="tensorflow", max_bins: int | None = None):
    from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary

    data = to_numpy(values).astype(np.float64).ravel()
    if data.size == 0:
        raise ValueError("add_histogram: the input has no values")
    if not np.isfinite(data).all():
        raise ValueError("add_histogram: the input has non-finite values")
    edges = _tensorflow_bins() if isinstance(bins, str) and bins == "tensorflow" else bins
    counts, limits = np.histogram(data, bins=edges)
    if max_bins is not None and len(counts) > max_bins:  # merge neighbours until at most max_bins remain
        group = -(-len(counts) // max_bins)
        pad = (-len(counts)) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    nonzero = np.flatnonzero(counts)
    first, last = max(nonzero[0] - 1, 0), min(nonzero[-1] + 1, len(counts) - 1)  # keep one empty bucket aside
    counts, limits = counts[first:last + 1], limits[first + 1:last + 2]
    proto = HistogramProto(min=float(data.min()), max=float(data.max()), num=int(data.size),
                           sum=float(data.sum()), sum_squares=float(np.dot(data, data)),
                           bucket_limit=limits.tolist(), bucket=counts.astype(np.float64).tolist())
    return Summary(value=[Summary.Value(tag=tag, histo=proto)])


def _to_hwc(array: np.ndarray, dataformats: str) -> np.ndarray:
    """Any of PyTorch's image layouts (CHW, HWC, HW, NCHW, NHWC...) as one `(H, W, C)` image; a batch
    becomes a grid, as PyTorch's `make_grid` for `add_images`."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or set(fmt) - set("NCHW") or len(fmt) != array.ndim:
        raise ValueError(f"dataformats {dataformats!r} does not describe an image of shape {array.shape}")
    order = [fmt.index(c) for c in "NHWC" if c in fmt]
    array = array.transpose(order)
    if "C" not in fmt:
        array = array[..., None]
    if "N" not in fmt:
        return array
    n, h, w, c = array.shape
    cols = int(np.ceil(np.sqrt(n)))
    rows = -(-n // cols)
    grid = np.zeros((rows * h, cols * w, c), dtype=array.dtype)
    for k in range(n):
        r, q = divmod(k, cols)
        grid[r * h:(r + 1) * h, q * w:(q + 1) * w] = array[k]
    return grid


def image(tag: str, img, dataformats: str = "CHW"):
    """A PNG image summary; float images are taken as [0, 1] and scaled to 0-255, as PyTorch does."""
    from tensorboard.compat.proto.summary_pb2 import Summary

    pixels = _to_hwc(to_numpy(img), dataformats)
    if pixels.dtype != np.uint8:
        pixels = (np.clip(pixels.astype(np.float32), 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
    if pixels.shape[2] == 2 or pixels.shape[2] > 4:
        raise ValueError(f"an image has 1, 3 or 4 channels; got {pixels.shape[2]}")
    height, width, channels = pixels.shape
    proto = Summary.Image(height=height, width=width, colorspace=channels, encoded_image_string=encode_png(pixels))
    return Summary(value=[Summary.Value(tag=tag, image=proto)])


def figure_to_image(figure) -> np.ndarray:
    """A matplotlib figure rendered to an `(H, W, 4)` uint8 array."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


def text(tag: str, text_string: str):
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboard.compat.proto.tensor_pb2 import TensorProto
    from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
    from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    tensor = TensorProto(dtype="DT_STRING", string_val=[text_string.encode("utf-8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=tensor)])


def _hparam_summary(tag: str, plugin_data):
    from tensorboard.compat.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboard.plugins.hparams.metadata import PLUGIN_NAME

    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name=PLUGIN_NAME, content=plugin_data.SerializeToString()))
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None):
    """The hparams plugin's three summaries: the experiment, the session start (values), its end."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import DataType, Experiment, HParamInfo, MetricInfo, MetricName, Status
    from tensorboard.plugins.hparams.metadata import (
        EXPERIMENT_TAG, PLUGIN_DATA_VERSION, SESSION_END_INFO_TAG, SESSION_START_INFO_TAG,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData, SessionEndInfo, SessionStartInfo

    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("add_hparams: hparam_dict and metric_dict should be dictionaries")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("add_hparams: hparam_domain_discrete should be a dictionary")
    for k, values in domains.items():
        if k not in hparam_dict or not isinstance(values, list) or \
                not all(isinstance(v, type(hparam_dict[k])) for v in values):
            raise TypeError(f"add_hparams: hparam_domain_discrete[{k}] should list values of hparam_dict[{k}]'s type")
    start, infos = SessionStartInfo(), []
    for name, value in hparam_dict.items():
        if value is None:
            continue
        if hasattr(value, "detach"):
            value = to_numpy(value).item()
        if isinstance(value, bool):
            start.hparams[name].bool_value, kind, field = value, DataType.DATA_TYPE_BOOL, "bool_value"
        elif isinstance(value, numbers.Number):
            start.hparams[name].number_value, kind, field = value, DataType.DATA_TYPE_FLOAT64, "number_value"
        elif isinstance(value, str):
            start.hparams[name].string_value, kind, field = value, DataType.DATA_TYPE_STRING, "string_value"
        else:
            raise ValueError(f"add_hparams: value of {name!r} should be a number, string, bool or tensor; "
                             f"got {type(value).__name__}")
        domain = None
        if name in domains:
            domain = struct_pb2.ListValue(values=[struct_pb2.Value(**{field: v}) for v in domains[name]])
        infos.append(HParamInfo(name=name, type=kind, domain_discrete=domain))
    metrics = [MetricInfo(name=MetricName(tag=k)) for k in metric_dict]
    experiment = Experiment(hparam_infos=infos, metric_infos=metrics)
    return (
        _hparam_summary(EXPERIMENT_TAG, HParamsPluginData(experiment=experiment, version=PLUGIN_DATA_VERSION)),
        _hparam_summary(SESSION_START_INFO_TAG, HParamsPluginData(session_start_info=start,
                                                                  version=PLUGIN_DATA_VERSION)),
        _hparam_summary(SESSION_END_INFO_TAG, HParamsPluginData(
            session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS")), version=PLUGIN_DATA_VERSION)),
    )
