import type { HarnessConfig } from '@app/harness';
import { LogSourcePort } from './log-source.port';
import { queryLogsTool } from './query-logs.tool';

describe('queryLogsTool description', () => {
  it.each([
    [30, 1440],
    [5, 60],
  ])('names the topics and the configured lookback (default %i, max %i)', (defaultMinutes, maxMinutes) => {
    const limits = {
      defaultLookbackMinutes: defaultMinutes,
      maxLookbackMinutes: maxMinutes,
    } as HarnessConfig['logs'];
    const { description } = queryLogsTool({} as LogSourcePort, limits);
    expect(description).toContain('Topics: APPLICATION, ACCESS, DATABASE.');
    expect(description).toContain(`lookback_minutes: default ${defaultMinutes}, at most ${maxMinutes}.`);
  });
});
