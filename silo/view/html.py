"""HTML building blocks of ``silo-view`` reports: escaping, JSON blocks, tables, the page shell.

Contract: every function returns an HTML fragment (a ``str``) in which every piece of data has
gone through :func:`esc` — run artifacts hold agent and model text and are treated as hostile —
and ids through :func:`anchor`. Nothing reads the clock or the disk: the same data gives the
same bytes. :func:`page` wraps a body in a complete, self-contained document (inline CSS and a
few lines of inline JS, no network, no external asset) carrying the :data:`GENERATOR` marker by
which :func:`silo.view.site.write_report` recognises a report it may replace.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Sequence

from silo.json_types import JSON

__all__ = [
    "GENERATOR",
    "anchor",
    "badge",
    "esc",
    "facts",
    "fmt_ms",
    "json_block",
    "json_text",
    "kv_table",
    "mapping",
    "records",
    "page",
    "table",
    "text_block",
]

GENERATOR = '<meta name="generator" content="silo-view">'
_LONG_CHARS = 600  # a block longer than this (or than _LONG_LINES lines) starts collapsed
_LONG_LINES = 14
_PREVIEW_CHARS = 110

_CSS = """
:root{--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;
--bg2:#f6f8fa;--failbg:#ffebe9;--warnbg:#fff8c5;--passbg:#dafbe1}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;
margin:0 auto;padding:20px 28px 60px;max-width:1180px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;padding-bottom:4px;
border-bottom:1px solid var(--line)}h3{font-size:15px;margin:18px 0 6px}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
table{border-collapse:collapse;margin:6px 0;width:100%}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--bg2);font-weight:600}td.num,th.num{text-align:right}
table.kv{width:auto}table.kv th{white-space:nowrap}
pre{background:var(--bg2);border:1px solid var(--line);border-radius:6px;padding:6px 8px;
margin:4px 0;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,
SFMono-Regular,Menlo,Consolas,monospace;max-height:520px;overflow:auto}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
details>summary{cursor:pointer}details.long>summary{font:12px ui-monospace,Menlo,monospace;
color:var(--muted)}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:700;font-size:12px;
color:#fff;background:var(--muted)}
.badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}
.badge.warn{background:var(--warn)}
.verdict{font-size:16px;padding:3px 12px}
.muted{color:var(--muted)}.err{color:var(--fail);font-weight:600}
tr.fail-required td{background:var(--failbg)}tr.fail-optional td{background:var(--warnbg)}
.ev{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;
margin:8px 0;padding:6px 10px}
.ev.call{border-left-color:#0969da}.ev.error{border-left-color:var(--fail);
background:#fffafa}.ev.model{border-left-color:#8250df}.ev.output{border-left-color:var(--pass)}
.ev.warning{border-left-color:var(--warn);background:var(--warnbg)}
.ev-head{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap}
.ev-head .at{margin-left:auto;color:var(--muted);font-size:12px}
.ev-kind{font-weight:600}.label{color:var(--muted);font-size:12px;margin-top:4px}
.ids{font:12px ui-monospace,Menlo,monospace}.ids .add{color:var(--pass)}
.ids .rem{color:var(--fail)}.ids .chg{color:var(--warn)}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:8px 20px;
margin:12px 0}.facts>div{border-bottom:1px solid var(--line);padding:2px 0 4px}
.facts b{display:block;font-size:11px;color:var(--muted);font-weight:600;letter-spacing:.03em;
text-transform:uppercase}.facts>div.wide{grid-column:1/-1}
h1 .badge{vertical-align:3px;margin-right:8px}
nav{margin:8px 0 0;font-size:13px}nav a{margin-right:12px}
details.run{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:6px 10px}
details.run[open]{background:#fcfcfd}details.run h1{font-size:18px;margin-top:10px}
details.run h2{font-size:15px}details.run>summary{font-weight:600}
.pill{display:inline-block;min-width:22px;text-align:center;border-radius:9px;padding:0 6px;
margin:1px;font-size:12px;color:#fff;background:var(--fail)}.pill.pass{background:var(--pass)}
footer{margin-top:40px;color:var(--muted);font-size:12px}
"""

# Opens the <details> holding the element a link points at, and drives expand/collapse buttons.
_JS = """
function siloShow(){var h=location.hash.slice(1);try{h=decodeURIComponent(h);}catch(e){}if(!h)return;
var e=document.getElementById(h);if(!e)return;
for(var n=e;n;n=n.parentElement){if(n.tagName==='DETAILS')n.open=true;}e.scrollIntoView();}
window.addEventListener('hashchange',siloShow);window.addEventListener('load',siloShow);
function siloAll(open){document.querySelectorAll('details.run').forEach(function(d){
d.open=open;});}
"""


def esc(value: JSON) -> str:
    """``value`` as text, HTML-escaped (quotes too, so it is safe in attributes)."""
    return html.escape(value if isinstance(value, str) else str(value), quote=True)


def anchor(*parts: str) -> str:
    """An HTML id made of ``parts``: letters, digits, ``-`` and ``_`` only."""
    return "-".join(re.sub(r"[^A-Za-z0-9_-]+", "_", part) for part in parts)


def json_text(value: JSON) -> str:
    """``value`` as 2-space indented JSON (non-JSON values as their ``str``)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def text_block(text: str, css: str = "") -> str:
    """``text`` in a ``<pre>``; collapsed in a ``<details>`` with a one-line preview when long."""
    pre = f'<pre class="{css}">{esc(text)}</pre>' if css else f"<pre>{esc(text)}</pre>"
    lines = text.count("\n") + 1
    if len(text) <= _LONG_CHARS and lines <= _LONG_LINES:
        return pre
    flat = " ".join(text.split())
    preview = flat[:_PREVIEW_CHARS] + ("…" if len(flat) > _PREVIEW_CHARS else "")
    return (
        f'<details class="long"><summary>{esc(preview)} ({lines} lines, {len(text)} chars)'
        f"</summary>{pre}</details>"
    )


def json_block(value: JSON) -> str:
    """A JSON value as a :func:`text_block`: on one line when short, a string unquoted."""
    if isinstance(value, str):
        return text_block(value)
    flat = json.dumps(value, ensure_ascii=False, default=str)
    return text_block(flat if len(flat) <= _PREVIEW_CHARS else json_text(value))


def mapping(value: JSON) -> dict[str, JSON]:
    """``value`` when it is a JSON object, else ``{}`` (artifact fields may be anything)."""
    return value if isinstance(value, dict) else {}


def records(value: JSON) -> list[dict[str, JSON]]:
    """The JSON objects in ``value`` when it is a list, else ``[]``."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def table(
    headers: Sequence[str], rows: Iterable[Sequence[str]], row_classes: Sequence[str] = ()
) -> str:
    """A table of already-built cell fragments; a header ending in ``#`` is right-aligned."""
    head = "".join(
        f'<th class="num">{esc(h[:-1])}</th>' if h.endswith("#") else f"<th>{esc(h)}</th>"
        for h in headers
    )
    body = []
    for i, row in enumerate(rows):
        css = row_classes[i] if i < len(row_classes) and row_classes[i] else ""
        cells = "".join(
            f'<td class="num">{cell}</td>' if h.endswith("#") else f"<td>{cell}</td>"
            for h, cell in zip(headers, row, strict=True)
        )
        body.append(f'<tr class="{css}">{cells}</tr>' if css else f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def kv_table(pairs: Iterable[tuple[str, str]]) -> str:
    """A two-column table of label → already-built fragment."""
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in pairs)
    return f'<table class="kv"><tbody>{rows}</tbody></table>'


def facts(pairs: Iterable[tuple[str, str]]) -> str:
    """Label → already-built fragment, as a compact grid; a label ``!x`` takes a whole row."""
    cells = "".join(
        f'<div class="wide"><b>{esc(k[1:])}</b>{v}</div>'
        if k.startswith("!")
        else f"<div><b>{esc(k)}</b>{v}</div>"
        for k, v in pairs
    )
    return f'<div class="facts">{cells}</div>'


def badge(verdict: str, big: bool = True) -> str:
    """``PASS``, ``FAIL`` or another word (``UNFINISHED``), as a coloured badge."""
    css = {"PASS": "pass", "FAIL": "fail"}.get(verdict, "warn")
    return f'<span class="badge {"verdict " if big else ""}{css}">{esc(verdict)}</span>'


def fmt_ms(value: JSON) -> str:
    """Milliseconds for a person: ``850 ms``, ``2.35 s``; ``-`` when not a number."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "-"
    if value < 1000:
        return f"{value:.1f} ms" if value < 100 else f"{value:.0f} ms"
    return f"{value / 1000:.2f} s"


def page(title: str, body: str) -> str:
    """A complete HTML document: ``title`` (text) and ``body`` (a fragment)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        f"{GENERATOR}\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n<script>{_JS}</script>\n"
        f"</head><body>\n{body}\n"
        "<footer>Written by silo-view from the run artifacts; self-contained, no network."
        "</footer>\n</body></html>\n"
    )
