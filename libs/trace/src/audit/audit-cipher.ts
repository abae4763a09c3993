import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Encrypted text: base64 of iv (12) | tag (16) | ciphertext, AES-256-GCM. */
export interface Sealed {
  keyId: string | null;
  text: string | null;
}

/**
 * Encryption at rest of the reasoning audit text (reasoning_content, assistant_text). The key id is
 * stored beside each row so keys can rotate: the active key seals, every configured key opens. Without
 * any key (demo mode only) text is stored as is, with a null key id.
 */
export class AuditCipher {
  constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    private readonly activeKeyId: string | null,
  ) {}

  get keyId(): string | null {
    return this.activeKeyId;
  }

  seal(text: string | null): string | null {
    if (text === null || this.activeKeyId === null) return text;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKeyId)!, iv);
    const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  open(keyId: string | null, sealed: string | null): string | null {
    if (sealed === null || keyId === null) return sealed;
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`audit encryption key ${keyId} is not configured`);
    const data = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(12, 28));
    return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
  }
}
