import { randomBytes, createCipheriv } from 'node:crypto';
import { AuditCell, AuditCipher } from './audit-cipher';

const cell = (
  runId = 'run-1',
  stepIndex = 1,
  column: AuditCell['column'] = 'reasoning_content',
  labels: Partial<Pick<AuditCell, 'role' | 'contentSource'>> = {},
): AuditCell => ({
  runId,
  stepIndex,
  column,
  role: 'diagnosis-agent',
  contentSource: 'ASSISTANT_TEXT_ONLY',
  ...labels,
});

describe('AuditCipher', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('seals with the active key and opens with the stored key id, also after rotation', () => {
    const old = new AuditCipher(new Map([['k1', k1]]), 'k1');
    const sealed = old.seal('REASONING-MARKER 思考', cell())!;
    expect(sealed).not.toContain('REASONING-MARKER');
    const rotated = new AuditCipher(
      new Map([
        ['k1', k1],
        ['k2', k2],
      ]),
      'k2',
    );
    expect(rotated.open('k1', sealed, cell())).toEqual({ readable: true, text: 'REASONING-MARKER 思考' });
    expect(rotated.open('k2', rotated.seal('new', cell())!, cell())).toEqual({ readable: true, text: 'new' });
  });

  it('uses a fresh IV per value and detects tampering', () => {
    const cipher = new AuditCipher(new Map([['k1', k1]]), 'k1');
    expect(cipher.seal('same', cell())).not.toBe(cipher.seal('same', cell()));
    const sealed = cipher.seal('text', cell())!;
    expect(sealed.startsWith('a2:')).toBe(true);
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1] ^= 1;
    expect(cipher.open('k1', `a2:${bytes.toString('base64')}`, cell())).toEqual({ readable: false });
  });

  it.each([
    ['another run', cell('run-2')],
    ['another step', cell('run-1', 2)],
    ['another column', cell('run-1', 1, 'assistant_text')],
    [
      'a row relabelled as provider reasoning',
      cell('run-1', 1, 'reasoning_content', { contentSource: 'PROVIDER_REASONING' }),
    ],
    ['a row relabelled to another role', cell('run-1', 1, 'reasoning_content', { role: 'semantic-guard' })],
  ])('refuses a value moved to %s', (_name, target) => {
    const cipher = new AuditCipher(new Map([['k1', k1]]), 'k1');
    const sealed = cipher.seal('secret of run-1 step 1', cell());
    expect(cipher.open('k1', sealed, target)).toEqual({ readable: false });
  });

  it('still opens a1 values, sealed before role and content source were bound, in their own cell', () => {
    const cipher = new AuditCipher(new Map([['k1', k1]]), 'k1');
    const sealed = a1Seal(k1, 'older text', cell());
    expect(cipher.open('k1', sealed, cell())).toEqual({ readable: true, text: 'older text' });
    expect(cipher.open('k1', sealed, cell('run-1', 2))).toEqual({ readable: false });
    // The a1 tag is what decides the additional data: the same bytes tagged a2 do not open.
    expect(cipher.open('k1', `a2:${sealed.slice(3)}`, cell())).toEqual({ readable: false });
  });

  it.each([
    ['a value of the old format (no cell bound)', 'k1', () => legacySeal(k1, 'old text')],
    ['a truncated value', 'k1', () => 'a1:AAAA'],
    [
      'a value under a key it does not have',
      'k2',
      () => new AuditCipher(new Map([['k2', k2]]), 'k2').seal('x', cell()),
    ],
  ])('reports %s as unreadable instead of failing', (_name, keyId, sealed) => {
    const cipher = new AuditCipher(new Map([['k1', k1]]), 'k1');
    expect(cipher.open(keyId, sealed(), cell())).toEqual({ readable: false });
  });

  it('keeps null as null and plain text without a key (demo mode)', () => {
    expect(new AuditCipher(new Map([['k1', k1]]), 'k1').seal(null, cell())).toBeNull();
    const plain = new AuditCipher(new Map(), null);
    expect(plain.seal('x', cell())).toBe('x');
    expect(plain.open(null, 'x', cell())).toEqual({ readable: true, text: 'x' });
  });
});

/** How values were sealed before cells were bound: base64(iv | tag | ciphertext), no additional data. */
function legacySeal(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** How values were sealed before role and content source were bound: `a1:`, run, step and column as additional data. */
function a1Seal(key: Buffer, text: string, target: AuditCell): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(JSON.stringify([target.runId, target.stepIndex, target.column]), 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return `a1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}
