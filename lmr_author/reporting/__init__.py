"""Reporting: the paper's tables and analyses computed from results, labels and tasks.

Every module here takes plain typed inputs and returns typed results; drawing (tables,
plots, HTML) belongs to the ``report`` command. Modules are imported on their own
(``lmr_author.reporting.regression`` pulls in statsmodels, the others do not).
"""
