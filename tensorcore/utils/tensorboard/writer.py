"""``SummaryWriter`` and ``FileWriter``: PyTorch's ``torch.utils.tensorboard`` writers,
writing TensorBoard event files without TensorFlow, TensorBoard or protobuf installed."""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from types import TracebackType
from typing import Any

import numpy as np

from . import _convert, _embedding, _proto, _summary
from ._graph import graph_def
from ._record import EventFile

__all__ = ["FileWriter", "SummaryWriter"]


def _encoded(message: Any) -> bytes:
    # Our summaries are bytes already; a protobuf message (from tensorboard's own modules)
    # is accepted too.
    return message if isinstance(message, bytes) else message.SerializeToString()


class FileWriter:
    """Writes encoded ``Event`` and ``Summary`` protocol buffers to one event file in
    ``log_dir``, created when the writer is.

    Parameters
    ----------
    log_dir : str or os.PathLike
        Directory of the event file (created if missing).
    max_queue : int
        Events kept in memory before they are written to the file.
    flush_secs : float
        How often, in seconds, pending events are written to disk.
    filename_suffix : str
        Appended to the event file's name.

    Examples
    --------
    >>> import os, tempfile
    >>> from tensorcore.utils.tensorboard import FileWriter
    >>> tmp = tempfile.TemporaryDirectory()
    >>> w = FileWriter(tmp.name)
    >>> os.path.basename(w.event_file).startswith("events.out.tfevents.")
    True
    >>> w.close()
    >>> tmp.cleanup()
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str],
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
    ) -> None:
        self._log_dir = str(log_dir)
        self._options = (max_queue, flush_secs, filename_suffix)
        self._file = EventFile(self._log_dir, *self._options)

    @property
    def event_file(self) -> str:
        """The path of the event file being written."""
        return self._file.path

    def get_logdir(self) -> str:
        """Return the directory where the event file is written."""
        return self._log_dir

    def add_event(self, event: Any, step: int | None = None, walltime: float | None = None) -> None:
        """Add an encoded ``Event`` (bytes, or a protobuf message), stamped with ``walltime``
        (default: now) and ``step``."""
        stamp = _proto.double_field(1, time.time() if walltime is None else walltime)
        if step is not None:
            stamp += _proto.int_field(2, int(step))
        # (fields appended to an encoded message override the ones before them)
        self._file.write(_encoded(event) + stamp)

    def add_summary(
        self, summary: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Add an encoded ``Summary`` (bytes, or a protobuf message) as an event."""
        self.add_event(_proto.bytes_field(5, _encoded(summary)), global_step, walltime)

    def add_graph(self, graph_profile: Any, walltime: float | None = None) -> None:
        """Add a graph: ``graph_profile`` is ``(GraphDef, RunMetadata)``, each encoded (bytes)
        or a protobuf message, as PyTorch's ``FileWriter.add_graph`` takes it (the run
        metadata is tagged ``step1``, as there)."""
        graph, run_metadata = graph_profile
        self.add_event(_proto.bytes_field(4, _encoded(graph)), None, walltime)
        tagged = _proto.string_field(1, "step1") + _proto.bytes_field(2, _encoded(run_metadata))
        self.add_event(_proto.bytes_field(8, tagged), None, walltime)

    def add_onnx_graph(self, graph: Any, walltime: float | None = None) -> None:
        raise NotImplementedError(_NO_GRAPH)

    def flush(self) -> None:
        """Write the pending events to disk."""
        self._file.flush()

    def close(self) -> None:
        """Write the pending events to disk and close the file."""
        self._file.close()

    def reopen(self) -> None:
        """After ``close()``, start a new event file in the same directory."""
        if self._file.closed:
            self._file = EventFile(self._log_dir, *self._options)


_NO_GRAPH = (
    "tensorcore's SummaryWriter does not write ONNX graphs: it has no ONNX export; "
    "add_graph(model, input) writes the model's graph"
)


