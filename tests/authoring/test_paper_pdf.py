"""Tests of lmr_author.authoring.paper_pdf: real PDFs written and read back with PyMuPDF."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest

from lmr_author.authoring.paper_pdf import (
    load_paper_json,
    make_paper_pdf,
    paper_html,
    pdf_to_pages,
    write_paper_json,
)
from lmr_author.util.errors import UserError

SECTIONS = [
    (
        "1 Method",
        "The loss of one pair is defined as follows.\n\n"
        "$$ L = −log σ(β · h)   (1)\n\n"
        "where h is the difference of log-ratios and β is a temperature.",
    ),
    ("2 Results", "The findings confirm the first effect."),
]


def test_pdf_round_trip_keeps_title_sections_and_equations(tmp_path: Path) -> None:
    pdf = tmp_path / "paper.pdf"
    pages_written = make_paper_pdf(
        "A Tiny Paper", SECTIONS, pdf, authors="A. Author", abstract="We study things."
    )
    pages = pdf_to_pages(pdf)
    assert pages_written == 1
    assert list(pages) == ["1"]
    text = pages["1"]
    for expected in ("A Tiny Paper", "A. Author", "1 Method", "2 Results", "L = −log σ(β · h)"):
        assert expected in text
    assert text.index("1 Method") < text.index("(1)") < text.index("2 Results")


def test_long_papers_flow_over_pages_numbered_from_one(tmp_path: Path) -> None:
    pdf = tmp_path / "long.pdf"
    body = "\n\n".join(f"Paragraph {i} " + "words " * 80 for i in range(40))
    count = make_paper_pdf("Long", [("1 Everything", body)], pdf)
    pages = pdf_to_pages(pdf)
    assert count >= 3
    assert list(pages) == [str(n) for n in range(1, count + 1)]
    assert "Paragraph 0" in pages["1"]
    assert "Paragraph 39" not in pages["1"]
    assert "Paragraph 39" in pages[str(count - 1)] + pages[str(count)]


def test_ligatures_are_expanded_in_the_text(tmp_path: Path) -> None:
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf("Fine", SECTIONS, pdf)
    text = pdf_to_pages(pdf)["1"]
    assert "defined" in text and "findings" in text and "first" in text
    assert "\ufb01" not in text


def test_pdf_bytes_are_deterministic(tmp_path: Path) -> None:
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    make_paper_pdf("Same", SECTIONS, first)
    make_paper_pdf("Same", SECTIONS, second)
    assert first.read_bytes() == second.read_bytes()
    make_paper_pdf("Other", SECTIONS, second)
    assert first.read_bytes() != second.read_bytes()


def test_write_paper_json_writes_page_map_and_leaves_no_temp_files(tmp_path: Path) -> None:
    pdf = tmp_path / "paper.pdf"
    make_paper_pdf("A Tiny Paper", SECTIONS, pdf)
    out = tmp_path / "repo" / "paper.json"
    pages = write_paper_json(pdf, out)
    assert json.loads(out.read_text(encoding="utf-8")) == pages == pdf_to_pages(pdf)
    assert load_paper_json(out) == pages
    assert sorted(p.name for p in out.parent.iterdir()) == ["paper.json"]


def test_html_escapes_text() -> None:
    html = paper_html("a < b & c", [("1 <x>", "1 < 2")])
    assert "&lt;" in html and "<x>" not in html


def test_missing_pdf_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such PDF file") as info:
        pdf_to_pages(tmp_path / "nope.pdf")
    assert "nope.pdf" in str(info.value)


def test_non_pdf_is_a_user_error(tmp_path: Path) -> None:
    fake = tmp_path / "paper.pdf"
    fake.write_text("<html>not a pdf</html>", encoding="utf-8")
    with pytest.raises(UserError, match="cannot read this file as a PDF") as info:
        pdf_to_pages(fake)
    assert str(fake) in str(info.value)
    assert "\n" not in str(info.value)


def test_password_protected_pdf_is_a_user_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain.pdf"
    make_paper_pdf("Secret", SECTIONS, plain)
    locked = tmp_path / "locked.pdf"
    with pymupdf.open(plain) as doc:
        doc.save(locked, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="pw")
    with pytest.raises(UserError, match="password-protected"):
        pdf_to_pages(locked)


@pytest.mark.parametrize(
    "content",
    ['["page one"]', '{"1": 3}', "{not json", ""],
    ids=["list", "non-string-text", "bad-json", "empty"],
)
def test_bad_paper_json_is_a_user_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "paper.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UserError) as info:
        load_paper_json(path)
    assert str(path) in str(info.value)


def test_missing_paper_json_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"no paper\.json"):
        load_paper_json(tmp_path / "paper.json")
