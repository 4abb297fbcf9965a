"""tensorcore's backend conformance suite: run by a backend against itself, through the
pytest plugin :mod:`tensorcore.testing.pytest_plugin`.

For every operator the backend claims (each operator whose kernel lookup for the device
type, or layout, finds a kernel: :func:`tensorcore.backend.resolved_kernels`), with the CPU
backend as the oracle:

``check_samples``
    the operator's samples (:mod:`tensorcore.testing.samples`) give the CPU's results;
``check_variants``
    views write through to their base, in-place (``op_``) and ``out=`` variants give the
    CPU's results and return the very tensor they wrote;
``check_errors``
    bad input (:mod:`tensorcore.testing.fuzz`) raises the CPU's exception classes;
``check_dtypes``
    every dtype the operator declares works, or is refused with a ``TypeError`` that names
    the plugin (a kernel registered with ``dtypes=``);
``check_gradients``
    ``tensorcore.autograd.gradcheck`` in float64 for differentiable operators;
``check_transfers``
    tensors of every dtype move to the device and back (``.to``, ``copy_``, non-contiguous
    sources) with their values, dtype and shape.

Run it with ``pytest --tensorcore-device=NAME`` (``--tensorcore-layout``,
``--tensorcore-full``, ``--tensorcore-gaps``); ``docs/writing-a-backend.md`` ("Testing a
backend") says more. The modules are named ``check_*.py`` so that only the plugin collects
them: a plain ``pytest`` run of a tree that contains this package collects nothing here.
"""
