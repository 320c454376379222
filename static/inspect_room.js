// Live room transcript. The run's websocket feed (voyage/web/consumers.py) says when something happened;
// when an item names this room, the page fetches the room's full lines after the last one it shows
// (who heard, who only saw) and appends them. A dropped socket reconnects with the last seq and
// call id it had, so nothing is missed. Model text is inserted with textContent only.
(function () {
  "use strict";
  var box = document.getElementById("transcript");
  if (!box || box.dataset.live !== "1") return;
  var last = parseInt(box.dataset.last, 10);
  var feed = box.dataset.feed;
  var inspector = box.dataset.inspector;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function tickSection(line) {
    var sections = box.querySelectorAll("section.tick");
    var tail = sections[sections.length - 1];
    if (tail && tail.dataset.tick === String(line.tick)) return tail;
    var empty = box.querySelector(".empty");
    if (empty) empty.remove();
    var section = el("section", "tick");
    section.dataset.tick = String(line.tick);
    var head = el("h2", "tick-head", line.clock + " ");
    head.appendChild(el("small", null, "tick " + line.tick));
    section.appendChild(head);
    box.appendChild(section);
    return section;
  }

  function render(line) {
    var div = el("div", "line kind-" + line.kind);
    div.id = "e" + line.seq;
    div.dataset.seq = String(line.seq);
    div.appendChild(el("span", "kind", line.kind));
    div.appendChild(document.createTextNode(" "));
    if (line.actor) {
      var who = el("a", "who", line.actor);
      who.setAttribute("href", inspector.replace("AGENT", encodeURIComponent(line.actor_key)));
      div.appendChild(who);
      div.appendChild(document.createTextNode(" "));
    }
    if (line.speech) {
      div.appendChild(el("span", "volume vol-" + line.speech.volume, line.speech.volume));
      if (line.speech.target) {
        div.appendChild(document.createTextNode(" to "));
        div.appendChild(el("span", "target", line.speech.target));
      }
      div.appendChild(document.createTextNode(": "));
      div.appendChild(el("q", "words", line.text));
      var list = el("ul", "hearers");
      line.speech.groups.forEach(function (g) {
        var li = el("li", "mode-" + g.mode);
        li.appendChild(el("span", "mode", g.label));
        li.appendChild(document.createTextNode(": " + g.names.join(", ")));
        list.appendChild(li);
      });
      if (!line.speech.groups.length) list.appendChild(el("li", "mode-none", "nobody heard"));
      div.appendChild(list);
    } else {
      div.appendChild(el("span", "text", line.text));
    }
    return div;
  }

  var fetching = false, again = false;
  function fetchNew() {
    if (fetching) { again = true; return; }
    fetching = true;
    fetch(feed + "?after=" + last, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) {
        data.lines.forEach(function (line) {
          if (line.seq <= last) return;
          tickSection(line).appendChild(render(line));
          last = line.seq;
        });
        if (data.more) again = true;  // a full batch: fetch the rest at once
      })
      .catch(function () { window.setTimeout(fetchNew, 3000); })
      .finally(function () {
        fetching = false;
        if (again) { again = false; window.setTimeout(fetchNew, 100); }
      });
  }

  var runSeq = box.dataset.runSeq, runCall = box.dataset.runCall, room = box.dataset.room;
  function listen() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + window.location.host + box.dataset.socket +
                               "?after=" + runSeq + "&after_call=" + runCall);
    socket.onopen = fetchNew;  // whatever came while the socket was down
    socket.onmessage = function (message) {
      var data = JSON.parse(message.data);
      runSeq = data.last_seq;
      runCall = data.last_call;
      if (data.items.some(function (item) { return item.room === room; })) fetchNew();
    };
    socket.onclose = function () { window.setTimeout(listen, 2000); };
  }
  listen();
})();
