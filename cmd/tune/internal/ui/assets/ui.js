// tune ui: submit the fusion controls on change; keys 0-9 grade the
// focused document on the judge page, j/k (or arrows) move between them,
// n/p go to the next/previous query, u undoes the last label. No library, no network.
(function () {
  document.querySelectorAll("form[data-auto]").forEach(function (f) {
    f.addEventListener("change", function () { f.requestSubmit ? f.requestSubmit() : f.submit(); });
  });
  // A label on a document the golden set grades is recorded, but the
  // golden set's grade still counts: ask first.
  document.querySelectorAll(".doc[data-gold] button[data-grade]").forEach(function (b) {
    b.addEventListener("click", function (e) {
      var d = b.closest(".doc");
      if (b.dataset.grade !== d.dataset.gold &&
          !window.confirm("The golden set grades " + d.dataset.doc + " " + d.dataset.gold + ", and its grade wins over labels. Record your label anyway?")) {
        e.preventDefault();
      }
    });
  });
  var docs = Array.prototype.slice.call(document.querySelectorAll(".doc[data-doc]"));
  if (!docs.length) return;
  var cur = 0;
  var first = docs.findIndex(function (d) { return d.dataset.grade === "-1"; });
  if (first >= 0) cur = first;
  // frame marks document i; move (keys j/k) also gives it the keyboard
  // focus, so that the framed document is the one Tab, Enter and the
  // grade keys act on; Tab into another document frames it.
  function frame(i) {
    docs.forEach(function (d) { d.classList.remove("focus"); });
    cur = Math.max(0, Math.min(docs.length - 1, i));
    docs[cur].classList.add("focus");
  }
  function focus(i) {
    frame(i);
    var b = docs[cur].querySelector("button.cur") || docs[cur].querySelector("button[data-grade]");
    if (b) b.focus({ preventScroll: true });
    docs[cur].scrollIntoView({ block: "nearest" });
  }
  docs.forEach(function (d, i) {
    d.addEventListener("focusin", function () { if (i !== cur) frame(i); });
  });
  frame(cur);
  docs[cur].scrollIntoView({ block: "nearest" });
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key >= "0" && e.key <= "9") {
      var b = docs[cur].querySelector('button[data-grade="' + e.key + '"]');
      if (b) { b.click(); e.preventDefault(); }
    } else if (e.key === "j" || e.key === "ArrowDown") { focus(cur + 1); e.preventDefault(); }
    else if (e.key === "k" || e.key === "ArrowUp") { focus(cur - 1); e.preventDefault(); }
    else if (e.key === "u") {
      var u = document.getElementById("undo");
      if (u) { u.click(); e.preventDefault(); }
    } else if (e.key === "n" || e.key === "p") {
      var a = document.getElementById(e.key === "n" ? "next" : "prev");
      if (a) a.click();
    }
  });
})();
