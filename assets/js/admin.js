// Kalends admin: small enhancements over pages that work without
// JavaScript. Loaded as a file (the Content-Security-Policy allows no
// inline script).
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");

  document.addEventListener("DOMContentLoaded", function () {
    // Under ~900 px the sidebar folds behind a menu button. Without
    // JavaScript the button stays hidden and the sidebar stays open.
    var button = document.querySelector(".menu-button");
    var sidebar = document.getElementById("sidebar");
    if (button && sidebar) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var open = button.getAttribute("aria-expanded") !== "true";
        button.setAttribute("aria-expanded", String(open));
        root.classList.toggle("nav-open", open);
      });
    }
  });

  // Copy buttons (data-copy: the id of the element whose text to copy;
  // data-copied: the label shown once copied). Hidden without JavaScript
  // or without the clipboard API: the text stays selectable.
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source || !navigator.clipboard) {
        return;
      }
      var label = button.textContent;
      button.hidden = false;
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(source.textContent.trim()).then(function () {
          button.textContent = button.getAttribute("data-copied") || label;
          window.setTimeout(function () { button.textContent = label; }, 2000);
        });
      });
    });
  });

  // Dropdowns (<details>) close on Escape and on a click elsewhere.
  function closeDropdowns(except) {
    document.querySelectorAll("details.dropdown[open]").forEach(function (d) {
      if (d !== except) {
        d.removeAttribute("open");
      }
    });
  }
  document.addEventListener("click", function (e) {
    closeDropdowns(e.target.closest ? e.target.closest("details.dropdown") : null);
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") {
      return;
    }
    var open = document.querySelector("details.dropdown[open]");
    if (open) {
      open.removeAttribute("open");
      var summary = open.querySelector("summary");
      if (summary) {
        summary.focus();
      }
    }
  });
  // The all-day switch turns the date inputs between date and date-time,
  // keeping the day (and the time, when switching back).
  document.addEventListener("change", function (e) {
    var box = e.target;
    if (!box.matches || !box.matches("[data-all-day]")) {
      return;
    }
    box.form.querySelectorAll("[data-date-input]").forEach(function (input) {
      var v = input.value;
      if (box.checked) {
        input.dataset.time = v.length > 10 ? v.slice(10) : input.dataset.time || "";
        input.type = "date";
        input.value = v.slice(0, 10);
      } else {
        input.type = "datetime-local";
        if (v) {
          input.value = v.slice(0, 10) + (input.dataset.time || "T10:00");
        }
      }
    });
  });

  // The recurrence editor shows the fields of the chosen frequency only
  // (without script every field shows, and the server ignores the others).
  function showRepeatFields(select) {
    var section = select.closest("[data-repeat]");
    section.querySelectorAll("[data-repeat-for]").forEach(function (el) {
      el.hidden = el.dataset.repeatFor.split(" ").indexOf(select.value) < 0;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-repeat-freq]").forEach(showRepeatFields);
  });
  document.addEventListener("change", function (e) {
    if (e.target.matches && e.target.matches("[data-repeat-freq]")) {
      showRepeatFields(e.target);
    }
  });

  // The API view of a record: loaded when opened, with the session's
  // nonce, shown as text (never as HTML).
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (!d.matches || !d.matches("details[data-json-url]") || !d.open || d.dataset.loaded) {
      return;
    }
    d.dataset.loaded = "1";
    var pre = d.querySelector("pre");
    var nonce = document.querySelector('meta[name="kalends-nonce"]');
    fetch(d.dataset.jsonUrl, {
      credentials: "same-origin",
      headers: nonce ? { "X-WP-Nonce": nonce.content } : {}
    }).then(function (r) {
      return r.json();
    }).then(function (body) {
      pre.textContent = JSON.stringify(body, null, 2);
    }).catch(function (err) {
      pre.textContent = String(err);
      delete d.dataset.loaded;
    });
  }, true);
  // Tags: Enter in the new-tags field ticks the tags named (an existing one
  // by its name, a new one as a ticked box created on save) instead of
  // sending the form. Without JavaScript the field is read on save.
  var newTags = 0;
  // Enter's keypress is what sends a form; it is stopped too, for input
  // methods and drivers that send it apart from the keydown.
  document.addEventListener("keypress", function (e) {
    if (e.key === "Enter" && !e.isComposing && e.target.matches && e.target.matches("[data-tag-input]")) {
      e.preventDefault();
    }
  });
  document.addEventListener("keydown", function (e) {
    var input = e.target;
    // Enter that ends a Chinese, Japanese or Korean input method's
    // composition chooses the characters; it does not add the tag yet.
    if (e.key !== "Enter" || e.isComposing || e.keyCode === 229 || !input.matches || !input.matches("[data-tag-input]")) {
      return;
    }
    e.preventDefault();
    var list = document.getElementById(input.dataset.tagInput);
    input.value.split(/[,\uFF0C\u3001]/).forEach(function (raw) {
      var name = raw.trim();
      if (!name || !list) {
        return;
      }
      var found = null;
      list.querySelectorAll("input[type=checkbox]").forEach(function (box) {
        var label = list.querySelector('label[for="' + box.id + '"]');
        if (label && label.textContent.trim().toLowerCase() === name.toLowerCase()) {
          found = box;
        }
      });
      if (!found) {
        newTags += 1;
        var row = document.createElement("div");
        row.className = "field-check";
        found = document.createElement("input");
        found.type = "checkbox";
        found.name = "tags";
        found.value = name;
        found.id = "tag-new-" + newTags;
        var label = document.createElement("label");
        label.htmlFor = found.id;
        label.textContent = name;
        row.append(found, label);
        list.append(row);
      }
      found.checked = true;
    });
    input.value = "";
  });
})();
