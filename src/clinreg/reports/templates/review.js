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
  var endButton = document.getElementById("save-decisions-end");
  if (endButton) { endButton.hidden = false; }
  // Tasks and subcategories: each is an article with its kind, id and content hash.
  var ITEMS = "article[data-task], article[data-item]";
  var tasks = Array.prototype.slice.call(document.querySelectorAll(ITEMS));
  function idOf(article) { return article.getAttribute("data-task") || article.getAttribute("data-item"); }
  var byKey = {};
  tasks.forEach(function (a) { byKey[a.getAttribute("data-kind") + "/" + idOf(a)] = a; });
  // Decisions are kept in the browser as they are made (never lost with a closed tab), keyed by the taxonomy;
  // each is restored only onto the wording it was made on (the same content hash).
  var storeKey = "clinreg-review:" + (meta.taxonomy || "taxonomy");
  var dirty = false;

  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }
  function setDecision(article, decision, note) {
    Array.prototype.forEach.call(article.querySelectorAll("input[type=radio]"), function (r) {
      r.checked = decision !== null && r.value === decision;
    });
    var box = article.querySelector("textarea");
    if (box) { box.value = note || ""; }
    var clear = article.querySelector(".clear-decision");
    if (clear) { clear.hidden = !(decision || note); }
  }
  function restore(items) {
    var restored = 0, stale = 0;
    (items || []).forEach(function (d) {
      var article = byKey[(d.kind || "task") + "/" + d.id];
      if (!article) { return; }
      if (article.getAttribute("data-hash") !== d.content_hash) { stale++; return; }
      setDecision(article, d.decision || null, d.note || "");
      restored++;
    });
    return { restored: restored, stale: stale };
  }
  function remember() {
    var store = storage();
    if (!store) { return; }
    try {
      store.setItem(storeKey, JSON.stringify({ name: nameInput.value, orcid: orcidInput.value, decisions: collect() }));
    } catch (e) { /* storage full or disabled: the Save button still works */ }
  }

  function decisionOf(article) {
    var picked = article.querySelector("input[type=radio]:checked");
    return picked ? picked.value : null;
  }
  function noteOf(article) {
    var box = article.querySelector("textarea");
    return box ? box.value.trim() : "";
  }
  // Tasks and subcategories are counted apart: a decision on a subcategory's definition is not a task decided.
  var subCounter = document.getElementById("decided-subcategories");
  function count() {
    var n = 0, subs = 0;
    tasks.forEach(function (a) {
      if (!decisionOf(a)) { return; }
      if (a.getAttribute("data-kind") === "subcategory") { subs++; } else { n++; }
    });
    counter.textContent = String(n);
    if (subCounter) { subCounter.textContent = String(subs); }
    return n + subs;
  }
  function edited(event) {
    var article = event.target.closest ? event.target.closest(ITEMS) : null;
    if (article) {
      var clear = article.querySelector(".clear-decision");
      if (clear) { clear.hidden = !(decisionOf(article) || noteOf(article)); }
    }
    dirty = true;
    count();
    remember();
  }
  document.addEventListener("change", edited);
  document.addEventListener("input", edited);
  document.addEventListener("click", function (event) {
    var button = event.target;
    if (!button.classList || !button.classList.contains("clear-decision")) { return; }
    setDecision(button.closest(ITEMS), null, "");
    dirty = true;
    count();
    remember();
  });
  window.addEventListener("beforeunload", function (event) {
    if (!dirty) { return; }
    event.preventDefault();
    event.returnValue = "";  // the browser asks before a tab with unsaved decisions closes
  });

  function collect() {
    var decisions = [];
    tasks.forEach(function (article) {
      var decision = decisionOf(article);
      var note = noteOf(article);
      if (!decision && !note) { return; }
      decisions.push({
        kind: article.getAttribute("data-kind"),
        id: idOf(article),
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

  function save() {
    var name = nameInput.value.replace(/\s+/g, " ").trim();
    var orcid = orcidInput.value.trim();
    if (!name) { say("Enter your name before saving.", true); nameInput.focus(); return; }
    if (orcid && !/^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/.test(orcid)) {
      say("The ORCID iD should look like 0000-0002-1825-0097.", true); orcidInput.focus(); return;
    }
    var decisions = collect();
    // A note without a decision is saved too: the import records it as a comment, changing no review state.
    var comments = decisions.filter(function (d) { return !d.decision; }).length;
    if (!decisions.length) { say("Choose a decision or write a note for at least one task first.", true); return; }
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
    var decided = decisions.length - comments;
    say("Saved " + decided + " decision" + (decided === 1 ? "" : "s") +
        (comments ? " and " + comments + " comment" + (comments === 1 ? "" : "s") + " without a decision" : "") +
        " as " + link.download + ". Send that file to the registry maintainers.", false);
    document.documentElement.setAttribute("data-saved", String(decisions.length));
    dirty = false;
  }
  saveButton.addEventListener("click", save);
  if (endButton) { endButton.addEventListener("click", save); }

  var opener = document.getElementById("open-decisions");
  var resume = document.getElementById("resume");
  if (resume) { resume.hidden = false; }
  if (opener) {
    opener.addEventListener("change", function () {
      var file = opener.files && opener.files[0];
      if (!file) { return; }
      var reader = new FileReader();
      reader.onload = function () {
        var data;
        try { data = JSON.parse(String(reader.result)); } catch (e) { data = null; }
        if (!data || data.clinreg_decisions !== 1 || !Array.isArray(data.decisions)) {
          say("That file is not a decisions file saved by this form.", true);
          return;
        }
        if (data.reviewer && !nameInput.value) { nameInput.value = data.reviewer.name || ""; }
        if (data.reviewer && !orcidInput.value) { orcidInput.value = data.reviewer.orcid || ""; }
        var done = restore(data.decisions);
        count();
        remember();
        say("Opened " + done.restored + " decision" + (done.restored === 1 ? "" : "s") + " from " + file.name +
            (done.stale ? "; " + done.stale + " were made on wording that has changed since and are not shown" : "") +
            ".", false);
      };
      reader.readAsText(file);
    });
  }

  // On paper the version under each task's source details ties a decision to its wording: print them open.
  var closed = [];
  window.addEventListener("beforeprint", function () {
    closed = Array.prototype.filter.call(document.querySelectorAll("details.source-details"), function (d) { return !d.open; });
    closed.forEach(function (d) { d.open = true; });
  });
  window.addEventListener("afterprint", function () {
    closed.forEach(function (d) { d.open = false; });
    closed = [];
  });

  var kept = storage() && storage().getItem(storeKey);
  if (kept) {
    try {
      var data = JSON.parse(kept);
      nameInput.value = data.name || "";
      orcidInput.value = data.orcid || "";
      var back = restore(data.decisions);
      if (back.restored) {
        say(back.restored + " decision" + (back.restored === 1 ? "" : "s") + " kept in this browser since your " +
            "last visit " + (back.restored === 1 ? "is" : "are") + " filled in again. Save to send them.", false);
        dirty = true;
      }
    } catch (e) { /* a damaged entry is ignored */ }
  }
  count();
  document.documentElement.setAttribute("data-form-ready", "yes");
})();
