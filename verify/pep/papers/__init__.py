"""PEP models, one module per paper: every :class:`~fedbounds.verify.pep.PepModel` a module
defines is discovered by :func:`fedbounds.verify.pep.models` (a plugin paper declares its own in
its ``pep`` module)."""
