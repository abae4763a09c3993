import { cutText } from '../database/text-bounds';
import { TraceDetails } from '../entities/diagnosis-trace-event.entity';

const MAX_KEYS = 16;
const MAX_STRING = 200;

/** Timeline details are small flat metadata: at most 16 keys, strings cut to 200 code points. */
export function boundDetails(details: TraceDetails | undefined): TraceDetails | null {
  if (!details) return null;
  const entries = Object.entries(details)
    .slice(0, MAX_KEYS)
    .map(([key, value]) => [key, typeof value === 'string' ? cutText(value, MAX_STRING, '…') : value]);
  return Object.fromEntries(entries) as TraceDetails;
}
