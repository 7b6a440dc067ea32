// handoff ui: the only script. Filter menus apply as soon as one is changed; without it the Filter button does.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
    select.addEventListener("change", function () {
      if (select.form) {
        select.form.requestSubmit();
      }
    });
  });
});
