"""The domain model: what a benchmark, a task, a run's verdict and a score are.

``task`` (the Task / Implementation model: load, resolve paths, save), ``benchmark``
(the one loader of a benchmark folder), ``hardware`` (what one run of a task needs),
``categories`` (the paper's nine task categories), ``identity`` (the one identity of a
system and of a task, and their aliases), ``item_key`` (the key of an item),
``verdicts`` (the verdict type and its "worst of" rule), ``three_way`` (the LI / LC /
CC label), ``scoring`` (the one per-system row), ``thin_rows`` (rows that rest on few
items), ``table_model`` (the one table model commands lay out), ``replay_codec`` (the
replay fixture format). Everything above reads these; they import only
`lmr_author.util`.
"""
