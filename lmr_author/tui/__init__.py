"""Textual apps (new-task, human review): thin clients of the headless library."""
