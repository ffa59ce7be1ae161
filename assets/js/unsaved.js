// Unsaved changes: leaving a changed form marked data-unsaved (its value
// is the question, already translated) asks first: a link, closing or
// reloading the tab (beforeunload, whose text the browser writes), or
// Escape on a dialog that holds the form (the calendar's quick-create).
// Saving does not ask, nor does a control marked data-unsaved-ignore (the
// Preview button, a dialog's Cancel button), nor a form whose baseline was
// taken again (the event "unsaved:reset" on the form, sent after a script
// fills it). A form that came back with errors holds input not yet saved:
// it counts as changed from the start.
(function () {
  "use strict";
  var forms = Array.prototype.slice.call(document.querySelectorAll("form[data-unsaved]"));
  if (forms.length === 0) {
    return;
  }
  var leaving = false;

  function state(f) {
    var parts = [];
    new FormData(f).forEach(function (v, k) {
      if (k === "_csrf" || k === "_version") {
        return;
      }
      parts.push(k + "=" + (typeof v === "string" ? v : v.name));
    });
    return parts.join("&");
  }
  function reset(f) {
    f.unsavedBase = state(f);
  }
  function changed(f) {
    return f.unsavedBase === null || (f.unsavedBase !== undefined && state(f) !== f.unsavedBase);
  }
  function changedForms() {
    return forms.filter(function (f) {
      var d = f.closest("dialog");
      return (!d || d.open) && changed(f);
    });
  }

  forms.forEach(function (f) {
    f.unsavedBase = f.querySelector("[aria-invalid=true]") ? null : state(f);
    f.addEventListener("unsaved:reset", function () { reset(f); });
    f.addEventListener("submit", function (e) {
      var by = e.submitter;
      if (by && (by.formTarget === "_blank" || by.hasAttribute("data-unsaved-ignore"))) {
        return; // a preview in another tab: the form is still not saved
      }
      var before = f.unsavedBase;
      reset(f);
      leaving = !f.closest("dialog");
      // An htmx post that fails keeps the form on the page, changed.
      f.addEventListener("htmx:afterRequest", function once(ev) {
        f.removeEventListener("htmx:afterRequest", once);
        if (!ev.detail.successful) {
          f.unsavedBase = before;
          leaving = false;
        }
      });
    });
  });

  window.addEventListener("beforeunload", function (e) {
    if (!leaving && changedForms().length > 0) {
      e.preventDefault();
      e.returnValue = "";
    }
  });

  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest("a[href]");
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey ||
        (a.target && a.target !== "_self") || a.hasAttribute("download") || a.hasAttribute("data-unsaved-ignore") ||
        a.getAttribute("href").charAt(0) === "#") {
      return;
    }
    var dirty = changedForms();
    if (dirty.length === 0) {
      return;
    }
    if (window.confirm(dirty[0].getAttribute("data-unsaved"))) {
      leaving = true; // asked once: the unload does not ask again
    } else {
      e.preventDefault();
    }
  }, true);

  // Escape on a dialog holding a changed form.
  document.addEventListener("cancel", function (e) {
    var d = e.target;
    if (!d || d.tagName !== "DIALOG") {
      return;
    }
    var f = d.querySelector("form[data-unsaved]");
    if (f && changed(f) && !window.confirm(f.getAttribute("data-unsaved"))) {
      e.preventDefault();
    }
  }, true);
})();
