"""`SummaryWriter`: PyTorch's TensorBoard writer over the `tensorboard` package's event-file writer."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime

import numpy as np

from ember.torch.utils.tensorboard import summaries
from ember.torch.utils.tensorboard.png import encode_png

__all__ = ["SummaryWriter"]


class _FileWriter:
    """Events into one folder's event file (tensorboard's `EventFileWriter`: a queue and a thread)."""

    def __init__(self, log_dir: str, max_queue: int, flush_secs: int, filename_suffix: str) -> None:
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        self.log_dir = log_dir
        self.events = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        from tensorboard.compat.proto.event_pb2 import Event

        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        self.events.add_event(event)

    def add_event(self, event) -> None:
        self.events.add_event(event)

    def flush(self) -> None:
        self.events.flush()

    def close(self) -> None:
        self.events.close()


class SummaryWriter:
    """Writes scalars, histograms, images, figures, text, hyperparameters and embeddings for
    TensorBoard, as `torch.utils.tensorboard.SummaryWriter` (needs the `tensorboard` package).

    Example:
        >>> import tempfile, ember.torch as torch
        >>> from ember.torch.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as writer:
        ...     writer.add_scalar("loss", torch.tensor(0.5), global_step=1)
    """

    def __init__(self, log_dir: str | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = "") -> None:
        try:
            import tensorboard  # noqa: F401
        except ImportError as exc:
            raise ModuleNotFoundError("SummaryWriter needs the tensorboard package: pip install tensorboard") from exc
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self.file_writer: _FileWriter | None = None
        self.all_writers: dict[str, _FileWriter] = {}
        self._get_file_writer()

    def _get_file_writer(self) -> _FileWriter:
        """The writer of `log_dir`, reopened after `close`; the first event after a purge step says so."""
        if self.file_writer is None or self.file_writer.log_dir not in self.all_writers:
            from tensorboard.compat.proto.event_pb2 import Event, SessionLog

            self.file_writer = _FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.log_dir: self.file_writer}
            if self.purge_step is not None:
                self.file_writer.add_event(Event(step=self.purge_step, file_version="brain.Event:2"))
                self.file_writer.add_event(Event(step=self.purge_step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value, global_step=None, walltime=None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        summary = summaries.scalar(tag, scalar_value, new_style, double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, global_step=None, walltime=None) -> None:
        """Each entry into its own run folder `log_dir/<main_tag>_<tag>`, under the tag `main_tag`."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            folder = os.path.join(self._get_file_writer().log_dir, f"{main_tag.replace('/', '_')}_{tag}")
            writer = self.all_writers.get(folder)
            if writer is None:
                writer = self.all_writers[folder] = _FileWriter(folder, self.max_queue, self.flush_secs,
                                                                self.filename_suffix)
            writer.add_summary(summaries.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins: int | None = None) -> None:
        summary = summaries.histogram(tag, values, bins, max_bins)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_image(self, tag: str, img_tensor, global_step=None, walltime=None, dataformats: str = "CHW") -> None:
        self._get_file_writer().add_summary(summaries.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag: str, img_tensor, global_step=None, walltime=None, dataformats: str = "NCHW") -> None:
        """A batch of images as one grid image, as PyTorch does."""
        self._get_file_writer().add_summary(summaries.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(self, tag: str, figure, global_step=None, close: bool = True, walltime=None) -> None:
        """A matplotlib figure (or a list of them, as a grid) rendered to an image."""
        import matplotlib.pyplot as plt

        figures = figure if isinstance(figure, list) else [figure]
        images = [summaries.figure_to_image(f) for f in figures]
        if close:
            for f in figures:
                plt.close(f)
        if isinstance(figure, list):
            height = max(i.shape[0] for i in images)
            width = max(i.shape[1] for i in images)
            batch = np.zeros((len(images), height, width, 4), np.uint8)
            for k, i in enumerate(images):
                batch[k, :i.shape[0], :i.shape[1]] = i
            self.add_images(tag, batch, global_step, walltime, dataformats="NHWC")
        else:
            self.add_image(tag, images[0], global_step, walltime, dataformats="HWC")

    def add_text(self, tag: str, text_string: str, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(summaries.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict: dict, metric_dict: dict, hparam_domain_discrete: dict | None = None,
                    run_name: str | None = None, global_step=None) -> None:
        """The hyperparameters and their metrics as one run in a subfolder (`run_name`, else the time)."""
        experiment, start, end = summaries.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run = run_name or str(time.time())
        folder = os.path.join(self._get_file_writer().log_dir, run)
        with SummaryWriter(log_dir=folder) as writer:
            for summary in (experiment, start, end):
                writer.file_writer.add_summary(summary, global_step)
            for name, value in metric_dict.items():
                writer.add_scalar(name, value, global_step)

    def add_embedding(self, mat, metadata=None, label_img=None, global_step=None, tag: str = "default",
                      metadata_header=None) -> None:
        """Vectors for the projector: `tensors.tsv`, `metadata.tsv`, a sprite of `label_img`, and the
        entry in `projector_config.pbtxt`, in a folder per step and tag."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

        vectors = summaries.to_numpy(mat)
        if vectors.ndim != 2:
            raise ValueError(f"add_embedding: mat should be (N, D); got shape {vectors.shape}")
        step = 0 if global_step is None else int(global_step)
        subdir = f"{str(step).zfill(5)}/{tag.replace('/', '_')}"
        path = os.path.join(self._get_file_writer().log_dir, subdir)
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "tensors.tsv"), "w") as f:
            f.writelines("\t".join(repr(float(v)) for v in row) + "\n" for row in vectors)
        info = EmbeddingInfo(tensor_name=f"{tag}:{str(step).zfill(5)}", tensor_path=f"{subdir}/tensors.tsv")
        if metadata is not None:
            rows = [metadata] if not isinstance(metadata, list) else metadata
            if len(rows) != len(vectors):
                raise ValueError(f"add_embedding: {len(rows)} metadata rows for {len(vectors)} vectors")
            with open(os.path.join(path, "metadata.tsv"), "w") as f:
                if metadata_header is not None:
                    f.write("\t".join(map(str, metadata_header)) + "\n")
                for row in rows:
                    f.write(("\t".join(map(str, row)) if metadata_header is not None else str(row)) + "\n")
            info.metadata_path = f"{subdir}/metadata.tsv"
        if label_img is not None:
            images = summaries.to_numpy(label_img)
            if images.ndim != 4 or len(images) != len(vectors):
                raise ValueError(f"add_embedding: label_img should be (N, C, H, W) with N = {len(vectors)}")
            sprite = summaries._to_hwc(images, "NCHW")
            if sprite.dtype != np.uint8:
                sprite = (np.clip(sprite, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)
            with open(os.path.join(path, "sprite.png"), "wb") as f:
                f.write(encode_png(sprite))
            info.sprite.image_path = f"{subdir}/sprite.png"
            info.sprite.single_image_dim.extend([images.shape[3], images.shape[2]])
        with open(os.path.join(self._get_file_writer().log_dir, "projector_config.pbtxt"), "a") as f:
            f.write("embeddings {\n" + text_format.MessageToString(info, indent=2) + "}\n")

    def flush(self) -> None:
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.all_writers = {}

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
