// Live room transcript: polls the room's feed for events after the last one shown and appends
// them. Model text is inserted with textContent only, never parsed as HTML.
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

  function poll() {
    fetch(feed + "?after=" + last, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) {
        data.lines.forEach(function (line) {
          if (line.seq <= last) return;
          tickSection(line).appendChild(render(line));
          last = line.seq;
        });
        var more = data.lines.length > 0;
        window.setTimeout(poll, more ? 200 : 1000);
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 1000);
})();
