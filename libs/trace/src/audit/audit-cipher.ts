import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The text column a sealed value belongs to. */
export type AuditColumn = 'reasoning_content' | 'assistant_text';

/** Where a sealed value lives; bound into the ciphertext as AES-GCM additional data. */
export interface AuditCell {
  runId: string;
  stepIndex: number;
  column: AuditColumn;
}

/** A sealed value opened, or the explicit marker that it cannot be (wrong row, old format, missing key, tampering). */
export type Opened = { readable: true; text: string | null } | { readable: false };

/**
 * Format tag of values sealed with their cell as additional data: `a1:` + base64(iv 12 | tag 16 |
 * ciphertext). Values without it were sealed before cells were bound (no additional data); they are
 * not opened, because nothing proves they are in the row they were written for.
 */
const FORMAT = 'a1:';

const additionalData = (cell: AuditCell) =>
  Buffer.from(JSON.stringify([cell.runId, cell.stepIndex, cell.column]), 'utf8');

/**
 * Encryption at rest of the reasoning audit text (reasoning_content, assistant_text), AES-256-GCM with
 * the run id, step and column as additional data, so a value copied into another row or column fails
 * to open. The key id is stored beside each row so keys can rotate: the active key seals, every
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
    cipher.setAAD(additionalData(cell));
    const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return FORMAT + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  open(keyId: string | null, sealed: string | null, cell: AuditCell): Opened {
    if (sealed === null || keyId === null) return { readable: true, text: sealed };
    const key = this.keys.get(keyId);
    if (!key || !sealed.startsWith(FORMAT)) return { readable: false };
    const data = Buffer.from(sealed.slice(FORMAT.length), 'base64');
    if (data.length < 28) return { readable: false };
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
      decipher.setAAD(additionalData(cell));
      decipher.setAuthTag(data.subarray(12, 28));
      const text = Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
      return { readable: true, text };
    } catch {
      // GCM authentication failed: another row's value, another key's, or altered bytes.
      return { readable: false };
    }
  }
}
