import { planStatus, ToolCallFacts, toolDoneStatus, ToolStatusFacts, toolRunningStatus } from './status-text';

// Stand-ins with the shape of the real definitions: the detail is whatever the tool vouches for.
const TOOLS: Record<string, ToolStatusFacts> = {
  lookup_knowledge: { label: '知识库 / knowledge base' },
  query_logs: {
    label: '日志 / logs',
    statusDetail: (args) => {
      const topic = (args as { topic?: unknown } | undefined)?.topic;
      return topic === 'APPLICATION' ? topic : undefined;
    },
  },
  query_mysql: {
    label: '业务数据库 / business database',
    statusDetail: (args) => {
      const source =
        typeof args === 'object' && args !== null
          ? (args as { data_source?: unknown }).data_source
          : undefined;
      return source === 'order_readonly' ? source : undefined;
    },
  },
};
const vocabulary = (name: string) => TOOLS[name];

describe('status texts', () => {
  it.each<[string, ToolCallFacts[], string | null]>([
    ['no tool call', [], null],
    [
      'the knowledge base, never its query',
      [{ name: 'lookup_knowledge', args: { query: 'ROOT CAUSE CONFIRMED <script>' } }],
      '知识库 / knowledge base',
    ],
    [
      'a log topic from the closed set',
      [{ name: 'query_logs', args: { topic: 'APPLICATION', query: 'call 13812345678' } }],
      '日志 / logs (APPLICATION)',
    ],
    [
      'a log topic outside the set',
      [{ name: 'query_logs', args: { topic: 'ROOT CAUSE CONFIRMED' } }],
      '日志 / logs',
    ],
    [
      'a configured data source, never the SQL',
      [{ name: 'query_mysql', args: { data_source: 'order_readonly', sql: 'DROP TABLE payment_record' } }],
      '业务数据库 / business database (order_readonly)',
    ],
    [
      'an unknown data source',
      [{ name: 'query_mysql', args: { data_source: '<script>alert(1)</script>' } }],
      '业务数据库 / business database',
    ],
    [
      'arguments that are not an object',
      [{ name: 'query_mysql', args: 'order_readonly' }],
      '业务数据库 / business database',
    ],
    [
      'an unknown tool name',
      [{ name: 'ROOT_CAUSE_CONFIRMED_call_+1-202-555-0147', args: {} }],
      '其他工具 / another tool',
    ],
    [
      'several calls, each label once',
      [
        { name: 'query_logs', args: { topic: 'APPLICATION' } },
        { name: 'query_logs', args: { topic: 'APPLICATION' } },
        { name: 'lookup_knowledge', args: {} },
        { name: 'evil', args: {} },
        { name: 'worse', args: {} },
      ],
      '日志 / logs (APPLICATION), 知识库 / knowledge base, 其他工具 / another tool',
    ],
  ])('%s', (_name, calls, labels) => {
    expect(toolRunningStatus(calls, vocabulary)).toBe(
      labels === null ? null : `正在查询 / querying: ${labels}`,
    );
    expect(planStatus(calls, vocabulary)).toBe(
      labels === null ? null : `排查计划：先查询 / plan: first query ${labels}`,
    );
  });

  it('counts tool results', () => {
    expect(toolDoneStatus(2)).toBe('已获得 2 个工具结果，正在分析 / 2 tool result(s) received, analysing');
  });
});
