"""The frame every page of the ``silo-view`` site shares: breadcrumbs, extra CSS, live refresh.

Contract: :func:`site_page` wraps a body with :func:`silo.view.html.page` and adds a link back
to the index (``depth`` folders up), the site's CSS, and one inline script that (a) stamps
``data-loaded-ms`` on ``<html>`` when the page has loaded — what the browser benchmark reads —
and (b) when the page is served over HTTP by ``silo-view serve``, polls :data:`VERSION_PATH`
and reloads when the site was rebuilt. Opened from disk it makes no request at all.
"""

from __future__ import annotations

from silo.view.html import page

__all__ = ["VERSION_PATH", "site_page"]

VERSION_PATH = "/_silo/version"

_CSS = """<style>
body{max-width:1400px}td.when,td.num{white-space:nowrap}
table.runs{table-layout:fixed}table.runs td,table.runs th{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.ev{content-visibility:auto;contain-intrinsic-size:auto 90px}
.crumbs{font-size:13px;margin-bottom:10px}
figure.chart{display:inline-block;vertical-align:top;margin:8px 18px 8px 0}
figcaption{font-weight:600;margin-bottom:4px}
.filters{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.filters label{font-size:12px;color:var(--muted);display:flex;flex-direction:column}
#count{margin:6px 0;color:var(--muted)}
.msg{border:1px solid var(--line);border-radius:8px;margin:6px 0;padding:4px 10px;max-width:80%}
.msg.user{background:#ddf4ff}.msg.assistant{margin-left:auto;background:var(--bg2)}
.o-PASS{color:var(--pass);font-weight:700}.o-FAIL{color:var(--fail);font-weight:700}
.o-UNFINISHED{color:var(--warn);font-weight:700}
</style>"""

_SCRIPT = (
    "<script>window.addEventListener('load',function(){document.documentElement.dataset."
    "loadedMs=Math.round(performance.now());});"
    "if(location.protocol.indexOf('http')===0){var siloV=null;setInterval(function(){"
    f"fetch('{VERSION_PATH}',{{cache:'no-store'}}).then(function(r){{return r.text();}})"
    ".then(function(v){if(siloV!==null&&v!==siloV)location.reload();siloV=v;})"
    ".catch(function(){});},2000);}</script>"
)


def site_page(title: str, body: str, depth: int) -> str:
    """A complete page of the site ``depth`` folders below its root (0 for the index)."""
    crumbs = (
        ""
        if depth == 0
        else f'<div class="crumbs"><a href="{"../" * depth}index.html">← all runs</a></div>'
    )
    return page(title, f"{_CSS}{crumbs}{body}{_SCRIPT}")
