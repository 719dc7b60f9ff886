// The theme chosen with the header's button, set before the page is drawn (no flash).
(function () {
  "use strict";
  try {
    var chosen = window.localStorage.getItem("mindex-theme");
    if (chosen === "dark" || chosen === "light") { document.documentElement.setAttribute("data-theme", chosen); }
  } catch (e) { /* storage refused: the system's choice holds */ }
}());
