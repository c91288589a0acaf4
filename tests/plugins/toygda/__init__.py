"""A sixth paper that lives only under ``tests/``: a textbook theorem, one problem, one algorithm
and one claim, discovered through ``FEDBOUNDS_PAPERS=toygda`` (or the ``fedbounds.papers``
entry-point group) without any edit to fedbounds. It proves the "adding a paper" recipe of
CONTRIBUTING.md."""
