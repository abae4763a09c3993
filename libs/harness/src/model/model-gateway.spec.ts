import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { modelToolSet } from './model-gateway';

describe('modelToolSet', () => {
  it('converts each tool to the chat-completions function format once, keeping names and order', () => {
    const schema = z.object({ topic: z.enum(['APPLICATION', 'ACCESS']), lookback_minutes: z.number().int() });
    const noop = () => Promise.resolve('');
    const set = modelToolSet([
      tool(noop, { name: 'query_logs', description: 'Search logs.', schema }),
      tool(noop, {
        name: 'search_knowledge',
        description: 'Search runbooks.',
        schema: z.object({ q: z.string() }),
      }),
    ]);
    expect(set.names).toEqual(['query_logs', 'search_knowledge']);
    expect(set.definitions[0]).toMatchObject({
      type: 'function',
      function: {
        name: 'query_logs',
        description: 'Search logs.',
        parameters: {
          type: 'object',
          properties: { topic: { enum: ['APPLICATION', 'ACCESS'] }, lookback_minutes: { type: 'integer' } },
          required: ['topic', 'lookback_minutes'],
        },
      },
    });
  });
});
