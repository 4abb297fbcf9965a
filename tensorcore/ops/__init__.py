"""The operator layer: the table (``schema``), frontends (``meta``), views, composites and
the derived Python API."""
