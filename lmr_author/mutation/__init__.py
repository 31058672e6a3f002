"""Mutation testing of a task's goal function: how strong are its unit tests?

`mutants` makes small wrong versions of the golden goal function with libcst (flipped
comparisons, changed constants, swapped arithmetic and boolean operators); `score` runs
the task's tests on each, in the task's image, and reports the share the tests kill and
the survivors as diffs, so an annotator can add a fixture that kills them.
"""
