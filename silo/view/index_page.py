"""The site's front page: every sweep, group and run under the runs folder, filterable.

Contract: :func:`index_body` lists the groups and sweeps (a static table linking to their
pages) and every run. The runs travel as one JSON array inside a ``<script
type="application/json">`` (``<``, ``>`` and ``&`` written as JSON unicode escapes, so no run
text can close the script) and a few lines of inline JavaScript filter them — by environment,
task, agent, model, outcome, termination reason and start date, plus a free-text search over
run, group, task, agent and model — and draw the first :data:`SHOWN` matching rows, newest
first (a button draws more), inserting every value as text. The filters live in the URL's
``#`` part (``#outcome=FAIL&q=x``), so a filtered view is a link to share. After each filter
the page lays the table out and stamps ``data-filter-ms`` (the filter's time, layout
included) and ``data-matches`` on ``<html>`` (read by the tests and the benchmark).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from urllib.parse import quote

from silo.view.html import esc, table
from silo.view.run_record import RunRecord

__all__ = ["FILTERS", "SHOWN", "GroupEntry", "index_body"]

SHOWN = 100  # rows drawn at first: a few screens to scan, drawn in milliseconds
FILTERS = ("environment", "task", "agent", "model", "outcome", "termination", "date")
_COLUMNS = ("run", "group", "environment", "task", "agent", "outcome", "termination")
GroupEntry = tuple[str, int, int, int]  # name, runs, passed, failed
# Fixed column widths: the browser lays the table out from them instead of measuring every cell.
_COLGROUP = (
    "<colgroup>"
    + "".join(f'<col style="width:{w}%">' for w in (16, 13, 6, 8, 9, 6, 9, 5, 4, 5, 6, 13))
    + "</colgroup>"
)

_JS = r"""
(function(){
var D=JSON.parse(document.getElementById('runs-data').textContent);
var F=%(filters)s,K={environment:3,task:4,agent:5,model:6,outcome:7,termination:8,date:13};
var body=document.getElementById('rows'),count=document.getElementById('count');
var q=document.getElementById('q'),more=document.getElementById('more'),limit=%(shown)d;
var H=D.map(function(r){return (r[1]+' '+r[2]+' '+r[4]+' '+r[5]+' '+r[6]).toLowerCase();});
function esc(s){return String(s).replace(/[&<>"']/g,function(c){return '&#'+c.charCodeAt(0)+';';});}
function num(v,p){return v===null?'-':Number(v).toFixed(p);}
function ms(v){return v===null?'-':v<100?v.toFixed(1)+' ms':v<1000?v.toFixed(0)+' ms':(v/1000).toFixed(2)+' s';}
function dec(x){try{return decodeURIComponent(x);}catch(e){return x;}}
function state(){var s={};location.hash.slice(1).split('&').forEach(function(p){
var i=p.indexOf('=');if(i>0)s[dec(p.slice(0,i))]=dec(p.slice(i+1));});return s;}
function apply(){var t0=performance.now(),s=state(),want=[];
F.forEach(function(f){var e=document.getElementById('f-'+f);e.value=s[f]||'';if(s[f])want.push([K[f],s[f],f==='date']);});
q.value=s.q||'';var needle=(s.q||'').toLowerCase(),out=[],n=0;
for(var i=0;i<D.length;i++){var r=D[i],ok=true;
for(var j=0;j<want.length;j++){var v=r[want[j][0]];if(want[j][2]?v.slice(0,10)!==want[j][1]:v!==want[j][1]){ok=false;break;}}
if(ok&&needle&&H[i].indexOf(needle)<0)ok=false;
if(!ok)continue;n++;if(out.length>=limit)continue;
out.push('<tr><td><a href="'+esc(r[0])+'" title="'+esc(r[1])+'">'+esc(r[1])+'</a></td><td>'+esc(r[2])+'</td><td>'+esc(r[3])+
'</td><td>'+esc(r[4])+'</td><td>'+esc(r[5])+(r[6]?' <span class="muted">'+esc(r[6])+'</span>':'')+
'</td><td class="o-'+esc(r[7])+'">'+esc(r[7])+'</td><td>'+esc(r[8])+'</td><td class="num">'+num(r[9],2)+
'</td><td class="num">'+num(r[10],0)+'</td><td class="num">'+num(r[11],0)+'</td><td class="num">'+ms(r[12])+
'</td><td class="when">'+esc(r[13].slice(0,19).replace('T',' '))+'</td></tr>');}
body.innerHTML=out.join('');
count.textContent=n+' of '+D.length+' runs match'+(n>out.length?' (the newest '+out.length+' shown)':'');more.hidden=n<=out.length;
void body.offsetHeight;var h=document.documentElement;h.dataset.matches=n;h.dataset.filterMs=(performance.now()-t0).toFixed(1);}
function set(k,v){limit=%(shown)d;var s=state();if(v)s[k]=v;else delete s[k];
var h=Object.keys(s).map(function(k){return encodeURIComponent(k)+'='+encodeURIComponent(s[k]);}).join('&');
history.replaceState(null,'',h?'#'+h:location.pathname+location.search);apply();}
F.forEach(function(f){document.getElementById('f-'+f).addEventListener('change',function(e){set(f,e.target.value);});});
q.addEventListener('input',function(){set('q',q.value);});
more.addEventListener('click',function(){limit+=5*%(shown)d;apply();});
window.addEventListener('hashchange',apply);apply();})();
"""


def _data(runs: Sequence[RunRecord]) -> str:
    rows = [
        [
            r.page, r.run, r.group, r.environment, r.task, r.agent, r.model, r.outcome,
            r.termination, r.reward, r.tool_calls, r.tokens, r.duration_ms, r.started_at,
        ]
        for r in runs
    ]  # fmt: skip
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _select(name: str, values: set[str]) -> str:
    options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in sorted(values) if v)
    return (
        f'<label>{esc(name)}<select id="f-{name}"><option value="">all</option>{options}'
        "</select></label>"
    )


def _groups(groups: Sequence[GroupEntry]) -> str:
    if not groups:
        return '<p class="muted">No group or sweep yet.</p>'
    rows = [
        [
            f'<a href="groups/{quote(name)}/index.html">{esc(name)}</a>',
            "sweep" if name.startswith("sweep_") else "group",
            str(runs),
            str(passed),
            str(failed),
        ]
        for name, runs, passed, failed in groups
    ]
    return table(["name", "kind", "runs#", "passed#", "failed#"], rows)


def index_body(groups: Sequence[GroupEntry], runs: Sequence[RunRecord]) -> str:
    """The front page's body; ``runs`` newest first."""
    values: dict[str, set[str]] = {f: set() for f in FILTERS}
    for r in runs:
        for name, value in zip(
            FILTERS,
            (r.environment, r.task, r.agent, r.model, r.outcome, r.termination, r.started_at[:10]),
            strict=True,
        ):
            values[name].add(value)
    filters = "".join(_select(name, values[name]) for name in FILTERS)
    search = '<label>search<input id="q" type="search" placeholder="run, task, agent…"></label>'
    heads = "".join(f"<th>{c}</th>" for c in _COLUMNS)
    heads += "".join(f'<th class="num">{c}</th>' for c in ("reward", "calls", "tokens", "duration"))
    total = f"{len(runs)} runs · {len(groups)} groups and sweeps"
    script = _JS % {"filters": json.dumps(list(FILTERS)), "shown": SHOWN}
    return (
        f"<h1>Silo runs</h1><p>{esc(total)}</p><h2>Sweeps and groups</h2>{_groups(groups)}"
        f'<h2>Runs</h2><div class="filters">{filters}{search}</div><p id="count"></p>'
        f'<table class="runs">{_COLGROUP}<thead><tr>{heads}<th>started</th></tr></thead>'
        f'<tbody id="rows"></tbody></table><button id="more" hidden>show more</button>'
        f'<script type="application/json" id="runs-data">{_data(runs)}</script>'
        f"<script>{script}</script><noscript>The run list needs JavaScript; every run page is "
        f"under runs/ and groups/.</noscript>"
        + ("" if runs else '<p class="muted">No run yet: run silo-run, then silo-view again.</p>')
    )
