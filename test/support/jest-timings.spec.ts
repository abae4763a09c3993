import {
  JestFileResult,
  kindOf,
  renderFailures,
  renderTimings,
  slowestFiles,
  timingsByKind,
} from './jest-timings';

const file = (
  name: string,
  startTime: number,
  endTime: number,
  status = 'passed',
  tests = 1,
): JestFileResult => ({
  name,
  startTime,
  endTime,
  status,
  assertionResults: Array.from({ length: tests }, (_, index) => ({
    fullName: `${name} test ${index}`,
    status: status === 'passed' ? 'passed' : index === 0 ? 'failed' : 'passed',
  })),
});

describe('jest timings', () => {
  it.each([
    ['libs/chat/src/chat.spec.ts', 'unit'],
    ['test/support/jest-timings.spec.ts', 'unit'],
    ['test/medium/a.medium-spec.ts', 'medium'],
    ['test/e2e/b.e2e-spec.ts', 'e2e'],
    ['test/browser/c.browser-spec.ts', 'browser'],
    ['test/process/d.process-spec.ts', 'process'],
    ['apps/server/test/e2e/not-a-kind.spec.ts', 'unit'],
  ])('files the kind of %s as %s', (path, kind) => {
    expect(kindOf(path)).toBe(kind);
  });

  it('sums file time and spans wall time per kind', () => {
    const files = [
      file('test/e2e/a.e2e-spec.ts', 1_000, 4_000, 'passed', 2),
      file('test/e2e/b.e2e-spec.ts', 2_000, 3_000),
      file('libs/x.spec.ts', 0, 500, 'passed', 3),
    ];
    expect(timingsByKind(files)).toEqual([
      { kind: 'e2e', files: 2, tests: 3, wallMs: 3_000, fileMs: 4_000 },
      { kind: 'unit', files: 1, tests: 3, wallMs: 500, fileMs: 500 },
    ]);
  });

  it('lists the slowest files first, at most the count asked', () => {
    const files = [file('a', 0, 1_000), file('b', 0, 3_000), file('c', 0, 2_000)];
    expect(slowestFiles(files, 2).map((f) => f.name)).toEqual(['b', 'c']);
    expect(renderTimings(files, 2)).toContain(
      'the 2 slowest files:\n     3.0 s  unit     b\n     2.0 s  unit     c',
    );
  });

  it('names the failing files and tests, and a file that failed outside its tests', () => {
    const rendered = renderFailures([
      file('test/e2e/ok.e2e-spec.ts', 0, 1),
      file('test/e2e/bad.e2e-spec.ts', 0, 1, 'failed', 2),
      file('test/e2e/broken.e2e-spec.ts', 0, 1, 'failed', 0),
    ]);
    expect(rendered).toBe(
      [
        '2 failing files:',
        '  test/e2e/bad.e2e-spec.ts',
        '    ✕ test/e2e/bad.e2e-spec.ts test 0',
        '  test/e2e/broken.e2e-spec.ts',
        '    (the file failed outside its tests; see the log)',
      ].join('\n'),
    );
    expect(renderFailures([file('a', 0, 1)])).toBe('no failing files');
  });
});
