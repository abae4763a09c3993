import { randomBytes } from 'node:crypto';
import { AuditCipher } from './audit-cipher';

describe('AuditCipher', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('seals with the active key and opens with the stored key id, also after rotation', () => {
    const old = new AuditCipher(new Map([['k1', k1]]), 'k1');
    const sealed = old.seal('REASONING-MARKER 思考')!;
    expect(sealed).not.toContain('REASONING-MARKER');
    const rotated = new AuditCipher(
      new Map([
        ['k1', k1],
        ['k2', k2],
      ]),
      'k2',
    );
    expect(rotated.open('k1', sealed)).toBe('REASONING-MARKER 思考');
    expect(rotated.open('k2', rotated.seal('new')!)).toBe('new');
  });

  it('uses a fresh IV per value and detects tampering', () => {
    const cipher = new AuditCipher(new Map([['k1', k1]]), 'k1');
    expect(cipher.seal('same')).not.toBe(cipher.seal('same'));
    const sealed = Buffer.from(cipher.seal('text')!, 'base64');
    sealed[sealed.length - 1] ^= 1;
    expect(() => cipher.open('k1', sealed.toString('base64'))).toThrow();
  });

  it('keeps null as null and plain text without a key (demo mode)', () => {
    expect(new AuditCipher(new Map([['k1', k1]]), 'k1').seal(null)).toBeNull();
    const plain = new AuditCipher(new Map(), null);
    expect(plain.seal('x')).toBe('x');
    expect(plain.open(null, 'x')).toBe('x');
  });

  it('refuses a row sealed with a key it does not have', () => {
    expect(() => new AuditCipher(new Map(), null).open('k9', 'AAAA')).toThrow(
      'audit encryption key k9 is not configured',
    );
  });
});
