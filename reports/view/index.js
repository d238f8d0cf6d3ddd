"use strict";
(function () {
  var data = JSON.parse(document.getElementById("rows").textContent);
  var rows = data.rows, scorers = data.scorers || [];
  var show = 1000, sortKey = "", sortDir = 1;
  var body = document.getElementById("cases-body");
  var count = document.getElementById("count");
  var more = document.getElementById("more");
  var fStatus = document.getElementById("f-status");
  var fScorer = document.getElementById("f-scorer");
  var fText = document.getElementById("f-text");
  rows.forEach(function (r) { if (r.ce !== undefined) { r.c = r.ce; r.est = true; } });
  scorers.forEach(function (name, i) {
    ["f", "p"].forEach(function (r) {
      var o = document.createElement("option");
      o.value = i + ":" + r;
      o.textContent = name + (r === "f" ? " failed" : " passed");
      fScorer.appendChild(o);
    });
  });
  function matches(r, st, sc, tx) {
    if (st === "flipped") { if (!r.f) return false; } else if (st && r.s !== st) return false;
    if (sc) {
      var p = sc.split(":"), want = Number(p[0]) * 2 + (p[1] === "p" ? 1 : 0);
      if (!r.sc || r.sc.indexOf(want) < 0) return false;
    }
    if (tx) {
      var hay = (r.id + "\n" + (r.v || "") + "\n" + (r.err || "") + "\n" + (r.rs || "")).toLowerCase();
      if (hay.indexOf(tx) < 0) return false;
    }
    return true;
  }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function usd(v) { // as reports.Dollars: cents, four decimals below a dollar, two digits below a cent
    var a = Math.abs(v);
    if (a === 0) return "$0";
    return "$" + v.toFixed(a >= 1 ? 2 : a >= 0.01 ? 4 : Math.min(Math.ceil(-Math.log10(a)) + 1, 12));
  }
  function render() {
    var st = fStatus.value, sc = fScorer.value, tx = fText.value.trim().toLowerCase();
    var list = rows.filter(function (r) { return matches(r, st, sc, tx); });
    if (sortKey) list.sort(function (a, b) {
      var x = a[sortKey], y = b[sortKey];
      if (x === undefined || y === undefined) return (x === undefined) - (y === undefined); // no cost: last
      return (x - y) * sortDir;
    });
    var frag = document.createDocumentFragment();
    list.slice(0, show).forEach(function (r) {
      var tr = document.createElement("tr");
      tr.className = "row s-row-" + r.s;
      var td = document.createElement("td");
      var a = document.createElement("a");
      if (r.h.indexOf("cases/") === 0) a.setAttribute("href", r.h);
      var name = r.v ? r.id + " @ " + r.v : r.id;
      a.textContent = data.epochs ? name + " (epoch " + r.e + ")" : name;
      td.appendChild(a);
      tr.appendChild(td);
      var s = cell(tr, "", "");
      var b = document.createElement("span");
      b.className = "s s-" + r.s;
      b.textContent = r.s;
      s.appendChild(b);
      if (data.baseline) cell(tr, r.f || "", r.s === "passed" ? "fl up" : "fl");
      cell(tr, r.d + " ms", "n");
      cell(tr, String(r.t), "n");
      var c = cell(tr, r.c === undefined ? "—" : (r.est ? "≈" : "") + usd(r.c), "n");
      if (r.est) c.title = "estimated from murmur's token counts: the provider reported no usage";
      cell(tr, (r.sc || []).map(function (v) { return scorers[v >> 1] + (v & 1 ? " ✓" : " ✗"); }).join(", "), "");
      cell(tr, [r.err, r.rs].filter(Boolean).join(" · "), "reason");
      frag.appendChild(tr);
    });
    body.replaceChildren(frag);
    count.textContent = "showing " + Math.min(show, list.length) + " of " + list.length + " matching (" + rows.length + " in all)";
    more.hidden = list.length <= show;
  }
  document.querySelectorAll("th.sort").forEach(function (th) {
    th.addEventListener("click", function () {
      var k = th.getAttribute("data-key");
      sortDir = sortKey === k ? -sortDir : -1;
      sortKey = k;
      render();
    });
  });
  more.addEventListener("click", function () { show = rows.length; render(); });
  [fStatus, fScorer].forEach(function (e) { e.addEventListener("change", render); });
  fText.addEventListener("input", render);
  render();
})();
