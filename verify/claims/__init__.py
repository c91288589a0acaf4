"""Claim modules, one per paper (or a package for a large paper): every ClaimSpec a module
defines is discovered by :mod:`fedbounds.verify.catalog`."""
