import { hrefOf, parseRoute, Route } from './router';

describe('hash routes', () => {
  it.each<[string, Route]>([
    ['', { page: 'chat' }],
    ['#/', { page: 'chat' }],
    ['#/chat', { page: 'chat' }],
    ['#/nowhere', { page: 'chat' }],
    ['#/documents', { page: 'documents' }],
    ['#/runs', { page: 'runs', sessionId: null, runId: null }],
    ['#/runs/s-1', { page: 'runs', sessionId: 's-1', runId: null }],
    ['#/runs/s-1/r_2', { page: 'runs', sessionId: 's-1', runId: 'r_2' }],
    ['#/runs/a%2Fb/r', { page: 'runs', sessionId: 'a/b', runId: 'r' }],
    ['#/runs/%E0%A4%A', { page: 'runs', sessionId: null, runId: null }],
    ['#/runs/s-1/r_2/3', { page: 'runs', sessionId: 's-1', runId: 'r_2', reference: 3 }],
    ['#/runs/s-1/r_2/0', { page: 'runs', sessionId: 's-1', runId: 'r_2' }],
    ['#/runs/s-1/r_2/x', { page: 'runs', sessionId: 's-1', runId: 'r_2' }],
    ['#/chat/r_2/4', { page: 'chat', runId: 'r_2', reference: 4 }],
    ['#/chat/r_2', { page: 'chat' }],
  ])('%s', (hash, route) => {
    expect(parseRoute(hash)).toEqual(route);
  });

  it.each<Route>([
    { page: 'chat' },
    { page: 'documents' },
    { page: 'runs', sessionId: null, runId: null },
    { page: 'runs', sessionId: 'a/b c', runId: null },
    { page: 'runs', sessionId: 's', runId: 'r/1' },
    { page: 'runs', sessionId: 's', runId: 'r/1', reference: 12 },
    { page: 'chat', runId: 'r 1', reference: 2 },
  ])('round-trips %j', (route) => {
    expect(parseRoute(hrefOf(route))).toEqual(route);
  });
});
