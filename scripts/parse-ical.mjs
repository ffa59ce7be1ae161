// Parses iCalendar files with ical.js and prints their events as JSON, for
// the feed tests (cmd/kalends/feeds_test.go): one object per file with the
// calendar's properties and each VEVENT's fields, times in UTC as ical.js
// resolves them through the file's own VTIMEZONEs. A recurring event (a
// VEVENT with RRULE or RDATE) also lists its occurrences as ical.js expands
// them, its exceptions (VEVENTs with the same UID and a RECURRENCE-ID)
// applied, up to the date in the environment variable ICAL_EXPAND_UNTIL
// (default 2030-01-01).
import { readFileSync } from "node:fs";
import ICAL from "ical.js";

const out = [];
for (const file of process.argv.slice(2)) {
  const cal = new ICAL.Component(ICAL.parse(readFileSync(file, "utf8")));
  for (const tz of cal.getAllSubcomponents("vtimezone")) {
    ICAL.TimezoneService.register(tz);
  }
  const until = ICAL.Time.fromDateTimeString(
    (process.env.ICAL_EXPAND_UNTIL ?? "2030-01-01") + "T00:00:00Z",
  );
  const when = (t) => (t.isDate ? t.toString() : t.toJSDate().toISOString());
  const vevents = cal.getAllSubcomponents("vevent");
  const masters = new Map();
  for (const c of vevents) {
    if (!c.hasProperty("recurrence-id") && (c.hasProperty("rrule") || c.hasProperty("rdate"))) {
      masters.set(c.getFirstPropertyValue("uid"), new ICAL.Event(c));
    }
  }
  for (const c of vevents) {
    const master = masters.get(c.getFirstPropertyValue("uid"));
    if (c.hasProperty("recurrence-id") && master) {
      master.relateException(c);
    }
  }
  const expand = (e) => {
    const out = [];
    const it = e.iterator();
    for (let next = it.next(); next && next.compare(until) < 0 && out.length < 2000; next = it.next()) {
      const d = e.getOccurrenceDetails(next);
      out.push({ start: when(d.startDate), end: when(d.endDate), summary: d.item.summary,
        recurrenceId: when(d.recurrenceId) });
    }
    return out;
  };
  const events = vevents.map((c) => {
    const e = new ICAL.Event(c);
    return {
      uid: e.uid,
      summary: e.summary,
      description: e.description,
      location: e.location,
      url: c.getFirstPropertyValue("url"),
      sequence: e.sequence,
      start: when(e.startDate),
      end: when(e.endDate),
      allDay: e.startDate.isDate,
      tzid: e.startDate.isDate ? "" : e.startDate.zone.tzid,
      categories: c.getAllProperties("categories").flatMap((p) => p.getValues()),
      status: c.getFirstPropertyValue("status"),
      geo: c.getFirstPropertyValue("geo"),
      organizer: c.getFirstPropertyValue("organizer"),
      organizerCN: c.getFirstProperty("organizer")?.getParameter("cn") ?? null,
      recurrenceId: c.hasProperty("recurrence-id") ? when(c.getFirstPropertyValue("recurrence-id")) : null,
      occurrences: masters.get(e.uid)?.component === c ? expand(masters.get(e.uid)) : null,
    };
  });
  out.push({
    name: cal.getFirstPropertyValue("name"),
    calname: cal.getFirstPropertyValue("x-wr-calname"),
    refresh: String(cal.getFirstPropertyValue("refresh-interval") ?? ""),
    timezones: cal.getAllSubcomponents("vtimezone").map((t) => t.getFirstPropertyValue("tzid")),
    events,
  });
}
process.stdout.write(JSON.stringify(out));
