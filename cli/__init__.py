"""The command-line tools, one module per command (``bluemoon-admin``: a package, one module per group)."""
