import { clip, isSensitiveField, redactText } from './redaction';

describe('redactText', () => {
  it.each([
    ['Authorization: Bearer abc.def.ghi', 'Authorization: [REDACTED]'],
    ['calling with bearer sk-live-123456', 'calling with Bearer [REDACTED]'],
    ['token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc-123 ok', 'token=[REDACTED] ok'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc-123', 'jwt [REDACTED_JWT]'],
    ['db password=hunter2 host=x', 'db password=[REDACTED] host=x'],
    ['{"api_key": "k-123"}', '{"api_key": [REDACTED]}'],
    ['secret: s3cr3t;', 'secret: [REDACTED];'],
    ['key AKIAABCDEFGHIJKLMNOP used', 'key [REDACTED_KEY] used'],
    ['user alice@example.com failed', 'user [REDACTED_EMAIL] failed'],
    ['id 11010519491231002X', 'id [REDACTED_ID]'],
    ['call 13812345678 now', 'call [REDACTED_PHONE] now'],
    ['card 4111 1111 1111 1111 declined', 'card [REDACTED_NUMBER] declined'],
    ['card=4111-1111-1111-1111;', 'card=[REDACTED_NUMBER];'],
    ['pan 5500005555555559 refused', 'pan [REDACTED_NUMBER] refused'],
    ['phone +86 13812345678', 'phone [REDACTED_PHONE]'],
    ['phone 138-1234-5678 called', 'phone [REDACTED_PHONE] called'],
    ['phone 138 1234 5678', 'phone [REDACTED_PHONE]'],
    ['card 4111.1111.1111.1111 declined', 'card [REDACTED_NUMBER] declined'],
    ['amex 3782-822463-10005', 'amex [REDACTED_NUMBER]'],
  ])('redacts %s', (input, output) => {
    expect(redactText(input)).toBe(output);
  });

  it.each([
    'HikariPool-1 - Connection is not available, request timed out after 30000ms.',
    'order order-123 payment ERR_TIMEOUT after 3005 ms',
    'GET /api/orders/123 500 in 12ms',
    '2026-12-02T10:30:00Z pool active=50 idle=0 waiting=23',
    // Identifiers are not card numbers, whatever their digits.
    'order ORD-20261205-004217 timed out',
    'order ORD-4111111111111111 timed out',
    'trace 4111111111111112 ok', // not Luhn-valid
    'batch 2026120500421712 done', // 16 digits, not Luhn-valid
    'id 110105194912310021', // 18 digits with a wrong check character
    'request req_13812345678 failed',
    'build 1.3812345678.5 released', // dotted version numbers are not phones
    'span 20.26.12.05.00.42.17 ok', // not Luhn-valid
  ])('keeps ordinary operational text: %s', (line) => {
    expect(redactText(line)).toBe(line);
  });
});

describe('isSensitiveField', () => {
  it.each([
    'password',
    'password_hash',
    'api_key',
    'access_token',
    'phone',
    'mobile_no',
    'email',
    'id_card',
    'card_number',
    'cvv',
    'auth_token',
    'authToken',
    'userPhone',
    'APIKey',
    'e-mail',
    'contact.email',
    'session_id',
    'bank_account_no',
  ])('flags %s', (name) => expect(isSensitiveField(name)).toBe(true));
  it.each([
    'order_id',
    'payment_status',
    'amount',
    'channel',
    'latency_ms',
    'created_at',
    // Whole words only: a sensitive word inside another word is not that word.
    'authorized_at',
    'author_note',
    'hotel_id',
    'telemetry_count',
    'tokenizer_version',
    'phonetic_name',
    'emailed_at',
    'passporter',
  ])('keeps %s', (name) => expect(isSensitiveField(name)).toBe(false));
});

describe('clip', () => {
  it('marks only real cuts', () => {
    expect(clip('abcdef', 6)).toEqual({ text: 'abcdef', clipped: false });
    expect(clip('abcdefg', 6)).toEqual({ text: 'abcde…', clipped: true });
  });
});
