"""What a solver can read that hands it the answer: copies of the goal functions.

Headless, on cst/ and domain/: `validate`'s ``answer-leak`` rule, ``prepare``, the
new-task app's Mask step and goal suggestions, and the published benchmark's leak table
all ask here. `copies.find_copies` is the comparison, `task_copies.task_copies` a task's
copies, `remedy.remedy` the mechanical repairs (``validate --fix``), and
`installed.installed_copies` the goal among the packages of a task's image
(``validate --run``).
"""
