import { embeddedLevel } from './levels';
import type { LogFormat } from './log-format';
import { severityOf } from './syslog-5424.format';
import { DATE_TIME_SOURCE, dateTimeOf, monthOf, wallTimeToUtc } from './timestamps';

const PRI = /^(?:<(\d{1,3})>)?/.source;
// `Dec  5 10:15:03` (BSD) or rsyslog's RFC 3339 file format (`2026-12-05T10:15:03.123456+08:00`).
const BSD_TIME = /([A-Z][a-z]{2}) {1,2}(\d{1,2}) (\d{2}):(\d{2}):(\d{2})/.source;
const TAG = /(?: ([^\s:[\]]+)(?:\[([^\]]*)\])?:)?/.source;
const BSD_LINE = new RegExp(`^${PRI}${BSD_TIME} (\\S+)${TAG} ?(.*)$`);
const ISO_LINE = new RegExp(`^${PRI}${DATE_TIME_SOURCE} (\\S+)${TAG} ?(.*)$`, 'i');

const DAY = 86_400_000;

/**
 * The year of a year-less date: the file's last write year, or the year before when that would put
 * the record more than a day after the write (a December line in a file written in January).
 */
export function bsdTime(
  timeZone: string,
  referenceTime: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number {
  const year = new Date(referenceTime).getUTCFullYear();
  const at = wallTimeToUtc(timeZone, year, month, day, hour, minute, second, 0);
  return at > referenceTime + DAY
    ? wallTimeToUtc(timeZone, year - 1, month, day, hour, minute, second, 0)
    : at;
}

/**
 * RFC 3164 / traditional syslog files (`/var/log/syslog`, `/var/log/messages`): `[<PRI>]Mmm dd hh:mm:ss
 * host tag[pid]: message`, and rsyslog's RFC 3339 file format with the same fields. The year of a BSD
 * date is inferred from the file's modification time; a date without zone is read in the source's zone.
 * Level from the PRI when written, else a level word near the message start, else INFO; service = tag.
 */
export const SYSLOG_3164_FORMAT: LogFormat = {
  id: 'syslog-3164',
  name: 'syslog RFC 3164 / traditional file',
  parse(line, context) {
    let at: number;
    let pri: string | undefined;
    let host: string;
    let tag: string | undefined;
    let pid: string | undefined;
    let message: string;
    const bsd = BSD_LINE.exec(line);
    if (bsd) {
      const [, p, mon, day, hour, minute, second, h, t, id, text] = bsd;
      const month = monthOf(mon);
      if (!Number.isFinite(month)) return 'NOT_THIS_FORMAT';
      at = bsdTime(context.timeZone, context.referenceTime, month, +day, +hour, +minute, +second);
      [pri, host, tag, pid, message] = [p, h, t, id, text];
    } else {
      const iso = ISO_LINE.exec(line);
      if (!iso || !line.slice(iso[1] ? iso[1].length + 2 : 0).match(/^\d{4}-\d{2}-\d{2}T/)) {
        return 'NOT_THIS_FORMAT';
      }
      at = dateTimeOf(iso.slice(2, 10), context.timeZone);
      [pri, host, tag, pid, message] = [iso[1], iso[10], iso[11], iso[12], iso[13]];
    }
    if (!Number.isFinite(at)) return 'NO_TIMESTAMP';
    if (pri !== undefined && Number(pri) > 191) return 'NOT_THIS_FORMAT';
    if (message.trim() === '') return 'NO_MESSAGE';
    const written = pri !== undefined ? severityOf(Number(pri)) : embeddedLevel(message);
    const fields: Record<string, string> = { host };
    if (pid) fields.pid = pid;
    return {
      at,
      level: written ?? 'INFO',
      levelFrom: pri !== undefined ? 'RECORD' : written ? 'INFERRED' : 'DEFAULT',
      unknownLevel: false,
      service: tag ?? null,
      message,
      fields,
    };
  },
};
