/* The offline review form: collect each task's decision and note, and save them as a decisions file.
   No server and no network: the file is made in the browser and downloaded with a Blob link. */
(function () {
  "use strict";
  var meta = JSON.parse(document.getElementById("review-meta").textContent);
  var saveButton = document.getElementById("save-decisions");
  var message = document.getElementById("save-message");
  var counter = document.getElementById("decided-count");
  var nameInput = document.getElementById("reviewer-name");
  var orcidInput = document.getElementById("reviewer-orcid");
  if (!saveButton || !nameInput) { return; }
  saveButton.hidden = false;
  var tasks = Array.prototype.slice.call(document.querySelectorAll("article.task[data-task]"));

  function decisionOf(article) {
    var picked = article.querySelector("input[type=radio]:checked");
    return picked ? picked.value : null;
  }
  function noteOf(article) {
    var box = article.querySelector("textarea");
    return box ? box.value.trim() : "";
  }
  function count() {
    var n = 0;
    tasks.forEach(function (a) { if (decisionOf(a)) { n++; } });
    counter.textContent = String(n);
    return n;
  }
  document.addEventListener("change", count);

  function collect() {
    var decisions = [];
    tasks.forEach(function (article) {
      var decision = decisionOf(article);
      var note = noteOf(article);
      if (!decision && !note) { return; }
      decisions.push({
        kind: article.getAttribute("data-kind"),
        id: article.getAttribute("data-task"),
        content_hash: article.getAttribute("data-hash"),
        decision: decision,
        note: note || null
      });
    });
    return decisions;
  }

  function say(text, bad) {
    message.textContent = text;
    message.className = "message" + (bad ? " bad" : "");
  }

  saveButton.addEventListener("click", function () {
    var name = nameInput.value.replace(/\s+/g, " ").trim();
    var orcid = orcidInput.value.trim();
    if (!name) { say("Enter your name before saving.", true); nameInput.focus(); return; }
    if (orcid && !/^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/.test(orcid)) {
      say("The ORCID iD should look like 0000-0002-1825-0097.", true); orcidInput.focus(); return;
    }
    var decisions = collect();
    var undecided = decisions.filter(function (d) { return !d.decision; });
    if (undecided.length) {
      say("A note without a decision cannot be saved: choose a decision for task " + undecided[0].id + ".", true);
      return;
    }
    if (!decisions.length) { say("Choose a decision for at least one task first.", true); return; }
    var payload = {
      clinreg_decisions: 1,
      release: meta.release,
      taxonomy: meta.taxonomy,
      document_generated: meta.generated,
      saved: new Date().toISOString(),
      reviewer: { name: name, orcid: orcid || null },
      decisions: decisions
    };
    var blob = new Blob([JSON.stringify(payload, null, 2) + "\n"], { type: "application/json" });
    var link = document.createElement("a");
    var day = new Date().toISOString().slice(0, 10);
    link.download = "clinreg-decisions-" + day + "-" + name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") + ".json";
    link.href = URL.createObjectURL(blob);
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
    say("Saved " + decisions.length + " decision" + (decisions.length === 1 ? "" : "s") + " as " + link.download +
        ". Send that file to the registry maintainers.", false);
    document.documentElement.setAttribute("data-saved", String(decisions.length));
  });
  count();
  document.documentElement.setAttribute("data-form-ready", "yes");
})();