class SummaryWriter:
    """Writes scalars, histograms, images, text and hyperparameters to event files in
    ``log_dir`` for TensorBoard, as ``torch.utils.tensorboard.SummaryWriter`` does.

    Values may be tensors (any device; they are copied to the CPU), NumPy arrays or Python
    numbers. Events are kept in memory and written every ``max_queue`` events, every
    ``flush_secs`` seconds, on ``flush()`` and on ``close()``; a writer that was never closed
    writes its pending events when it is garbage collected or when the interpreter exits.

    Parameters
    ----------
    log_dir : str or os.PathLike, optional
        Directory of the event files. Default: ``runs/<Mon><DD>_<HH-MM-SS>_<hostname><comment>``.
    comment : str
        Suffix of the default ``log_dir`` (ignored when ``log_dir`` is given).
    purge_step : int, optional
        When a crashed run resumes at step ``T``, events of steps >= ``T`` from the earlier
        files in ``log_dir`` are hidden by TensorBoard.
    max_queue : int
        Events kept in memory before they are written.
    flush_secs : float
        How often, in seconds, pending events are written to disk.
    filename_suffix : str
        Appended to every event file's name.

    Examples
    --------
    >>> import os, tempfile
    >>> import tensorcore as tc
    >>> from tensorcore.utils.tensorboard import SummaryWriter
    >>> tmp = tempfile.TemporaryDirectory()
    >>> with SummaryWriter(tmp.name) as writer:
    ...     for step in range(3):
    ...         writer.add_scalar("loss", 1.0 / (step + 1), step)
    ...     writer.add_histogram("weights", tc.randn(100), 2)
    ...     writer.add_image("noise", tc.rand(3, 8, 8), 2)
    ...     writer.add_text("note", "hello", 2)
    >>> [name.split(".")[:3] for name in os.listdir(tmp.name)]
    [['events', 'out', 'tfevents']]
    >>> tmp.cleanup()
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            now = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", now + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self.default_bins = _convert.DEFAULT_BINS
        self._projector_entries: list[str] = []
        self._get_file_writer()

    def _get_file_writer(self) -> FileWriter:
        # After close(), logging again starts a new event file (as PyTorch's writer does).
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                # A file_version event then a SessionLog START at step T tell TensorBoard to
                # drop the events of steps >= T it read before.
                self.file_writer.add_event(_proto.string_field(3, "brain.Event:2"), step)
                self.file_writer.add_event(_proto.bytes_field(7, _proto.int_field(1, 1)), step)
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str | os.PathLike[str]:
        """Return the directory where the event files are written.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.get_logdir() == d
        True
        """
        return self.log_dir

    def _add(self, summary: bytes, global_step: Any, walltime: float | None) -> None:
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # ---------------------------------------------------------------------- scalars
    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Log one number.

        Parameters
        ----------
        tag : str
            Name of the series.
        scalar_value : float, int, NumPy scalar, or one-element tensor or array
        global_step : int, optional
        walltime : float, optional
            Seconds since the epoch (default: now).
        new_style : bool
            Store it as a tensor of the scalars plugin (faster to load) instead of the
            ``simple_value`` field.
        double_precision : bool
            With ``new_style``, store a float64 instead of a float32.

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_scalar("loss", tc.tensor(0.25), 1)
        ...     w.add_scalar("lr", 1e-3, 1, new_style=True, double_precision=True)
        """
        summary = _summary.scalar(tag, scalar_value, new_style, double_precision)
        self._add(summary, global_step, walltime)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log several numbers in one chart: each goes, under the tag ``main_tag``, to its own
        run ``<log_dir>/<main_tag>_<tag>`` (``/`` in ``main_tag`` replaced by ``_``).

        Examples
        --------
        >>> import os, tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> tmp = tempfile.TemporaryDirectory()
        >>> with SummaryWriter(tmp.name) as w:
        ...     w.add_scalars("loss", {"train": 0.5, "val": 0.7}, 0)
        >>> sorted(n for n in os.listdir(tmp.name) if not n.startswith("events"))
        ['loss_train', 'loss_val']
        >>> tmp.cleanup()
        """
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        assert self.all_writers is not None
        for tag, value in tag_scalar_dict.items():
            run = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(run)
            if writer is None:
                writer = FileWriter(run, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run] = writer
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_tensor(
        self, tag: str, tensor: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Log a whole tensor (a ``TensorProto`` of the ``tensor`` plugin).

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_tensor("x", tc.tensor([1.0, 2.0, 3.0]), 0)
        """
        self._add(_summary.tensor(tag, tensor), global_step, walltime)

    # ------------------------------------------------------------------- histograms
    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Log the histogram of ``values`` (a tensor or array of any shape).

        ``bins="tensorflow"`` uses TensorFlow's edges (``self.default_bins``: +-1e-12 growing by
        10% to +-1e20, and 0); anything else is passed to ``numpy.histogram`` (``"auto"``,
        ``"fd"``, ``"doane"``..., a number of bins, or the edges). ``max_bins`` merges
        neighbouring bins until at most that many remain.

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     for step in range(3):
        ...         w.add_histogram("activations", tc.randn(1000) + step, step)
        ...     w.add_histogram("uniform", tc.rand(100), 0, bins="auto")
        """
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._add(_summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag: str,
        min: float,
        max: float,
        num: int,
        sum: float,
        sum_squares: float,
        bucket_limits: Any,
        bucket_counts: Any,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a histogram already bucketed: ``bucket_limits[i]`` is the upper edge of the
        bucket that holds ``bucket_counts[i]`` values.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_histogram_raw("h", 0.0, 2.0, 3, 3.0, 5.0, [1.0, 2.0], [1, 2], 0)
        """
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        summary = _summary.histogram_raw(
            tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts
        )
        self._add(summary, global_step, walltime)

    # ----------------------------------------------------------------------- images
    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Log an image, encoded as PNG.

        ``img_tensor``'s layout is ``dataformats``: ``"CHW"`` (default), ``"HWC"``, ``"HW"``,
        ``"WH"``... with 1 (grey), 3 (RGB) or 4 (RGBA) channels. A ``uint8`` image is stored as
        it is; any other dtype is taken as [0, 1], scaled by 255 and clipped.

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_image("rgb", tc.rand(3, 16, 16), 0)
        ...     w.add_image("hwc", tc.rand(16, 16, 3), 0, dataformats="HWC")
        ...     w.add_image("grey", tc.rand(16, 16), 0, dataformats="HW")
        """
        self._add(_summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Log a batch of images (``"NCHW"`` by default, or ``"NHWC"``...) as one grid image,
        8 images a row.

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_images("batch", tc.rand(16, 3, 8, 8), 0)
        """
        self._add(_summary.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Log a matplotlib figure (or a list of figures, as a grid) as an image; ``close``
        closes it afterwards. Needs matplotlib.

        Examples
        --------
        >>> import tempfile
        >>> from matplotlib.figure import Figure
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> fig = Figure(figsize=(2, 2))
        >>> _ = fig.add_subplot().plot([0, 1, 4])
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_figure("curve", fig, 0)
        """
        if isinstance(figure, list):
            images = np.stack([_convert.figure_to_chw(f, close) for f in figure])
            self.add_image(tag, images, global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, _convert.figure_to_chw(figure, close), global_step, walltime)

    # ------------------------------------------------------------------ text, audio
    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log a string (Markdown), shown by TensorBoard's text plugin under
        ``<tag>/text_summary``.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_text("config", "lr = **0.1**", 0)
        """
        self._add(_summary.text(tag, text_string), global_step, walltime)

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Log a mono sound of samples in [-1, 1] (shape ``(1, L)`` or ``(L,)``) as a WAV.

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_audio("tone", tc.sin(tc.arange(800) * 0.1).unsqueeze(0), 0, 8000)
        """
        self._add(_summary.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    # -------------------------------------------------------------------- pr curves
    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve of binary ``labels`` and ``predictions`` in [0, 1]
        (``num_thresholds`` at most 127).

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_pr_curve("pr", tc.randint(0, 2, (100,)), tc.rand(100), 0)
        """
        num_thresholds = min(num_thresholds, 127)
        curves = _summary.pr_curve_data(
            _convert.make_np(labels), _convert.make_np(predictions), num_thresholds, weights
        )
        self._add(_summary.pr_curve_raw(tag, curves, num_thresholds), global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: int | None = None,
        num_thresholds: int = 127,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Log a precision-recall curve from its counts, one value per threshold each.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_pr_curve_raw("pr", [3, 1], [2, 0], [0, 2], [0, 2], [0.6, 1.0], [1.0, 0.3],
        ...                        0, num_thresholds=2)
        """
        num_thresholds = min(num_thresholds, 127)
        rows = (
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
        )
        curves = np.stack([_convert.as_array(r) for r in rows])
        self._add(_summary.pr_curve_raw(tag, curves, num_thresholds), global_step, walltime)

    # --------------------------------------------------------------- hyperparameters
    def add_hparams(
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        hparam_domain_discrete: dict[str, list[Any]] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Log a set of hyperparameters and their metrics for TensorBoard's HParams tab, in
        the run ``<log_dir>/<run_name>`` (default: the current time). Values may be ``int``,
        ``float``, ``str``, ``bool`` (logged as 0 or 1, as PyTorch does), a one-element tensor,
        or ``None`` (skipped); the metrics are also logged as scalars in that run.

        Examples
        --------
        >>> import os, tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> tmp = tempfile.TemporaryDirectory()
        >>> with SummaryWriter(tmp.name) as w:
        ...     w.add_hparams({"lr": 0.1, "optimizer": "sgd"}, {"hparam/accuracy": 0.9},
        ...                   run_name="trial0")
        >>> os.path.isdir(os.path.join(tmp.name, "trial0"))
        True
        >>> tmp.cleanup()
        """
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w:
            file_writer = w._get_file_writer()
            for summary in summaries:
                file_writer.add_summary(summary, global_step)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    def add_custom_scalars(self, layout: dict[str, dict[str, list[Any]]]) -> None:
        """Lay out charts of the custom-scalars plugin: ``{category: {chart: [kind, tags]}}``
        with kind ``"Multiline"`` (any tags) or ``"Margin"`` (three tags: value, lower,
        upper).

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_custom_scalars({"losses": {"all": ["Multiline", ["loss/train", "loss/val"]]}})
        """
        self._get_file_writer().add_summary(_summary.custom_scalars(layout))

    def add_custom_scalars_multilinechart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """``add_custom_scalars`` of one multiline chart of ``tags``.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_custom_scalars_multilinechart(["loss/train", "loss/val"])
        """
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """``add_custom_scalars`` of one margin chart of three tags (value, lower, upper).

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_custom_scalars_marginchart(["acc", "acc_low", "acc_high"])
        """
        if len(tags) != 3:
            raise AssertionError(f"Expected 3 tags, got {len(tags)}.")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    # ------------------------------------------------------------- not implemented
    def add_graph(
        self,
        model: Any,
        input_to_model: Any = None,
        verbose: bool = False,
        use_strict_trace: bool = True,
    ) -> None:
        """Write the graph of ``model(*input_to_model)`` (a tensor or a tuple of them) for
        TensorBoard's graph plugin. PyTorch writes a TorchScript trace; tensorcore writes the
        operations recorded by autograd, named in the scopes of the modules that ran them
        (``Net/Linear[fc]/addmm``); ``verbose`` and ``use_strict_trace`` change nothing.

        Examples
        --------
        >>> import tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as w:
        ...     w.add_graph(tc.nn.Sequential(tc.nn.Linear(3, 2), tc.nn.ReLU()), tc.ones(1, 3))
        """
        # RunMetadata: step_stats 1 (StepStats: dev_stats 1, DeviceStepStats: device 1)
        stats = _proto.bytes_field(
            1, _proto.bytes_field(1, _proto.string_field(1, "/device:CPU:0"))
        )
        self._get_file_writer().add_graph((graph_def(model, input_to_model), stats))

    def add_onnx_graph(self, prototxt: Any) -> None:
        """Not supported: raises ``NotImplementedError``."""
        raise NotImplementedError(_NO_GRAPH)

    def add_embedding(
        self,
        mat: Any,
        metadata: list[Any] | None = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: list[Any] | None = None,
    ) -> None:
        """Add the N x D matrix ``mat`` to TensorBoard's embedding projector, with a label per
        row (``metadata``; with ``metadata_header``, a list of columns per row) and an
        N x C x H x W image per row (``label_img``, floats in [0, 1]), in
        ``<log_dir>/<global_step:05d>/<tag>``.

        Examples
        --------
        >>> import os, tempfile
        >>> import tensorcore as tc
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> tmp = tempfile.TemporaryDirectory()
        >>> with SummaryWriter(tmp.name) as w:
        ...     w.add_embedding(tc.randn(4, 3), metadata=["a", "b", "c", "d"])
        >>> sorted(os.listdir(os.path.join(tmp.name, "00000", "default")))
        ['metadata.tsv', 'tensors.tsv']
        >>> tmp.cleanup()
        """
        _embedding.add_embedding(
            self._get_file_writer().get_logdir(),
            self._projector_entries,
            mat,
            metadata,
            label_img,
            global_step,
            tag,
            metadata_header,
        )

    def add_mesh(self, tag: str, vertices: Any, *args: Any, **kwargs: Any) -> None:
        """Not supported yet: raises ``NotImplementedError``."""
        raise NotImplementedError("tensorcore's SummaryWriter does not write meshes (add_mesh)")

    def add_video(self, tag: str, vid_tensor: Any, *args: Any, **kwargs: Any) -> None:
        """Not supported: raises ``NotImplementedError`` (PyTorch encodes a GIF with moviepy)."""
        raise NotImplementedError(
            "tensorcore's SummaryWriter does not write videos (add_video); log the frames "
            "with add_images"
        )

    def add_image_with_boxes(
        self, tag: str, img_tensor: Any, box_tensor: Any, *args: Any, **kwargs: Any
    ) -> None:
        """Not supported yet: raises ``NotImplementedError``."""
        raise NotImplementedError(
            "tensorcore's SummaryWriter does not draw boxes (add_image_with_boxes); draw them "
            "into the image and use add_image"
        )

    # ---------------------------------------------------------------------- lifetime
    def flush(self) -> None:
        """Write every pending event to disk.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> tmp = tempfile.TemporaryDirectory()
        >>> w = SummaryWriter(tmp.name)
        >>> w.add_scalar("x", 1.0, 0)
        >>> w.flush()
        >>> w.close()
        >>> tmp.cleanup()
        """
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self) -> None:
        """Write every pending event and close the files; logging afterwards starts new files.

        Examples
        --------
        >>> import tempfile
        >>> from tensorcore.utils.tensorboard import SummaryWriter
        >>> tmp = tempfile.TemporaryDirectory()
        >>> w = SummaryWriter(tmp.name)
        >>> w.close()
        >>> w.close()  # closing twice is allowed
        >>> tmp.cleanup()
        """
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        self.close()
