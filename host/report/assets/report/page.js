// Draws a bench page from the JSON in <script id="bench-data">: a run (the HTML report and
// the dashboard's run page), a benchmark (runs over time, latest leaderboard) or the list
// of benchmarks. Every text goes through textContent: nothing from the data becomes markup.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('bench-data').textContent);
  const main = document.querySelector('main');
  const charts = [];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'class') node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function section(title, id) {
    const node = el('section', { id });
    node.append(el('h2', {}, title));
    main.append(node);
    return node;
  }

  function table(headings, rows, id) {
    const head = el('tr', {}, ...headings.map((h) => el('th', { class: h.num ? 'num' : '' }, h.title)));
    const body = rows.map((row) =>
      el('tr', row.attrs || {}, ...row.cells.map((cell, i) =>
        el('td', Object.assign({ class: headings[i].num ? 'num' : '' }, cell && cell.attrs ? cell.attrs : {}),
          cell && cell.attrs ? cell.text : cell))));
    return el('table', id ? { id } : {}, el('thead', {}, head), el('tbody', {}, ...body));
  }

  function chart(parent, option, name) {
    const box = el('div', { class: 'chart', 'data-chart': name });
    parent.append(box);
    const instance = echarts.init(box, null, { renderer: 'canvas' });
    instance.setOption(Object.assign({ animation: false }, option));
    charts.push(instance);
    return instance;
  }

  function num(x) {
    return x === null || x === undefined ? '—' : String(x);
  }

  function percent(rate) {
    return rate === null || rate === undefined ? '—' : (Math.round(rate * 1000) / 10) + '%';
  }

  function note(parent, text) {
    parent.append(el('p', { class: 'note' }, text));
  }

  // --- run page -----------------------------------------------------------------------

  function runHeader(header) {
    main.append(el('h1', {}, header.benchmarkName || header.benchmarkSlug || 'Run'));
    const meta = el('dl', { class: 'meta', id: 'run-meta' });
    const put = (label, value) => {
      if (value === null || value === undefined || value === '') return;
      meta.append(el('dt', {}, label), el('dd', {}, typeof value === 'string' ? value : JSON.stringify(value)));
    };
    put('benchmark', header.benchmarkSlug);
    put('run', header.runId);
    put('started', header.startedAt);
    put('completed', header.completedAt);
    put('git sha', header.gitSha);
    put('git ref', header.gitRef);
    for (const [key, value] of Object.entries(header.knobs || {})) put(key, value);
    main.append(meta);
  }

  function groupLabel(dimensions, base) {
    const parts = [];
    for (const [key, value] of Object.entries(dimensions || {})) {
      if (!base || JSON.stringify(base[key]) !== JSON.stringify(value)) parts.push(key + '=' + value);
    }
    return parts.join(', ');
  }

  function scores(summary) {
    const part = section('Scores', 'scores-section');
    if (Array.isArray(summary.results)) {
      const metricNames = [];
      for (const row of summary.results) {
        for (const metric of row.metrics || []) {
          if (!metricNames.includes(metric.name)) metricNames.push(metric.name);
        }
      }
      const units = {};
      for (const row of summary.results) for (const m of row.metrics || []) units[m.name] = m.unit;
      const headings = [{ title: 'participant' }, { title: 'group' }, { title: 'score', num: true }, { title: 'success', num: true }];
      for (const name of metricNames) {
        const unit = units[name] ? ' (' + units[name] + ')' : '';
        headings.push({ title: name + ' median' + unit, num: true }, { title: 'p95', num: true }, { title: 'p99', num: true });
      }
      let base = null;
      const rows = summary.results.map((row, index) => {
        const first = index === 0 || summary.results[index - 1].provider !== row.provider;
        if (first) base = row.dimensions;
        const cells = [row.provider, first ? 'all' : groupLabel(row.dimensions, base),
          { text: num(row.compositeScore), attrs: { class: 'num score' } }, percent(row.successRate)];
        for (const name of metricNames) {
          const metric = (row.metrics || []).find((m) => m.name === name);
          cells.push(num(metric && metric.median), num(metric && metric.p95), num(metric && metric.p99));
        }
        return { cells, attrs: { 'data-provider': row.provider, 'data-overall': String(first) } };
      });
      part.append(table(headings, rows, 'scores'));
      const overall = summary.results.filter((row, i) => i === 0 || summary.results[i - 1].provider !== row.provider);
      chart(part, {
        grid: { left: 120, right: 24, top: 16, bottom: 32 },
        xAxis: { type: 'value', min: 0, max: 100, name: 'composite score' },
        yAxis: { type: 'category', data: overall.map((row) => row.provider), inverse: true },
        series: [{ type: 'bar', data: overall.map((row) => row.compositeScore), label: { show: true, position: 'right' } }],
        tooltip: {},
      }, 'scores');
    } else if (Array.isArray(summary.participants)) {
      const headings = [{ title: 'participant' }, { title: 'tasks', num: true }, { title: 'success', num: true }];
      const rows = summary.participants.map((p) => ({
        cells: [p.participant, num(p.tasks), percent(p.successRate)],
        attrs: { 'data-provider': p.participant },
      }));
      part.append(table(headings, rows, 'scores'));
    } else {
      note(part, 'This run has no summary yet.');
    }
    if (summary.percentileMethod) note(part, 'Percentiles: ' + summary.percentileMethod + ', over trimmed samples.');
  }

  function distributions(list) {
    if (!list.length) return;
    const part = section('Distributions', 'distributions');
    note(part, 'Box: minimum, first quartile, median, third quartile, maximum of successful tasks.');
    for (const metric of list) {
      const rows = metric.participants;
      const sampled = rows.some((row) => row.sampled);
      part.append(el('h3', {}, metric.metric + (sampled ? ' (an even sample of the values)' : '')));
      chart(part, {
        grid: { left: 120, right: 24, top: 16, bottom: 32 },
        xAxis: { type: 'value', scale: true },
        yAxis: { type: 'category', data: rows.map((row) => row.participant + ' (' + row.count + ')'), inverse: true },
        series: [{ type: 'boxplot', data: rows.map((row) => row.box || [null, null, null, null, null]) }],
        tooltip: { trigger: 'item' },
      }, 'distribution');
    }
  }

  function steps(content) {
    if (!content.names.length) return;
    const part = section('Steps', 'steps');
    note(part, 'Mean latency (ms) of each step of successful tasks.');
    chart(part, {
      legend: { top: 0 },
      grid: { left: 120, right: 24, top: 32, bottom: 32 },
      xAxis: { type: 'value', name: 'ms' },
      yAxis: { type: 'category', data: content.participants.map((p) => p.participant), inverse: true },
      series: content.names.map((name, i) => ({
        name, type: 'bar', stack: 'steps', data: content.participants.map((p) => p.meanMs[i]),
      })),
      tooltip: { trigger: 'axis' },
    }, 'steps');
  }

  function timeline(content, names) {
    if (!content.tasks.length) return;
    const part = section('Timeline', 'timeline');
    const shown = content.tasks.length;
    note(part, content.sampled
      ? shown + ' of ' + content.total + ' tasks, sampled evenly; each row is a lane of tasks that ran one after the other.'
      : 'Every task; each row is a lane of tasks that ran one after the other.');
    const rows = [];
    const first = [];
    names.forEach((name, p) => {
      first.push(rows.length);
      for (let lane = 0; lane < content.lanes[p]; lane++) rows.push(name + ' · ' + (lane + 1));
    });
    const items = content.tasks.map(([p, lane, task, start, end, ok]) => ({
      value: [first[p] + lane, start, end, task],
      itemStyle: { color: ok ? '#3b82f6' : '#dc2626' },
    }));
    chart(part, {
      grid: { left: 140, right: 24, top: 16, bottom: 40 },
      xAxis: { type: 'value', name: 'ms since the first start' },
      yAxis: { type: 'category', data: rows, inverse: true },
      dataZoom: [{ type: 'inside' }],
      tooltip: { formatter: (p) => 'task ' + p.value[3] + ': ' + p.value[1] + '–' + p.value[2] + ' ms' },
      series: [{
        type: 'custom',
        encode: { x: [1, 2], y: 0 },
        data: items,
        renderItem: (params, api) => {
          const start = api.coord([api.value(1), api.value(0)]);
          const end = api.coord([api.value(2), api.value(0)]);
          const height = api.size([0, 1])[1] * 0.7;
          return {
            type: 'rect',
            shape: { x: start[0], y: start[1] - height / 2, width: Math.max(end[0] - start[0], 1), height },
            style: api.style(),
          };
        },
      }],
    }, 'timeline');
    // One row per lane, up to a height a canvas can hold; rows get thinner beyond.
    const box = part.querySelector('[data-chart=timeline]');
    box.style.height = Math.min(4000, Math.max(200, rows.length * 18 + 60)) + 'px';
    charts[charts.length - 1].resize();
  }

  function failures(content) {
    const part = section('Failures', 'failures');
    if (!content.groups.length) {
      note(part, 'No task failed.');
      return;
    }
    part.append(table([{ title: 'errorCode' }, { title: 'tasks', num: true }, { title: 'messages' }],
      content.groups.map((g) => ({ cells: [g.errorCode, g.count, g.examples.join('\n')] })), 'failure-groups'));
    if (content.otherCodes) note(part, content.otherCodes + ' more failures with other error codes.');
  }

  function system(content) {
    if (!content || !content.points.length) return;
    const part = section('System', 'system');
    note(part, 'The bench process: CPU (% of one core) and resident memory over the run.');
    chart(part, {
      legend: { top: 0 },
      grid: { left: 56, right: 56, top: 32, bottom: 32 },
      xAxis: { type: 'value', name: 's' },
      yAxis: [{ type: 'value', name: 'CPU %' }, { type: 'value', name: 'MB' }],
      series: [
        { name: 'CPU %', type: 'line', showSymbol: false, data: content.points.map((p) => [p[0], p[1]]) },
        { name: 'RSS MB', type: 'line', yAxisIndex: 1, showSymbol: false, data: content.points.map((p) => [p[0], p[2]]) },
      ],
      tooltip: { trigger: 'axis' },
    }, 'system');
  }

  function logs(list) {
    if (!list.length) return;
    const part = section('Logs', 'logs');
    for (const log of list) {
      const title = log.participant + (log.cut ? ' (the end of the log)' : '');
      part.append(el('details', {}, el('summary', {}, title), el('pre', {}, log.text)));
    }
  }

  function runPage(page) {
    runHeader(page.header);
    scores(page.summary || {});
    distributions(page.distributions);
    steps(page.steps);
    timeline(page.timeline, page.participants);
    failures(page.failures);
    system(page.system);
    logs(page.logs);
    if (page.namesLeftOut) note(main, page.namesLeftOut + ' metric or step values were left out: the page shows the first metric and step names only.');
  }

  // --- benchmark page and list ----------------------------------------------------------

  function benchmarkPage(page) {
    main.append(el('h1', {}, page.benchmark.name), el('p', { class: 'note' }, page.benchmark.slug));
    if (page.compareUrl) main.append(el('p', {}, el('a', { href: page.compareUrl, id: 'compare-link' }, 'Compare two runs')));
    const overTime = section('Runs over time', 'runs-over-time');
    const runs = page.runs;
    if (!runs.length) {
      note(overTime, 'No run of this benchmark has a summary yet.');
    } else {
      const names = [];
      for (const run of runs) for (const name of Object.keys(run.scores)) if (!names.includes(name)) names.push(name);
      note(overTime, 'Composite score per participant; click a point to open its run.');
      const instance = chart(overTime, {
        legend: { top: 0 },
        grid: { left: 48, right: 24, top: 32, bottom: 48 },
        xAxis: { type: 'category', data: runs.map((run) => run.name) },
        yAxis: { type: 'value', min: 0, max: 100 },
        series: names.map((name) => ({ name, type: 'line', data: runs.map((run) => run.scores[name] ?? null) })),
        tooltip: { trigger: 'item' },
      }, 'runs');
      instance.on('click', (params) => { window.location.href = runs[params.dataIndex].url; });
      const list = runs.slice().reverse().map((run) => ({
        cells: [el('a', { href: run.url }, run.name), run.createdAt],
      }));
      overTime.append(table([{ title: 'run' }, { title: 'created' }], list, 'runs'));
    }
    const board = section('Leaderboard', 'leaderboard');
    const latest = page.leaderboard;
    if (!latest) {
      note(board, 'No scored run yet.');
      return;
    }
    board.append(el('p', {}, 'Latest run: ', el('a', { href: latest.url }, latest.name)));
    const names = [];
    const units = {};
    for (const row of latest.rows) {
      for (const m of row.metrics || []) {
        if (!names.includes(m.name)) names.push(m.name);
        units[m.name] = m.unit;
      }
    }
    const headings = [{ title: 'participant' }, { title: 'score', num: true }, { title: 'success', num: true }];
    for (const name of names) {
      const unit = units[name] ? ' (' + units[name] + ')' : '';
      headings.push({ title: name + ' median' + unit, num: true }, { title: 'p95', num: true }, { title: 'p99', num: true });
    }
    const rows = latest.rows.map((row) => {
      const cells = [row.provider, { text: num(row.compositeScore), attrs: { class: 'num score' } }, percent(row.successRate)];
      for (const name of names) {
        const metric = (row.metrics || []).find((m) => m.name === name);
        cells.push(num(metric && metric.median), num(metric && metric.p95), num(metric && metric.p99));
      }
      return { cells, attrs: { 'data-provider': row.provider } };
    });
    board.append(table(headings, rows, 'leaderboard-table'));
  }

  function benchmarksPage(page) {
    main.append(el('h1', {}, 'Benchmarks'));
    const part = section('All benchmarks', 'benchmarks');
    if (!page.benchmarks.length) {
      note(part, 'No benchmark yet: report a run with BENCHMARKS_PLATFORM_URL set to this server.');
      return;
    }
    part.append(table([{ title: 'benchmark' }, { title: 'slug' }, { title: 'updated' }],
      page.benchmarks.map((b) => ({ cells: [el('a', { href: b.url }, b.name), b.slug, b.updatedAt] })), 'benchmark-list'));
  }

  function comparePage(page) {
    main.append(el('h1', {}, 'Compare runs'), el('p', { class: 'note' }, page.benchmark.slug));
    const pick = section('Runs', 'pick');
    const select = (name, chosen) => el('select', { name },
      ...page.runs.map((run) => {
        const option = el('option', { value: run.id }, run.name + ' (' + run.createdAt + ')');
        if (run.id === chosen) option.selected = true;
        return option;
      }));
    pick.append(el('form', { method: 'get' },
      el('label', {}, 'A (baseline) ', select('a', page.a)), ' ',
      el('label', {}, 'B ', select('b', page.b)), ' ',
      el('button', { type: 'submit' }, 'Compare')));
    if (page.error) pick.append(el('p', { class: 'error' }, page.error));
    const comparison = page.comparison;
    if (!comparison) return;
    const settings = comparison.settings;
    for (const candidate of comparison.candidates) {
      const part = section('B: ' + candidate.run.dir + ' against A: ' + comparison.baseline.dir, 'comparison');
      const headings = [{ title: 'participant' }, { title: 'metric' }, { title: 'A median', num: true }, { title: 'B median', num: true },
        { title: 'B/A', num: true }, { title: (settings.confidence * 100) + '% CI', num: true }, { title: 'p', num: true }, { title: 'verdict' }];
      const rows = [];
      for (const participant of candidate.participants) {
        for (const metric of participant.metrics) {
          const unit = metric.unit ? ' ' + metric.unit : '';
          rows.push({
            cells: [participant.participant, metric.kind === 'step' ? 'step ' + metric.metric : metric.metric,
              num(metric.baseline.median) + unit, num(metric.candidate.median) + unit, metric.ratio.toFixed(3),
              '[' + metric.ciLow.toFixed(3) + ', ' + metric.ciHigh.toFixed(3) + ']', metric.pValue.toPrecision(3), metric.verdict],
            attrs: { 'data-verdict': metric.verdict },
          });
        }
      }
      part.append(table(headings, rows, 'comparison-table'));
      const scored = candidate.participants.filter((p) => p.compositeScore);
      if (scored.length) {
        part.append(el('h3', {}, 'Composite scores'));
        part.append(table([{ title: 'participant' }, { title: 'A', num: true }, { title: 'B', num: true }],
          scored.map((p) => ({ cells: [p.participant, num(p.compositeScore.baseline), num(p.compositeScore.candidate)] }))));
      }
      for (const text of candidate.notes) note(part, text);
      note(part, 'Ratio of medians with a bootstrap interval (' + settings.resamples + ' resamples, seed ' + settings.seed +
        '), Mann–Whitney U p-value; a change counts when the whole interval lies outside ±' + (settings.threshold * 100) + ' % (as bench compare).');
    }
  }

  if (data.page === 'benchmark') benchmarkPage(data);
  else if (data.page === 'compare') comparePage(data);
  else if (data.page === 'benchmarks') benchmarksPage(data);
  else runPage(data);
  window.addEventListener('resize', () => charts.forEach((c) => c.resize()));
  document.body.setAttribute('data-drawn', String(charts.length));
})();
