"""Algorithms, one module per paper, each exposing ALGORITHMS: list[AlgorithmEntry]."""
