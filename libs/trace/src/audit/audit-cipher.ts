import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The text column a sealed value belongs to. */
export type AuditColumn = 'reasoning_content' | 'assistant_text';

/**
 * Where a sealed value lives and how its row is labelled; bound into the ciphertext as AES-GCM
 * additional data, so the value opens only in that row and column under those labels.
 */
export interface AuditCell {
  runId: string;
  stepIndex: number;
  column: AuditColumn;
  /** The row's role (which agent role's step it is). */
  role: string;
  /** The row's content_source (PROVIDER_REASONING, ASSISTANT_TEXT_ONLY, ...). */
  contentSource: string;
}

/** A sealed value opened, or the explicit marker that it cannot be (wrong row, old format, missing key, tampering). */
export type Opened = { readable: true; text: string | null } | { readable: false };

/**
 * Format tags, each `tag` + base64(iv 12 | tag 16 | ciphertext), naming the additional data the value
 * was sealed with (docs/architecture.md, "Reasoning audit"). `a2:` binds run, step, column, role and
 * content source and is what seal() writes; `a1:` values were sealed before the labels were bound and
 * open with run, step and column only. Values without a tag were sealed with no additional data and
 * are not opened, because nothing proves they are in the row they were written for.
 */
const FORMATS = {
  'a1:': (cell: AuditCell) => [cell.runId, cell.stepIndex, cell.column],
  'a2:': (cell: AuditCell) => [cell.runId, cell.stepIndex, cell.column, cell.role, cell.contentSource],
} as const;
type Format = keyof typeof FORMATS;
const SEAL_FORMAT: Format = 'a2:';

const additionalData = (format: Format, cell: AuditCell) =>
  Buffer.from(JSON.stringify(FORMATS[format](cell)), 'utf8');

const formatOf = (sealed: string): Format | null =>
  (Object.keys(FORMATS) as Format[]).find((format) => sealed.startsWith(format)) ?? null;

/**
 * Encryption at rest of the reasoning audit text (reasoning_content, assistant_text), AES-256-GCM with
 * the run id, step, column, role and content source as additional data, so a value copied into another
 * row or column, or a row relabelled (e.g. as provider reasoning), fails to open. The key id is stored beside each row so keys can rotate: the active key seals, every
 * configured key opens. Without any key (demo mode only) text is stored as is, with a null key id.
 */
export class AuditCipher {
  constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    private readonly activeKeyId: string | null,
  ) {}

  get keyId(): string | null {
    return this.activeKeyId;
  }

  seal(text: string | null, cell: AuditCell): string | null {
    if (text === null || this.activeKeyId === null) return text;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKeyId)!, iv);
    cipher.setAAD(additionalData(SEAL_FORMAT, cell));
    const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return SEAL_FORMAT + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  open(keyId: string | null, sealed: string | null, cell: AuditCell): Opened {
    if (sealed === null || keyId === null) return { readable: true, text: sealed };
    const key = this.keys.get(keyId);
    const format = formatOf(sealed);
    if (!key || format === null) return { readable: false };
    const data = Buffer.from(sealed.slice(format.length), 'base64');
    if (data.length < 28) return { readable: false };
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
      decipher.setAAD(additionalData(format, cell));
      decipher.setAuthTag(data.subarray(12, 28));
      const text = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
      return { readable: true, text };
    } catch {
      // GCM authentication failed: another row's value, a relabelled row, another key's, or altered bytes.
      return { readable: false };
    }
  }
}
