"""PyTorch's legacy ``torch.utils.model_zoo``: ``load_url`` is
:func:`tensorcore.hub.load_state_dict_from_url`."""

from __future__ import annotations

from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
