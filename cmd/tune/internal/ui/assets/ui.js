// tune ui: submit the fusion controls on change; keys 0-9 grade the
// focused document on the judge page, j/k (or arrows) move between them,
// n/p go to the next/previous query, u undoes the last label. No library, no network.
(function () {
  document.querySelectorAll("form[data-auto]").forEach(function (f) {
    f.addEventListener("change", function () { f.requestSubmit ? f.requestSubmit() : f.submit(); });
  });
  var docs = Array.prototype.slice.call(document.querySelectorAll(".doc[data-doc]"));
  if (!docs.length) return;
  var cur = 0;
  var first = docs.findIndex(function (d) { return d.dataset.grade === "-1"; });
  if (first >= 0) cur = first;
  function focus(i) {
    docs.forEach(function (d) { d.classList.remove("focus"); });
    cur = Math.max(0, Math.min(docs.length - 1, i));
    docs[cur].classList.add("focus");
    docs[cur].scrollIntoView({ block: "nearest" });
  }
  focus(cur);
  document.addEventListener("keydown", function (e) {
    if (e.target.tagName === "INPUT" || e.ctrlKey || e.metaKey || e.altKey) return;
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
