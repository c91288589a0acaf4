"""Algorithm modules, one per paper: every Algorithm (and Counterexample) a module defines is
discovered by :mod:`fedbounds.verify.catalog`."""
