import { ConfigValidationError } from '@app/config';
import { loadAlertsConfig } from './alerts.config';

describe('loadAlertsConfig', () => {
  it('defaults: a 30-minute window, 20 runs an hour, windows ending 15 minutes after the start', () => {
    expect(loadAlertsConfig({})).toEqual({
      dedupWindowMs: 1_800_000,
      maxRunsPerHour: 20,
      windowAfterStartMinutes: 15,
    });
  });

  it.each([
    ['ALERT_DEDUP_WINDOW_SECONDS', '-1'],
    ['ALERT_DEDUP_WINDOW_SECONDS', '1h'],
    ['ALERT_MAX_RUNS_PER_HOUR', '1.5'],
    ['ALERT_WINDOW_AFTER_START_MINUTES', '2000'],
  ])('refuses %s=%s naming the key', (key, value) => {
    expect(() => loadAlertsConfig({ [key]: value })).toThrow(ConfigValidationError);
    expect(() => loadAlertsConfig({ [key]: value })).toThrow(key);
  });
});
