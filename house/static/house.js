// The house's tables page, live: every shipment that adds entries pushes every table's state.
(function () {
  "use strict";
  var body = document.querySelector("#tables tbody");
  if (!body || !window.EventSource) return;
  function cell(text, cls) {
    var td = document.createElement("td");
    if (cls) td.className = cls;
    td.textContent = text;
    return td;
  }
  function render(tables) {
    var rows = tables.map(function (tb) {
      var tr = document.createElement("tr");
      tr.dataset.table = tb.id;
      var name = cell(tb.name + " ");
      var id = document.createElement("small");
      id.className = "muted";
      id.textContent = tb.id;
      name.appendChild(id);
      tr.appendChild(name);
      tr.appendChild(cell(tb.mode));
      var seq = cell(String(tb.seq), "num");
      seq.dataset.field = "seq";
      tr.appendChild(seq);
      var head = cell("");
      var code = document.createElement("code");
      code.textContent = tb.head;
      head.appendChild(code);
      tr.appendChild(head);
      tr.appendChild(cell(tb.last_seen || ""));
      var result = cell(String(tb.house_result), "num");
      result.dataset.field = "house_result";
      tr.appendChild(result);
      tr.appendChild(cell(String(tb.on_table), "num"));
      tr.appendChild(cell(Object.keys(tb.players).map(function (p) {
        return p + " " + tb.players[p];
      }).join(", ")));
      tr.appendChild(cell(tb.refusal, "error"));
      return tr;
    });
    body.replaceChildren.apply(body, rows);
  }
  var source = new EventSource("/live/events");
  source.addEventListener("tables", function (e) {
    render(JSON.parse(e.data).tables);
  });
})();
