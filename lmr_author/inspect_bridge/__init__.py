"""LMR-style benchmarks inside Inspect AI (the optional extra ``lmr-author[inspect]``).

The package is named for what it is, a bridge, and not ``inspect_ai`` or ``inspect``,
which would read as the distribution or the standard library module. Modules:
``task`` (``lmr_author/lmr_bench``), ``samples`` (one sample per implementation, per
setting), ``solvers`` (standard prompting, an agent), ``sandbox`` and ``container``
(the ``lmr-author`` sandbox provider: lmr-author's container and limits), ``endpoints``
(what to use when the model server lacks the endpoint Inspect called), ``runs`` and
``scorer`` (the verdict of ``lmr-author eval`` and the judge's label), ``explain`` (what
a score says of a failed run: each test's reason and output, capped), ``replay``
(Inspect's mock model answering with a predictions file) and ``logs`` (an Inspect log
read back as an eval output folder, for ``lmr-author report``). docs/inspect.md says
how to run it.
"""
