"""tensorcore-meta: the ``meta`` device, whose tensors have shapes, dtypes and strides and no
data.

Build a model on it to check shapes and count parameters without allocating, then
materialise it on a real device (``Module.to_empty(device=...)``), as with PyTorch's meta
device. Written only against tensorcore's public backend SPI (:mod:`tensorcore.backend`).

Examples
--------
>>> import tensorcore as tc
>>> x = tc.empty(3, 4, device="meta")
>>> y = (x @ x.t()).softmax(-1)
>>> y.shape, y.dtype, y.device
(tensorcore.Size([3, 3]), tensorcore.float32, device(type='meta'))
"""
