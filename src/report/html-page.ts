// The inline style and script of report.html (no asset from anywhere else). Every excerpt wraps or scrolls
// inside its own box so nothing overflows the page at any width; the script filters and searches the
// checks table and opens what a link points at, with no library and no network.

const outcomeColours: [string, string][] = [
  ["passed", "#1a7f37"],
  ["failure", "#cf222e"],
  ["finding", "#9a6700"],
  ["waived", "#57606a"],
  ["skipped", "#6e7781"],
  ["not-exercised", "#59636e"],
  ["broken", "#6e40c9"],
  ["inconclusive", "#bc4c00"],
];

export const style = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff;overflow-wrap:anywhere}
main{padding:0 1.5rem 2rem;max-width:100rem}
h2{margin:1.5rem 0 .5rem;font-size:1.3rem}h3{font-size:1.05rem;margin:1rem 0 .4rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em;overflow-wrap:anywhere}
a{color:#0550ae}
.verdict{padding:1rem 1.5rem;color:#fff}.verdict h1{margin:0;font-size:1.8rem}.verdict p{margin:.3rem 0 0}
.verdict a,.verdict code{color:#fff}.verdict .tally{font-weight:600}.verdict nav{margin-top:.4rem}
.certified{background:#116329}.conformant{background:#1a7f37}.passed-subset{background:#0969da}.not-conformant{background:#cf222e}.incomplete{background:#9a6700}.broken{background:#6e40c9}.interrupted{background:#57606a}
.overview{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,26rem),1fr));gap:1rem;margin-top:1rem}
.card{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;min-width:0}.card h2{margin:.3rem 0 .5rem;font-size:1.1rem}
.suites{margin-top:1rem}
.identity,.facts{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:.15rem 1rem;margin:0}
.identity dt,.facts dt{font-weight:600}.identity dd,.facts dd{margin:0}
.scroll{max-width:100%;overflow-x:auto}
table{border-collapse:collapse;margin:.5rem 0;width:100%}th{overflow-wrap:normal}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
table.counts{width:auto}td.n{text-align:right;white-space:nowrap}.total{font-weight:700}
.dot{display:inline-block;width:.7rem;height:.7rem;border-radius:50%;margin-right:.3rem;vertical-align:baseline}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;margin:.3rem 0}
.suite-bars{list-style:none;padding:0;margin:0}
.suite-bars li{display:grid;grid-template-columns:minmax(6rem,12rem) minmax(6rem,1fr) minmax(0,1.2fr);gap:.75rem;align-items:center;padding:.15rem 0}
.bar{display:flex;height:1rem;border-radius:3px;overflow:hidden;background:#eaeef2}.seg{min-width:3px}
.suite-figures{font-size:.9em;color:#424a53}
.badge{display:inline-block;padding:0 .45rem;border-radius:.6rem;color:#fff;font-size:.85em;background:#57606a;white-space:nowrap}
${outcomeColours.map(([o, c]) => `.o-${o}{background:${c}}`).join("")}
.must-failures{padding-left:1.5rem}.must-failures li{margin:.4rem 0}
#failures ul{padding-left:1.2rem}#failures li{margin:.2rem 0}
.findings summary{font-weight:600;font-size:1.05rem;margin:1rem 0 .4rem;color:#7d4e00;cursor:pointer}
.none,.note{color:#424a53}.note{font-size:.9em}
.coverage-grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,22rem),1fr));gap:.25rem 1.5rem}
.grid-section h3{font-size:.95rem;margin:.6rem 0 .25rem}.grid-section small{font-weight:400;color:#424a53}
.grid{display:flex;flex-wrap:wrap;gap:3px}
.cell{display:inline-block;font:12px/1.6 ui-monospace,monospace;padding:0 .35rem;border-radius:3px;border:1px solid transparent;text-decoration:none;color:#1b1f24}
.cell:focus,.cell:hover{outline:2px solid #0969da}
.c-proven{background:#dafbe1;color:#0f5323}.c-failing{background:#ffebe9;color:#a40e26;border-color:#cf222e}.c-finding{background:#fff8c5;color:#6c4400}
.c-broken{background:#fbefff;color:#5a32a3}.c-undecided{background:#fff1e5;color:#953800}.c-not-run{background:#eaeef2;color:#424a53}.c-untested{background:#fff;color:#424a53;border:1px dashed #8c959f}.c-elsewhere{background:#ddf4ff;color:#0a3069}
.cell-mark{display:inline-block;min-width:1.2rem;text-align:center;border-radius:3px}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.cov-failing td:nth-child(3),.cov-broken td:nth-child(3){color:#a40e26;font-weight:600}.cov-finding td:nth-child(3),.cov-untested td:nth-child(3),.cov-undecided td:nth-child(3){color:#7d4e00}
.timeline{overflow:hidden;margin:.5rem 0;padding-right:1.5rem}
.axis{position:relative;height:1.3rem;margin-left:11rem;font-size:.8em;color:#424a53}
.tick{position:absolute;top:0;transform:translateX(-50%);white-space:nowrap}.tick:first-child{transform:none}
.lane{display:grid;grid-template-columns:11rem minmax(0,1fr);align-items:center;margin:.2rem 0}
.lane-name{font-weight:600;padding-right:.5rem}.lane-name small{display:block;font-weight:400;color:#424a53}
.track{position:relative;height:1.6rem;background:#f6f8fa;border-radius:3px}
.tbar{position:absolute;top:3px;bottom:3px;min-width:3px;border-radius:2px;overflow:hidden;opacity:.85;box-shadow:inset -1px 0 0 #fff}
.tbar:hover,.tbar:focus{opacity:1;outline:2px solid #1b1f24;z-index:1}
.wait,.wait-key{position:absolute;top:0;bottom:0;background:repeating-linear-gradient(45deg,rgba(255,255,255,.85) 0 3px,rgba(255,255,255,.2) 3px 6px)}
.wait-key{position:relative;display:inline-block;width:1.5rem;height:.8rem;background-color:#6e7781;vertical-align:middle}
.tchart{display:block;width:100%;height:4rem;background:#f6f8fa;border-radius:3px}.trule .tchart{height:3rem}
.t-opp{fill:#6e7781}.t-find{fill:#a40e26}.t-line{stroke:#1b1f24;stroke-width:1;vector-effect:non-scaling-stroke}
.tparty figure{margin:.3rem 0 .6rem}.tparty figcaption{font-size:.9em}
.trules{display:grid;grid-template-columns:repeat(auto-fill,minmax(22rem,1fr));gap:0 1rem}
table.slowest{width:auto}table.slowest caption{text-align:left;font-weight:600;padding:.3rem 0}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;margin:.5rem 0}
.filters input,.filters select{font:inherit;max-width:100%}
table.checks{table-layout:fixed}
table.checks th:nth-child(1){width:7rem}table.checks th:nth-child(2){width:22%}table.checks th:nth-child(3){width:5rem}
table.checks th:nth-child(4){width:10rem}a.req{display:inline-block;white-space:nowrap;font-size:.85em}table.checks th:nth-child(5){width:8rem}
tr[data-outcome="failure"]{background:#fff5f5}tr[data-outcome="broken"]{background:#f8f4ff}tr[data-outcome="finding"]{background:#fffbea}
tr:target,li:target{outline:3px solid #0969da;outline-offset:-3px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:.5rem;margin:.3rem 0;max-height:24rem;overflow:auto}
.exchange{border-left:3px solid #d0d7de;padding-left:.5rem;margin:.5rem 0;min-width:0}
.exchange .note{font-style:italic;margin:.25rem 0}
.exchange.cited{border-left-color:#cf222e}
.exchange .cited{font-weight:bold;margin:.25rem 0}
.detail{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.1rem .75rem;margin:.25rem 0}
.detail dt{font-weight:600}.detail dd{margin:0}
.departures ul{margin:.25rem 0;padding-left:1.2rem;max-height:20rem;overflow:auto}.departures .count{font-weight:600}
.retries ul{margin:.25rem 0;padding-left:1.2rem}.retries summary{color:#7d4e00}
.evidence-location{margin:.25rem 0}
.retries-summary{font-weight:600}
summary{cursor:pointer}
@media (max-width:760px){
main{padding:0 .75rem 2rem}.verdict{padding:1rem .75rem}
.suite-bars li{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}.suite-figures{grid-column:1/-1}
.lane{grid-template-columns:minmax(0,1fr)}.axis{margin-left:0}
.identity,.facts{grid-template-columns:minmax(0,1fr)}.identity dd,.facts dd{margin-bottom:.3rem}
table.checks,table.checks tbody,table.checks tr,table.checks td{display:block;width:auto}
table.checks thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.checks tr{border:1px solid #d0d7de;border-radius:6px;margin:.5rem 0;padding:.3rem}
table.checks tr[hidden]{display:none}
table.checks td{border:0;padding:.15rem .3rem}
}
`;

export const script = `
(function(){
  var rows = Array.prototype.slice.call(document.querySelectorAll("table.checks > tbody > tr"));
  var selects = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
  var search = document.querySelector("input[data-search]");
  var texts = rows.map(function(r){ return r.textContent.toLowerCase(); });
  var shown = document.getElementById("shown");
  function apply(){
    var want = {};
    selects.forEach(function(s){ want[s.getAttribute("data-filter")] = s.value; });
    var terms = search && search.value.trim() ? search.value.trim().toLowerCase().split(/\\s+/) : [];
    var n = 0;
    rows.forEach(function(r, i){
      var ok = Object.keys(want).every(function(k){ return !want[k] || r.getAttribute("data-" + k) === want[k]; }) &&
        terms.every(function(t){ return texts[i].indexOf(t) >= 0; });
      r.hidden = !ok;
      if (ok) n++;
    });
    if (shown) shown.textContent = n + " of " + rows.length + " checks";
  }
  // A link to a check the filters hide clears them; a target inside folded details opens them.
  function reveal(){
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id ? document.getElementById(id) : null;
    if (!el) return;
    if (el.hidden && rows.indexOf(el) >= 0) {
      selects.forEach(function(s){ s.value = ""; });
      if (search) search.value = "";
      apply();
    }
    for (var p = el.parentElement; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
    el.scrollIntoView();
  }
  selects.forEach(function(s){ s.addEventListener("change", apply); });
  if (search) search.addEventListener("input", apply);
  window.addEventListener("hashchange", reveal);
  document.addEventListener("click", function(e){
    var a = e.target && e.target.closest ? e.target.closest("a[href^='#']") : null;
    if (a && a.getAttribute("href") === location.hash) setTimeout(reveal, 0);
  });
  // Boxes that scroll are reachable by keyboard.
  Array.prototype.forEach.call(document.querySelectorAll("pre, .scroll, .departures ul"), function(e){ e.tabIndex = 0; });
  apply();
  reveal();
})();
`;
