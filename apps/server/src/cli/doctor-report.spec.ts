import { doctorExitCode, doctorSummary, formatFinding } from './doctor-report';

describe('doctor report', () => {
  it.each([
    [{ check: 'redis', verdict: 'OK' as const, message: 'fine', fix: 'ignored' }, 'OK   redis: fine'],
    [
      { check: 'llm', verdict: 'FAIL' as const, message: 'rejected', fix: 'set LLM_API_KEY' },
      'FAIL llm: rejected\n     fix: set LLM_API_KEY',
    ],
    [{ check: 'logs', verdict: 'WARN' as const, message: 'none' }, 'WARN logs: none'],
  ])('formats %p', (finding, text) => expect(formatFinding(finding)).toBe(text));

  it.each([
    [[], 0],
    [[{ check: 'a', verdict: 'WARN' as const, message: '' }], 0],
    [
      [
        { check: 'a', verdict: 'OK' as const, message: '' },
        { check: 'b', verdict: 'FAIL' as const, message: '' },
      ],
      1,
    ],
  ])('exit code of %p is %i', (findings, code) => expect(doctorExitCode(findings)).toBe(code));

  it('summarises blocking problems and warnings', () => {
    expect(
      doctorSummary([
        { check: 'a', verdict: 'FAIL', message: '' },
        { check: 'b', verdict: 'WARN', message: '' },
      ]),
    ).toBe('doctor: 1 blocking problem(s), 1 warning(s): fix the FAIL lines before the first chat');
    expect(doctorSummary([{ check: 'b', verdict: 'OK', message: '' }])).toBe(
      'doctor: no blocking problem, 0 warning(s)',
    );
  });
});
