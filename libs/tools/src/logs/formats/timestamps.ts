/** Time zones and timestamp forms as log files write them. Pure functions; zone offsets cached per zone and quarter hour. */

const FIXED_OFFSET = /^(?:UTC|GMT)?([+-])(\d{2}):?(\d{2})?$/i;

/** True when `zone` is `UTC`, a fixed offset (`+08:00`, `UTC+8` is not one) or an IANA zone this runtime knows. */
export function isValidTimeZone(zone: string): boolean {
  if (fixedOffsetMs(zone) !== null) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, number>();

const fixedOffsets = new Map<string, number | null>();

/** The offset in ms of UTC or a fixed-offset zone (`+08:00`), null for an IANA zone; cached per zone. */
function fixedOffsetMs(zone: string): number | null {
  let offset = fixedOffsets.get(zone);
  if (offset !== undefined) return offset;
  const fixed = FIXED_OFFSET.exec(zone);
  if (/^(UTC|GMT|Z)$/i.test(zone)) offset = 0;
  else if (fixed) {
    const minutes = Number(fixed[2]) * 60 + Number(fixed[3] ?? '0');
    offset = (fixed[1] === '-' ? -minutes : minutes) * 60_000;
  } else offset = null;
  if (fixedOffsets.size > 1_000) fixedOffsets.clear();
  fixedOffsets.set(zone, offset);
  return offset;
}

/** The zone's offset from UTC in ms at the UTC instant `utcMs`. */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  const fixed = fixedOffsetMs(zone);
  if (fixed !== null) return fixed;
  const bucket = `${zone}|${Math.floor(utcMs / 900_000)}`;
  const cached = offsets.get(bucket);
  if (cached !== undefined) return cached;
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  const part: Record<string, number> = {};
  for (const { type, value } of formatter.formatToParts(new Date(utcMs))) part[type] = Number(value);
  const wall = Date.UTC(part.year, part.month - 1, part.day, part.hour, part.minute, part.second);
  const offset = wall - Math.floor(utcMs / 1000) * 1000;
  if (offsets.size > 10_000) offsets.clear();
  offsets.set(bucket, offset);
  return offset;
}

/** A wall-clock time in `zone` as epoch ms (the earlier instant when a DST change makes it ambiguous). */
export function wallTimeToUtc(
  zone: string,
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return Number.NaN;
  }
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // A zone without transitions (UTC, `+08:00`): one offset, nothing to resolve.
  const fixed = fixedOffsetMs(zone);
  if (fixed !== null) return wall - fixed;
  // The offsets either side of a possible transition; a wall time valid under both is repeated (take
  // the earlier), one valid under neither falls in a gap (read with the offset before it).
  const before = zoneOffsetMs(zone, wall - 43_200_000);
  const after = zoneOffsetMs(zone, wall + 43_200_000);
  const valid = [before, after]
    .map((offset) => wall - offset)
    .filter((instant) => wall - zoneOffsetMs(zone, instant) === instant);
  return valid.length > 0 ? Math.min(...valid) : wall - before;
}

/** Epoch seconds, milliseconds, microseconds or nanoseconds, told apart by magnitude. */
export function epochMs(value: number): number {
  if (!Number.isFinite(value) || value <= 0) return Number.NaN;
  if (value < 1e11) return value * 1000;
  if (value < 1e14) return value;
  if (value < 1e17) return value / 1000;
  return value / 1e6;
}

/** ISO 8601 / RFC 3339 and the log4j/logback layout: `T` or a space, `.` or `,` before the fraction, zone optional. */
export const DATE_TIME_SOURCE =
  '(\\d{4})-(\\d{2})-(\\d{2})[T ](\\d{2}):(\\d{2})(?::(\\d{2})(?:[.,](\\d{1,9}))?)?(?:\\s?(Z|UTC|GMT|[+-]\\d{2}(?::?\\d{2})?))?';
const DATE_TIME = new RegExp(`^${DATE_TIME_SOURCE}$`, 'i');

/** Epoch ms from the groups of DATE_TIME_SOURCE (year .. zone), a missing zone read in `timeZone`. */
export function dateTimeOf(groups: (string | undefined)[], timeZone: string): number {
  const [year, month, day, hour, minute, second = '0', fraction = '', zone] = groups;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const nums = [year, month, day, hour, minute].map(Number);
  if (zone === undefined) {
    return wallTimeToUtc(timeZone, nums[0], nums[1], nums[2], nums[3], nums[4], Number(second), ms);
  }
  const utc = wallTimeToUtc('UTC', nums[0], nums[1], nums[2], nums[3], nums[4], Number(second), ms);
  // The zone group is `Z`, `UTC`, `GMT` or an offset: always a fixed one.
  return utc - (fixedOffsetMs(zone) ?? Number.NaN);
}

/**
 * Epoch ms of a timestamp value, NaN when unreadable: epoch numbers or digit strings (s/ms/µs/ns by
 * magnitude), RFC 3339 / ISO 8601 with or without zone, `yyyy-MM-dd HH:mm:ss,SSS`. A time without zone is
 * read in `timeZone` (configured per source, default UTC; never the server's own zone).
 */
export function timestampOf(value: unknown, timeZone: string): number {
  if (typeof value === 'number') return epochMs(value);
  if (typeof value !== 'string') return Number.NaN;
  const text = value.trim();
  if (text === '') return Number.NaN;
  // Digits, or a number in exponent form (a JSON number kept as written: json-fields numbersAsWritten).
  if (/^\d+(\.\d+)?(?:[eE][+-]?\d+)?$/.test(text)) return epochMs(Number(text));
  const parts = DATE_TIME.exec(text);
  if (!parts) return Number.NaN;
  return dateTimeOf(parts.slice(1), timeZone);
}

export const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** 1-12 for an English month abbreviation, NaN otherwise. */
export function monthOf(name: string): number {
  const index = MONTHS.indexOf(name.toLowerCase());
  return index < 0 ? Number.NaN : index + 1;
}
