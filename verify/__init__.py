"""Numeric side: executor, algorithms, exact recursions, fitting, verifiers, sweeps."""
