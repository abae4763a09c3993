import type { DataSourceInspection } from './data-source-inspection';
import { dataSourceProblems } from './data-source-health';

const healthy: DataSourceInspection = {
  reachable: true,
  grants: { beyondSelect: [], roles: [] },
  missing: [],
  session: [],
};

describe('dataSourceProblems', () => {
  it.each<[string, DataSourceInspection, string[]]>([
    ['a usable source', healthy, []],
    [
      'a refused account',
      { reachable: false, reason: 'the server rejected the username/password', cause: 'ACCESS_DENIED' },
      ['ACCESS_DENIED'],
    ],
    [
      'a server that is down',
      { reachable: false, reason: '127.0.0.1:1 is not reachable (ECONNREFUSED)', cause: 'UNREACHABLE' },
      ['UNREACHABLE'],
    ],
    [
      'another connection failure',
      { reachable: false, reason: 'database shop does not exist', cause: 'CONNECT_FAILED' },
      ['CONNECT_FAILED'],
    ],
    [
      'a read-write account',
      { ...healthy, grants: { beyondSelect: ['INSERT ON `shop`.*'], roles: [] } },
      ['NOT_READ_ONLY'],
    ],
    [
      'an account with roles',
      { ...healthy, grants: { beyondSelect: [], roles: ['`reader`'] } },
      ['UNINSPECTED_ROLES'],
    ],
    ['a misspelled allowlisted table', { ...healthy, missing: ['shop.ordrs'] }, ['UNKNOWN_NAMES']],
    [
      'a session that cannot be pinned',
      { ...healthy, session: ['character_set_client is latin1'] },
      ['SESSION_MISCONFIGURED'],
    ],
    [
      'several problems at once',
      { ...healthy, grants: { beyondSelect: ['ALL PRIVILEGES ON *.*'], roles: [] }, missing: ['shop.x'] },
      ['NOT_READ_ONLY', 'UNKNOWN_NAMES'],
    ],
  ])('names the problems of %s', (_, inspection, kinds) => {
    expect(dataSourceProblems(inspection).map((problem) => problem.kind)).toEqual(kinds);
  });

  it('carries the names in the detail, for the log line and /health', () => {
    const [problem] = dataSourceProblems({ ...healthy, missing: ['shop.ordrs', 'shop.orders.totl'] });
    expect(problem.detail).toContain('shop.ordrs, shop.orders.totl');
  });
});
