// Parses iCalendar files with ical.js and prints their events as JSON, for
// the feed tests (cmd/kalends/feeds_test.go): one object per file with the
// calendar's properties and each VEVENT's fields, times in UTC as ical.js
// resolves them through the file's own VTIMEZONEs.
import { readFileSync } from "node:fs";
import ICAL from "ical.js";

const out = [];
for (const file of process.argv.slice(2)) {
  const cal = new ICAL.Component(ICAL.parse(readFileSync(file, "utf8")));
  for (const tz of cal.getAllSubcomponents("vtimezone")) {
    ICAL.TimezoneService.register(tz);
  }
  const events = cal.getAllSubcomponents("vevent").map((c) => {
    const e = new ICAL.Event(c);
    const when = (t) => (t.isDate ? t.toString() : t.toJSDate().toISOString());
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
