import { migrationLockName } from './migration-lock';

describe('migrationLockName', () => {
  it.each([
    ['superbiz', 'superbiz:migrations:superbiz'],
    ['superbiz_e2e_lock_mipq1z_a1b2c3', 'superbiz:migrations:superbiz_e2e_lock_mipq1z_a1b2c3'],
  ])('names the lock after the database %s', (database, name) => {
    expect(migrationLockName(database)).toBe(name);
  });

  it('hashes names that would pass the 64-character limit, keeping databases apart', () => {
    const first = migrationLockName('a'.repeat(64));
    const second = migrationLockName(`${'a'.repeat(63)}b`);
    expect(first).toMatch(/^superbiz:migrations:[0-9a-f]{40}$/);
    expect(first.length).toBeLessThanOrEqual(64);
    expect(second).not.toBe(first);
  });
});
