"""PDF -> paper.json (page number -> text) with PyMuPDF."""
