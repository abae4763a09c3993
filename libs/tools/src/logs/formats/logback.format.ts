import { levelOf } from './levels';
import type { LogFormat } from './log-format';
import { DATE_TIME_SOURCE, dateTimeOf } from './timestamps';

// A timestamp at the start of the line, optionally in brackets (`[2026-12-05 10:15:03,123]`).
const START = new RegExp(`^\\[?${DATE_TIME_SOURCE}\\]?(?=\\s|$)`, 'i');
const LEVEL_WORD = /(?:^|[\s[|-])(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|SEVERE)(?=$|[\s\]:|-])/;
const JSON_RECORD = /^\s*\{".*\}\s*$/;
// Spring Boot 3.2+: `--- [app-name] [thread] logger : message`.
const SPRING_APP = /--- \[\s*([\w.-]+)\s*\] \[/;

/**
 * logback / log4j / log4j2 / Spring Boot / Python `logging` pattern text: a line starting with a timestamp
 * (`2026-12-05 10:15:03.123`, `…,123`, ISO with or without zone) with a level word (`ERROR`, `WARN`, …)
 * in its first 120 characters. Lines that do not start with a timestamp (stack traces, `Caused by:`,
 * `... 12 more`, wrapped messages) continue the record before them. The message is the line without
 * its timestamp and level; the service is Spring Boot's application name when written.
 */
export const LOGBACK_FORMAT: LogFormat = {
  id: 'logback',
  name: 'logback/log4j pattern text',
  parse(line, context) {
    const start = START.exec(line);
    if (!start) return 'NOT_THIS_FORMAT';
    const rest = line.slice(start[0].length);
    const level = LEVEL_WORD.exec(rest.slice(0, 120));
    if (!level) return 'NOT_THIS_FORMAT';
    const at = dateTimeOf(start.slice(1), context.timeZone);
    if (!Number.isFinite(at)) return 'NO_TIMESTAMP';
    const levelStart = level.index + level[0].indexOf(level[1]);
    const message = `${rest.slice(0, levelStart).trim()} ${rest.slice(levelStart + level[1].length).trim()}`
      .replace(/^[\s|-]+/, '')
      .trim();
    if (message === '') return 'NO_MESSAGE';
    return {
      at,
      level: levelOf(level[1]) ?? 'INFO',
      levelFrom: 'RECORD',
      unknownLevel: false,
      service: SPRING_APP.exec(rest)?.[1] ?? null,
      message,
      fields: {},
    };
  },
  continuation(line) {
    // A line that is itself a record (a timestamp, or a whole JSON object) never continues another.
    return START.test(line) || JSON_RECORD.test(line) ? null : line;
  },
};
