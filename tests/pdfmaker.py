"""Write small, valid, text-bearing PDFs (used to build the fixture `manual.pdf`).

Run `python tests/pdfmaker.py` to regenerate tests/fixtures/docs/reference/manual.pdf.
"""

from __future__ import annotations

from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], title: str = "") -> bytes:
    """Build a PDF with one page per list of text lines, in Helvetica 12 pt."""
    objects: list[bytes] = []
    n_pages = len(pages)
    font_id = 3 + 2 * n_pages
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    for i, lines in enumerate(pages):
        content = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({_escape(l)}) '" for l in lines) + " ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> /Contents {4 + 2 * i} 0 R >>".encode()
        )
        data = content.encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    info_id = len(objects) + 1
    objects.append(f"<< /Title ({_escape(title)}) >>".encode())
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{off:010d} 00000 n \n".encode() for off in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info {info_id} 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


MANUAL = [
    ["Acme HTTP operator manual", "Chapter 1: Deployment", "Run one client per process."],
    ["Chapter 2: Proxies", "Set HTTPS_PROXY to route traffic through a corporate proxy.",
     "The proxy must allow CONNECT to port 443."],
]

if __name__ == "__main__":
    target = Path(__file__).parent / "fixtures" / "docs" / "reference" / "manual.pdf"
    target.write_bytes(make_pdf(MANUAL, title="Acme HTTP manual"))
    print(target)
