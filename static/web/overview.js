// The run overview, live: the event feed over a websocket, the ship map (and the agents' leads)
// redrawn from /runs/<id>/ship.json, and time travel. Every text that may hold model output is
// inserted with textContent, never as HTML.
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("live-config").textContent);
  const feed = document.getElementById("feed");
  const status = document.getElementById("live-status");
  const slider = document.getElementById("travel");
  const asof = document.getElementById("travel-asof");
  const shipAsof = document.getElementById("ship-asof");
  const playButton = document.getElementById("play");
  const speed = document.getElementById("speed");
  const who = document.getElementById("who");
  const thenBox = document.getElementById("then");
  const thenList = document.getElementById("then-events");
  const MOVES_MAP = new Set(["move", "wake", "sleep", "nightfall", "death", "rung"]);
  const FEED_MAX = 500;

  let lastSeq = config.last_seq, lastCall = config.last_call;
  let liveTick = config.tick;
  let travelling = false;
  let socket = null, retryMs = 500;

  // --- the feed -------------------------------------------------------------------------
  function matches(item) {
    const f = config.filters;
    return (!f.kind || f.kind === item.kind) && (!f.room || f.room === item.room) && (!f.agent || f.agent === item.agent);
  }

  function span(cls, text) {
    const el = document.createElement("span");
    el.className = cls;
    el.textContent = text;
    return el;
  }

  function feedLine(item, fresh) {
    const li = document.createElement("li");
    li.className = "k-" + item.kind + (fresh ? " fresh" : "");
    li.dataset.kind = item.kind;
    li.dataset.room = item.room;
    li.dataset.agent = item.agent;
    if ("seq" in item) li.dataset.seq = item.seq; else li.dataset.call = item.call;
    const when = span("when", item.clock);
    when.appendChild(span("where", item.room_name));
    li.append(when, span("kind", item.kind), span("what", item.what));
    return li;
  }

  function receive(message) {
    let mapChanged = false, newest = liveTick;
    for (const item of message.items) {
      if (matches(item)) {
        const atBottom = feed.scrollHeight - feed.scrollTop - feed.clientHeight < 40;
        feed.appendChild(feedLine(item, true));
        while (feed.children.length > FEED_MAX) feed.removeChild(feed.firstChild);
        if (atBottom) feed.scrollTop = feed.scrollHeight;
      }
      if (MOVES_MAP.has(item.kind)) mapChanged = true;
      newest = Math.max(newest, item.tick);
    }
    lastSeq = message.last_seq;
    lastCall = message.last_call;
    if (mapChanged || newest > liveTick) refreshLive();
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const url = scheme + location.host + config.ws_path + "?after=" + lastSeq + "&after_call=" + lastCall;
    socket = new WebSocket(url);
    socket.onopen = function () { retryMs = 500; setStatus(true); };
    socket.onmessage = function (e) { receive(JSON.parse(e.data)); };
    socket.onclose = function () {
      setStatus(false);
      setTimeout(connect, retryMs);  // the reconnect sends the last seq: nothing is missed
      retryMs = Math.min(retryMs * 2, 10000);
    };
  }

  function setStatus(on) {
    status.textContent = on ? "live" : "reconnecting…";
    status.className = "live-status " + (on ? "on" : "off");
    status.dataset.connected = on ? "1" : "0";
  }

  // --- the ship ---------------------------------------------------------------------------
  function drawShip(ship) {
    for (const a of ship.agents) {
      const marker = document.querySelector('circle.agent[data-agent="' + CSS.escape(a.key) + '"]');
      if (marker) {
        marker.setAttribute("cx", a.x);
        marker.setAttribute("cy", a.y);
        marker.setAttribute("class", "agent rung-" + a.rung + (a.asleep ? " asleep" : "") + (a.alive ? "" : " dead")
          + (marker.classList.contains("selected") ? " selected" : ""));
        marker.dataset.room = a.room;
        const title = marker.querySelector("title");
        title.textContent = a.name + ": rung " + a.rung + " (" + a.rung_name + "), " + a.status + ", " + a.room_name;
      }
      const row = document.querySelector('#agents tr[data-agent="' + CSS.escape(a.key) + '"]');
      if (row) {
        row.querySelector(".rung").firstChild.textContent = a.rung + " ";
        row.querySelector(".rung-name").textContent = a.rung_name;
        row.querySelector(".room").textContent = a.room_name;
        row.querySelector(".status").textContent = a.status;
        const ahead = row.querySelector(".ahead");  // the simultaneous schedule's leads: now only, never travelled
        if (ahead) {
          const figures = ship.leads ? ship.leads.agents : {};
          ahead.textContent = Object.prototype.hasOwnProperty.call(figures, a.key) ? figures[a.key] : "";
        }
      }
    }
    const leads = document.getElementById("leads");
    if (leads && ship.leads) {
      document.getElementById("leads-summary").textContent = ship.leads.summary;
      leads.hidden = !ship.leads.summary;
    }
  }

  let refreshing = false, refreshAgain = false;
  function refreshLive() {
    if (travelling) return;
    if (refreshing) { refreshAgain = true; return; }
    refreshing = true;
    fetch(config.ship_url, {credentials: "same-origin"}).then(function (r) { return r.json(); }).then(function (ship) {
      if (!travelling) {
        drawShip(ship);
        liveTick = ship.now;
        document.getElementById("clock").textContent = ship.clock;
        document.getElementById("tick").textContent = ship.now;
        document.getElementById("run-state").textContent = ship.state_text;
        slider.max = ship.now;
        slider.value = ship.now;
        asof.textContent = "now (" + ship.clock + ")";
      } else {
        slider.max = ship.now;
      }
    }).finally(function () {
      refreshing = false;
      if (refreshAgain) { refreshAgain = false; refreshLive(); }
    });
  }

  // --- time travel ------------------------------------------------------------------------
  let travelRequest = 0;
  function travelTo(tick) {
    travelling = true;
    document.body.classList.add("travelling");
    const mine = ++travelRequest;
    return fetch(config.ship_url + "?tick=" + tick, {credentials: "same-origin"}).then(function (r) { return r.json(); })
      .then(function (ship) {
        if (mine !== travelRequest || !travelling) return;
        drawShip(ship);
        asof.textContent = "tick " + ship.tick + " (" + ship.clock + ")";
        shipAsof.textContent = "as it was at tick " + ship.tick + ", " + ship.clock;
        shipAsof.dataset.tick = ship.tick;
        thenList.replaceChildren.apply(thenList, ship.events.map(function (e) { return feedLine(e, false); }));
        thenBox.hidden = false;
      });
  }

  function backToLive() {
    stopPlaying();
    travelling = false;
    travelRequest++;
    document.body.classList.remove("travelling");
    shipAsof.textContent = "now";
    delete shipAsof.dataset.tick;
    thenBox.hidden = true;
    refreshLive();
  }

  let debounce = null;
  slider.addEventListener("input", function () {
    clearTimeout(debounce);
    const tick = parseInt(slider.value, 10);
    debounce = setTimeout(function () { travelTo(tick); }, 80);
  });

  // Play: one tick after another at the chosen speed, never asking for the next tick before the
  // last one has arrived (a long run's early ticks take the server longer than a frame).
  let playing = null;
  function stopPlaying() {
    if (playing) clearTimeout(playing);
    playing = null;
    playButton.textContent = "Play";
  }
  function playStep() {
    const next = parseInt(slider.value, 10) + 1;
    if (next > parseInt(slider.max, 10)) { stopPlaying(); return; }
    slider.value = next;
    const began = performance.now();
    travelTo(next).finally(function () {
      if (!playing) return;
      playing = setTimeout(playStep, Math.max(0, 1000 / parseFloat(speed.value) - (performance.now() - began)));
    });
  }
  playButton.addEventListener("click", function () {
    if (playing) { stopPlaying(); return; }
    playButton.textContent = "Pause";
    if (parseInt(slider.value, 10) >= parseInt(slider.max, 10)) slider.value = 0;
    playing = setTimeout(playStep, 0);
  });
  speed.addEventListener("change", function () { if (playing) { stopPlaying(); playButton.click(); } });
  document.getElementById("back-to-live").addEventListener("click", backToLive);

  // --- who is it ---------------------------------------------------------------------------
  function select(marker) {
    document.querySelectorAll("circle.agent.selected").forEach(function (m) { m.classList.remove("selected"); });
    marker.classList.add("selected");
    who.textContent = marker.querySelector("title").textContent;
  }
  const map = document.getElementById("shipmap");
  map.addEventListener("click", function (e) {
    const marker = e.target.closest("circle.agent");
    if (marker) select(marker);
  });
  map.addEventListener("keydown", function (e) {  // markers take the focus (tabindex): Enter names them
    const marker = e.target.closest("circle.agent");
    if (marker && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); select(marker); }
  });

  // Filters: choosing one reloads the feed, filtered on the server.
  document.querySelectorAll("#feed-filters select").forEach(function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });

  feed.scrollTop = feed.scrollHeight;
  connect();
})();
