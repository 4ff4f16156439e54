"""Writes the fixtures whose bytes matter (encodings, line ends, a workbook).

Run from anywhere: ``python tests/data/readers/make_binary_fixtures.py``. The outputs are
committed; this script only documents exactly how they were made.
"""

from pathlib import Path

HERE = Path(__file__).resolve().parent

LATIN1_RIS = """TY  - JOUR
TI  - Über die Möglichkeit präziser Messungen in der Gödel-Ära
AU  - Müller, Jürgen
AU  - Dvorak, Antonín
PY  - 1998
AB  - Diese Studie untersucht, wie genaue Messungen möglich sind. Les résultats sont présentés à la façon d'un café-théâtre: « naïve » et élégante.
ER  - 

TY  - JOUR
TI  - Zweite Arbeit über Größen und Maße
AU  - Weiß, Günther
PY  - 1999
AB  - Eine kürzere Zusammenfassung über Straßen, Größen und Maße.
ER  - 
"""

GBK_BIB = """@article{zhang2020,
  author = {张伟 and 李娜},
  title = {基于深度学习的自然语言处理研究综述},
  journal = {计算机学报},
  year = {2020},
  abstract = {本文综述了近年来深度学习在自然语言处理领域的研究进展，包括词向量、循环神经网络、注意力机制和预训练语言模型，并讨论了未来的研究方向。},
}
"""

WOS_TAB = (
    "PT\tAU\tAF\tTI\tSO\tDE\tID\tAB\tPY\tDI\tPM\tUT\t\n"
    "J\tLovelace, A; Babbage, C\tLovelace, Ada; Babbage, Charles\tTab-delimited Web of Science export\t"
    "PHILOSOPHICAL TRANSACTIONS\tengines; computation\tANALYTICAL ENGINE\t"
    "Saved as UTF-16 with a byte order mark, as Web of Science used to.\t1843\t10.1098/rstl.1843.0002\t\tWOS:2\t\n"
)

UTF16_CSV = "title,abstract,year\nNo byte order mark,UTF-16 without a BOM still reads.,2001\n"

BOM_CSV = "title,abstract\nStarts with a BOM,The header's first column must still be called title.\n"

# CR (classic Mac), LF and CRLF in one file: line 1 CRLF, 2 CR, 3 LF ... as editors count them.
MIXED_EOL = (
    "TY  - JOUR\r\nTI  - Mixed line ends\rPY  - 2010\nAB  - CR, LF and CRLF in one file.\r\nER  - \r\n"
    "\r\n"
    "TY  - JOUR\rTI  - Second record on line seven\rPY  - 2011\rER  - \r"
)


def main() -> None:
    (HERE / "latin1.ris").write_bytes(LATIN1_RIS.encode("cp1252"))
    (HERE / "gbk.bib").write_bytes(GBK_BIB.encode("gbk"))
    (HERE / "wos_tab_utf16.txt").write_bytes("\ufeff".encode("utf-16-le") + WOS_TAB.encode("utf-16-le"))
    (HERE / "utf16_nobom.csv").write_bytes(UTF16_CSV.encode("utf-16-le"))
    (HERE / "bom.csv").write_bytes(b"\xef\xbb\xbf" + BOM_CSV.encode("utf-8"))
    (HERE / "mixed_eol.ris").write_bytes(MIXED_EOL.encode("utf-8"))
    import pandas as pd

    first = pd.DataFrame(
        {
            "Title": ["Workbook record one", "Workbook record two"],
            "Abstract": ["Read from the first sheet.", ""],
            "Authors": ["Ada Lovelace; Grace Hopper", ""],
            "Year": [2021, 2022],
            "DOI": ["10.1000/xlsx.1", None],
            "label_included": [1, 0],
        }
    )
    with pd.ExcelWriter(HERE / "sheet.xlsx", engine="openpyxl") as writer:
        first.to_excel(writer, sheet_name="records", index=False)
        pd.DataFrame({"note": ["a second sheet is ignored"]}).to_excel(writer, sheet_name="notes", index=False)


if __name__ == "__main__":
    main()
