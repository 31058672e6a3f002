"""The sandbox: run untrusted candidates in fresh containers, read verdicts.

The containers run task images that `lmr_author.images` builds, through the runtime of
`lmr_author.runtime` (engine, labels, `InfraError`).

Modules: ``runner`` (one implementation's tests in fresh containers), ``harness`` (our
test harness, shipped into each container, and its report), ``isolation`` (the plan of
an isolated run), ``decision`` (reports to verdicts), ``limits`` (a run's limits),
``run_result`` (what a run gives back), ``golden`` (the golden code's test counts,
proven and kept), ``replay`` (replay outputs compared on the host),
``provisions`` (GPUs, the model cache), ``needs`` (not runnable here), ``apptainer`` and
``apptainer_run`` (runs from SIF files), ``housekeeping`` (list, prune, containers of
evaluations that died). docs/threat-model.md says what each defends.
"""
