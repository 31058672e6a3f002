"""Draw an agreement report as rich tables on stdout (``NO_COLOR`` is honoured by rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from lmr_author.labels.agreement_report import AgreementReport
from lmr_author.labels.report import sections


def print_report(report: AgreementReport, *, limit: int | None = 50) -> None:
    """The report's sections as tables; ``limit`` caps the rows of the long lists."""
    console = Console()
    inputs = report.inputs
    console.print(
        f"[bold]Agreement[/bold]: annotators {', '.join(inputs.annotators) or 'none'}; "
        f"{inputs.items} items; {inputs.human_labels_counted} human and "
        f"{inputs.judge_labels_counted} judge labels counted."
    )
    for section in sections(report, limit=limit):
        if not section.rows:
            console.print(f"[bold]{section.title}[/bold]: none.")
            continue
        table = Table(title=section.title, title_justify="left", caption=section.note or None)
        for column in section.header:
            table.add_column(column, overflow="fold")
        for row in section.rows:
            table.add_row(*row)
        console.print(table)
