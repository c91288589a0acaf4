"""Theorem library: one module per paper, each exposing ``PAPER`` (metadata) and ``THEOREMS``.

Modules are discovered automatically (:mod:`fedbounds.registry`): adding a paper touches no
shared code.
"""
