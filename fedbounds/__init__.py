"""fedbounds: convergence theory of federated min-max and compositional optimization, runnable."""

__version__ = "0.1.0"
