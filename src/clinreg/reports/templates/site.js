/* Search and filters of the benchmark list: runs from the file system, reads only the page itself. */
(function () {
  "use strict";
  var list = document.getElementById("bench-list");
  if (!list) { return; }
  var items = Array.prototype.slice.call(list.querySelectorAll(".bench"));
  var q = document.getElementById("q");
  var selects = { category: "f-category", subcategory: "f-subcategory", access: "f-access", grader: "f-grader" };
  var count = document.getElementById("count");
  var none = document.getElementById("none");
  var text = items.map(function (li) { return li.textContent.toLowerCase(); });

  function values(li, key) {
    var raw = li.getAttribute("data-" + key) || "";
    return key === "grader" ? raw.split("|") : raw.split(/\s+/);
  }

  function apply() {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    items.forEach(function (li, i) {
      var ok = words.every(function (w) { return text[i].indexOf(w) >= 0; });
      Object.keys(selects).forEach(function (key) {
        var want = document.getElementById(selects[key]).value;
        if (ok && want && values(li, key).indexOf(want) < 0) { ok = false; }
      });
      li.hidden = !ok;
      if (ok) { shown += 1; }
    });
    count.textContent = shown + " of " + items.length + " benchmarks";
    none.hidden = shown !== 0;
  }

  q.addEventListener("input", apply);
  Object.keys(selects).forEach(function (key) {
    document.getElementById(selects[key]).addEventListener("change", apply);
  });
  document.querySelector("form.filters").addEventListener("submit", function (e) { e.preventDefault(); apply(); });
  apply();
  document.documentElement.setAttribute("data-site-ready", "yes");
}());
