"""Authoring tasks without the TUI: the library that `lmr-author new-task` drives.

Each step of the new-task flow is a plain function here (source checkout, paper
conversion, instruction draft, scaffolds, building the task folder), so a task can be
made from a test, a script or a spec file exactly as the TUI makes it.
"""
