// The board's page (docs/board.md): one HTML shell, its stylesheet and its script, kept as strings
// so they reach dist/ with the build. The script is plain browser JavaScript served as /app.js (the
// CSP allows no inline script). Everything it shows from the team goes in as text — textContent,
// SVG text nodes, attribute values it never builds markup from — so a message saying `<script>` is
// shown, not run. It draws a snapshot when it loads, then each one the server pushes (EventSource);
// a section is redrawn only when its part of the snapshot changed, and the timeline adds only the
// entries it has not drawn and keeps at most DOM_CAP of them in the page. Answers are POSTs with a
// JSON body (the server checks their Origin); their outcome, "already answered" included, is shown
// beside the question until the next snapshot drops it.

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>swarm board</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<header><h1 id="title">swarm board</h1><span id="live" class="live off">connecting</span><span id="totals"></span></header>
<main id="app"></main>
</body>
</html>
`;

export const PAGE_CSS = `
:root { color-scheme: light dark; --fg: #1d232a; --dim: #6a737d; --bg: #fbfbfc; --card: #fff; --line: #d6dae0; --bad: #c62828; --ok: #2e7d32; --warn: #b26a00; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --dim: #9aa4ae; --bg: #14171a; --card: #1c2024; --line: #343a40; --bad: #ef5350; --ok: #66bb6a; --warn: #ffb74d; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 16px; align-items: baseline; padding: 10px 16px; border-bottom: 1px solid var(--line); }
h1 { font-size: 18px; margin: 0; }
h2 { font-size: 14px; margin: 0 0 8px; text-transform: uppercase; letter-spacing: .05em; color: var(--dim); }
main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; padding: 12px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 10px; min-width: 0; }
#members, #graph { grid-column: 1; }
#questions, #timeline { grid-column: 2; }
#members { grid-row: 1; } #questions { grid-row: 1; } #graph { grid-row: 2; } #timeline { grid-row: 2 / span 2; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); max-width: 200px; overflow-wrap: anywhere; }
th, td.num, #members td:nth-child(-n+2) { white-space: nowrap; }
th { color: var(--dim); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.dim { color: var(--dim); }
.live.on { color: var(--ok); } .live.off { color: var(--warn); }
.state-working, .state-leading { color: #1e88e5; } .state-waiting_permission, .state-waiting_budget, .state-stale { color: var(--warn); font-weight: 600; }
.state-stopped, .state-dead { color: var(--bad); font-weight: 600; } .state-idle, .state-exiting, .state-away, .state-hibernating { color: var(--dim); }
.c-red { color: #e53935; } .c-blue { color: #1e88e5; } .c-green { color: #43a047; } .c-yellow { color: #c0a000; }
.c-purple { color: #8e24aa; } .c-orange { color: #fb8c00; } .c-pink { color: #d81b60; } .c-cyan { color: #00acc1; }
svg { max-width: 100%; height: auto; }
#members { overflow-x: auto; }
svg .node rect { fill: var(--card); stroke: var(--line); stroke-width: 1.5; }
svg .node.in_progress rect { stroke: #1e88e5; } svg .node.completed rect { stroke: var(--ok); } svg .node.blocked rect { stroke-dasharray: 5 3; }
svg .node text { fill: var(--fg); font-size: 12px; } svg .node text.meta { fill: var(--dim); font-size: 11px; }
svg .edge { fill: none; stroke: var(--dim); stroke-width: 1.5; } svg .edge.blocked { stroke: var(--bad); stroke-dasharray: 6 4; }
svg marker path { fill: var(--dim); }
.question { border: 1px solid var(--line); border-radius: 4px; padding: 6px; margin-bottom: 8px; }
.question pre { max-height: 200px; overflow: auto; margin: 6px 0; white-space: pre-wrap; }
.question input { width: 100%; margin: 6px 0; }
.question button { margin-right: 6px; }
.outcome { margin-left: 6px; font-weight: 600; }
#messages { list-style: none; margin: 0; padding: 0; max-height: 70vh; overflow: auto; }
#messages li { padding: 3px 0; border-bottom: 1px solid var(--line); white-space: pre-wrap; overflow-wrap: anywhere; }
#messages li.event, #messages li.unknown { font-style: italic; color: var(--dim); }
.teams li { margin: 4px 0; }
`;

export const PAGE_JS = `'use strict';
(function () {
  var DOM_CAP = 300;
  var SVGNS = 'http://www.w3.org/2000/svg';

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function section(id, title) {
    var s = el('section'); s.id = id; s.appendChild(el('h2', '', title)); return s;
  }
  function colorClass(c) { return c ? 'c-' + c : ''; }
  function count(n) {
    if (n === null || n === undefined) return '';
    if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
    if (n >= 1e3) return (n / 1e3).toFixed(1) + 'k';
    return String(n);
  }
  function usd(n) { return n === null || n === undefined ? '' : '$' + n.toFixed(n < 1 ? 4 : 2); }
  function clock(ms) { return ms ? new Date(ms).toTimeString().slice(0, 8) : ''; }
  function age(ms) {
    var s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    return s < 60 ? s + 's' : s < 3600 ? Math.round(s / 60) + 'm' : Math.round(s / 3600) + 'h';
  }

  var parts = location.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  var app = document.getElementById('app');

  if (parts[0] !== 'team' || !parts[1]) { teamList(); return; }
  var teamName = parts[1];
  var base = '/api/team/' + encodeURIComponent(teamName);
  document.getElementById('title').textContent = 'swarm board · ' + teamName;
  document.title = 'swarm · ' + teamName;

  var members = section('members', 'members');
  var membersBody = el('tbody');
  var table = el('table');
  var head = el('tr');
  ['member', 'state', 'task', 'activity', 'ctx', 'tokens in/out', 'cost', 'backend', 'branch'].forEach(function (h) { head.appendChild(el('th', '', h)); });
  var thead = el('thead'); thead.appendChild(head); table.appendChild(thead); table.appendChild(membersBody); members.appendChild(table);
  var questions = section('questions', 'waiting for you');
  var questionList = el('div'); questions.appendChild(questionList);
  var graph = section('graph', 'tasks');
  var graphBox = el('div'); graph.appendChild(graphBox);
  var timeline = section('timeline', 'messages');
  var filter = el('select'); filter.id = 'filter';
  var messages = el('ul'); messages.id = 'messages';
  timeline.appendChild(filter); timeline.appendChild(messages);
  [members, questions, graph, timeline].forEach(function (s) { app.appendChild(s); });

  var seen = {};
  var last = null;
  var outcomes = {};
  var drawn = new Map();
  var filterValue = '';
  filter.addEventListener('change', function () { filterValue = filter.value; drawn.clear(); clear(messages); drawMessages(); });

  function changed(key, value) {
    var json = JSON.stringify(value);
    if (seen[key] === json) return false;
    seen[key] = json; return true;
  }

  function drawMembers(s) {
    clear(membersBody);
    s.members.forEach(function (m) {
      var tr = el('tr'); tr.dataset.member = m.name;
      tr.appendChild(el('td', colorClass(m.color), m.name));
      tr.appendChild(el('td', 'state-' + m.state, m.state));
      tr.appendChild(el('td', '', m.task ? '#' + m.task.id + ' ' + m.task.subject : ''));
      tr.appendChild(el('td', 'dim', m.activity || ''));
      tr.appendChild(el('td', 'num', m.contextPercent === null ? '' : m.contextPercent + '%'));
      tr.appendChild(el('td', 'num', m.inputTokens === null ? '' : count(m.inputTokens) + ' / ' + count(m.outputTokens)));
      tr.appendChild(el('td', 'num', usd(m.costUsd)));
      tr.appendChild(el('td', 'dim', (m.backendType || '') + (m.host ? ' @ ' + m.host : '')));
      tr.appendChild(el('td', 'dim', m.branch || ''));
      membersBody.appendChild(tr);
    });
  }

  function drawTotals(s) {
    var t = s.totals;
    var text = 'tasks ' + s.progress.done + '/' + s.progress.total + ' · tokens ' + count(t.inputTokens) + ' in / ' + count(t.outputTokens) + ' out · ' + usd(t.costUsd);
    if (t.budget) {
      if (t.budget.leftUsd !== null) text += ' · budget left ' + usd(t.budget.leftUsd) + ' of ' + usd(t.budget.usd);
      if (t.budget.leftTokens !== null) text += ' · tokens left ' + count(t.budget.leftTokens) + ' of ' + count(t.budget.tokens);
      if (t.budget.reached) text += ' · reached: ' + t.budget.reached;
    }
    document.getElementById('totals').textContent = text;
  }

  function drawGraph(g) {
    clear(graphBox);
    if (g.nodes.length === 0) { graphBox.appendChild(el('p', 'dim', 'no tasks')); return; }
    var root = svg('svg', { viewBox: '0 0 ' + Math.max(1, g.width) + ' ' + Math.max(1, g.height), width: Math.max(1, g.width), height: Math.max(1, g.height), role: 'img' });
    var defs = svg('defs', {});
    var marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.appendChild(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z' }));
    defs.appendChild(marker); root.appendChild(defs);
    g.edges.forEach(function (e) {
      if (e.points.length === 0) return;
      var d = e.points.map(function (p, i) { return (i === 0 ? 'M' : 'L') + p.x + ' ' + p.y; }).join(' ');
      var path = svg('path', { d: d, 'class': 'edge' + (e.blocked ? ' blocked' : ''), 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to });
      var title = svg('title', {}); title.textContent = '#' + e.from + ' blocks #' + e.to + (e.blocked ? '' : ' (done)');
      path.appendChild(title); root.appendChild(path);
    });
    g.nodes.forEach(function (n) {
      var grp = svg('g', { 'class': 'node ' + n.status + (n.blocked ? ' blocked' : ''), transform: 'translate(' + (n.x - n.width / 2) + ',' + (n.y - n.height / 2) + ')', 'data-task': n.id });
      grp.appendChild(svg('rect', { width: n.width, height: n.height, rx: 5 }));
      var t1 = svg('text', { x: 8, y: 20 }); t1.textContent = '#' + n.id + ' ' + (n.subject.length > 26 ? n.subject.slice(0, 25) + '…' : n.subject);
      var t2 = svg('text', { x: 8, y: 40, 'class': 'meta' }); t2.textContent = n.status.replace('_', ' ') + (n.owner ? ' · ' + n.owner : '') + (n.blocked ? ' · blocked' : '');
      var title = svg('title', {}); title.textContent = n.subject;
      grp.appendChild(title); grp.appendChild(t1); grp.appendChild(t2); root.appendChild(grp);
    });
    graphBox.appendChild(root);
  }

  function post(path, body, where, key) {
    outcomes[key] = 'sending…'; where.textContent = 'sending…';
    fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, status: r.status, j: j }; }); })
      .then(function (r) {
        var text = r.ok ? (r.j.status || (r.j.approved ? 'approved' : 'rejected')) : r.status === 409 ? 'already answered: ' + r.j.error : 'failed: ' + r.j.error;
        outcomes[key] = text; where.textContent = text;
      })
      .catch(function (e) { outcomes[key] = 'failed: ' + e; where.textContent = outcomes[key]; });
  }

  function drawQuestions(s) {
    clear(questionList);
    if (s.permissions.length === 0 && s.plans.length === 0) questionList.appendChild(el('p', 'dim', 'nothing is waiting'));
    s.permissions.forEach(function (p) {
      var box = el('div', 'question permission'); box.dataset.request = p.id;
      var line = el('div');
      line.appendChild(el('strong', colorClass(p.color), p.worker));
      line.appendChild(document.createTextNode(' asks to use ' + p.toolName + ' '));
      line.appendChild(el('span', 'dim', age(p.at) + ' ago' + (p.orphaned ? ' · orphaned (worker gone)' : '')));
      box.appendChild(line);
      if (p.what) box.appendChild(el('pre', '', p.what));
      if (p.description) box.appendChild(el('div', 'dim', p.description));
      var fb = el('input'); fb.placeholder = 'feedback (with deny)'; box.appendChild(fb);
      var out = el('span', 'outcome', outcomes['p:' + p.id] || '');
      [['allow', 'allow'], ['always', 'always'], ['deny', 'deny']].forEach(function (b) {
        var btn = el('button', '', b[1]); btn.dataset.answer = b[0];
        btn.addEventListener('click', function () { post(base + '/permissions/' + encodeURIComponent(p.id), { answer: b[0], feedback: b[0] === 'deny' ? fb.value : '' }, out, 'p:' + p.id); });
        box.appendChild(btn);
      });
      box.appendChild(out); questionList.appendChild(box);
    });
    s.plans.forEach(function (p) {
      var box = el('div', 'question plan'); box.dataset.plan = p.from;
      box.appendChild(el('div', '', p.from + ' asks to approve a plan ' + '(' + age(p.at) + ' ago)'));
      box.appendChild(el('pre', '', p.plan));
      var fb = el('input'); fb.placeholder = 'feedback'; box.appendChild(fb);
      var out = el('span', 'outcome', outcomes['plan:' + p.requestId] || '');
      [[true, 'approve'], [false, 'reject']].forEach(function (b) {
        var btn = el('button', '', b[1]); btn.dataset.answer = b[1];
        btn.addEventListener('click', function () { post(base + '/plans/' + encodeURIComponent(p.from), { approve: b[0], feedback: fb.value }, out, 'plan:' + p.requestId); });
        box.appendChild(btn);
      });
      box.appendChild(out); questionList.appendChild(box);
    });
  }

  function drawFilter(s) {
    var names = s.members.map(function (m) { return m.name; });
    clear(filter);
    filter.appendChild(new Option('everyone', ''));
    names.forEach(function (n) { filter.appendChild(new Option(n, n)); });
    filter.value = names.indexOf(filterValue) >= 0 ? filterValue : '';
  }

  function messageItem(m) {
    var li = el('li', m.kind); li.dataset.key = m.key;
    li.appendChild(el('span', 'dim', clock(m.at) + ' '));
    li.appendChild(el('span', colorClass(m.color), m.from));
    li.appendChild(el('span', 'dim', ' → ' + m.to + ' '));
    if (m.summary) li.appendChild(el('strong', '', m.summary + ': '));
    li.appendChild(el('span', 'text', m.text));
    return li;
  }

  function drawMessages() {
    if (!last) return;
    var wanted = last.messages.filter(function (m) { return !filterValue || m.from === filterValue || m.to === filterValue; }).slice(-DOM_CAP);
    var keep = new Set(wanted.map(function (m) { return m.key; }));
    drawn.forEach(function (li, key) { if (!keep.has(key)) { li.remove(); drawn.delete(key); } });
    var atBottom = messages.scrollTop + messages.clientHeight >= messages.scrollHeight - 4;
    wanted.forEach(function (m) {
      if (drawn.has(m.key)) return;
      var li = messageItem(m); drawn.set(m.key, li); messages.appendChild(li);
    });
    if (atBottom) messages.scrollTop = messages.scrollHeight;
  }

  function draw(s) {
    last = s;
    if (changed('members', s.members)) { drawMembers(s); drawFilter(s); }
    if (changed('totals', [s.totals, s.progress])) drawTotals(s);
    if (changed('graph', s.graph)) drawGraph(s.graph);
    if (changed('questions', [s.permissions, s.plans])) drawQuestions(s);
    drawMessages();
    document.body.dataset.messages = String(s.messages.length);
  }

  var live = document.getElementById('live');
  var source = new EventSource(base + '/events');
  source.addEventListener('snapshot', function (e) { live.textContent = 'live'; live.className = 'live on'; draw(JSON.parse(e.data)); });
  source.addEventListener('problem', function (e) { live.textContent = JSON.parse(e.data); live.className = 'live off'; });
  source.onerror = function () { live.textContent = 'reconnecting'; live.className = 'live off'; };

  function teamList() {
    var s = section('teams', 'teams'); var ul = el('ul', 'teams'); s.appendChild(ul); app.appendChild(s);
    document.getElementById('live').textContent = '';
    fetch('/api/teams', { credentials: 'same-origin' }).then(function (r) { return r.json(); }).then(function (teams) {
      if (teams.length === 0) ul.appendChild(el('li', 'dim', 'no teams under this root'));
      teams.forEach(function (t) {
        var li = el('li'); var a = el('a', '', t.name); a.href = '/team/' + encodeURIComponent(t.name); li.appendChild(a);
        li.appendChild(el('span', 'dim', ' ' + (t.problem ? t.problem : t.members + ' teammate' + (t.members === 1 ? '' : 's') + (t.description ? ' · ' + t.description : ''))));
        ul.appendChild(li);
      });
    });
  }
})();
`;
