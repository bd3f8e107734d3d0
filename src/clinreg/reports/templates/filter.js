/* Filter the task and dataset tables as the reader types; the page reads the same without this script. */
(function () {
  "use strict";
  var doc = document.documentElement;
  var controls = document.getElementById("filter-controls");
  var query = document.getElementById("filter-query");
  var show = document.getElementById("filter-show");
  if (!controls || !query || !show) { return; }
  controls.hidden = false;
  var tests = {
    all: function () { return true; },
    uncovered: function (row) { return row.getAttribute("data-covered") === "no"; },
    drafted: function (row) { return row.getAttribute("data-provenance") === "drafted"; },
    derived: function (row) { return row.getAttribute("data-provenance") === "derived"; },
    published: function (row) { return row.getAttribute("data-provenance") === "published"; },
    awaiting: function (row) { return row.getAttribute("data-awaiting") === "yes"; }
  };
  function apply() {
    var words = query.value.toLowerCase().split(/\s+/).filter(Boolean);
    var test = tests[show.value] || tests.all;
    var tables = document.querySelectorAll("table.records");
    for (var t = 0; t < tables.length; t++) {
      var table = tables[t];
      var rows = table.tBodies[0].rows;
      var usesShow = table.getAttribute("data-kind") === "tasks";
      var shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var row = rows[i];
        var text = row.textContent.toLowerCase();
        var ok = words.every(function (w) { return text.indexOf(w) !== -1; }) && (!usesShow || test(row));
        row.hidden = !ok;
        if (ok) { shown++; }
      }
      var counter = document.querySelector('[data-count-for="' + table.id + '"]');
      if (counter) { counter.textContent = "showing " + shown + " of " + rows.length; }
    }
  }
  // A link can carry a filter, e.g. report.html#filter=gated, so a reader can share what they looked at.
  var match = /^#filter=(.*)$/.exec(window.location.hash);
  if (match) { query.value = decodeURIComponent(match[1]); }
  query.addEventListener("input", apply);
  show.addEventListener("change", apply);
  apply();
  doc.setAttribute("data-filter-ready", "yes");
})();
