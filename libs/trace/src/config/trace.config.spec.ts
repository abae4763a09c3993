import { ConfigValidationError } from '@app/config';
import { traceConfig } from './trace.config';

describe('run lease config', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const load = (env: Record<string, string>) => {
    process.env = { ...saved, DEMO_MODE: 'true', ...env };
    return traceConfig();
  };

  it('defaults to a 5 s heartbeat and a 20 s lease', () => {
    expect(load({}).runLease).toEqual({ heartbeatMs: 5000, leaseMs: 20_000 });
  });

  it.each([
    [
      { RUN_HEARTBEAT_MS: '6000', RUN_LEASE_MS: '10000' },
      'RUN_HEARTBEAT_MS must be at most half of RUN_LEASE_MS',
    ],
    [{ RUN_LEASE_MS: '500' }, 'RUN_LEASE_MS'],
    [{ RUN_HEARTBEAT_MS: 'soon' }, 'RUN_HEARTBEAT_MS'],
  ])('refuses %p naming the key', (env, message) => {
    expect(() => load(env)).toThrow(ConfigValidationError);
    expect(() => load(env)).toThrow(message);
  });
});
