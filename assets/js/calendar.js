// Kalends admin: the calendar (FullCalendar 6, vendored) over the JSON API.
// The page works without it: the table below the filters lists the range
// with links to each event's form. Loaded as a file (the
// Content-Security-Policy allows no inline script).
(function () {
  "use strict";

  var VIEWS = { month: "dayGridMonth", week: "timeGridWeek", day: "timeGridDay" };
  var NAMES = { dayGridMonth: "month", timeGridWeek: "week", timeGridDay: "day" };
  var FILTERS = ["categories", "tags", "venue", "organizer", "status", "featured", "search"];
  // A stable palette: an event takes the colour of its first category.
  var PALETTE = ["#1f5fbf", "#1a7f37", "#9a6700", "#6639ba", "#b42318", "#0b6e74", "#bf3989", "#3d5a80"];

  function meta(name) {
    var m = document.querySelector('meta[name="' + name + '"]');
    return m ? m.content : "";
  }

  document.addEventListener("DOMContentLoaded", function () {
    var el = document.getElementById("calendar");
    // The list view is the server's table (plain links, no dragging).
    if (!el || !window.FullCalendar || !window.luxon || el.dataset.view === "list") {
      return;
    }
    var DateTime = window.luxon.DateTime;
    var d = el.dataset;
    var nonce = meta("kalends-nonce");
    var params = new URLSearchParams(window.location.search);
    var me = Number(d.userId);
    var scope = d.editScope; // all, own, own_unpublished or ""
    var controller = null; // the range being loaded, aborted when the view changes
    var message = document.getElementById("calendar-message");
    var popover = document.getElementById("event-popover");
    var dialog = document.getElementById("quick-create");

    function say(text, isError) {
      message.textContent = text;
      message.hidden = !text;
      message.classList.toggle("alert", !!isError);
      message.classList.toggle("flash", !isError);
    }

    function mayEdit(ev) {
      if (scope === "all") {
        return true;
      }
      var own = ev.author === me;
      if (scope === "own") {
        return own;
      }
      return scope === "own_unpublished" && own && ev.status !== "publish" && ev.status !== "future";
    }

    // The API's dates: timed events by their UTC instants, all-day events
    // by their days, the end made exclusive (the API's is inclusive).
    function toEvent(e) {
      var cats = e.categories || [];
      var color = cats.length ? PALETTE[cats[0].id % PALETTE.length] : "";
      var ev = {
        id: String(e.id),
        title: e.title,
        allDay: !!e.all_day,
        classNames: ["kal-" + e.status].concat(e.hide_from_listings ? ["kal-hidden"] : []),
        backgroundColor: color || undefined,
        borderColor: color || undefined,
        // The palette is dark: white text on it reaches 4.5:1 (WCAG 2.2 AA)
        // in both themes; uncoloured events take the theme's accent text.
        textColor: color ? "#ffffff" : undefined,
        extendedProps: {
          status: e.status, author: Number(e.author), timezone: e.timezone, zoneAbbr: e.timezone_abbr,
          modified: e.modified_utc, venue: e.venue && e.venue.venue ? e.venue.venue : "",
          edit: "/admin/events/" + e.id + "/edit", startLocal: e.start_date, endLocal: e.end_date,
          seriesId: e.series_id || 0, days: e.days || null
        }
      };
      if (ev.allDay) {
        ev.start = e.start_date.slice(0, 10);
        ev.end = DateTime.fromISO(e.end_date.slice(0, 10)).plus({ days: 1 }).toISODate();
      } else {
        ev.start = e.utc_start_date.replace(" ", "T") + "Z";
        ev.end = e.utc_end_date.replace(" ", "T") + "Z";
      }
      ev.editable = mayEdit(ev.extendedProps);
      return ev;
    }

    function apiURL(path, query) {
      var q = new URLSearchParams(query || {});
      q.set("ml_language", d.lang);
      return d.api + path + "?" + q.toString();
    }

    function request(method, path, body, headers) {
      var h = { "X-WP-Nonce": nonce };
      if (body) {
        h["Content-Type"] = "application/json";
      }
      Object.keys(headers || {}).forEach(function (k) { h[k] = headers[k]; });
      return fetch(apiURL(path), { method: method, headers: h, credentials: "same-origin", body: body ? JSON.stringify(body) : undefined })
        .then(function (r) {
          return r.json().catch(function () { return {}; }).then(function (json) {
            return { status: r.status, etag: r.headers.get("ETag"), json: json };
          });
        });
    }

    // A month cell shows MONTH_SHOWN events and a "+N more" link. A busy
    // calendar has a hundred and more events a day (4,000 a month at
    // 100,000 events): FullCalendar lays out every event it is given, even
    // those its "+N more" hides, which took seconds. So a month range
    // hands it, of each day's single-day events, only one more than it
    // shows (enough for its link to appear), keeping how many were left
    // out per day in `trimmed`; the link shows the true number and opens
    // the day view, which loads that day in full. Events spanning several
    // days are always kept, as they take a row in each.
    var MONTH_SHOWN = 3;
    var trimmed = {}; // "YYYY-MM-DD" -> events of that day left out

    // The first and last days of an event in the calendar's zone, which
    // the feed sends (working them out here took most of the time).
    function dayOf(ev) {
      return ev.extendedProps.days ? ev.extendedProps.days[0] : ev.start.slice(0, 10);
    }

    function lastDayOf(ev) {
      return ev.extendedProps.days ? ev.extendedProps.days[1] : ev.end.slice(0, 10);
    }

    // FullCalendar's own order: all-day first, then by start, longer
    // first, then by title.
    function byDisplayOrder(a, b) {
      if (a.allDay !== b.allDay) {
        return a.allDay ? -1 : 1;
      }
      if (a.start !== b.start) {
        return a.start < b.start ? -1 : 1;
      }
      if (a.end !== b.end) {
        return a.end > b.end ? -1 : 1;
      }
      return a.title < b.title ? -1 : a.title > b.title ? 1 : 0;
    }

    function trimMonth(events, info) {
      trimmed = {};
      if (info.end.getTime() - info.start.getTime() < 28 * 86400000) {
        return events; // a week or a day: every event
      }
      var out = [];
      var byDay = {};
      events.forEach(function (ev) {
        var day = dayOf(ev);
        if (lastDayOf(ev) > day) {
          out.push(ev);
          return;
        }
        (byDay[day] = byDay[day] || []).push(ev);
      });
      Object.keys(byDay).forEach(function (day) {
        var list = byDay[day];
        if (list.length > MONTH_SHOWN + 1) {
          list.sort(byDisplayOrder);
          trimmed[day] = list.length - (MONTH_SHOWN + 1);
          list = list.slice(0, MONTH_SHOWN + 1);
        }
        out.push.apply(out, list);
      });
      return out;
    }

    // Every page of the range, in parallel once the first tells how many
    // (one page but for the busiest months).
    function loadRange(info, success, failure) {
      if (controller) {
        controller.abort();
      }
      controller = new AbortController();
      var signal = controller.signal;
      var query = { starts_before: info.startStr, ends_after: info.endStr, per_page: d.perPage };
      // Ranges are read with the strict bounds: events that overlap them.
      query.starts_before = info.endStr;
      query.ends_after = info.startStr;
      if (d.mayFilter === "true") {
        query.status = "publish,future,draft,pending,private";
        query.include_hidden = "true";
      }
      FILTERS.forEach(function (k) {
        if (params.get(k)) {
          query[k] = params.get(k);
        }
      });
      // The calendar's own feed (web/admin/calendar_feed.go): the API's
      // keys, only those drawn, from the same query as the API's list.
      function page(n) {
        var q = new URLSearchParams(Object.assign({}, query, { page: String(n) }));
        return fetch(d.feed + "?" + q.toString(), { headers: { "X-WP-Nonce": nonce }, credentials: "same-origin", signal: signal })
          .then(function (r) {
            if (!r.ok) {
              return r.json().then(function (j) { throw new Error(j.message || r.statusText); });
            }
            return r.json();
          });
      }
      page(1).then(function (first) {
        var rest = [];
        for (var n = 2; n <= first.total_pages; n++) {
          rest.push(page(n));
        }
        return Promise.all(rest).then(function (more) {
          var all = first.events || [];
          more.forEach(function (p) { all = all.concat(p.events || []); });
          el.dataset.requests = String(1 + rest.length);
          el.dataset.loaded = String(all.length);
          if (el.dataset.fetchedAt === undefined) {
            el.dataset.fetchedAt = String(Math.round(window.performance.now()));
          }
          return all;
        });
      }).then(function (events) {
        success(trimMonth(events.map(toEvent), info));
      }).catch(function (err) {
        if (err.name !== "AbortError") {
          say(err.message, true);
          failure(err);
        }
      });
    }

    // A drag or a resize: the event is read again first; when someone moved
    // it since the calendar loaded it, nothing is written and it is
    // reloaded; otherwise the dates are changed with If-Match on what was
    // just read, so nothing changed in between is overwritten either. The
    // API decides the rest (permission, validation) and its message is
    // shown.
    // An occurrence of a series: which occurrences the move changes (this
    // one, it and the following, or all), asked in a dialog; null when
    // the user cancels. The first occurrence holds the series: "this"
    // is not offered for it.
    function askScope(ev) {
      var series = ev.extendedProps.seriesId;
      if (!series) {
        return Promise.resolve("");
      }
      var box = document.getElementById("scope-choice");
      box.querySelector("[data-scope=this]").hidden = String(series) === ev.id;
      return new Promise(function (resolve) {
        box.addEventListener("close", function done() {
          box.removeEventListener("close", done);
          resolve(box.returnValue || null);
        });
        box.returnValue = "";
        box.showModal();
      });
    }

    function move(info) {
      askScope(info.event).then(function (scope) {
        if (scope === null) {
          info.revert();
          return;
        }
        moveIn(info, scope);
      });
    }

    function moveIn(info, scope) {
      var ev = info.event;
      var body = {};
      if (scope) {
        body.scope = scope;
      }
      if (ev.allDay) {
        body.all_day = true;
        body.start_date = ev.startStr.slice(0, 10);
        var end = ev.end ? DateTime.fromISO(ev.endStr.slice(0, 10)).minus({ days: 1 }) : DateTime.fromISO(ev.startStr.slice(0, 10));
        body.end_date = end.toISODate();
      } else {
        body.all_day = false;
        body.start_date = ev.start.toISOString();
        body.end_date = (ev.end || ev.start).toISOString();
      }
      say("", false);
      request("GET", "/events/" + ev.id).then(function (cur) {
        if (cur.status !== 200) {
          throw { status: cur.status, json: cur.json };
        }
        var p = ev.extendedProps;
        if (cur.json.start_date !== p.startLocal || cur.json.end_date !== p.endLocal || !!cur.json.all_day !== info.oldEvent.allDay) {
          throw { status: 412, json: { message: d.changedMessage } };
        }
        return request("PATCH", "/events/" + ev.id, body, { "If-Match": cur.etag });
      }).then(function (res) {
        if (res.status !== 200) {
          throw res;
        }
        var fresh = toEvent(res.json);
        ev.setExtendedProp("modified", fresh.extendedProps.modified);
        ev.setExtendedProp("startLocal", fresh.extendedProps.startLocal);
        ev.setExtendedProp("endLocal", fresh.extendedProps.endLocal);
        say(d.movedMessage, false);
        if (scope && scope !== "this") {
          cal.refetchEvents(); // the other occurrences moved too
        }
      }).catch(function (res) {
        info.revert();
        var msg = res && res.json && res.json.message ? res.json.message : String(res);
        say(msg, true);
        if (res && res.status === 412) {
          cal.refetchEvents();
        }
      });
    }

    // The popover keeps Tab inside it while open and gives focus back to
    // the event that opened it when it closes.
    var popoverOpener = null;
    function closePopover() {
      if (popover.hidden) {
        return;
      }
      popover.hidden = true;
      if (popoverOpener && document.contains(popoverOpener) &&
          (!document.activeElement || document.activeElement === document.body || popover.contains(document.activeElement))) {
        popoverOpener.focus();
      }
      popoverOpener = null;
    }
    popover.addEventListener("keydown", function (e) {
      if (e.key !== "Tab") {
        return;
      }
      var all = Array.prototype.filter.call(popover.querySelectorAll("a[href], button:not([disabled])"), function (el) {
        return el.offsetParent !== null;
      });
      var first = all[0];
      var last = all[all.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    });

    function showPopover(info) {
      popoverOpener = info.el;
      var ev = info.event;
      var p = ev.extendedProps;
      popover.querySelector("[data-field=title]").textContent = ev.title;
      var when = ev.allDay ? p.startLocal.slice(0, 10) + (p.endLocal.slice(0, 10) !== p.startLocal.slice(0, 10) ? " – " + p.endLocal.slice(0, 10) : "")
        : p.startLocal.slice(0, 16) + " – " + p.endLocal.slice(0, 16);
      popover.querySelector("[data-field=when]").textContent = when;
      var zone = popover.querySelector("[data-field=zone]");
      zone.textContent = p.timezone && p.timezone !== d.zone ? p.timezone + " (" + p.zoneAbbr + ")" : "";
      zone.hidden = !zone.textContent;
      popover.querySelector("[data-field=venue]").textContent = p.venue;
      popover.querySelector("[data-field=status]").textContent = d["status" + p.status.charAt(0).toUpperCase() + p.status.slice(1)] || p.status;
      popover.querySelector("[data-field=edit]").href = p.edit;
      popover.querySelectorAll("form[data-action]").forEach(function (f) {
        f.action = "/admin/events/" + ev.id + "/" + f.dataset.action;
      });
      var box = info.el.getBoundingClientRect();
      popover.hidden = false;
      var top = window.scrollY + box.bottom + 6;
      var left = Math.min(window.scrollX + box.left, window.scrollX + document.documentElement.clientWidth - popover.offsetWidth - 8);
      popover.style.top = top + "px";
      popover.style.left = Math.max(8, left) + "px";
      popover.querySelector("[data-field=edit]").focus();
    }

    function openQuickCreate(start, end, allDay) {
      var f = dialog.querySelector("form");
      var fmt = allDay ? "yyyy-MM-dd" : "yyyy-MM-dd'T'HH:mm";
      var s = DateTime.fromJSDate(start, { zone: d.zone });
      var e = end ? DateTime.fromJSDate(end, { zone: d.zone }) : s.plus({ hours: 1 });
      if (allDay) {
        e = e.minus({ days: 1 }); // FullCalendar's end is exclusive
      }
      f.elements.all_day.checked = allDay;
      ["start_date", "end_date"].forEach(function (n) {
        f.elements[n].type = allDay ? "date" : "datetime-local";
      });
      f.elements.start_date.value = s.toFormat(fmt);
      f.elements.end_date.value = e.toFormat(fmt);
      f.elements.title.value = "";
      dialog.querySelector("#quick-errors").innerHTML = "";
      f.dispatchEvent(new Event("unsaved:reset")); // unsaved.js: this is the form's start
      dialog.showModal();
      f.elements.title.focus();
    }

    // The toolbar's arrow icons are role="img" without a name inside
    // buttons that have one (their title): hidden from assistive technology.
    function hideIcons() {
      el.querySelectorAll(".fc-icon[role=img]").forEach(function (i) {
        i.setAttribute("aria-hidden", "true");
      });
    }

    var cal = new window.FullCalendar.Calendar(el, {
      timeZone: d.zone,
      locale: d.fcLocale,
      initialView: VIEWS[d.view] || "dayGridMonth",
      initialDate: d.date,
      headerToolbar: { left: "prev,next today", center: "title", right: "dayGridMonth,timeGridWeek,timeGridDay listTable" },
      customButtons: {
        listTable: {
          text: d.listLabel,
          click: function () {
            var q = new URLSearchParams(window.location.search);
            q.set("view", "list");
            q.set("date", DateTime.fromJSDate(cal.getDate(), { zone: d.zone }).toISODate());
            window.location.assign(window.location.pathname + "?" + q.toString());
          }
        }
      },
      eventsSet: function () {
        // For the browser test's measure: when the first range's events
        // are drawn (the frame after FullCalendar set them has run), in ms
        // since the navigation started.
        if (el.dataset.loaded !== undefined && el.dataset.renderedAt === undefined && !el.dataset.rendering) {
          el.dataset.rendering = "1";
          window.requestAnimationFrame(function () {
            window.setTimeout(function () {
              el.dataset.renderedAt = String(Math.round(window.performance.now()));
            }, 0);
          });
        }
      },
      height: "auto",
      nowIndicator: true,
      // A busy day shows a few events and a "+N more" link that opens the
      // rest: MONTH_SHOWN in a month cell (a number, as the grid's height
      // is "auto", where `true` would fit them all); in the week and day
      // grids, at most three side by side in a slot and two rows of
      // all-day events.
      dayMaxEvents: MONTH_SHOWN,
      views: {
        timeGrid: { eventMaxStack: 3, dayMaxEventRows: 2 }
      },
      // Each view loads its own range (a day opened from "+N more" loads
      // the events the month left out).
      lazyFetching: false,
      moreLinkDidMount: function (info) {
        var td = info.el.closest("td[data-date]");
        var more = td ? trimmed[td.dataset.date] || 0 : 0;
        if (more) {
          var n = String(info.num + more);
          info.el.textContent = info.el.textContent.replace(/\d+/, n);
          info.el.title = (info.el.title || "").replace(/\d+/, n);
        }
      },
      moreLinkClick: function (info) {
        // info.date is the day at midnight UTC in FullCalendar's terms.
        return trimmed[info.date.toISOString().slice(0, 10)] ? "timeGridDay" : "popover";
      },
      selectable: d.mayCreate === "true",
      editable: scope !== "",
      eventStartEditable: true,
      eventDurationEditable: true,
      events: loadRange,
      eventDrop: move,
      eventResize: move,
      eventInteractive: true, // every event is reached with Tab and opened with Enter
      eventClick: function (info) {
        info.jsEvent.preventDefault();
        showPopover(info);
      },
      // FullCalendar names each day cell by its day number only, which
      // hides the events in it from the cell's accessible name (WCAG 2.5.3):
      // the cell keeps its content as its name, the number its full date.
      dayCellDidMount: function (info) {
        info.el.removeAttribute("aria-labelledby");
      },
      eventDidMount: function (info) {
        var p = info.event.extendedProps;
        var tip = info.event.title;
        if (p.timezone && p.timezone !== d.zone) {
          tip += " · " + p.timezone + " (" + p.zoneAbbr + ")";
        }
        info.el.title = tip;
        info.el.dataset.eventId = info.event.id;
      },
      select: function (info) {
        openQuickCreate(info.start, info.end, info.allDay);
        cal.unselect();
      },
      datesSet: function (info) {
        // View and date in the URL: shareable, reloadable, and the back
        // button goes to the previous view.
        var q = new URLSearchParams(window.location.search);
        var view = NAMES[info.view.type] || "month";
        var date = DateTime.fromJSDate(cal.getDate(), { zone: d.zone }).toISODate();
        if (q.get("view") === view && q.get("date") === date) {
          return;
        }
        q.set("view", view);
        q.set("date", date);
        var url = window.location.pathname + "?" + q.toString();
        if (el.dataset.ready) {
          window.history.pushState({ view: view, date: date }, "", url);
        } else {
          window.history.replaceState({ view: view, date: date }, "", url);
        }
        el.dataset.ready = "1";
        closePopover();
        hideIcons();
      }
    });
    window.addEventListener("popstate", function () {
      var q = new URLSearchParams(window.location.search);
      cal.changeView(VIEWS[q.get("view")] || "dayGridMonth", q.get("date") || undefined);
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape") {
        closePopover();
      }
    });
    document.addEventListener("click", function (e) {
      if (!popover.hidden && !popover.contains(e.target) && !e.target.closest(".fc-event")) {
        closePopover();
      }
    });
    popover.querySelector("[data-close]").addEventListener("click", closePopover);
    dialog.querySelector("[data-close]").addEventListener("click", function () { dialog.close(); });
    cal.render();
    hideIcons();
    document.documentElement.classList.add("calendar-ready");
    window.kalendsCalendar = cal;
  });
})();
