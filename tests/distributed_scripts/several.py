"""Several of the scripts here, one after another, in one MPI job (run under mpiexec).

Starting ``n`` interpreters and MPI costs more than most scripts' own work, so the test
suite runs the scripts that end cleanly in one job per world size. The argument is a JSON
list of ``[label, script, args, env]``: each script runs as ``__main__`` with ``sys.argv``
``[script, *args]`` and ``env`` in ``os.environ``; its output comes out with each line
prefixed by ``[label] ``, and an exception it raises as ``[label] rank R raised ...`` (the
next script runs nonetheless; its collectives time out if a rank is missing).
"""

import contextlib
import io
import json
import os
import runpy
import sys
import traceback
from pathlib import Path

import tensorcore.distributed as dist

here = Path(__file__).resolve().parent
for label, script, args, env in json.loads(sys.argv[1]):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    sys.argv = [str(here / script), *args]
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(str(here / script), run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (0, None):
            out.write(f"rank {os.environ.get('PMI_RANK', '?')} exited with {exc.code}\n")
    except BaseException:  # noqa: BLE001 (reported, and the next script runs)
        out.write(f"rank {os.environ.get('PMI_RANK', '?')} raised {traceback.format_exc()}")
        if dist.is_initialized():
            dist.destroy_process_group()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    sys.stdout.write("".join(f"[{label}] {line}\n" for line in out.getvalue().splitlines()))
    sys.stdout.flush()
