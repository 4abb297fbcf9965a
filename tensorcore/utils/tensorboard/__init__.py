"""TensorBoard logging: PyTorch's ``torch.utils.tensorboard`` API (``SummaryWriter``), writing
event files that TensorBoard reads, with only the standard library and NumPy (no TensorFlow,
TensorBoard or protobuf needed to write them; install ``tensorboard`` to view them).

A PyTorch training script's ``from torch.utils.tensorboard import SummaryWriter`` becomes
``from tensorcore.utils.tensorboard import SummaryWriter``.

Examples
--------
>>> import tempfile
>>> from tensorcore.utils.tensorboard import SummaryWriter
>>> with tempfile.TemporaryDirectory() as d, SummaryWriter(d) as writer:
...     writer.add_scalar("loss", 0.5, 0)
"""

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
