// Live progress of a study's runs: poll the study's progress JSON every second and update each
// run's row. Text goes in with textContent only.
(function () {
  "use strict";
  const table = document.getElementById("study-runs");
  if (!table) return;
  const url = table.dataset.progressUrl;

  function setState(el, state) {
    el.textContent = state;
    el.className = "state state-" + state;
  }

  function apply(data) {
    setState(document.getElementById("study-state"), data.study.state);
    document.getElementById("study-spent").textContent = data.study.spent.toFixed(4);
    document.getElementById("stop-reason").textContent = data.study.stop_reason;
    for (const r of data.runs) {
      const row = document.getElementById("run-" + r.run_id);
      if (!row) continue;
      setState(row.querySelector(".state"), r.state);
      const bar = row.querySelector("progress");
      bar.max = r.target_ticks;
      bar.value = r.tick;
      row.querySelector(".ticks").textContent = r.tick + "/" + r.target_ticks;
      row.querySelector(".note").textContent = r.note;
    }
    // a study stopped by its budget may still have runs going: follow them to the end
    return data.study.state === "running" || data.runs.some(r => r.state === "queued" || r.state === "running");
  }

  async function poll() {
    let again = true;
    try {
      const response = await fetch(url, {headers: {"Accept": "application/json"}, credentials: "same-origin"});
      if (response.ok) again = apply(await response.json());
    } catch (e) { /* a missed poll: try again next second */ }
    if (again) setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();
