"""Claim modules, one per paper, each exposing CLAIMS."""
