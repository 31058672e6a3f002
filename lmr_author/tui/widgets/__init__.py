"""Widgets the Textual apps share: the full-output log view and the $EDITOR round trip."""
