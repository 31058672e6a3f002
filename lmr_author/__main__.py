"""`python -m lmr_author` runs the command line."""

from lmr_author.cli import main

raise SystemExit(main())
