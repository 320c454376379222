// The runs list keeps itself current: every few seconds it reads /runs.json and updates each
// run's clock, progress and usage in place (textContent only). When a run changes state, or runs
// come or go, it reloads, so that the buttons match what each run allows.
(function () {
  "use strict";
  const table = document.getElementById("runs");
  if (!table) return;
  const EVERY_MS = 3000;

  function set(row, selector, text) {
    const cell = row.querySelector(selector);
    if (cell && cell.textContent !== text) cell.textContent = text;
  }

  function update(runs) {
    const rows = table.querySelectorAll("tbody tr[data-run]");
    if (rows.length !== runs.length) { location.reload(); return; }
    for (const run of runs) {
      const row = document.getElementById("run-" + run.id);
      if (!row || row.dataset.state !== run.state) { location.reload(); return; }
      set(row, ".clock-cell", run.clock);
      set(row, ".ticks", run.ticks);
      set(row, ".calls", run.calls);
      set(row, ".tokens", run.tokens);
      set(row, ".cost", run.cost);
      set(row, ".problem", run.problem);
      row.querySelector("progress").value = run.progress_pct;
    }
  }

  setInterval(function () {
    fetch(table.dataset.url, {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (data) { if (data) update(data.runs); })
      .catch(function () {});  // the server may be restarting: try again at the next beat
  }, EVERY_MS);
})();
