import { SYSLOG_SEVERITY } from './levels';
import type { LogFormat, LogLevel, LogRecord } from './log-format';
import { timestampOf } from './timestamps';

const HEADER = /^<(\d{1,3})>(\d{1,2}) (\S+) (\S+) (\S+) (\S+) (\S+) ?/;

/** The structured data elements at `text`'s start (`-` or `[id k="v" …]…`), or null when malformed. */
export function structuredData(text: string): { params: Record<string, string>; rest: string } | null {
  if (text.startsWith('-')) return { params: {}, rest: text.slice(1) };
  const params: Record<string, string> = {};
  let i = 0;
  if (text[0] !== '[') return null;
  while (text[i] === '[') {
    i += 1;
    const id = /^[^\s\]=]+/.exec(text.slice(i));
    if (!id) return null;
    i += id[0].length;
    while (text[i] === ' ') {
      i += 1;
      const name = /^[^\s\]="]+/.exec(text.slice(i));
      if (!name || text[i + name[0].length] !== '=' || text[i + name[0].length + 1] !== '"') return null;
      i += name[0].length + 2;
      let value = '';
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && '"\\]'.includes(text[i + 1])) i += 1;
        value += text[i];
        i += 1;
      }
      if (text[i] !== '"') return null;
      i += 1;
      params[name[0]] = value;
    }
    if (text[i] !== ']') return null;
    i += 1;
  }
  return { params, rest: text.slice(i) };
}

/** The severity of a PRI value (facility * 8 + severity). */
export function severityOf(pri: number): LogLevel {
  return SYSLOG_SEVERITY[pri % 8];
}

/** A syslog message body without the UTF-8 BOM RFC 5424 allows before it. */
const body = (text: string) => text.replace(/^ /, '').replace(/^\uFEFF/, '');

/**
 * RFC 5424 syslog (`<PRI>1 TIMESTAMP HOST APP-NAME PROCID MSGID [SD] MSG`, as rsyslog's
 * RSYSLOG_SyslogProtocol23Format writes it): level from the PRI severity, service from APP-NAME,
 * structured-data parameters as fields. A strict parser (no npm parser read RFC 5424 soundly, see docs).
 */
export const SYSLOG_5424_FORMAT: LogFormat = {
  id: 'syslog-5424',
  name: 'syslog RFC 5424',
  parse(line, context) {
    const m = HEADER.exec(line);
    if (!m || m[2] !== '1' || Number(m[1]) > 191) return 'NOT_THIS_FORMAT';
    const [header, pri, , time, host, app, procid, msgid] = m;
    if (time === '-') return 'NO_TIMESTAMP';
    const at = timestampOf(time, context.timeZone);
    if (!Number.isFinite(at)) return 'NO_TIMESTAMP';
    const data = structuredData(line.slice(header.length));
    if (!data) return 'NOT_THIS_FORMAT';
    const message = body(data.rest);
    if (message === '') return 'NO_MESSAGE';
    const fields: Record<string, string> = { ...data.params };
    if (host !== '-') fields.host = host;
    if (procid !== '-') fields.pid = procid;
    if (msgid !== '-') fields.msgid = msgid;
    const record: LogRecord = {
      at,
      level: severityOf(Number(pri)),
      levelFrom: 'RECORD',
      unknownLevel: false,
      service: app === '-' ? null : app,
      message,
      fields,
    };
    return record;
  },
};
