import { parseIntent } from './intent-router';

describe('parseIntent', () => {
  it.each([
    ['DIAGNOSIS', 'DIAGNOSIS'],
    ['  KNOWLEDGE_QUERY\n', 'KNOWLEDGE_QUERY'],
    ['"SYSTEM_CHAT"', 'SYSTEM_CHAT'],
    ['SYSTEM_CHAT.', 'SYSTEM_CHAT'],
    ['diagnosis', 'DIAGNOSIS'],
    ['Diagnosis', 'DIAGNOSIS'],
    ['**DIAGNOSIS**', 'DIAGNOSIS'],
    ['`KNOWLEDGE_QUERY`', 'KNOWLEDGE_QUERY'],
    ['“SYSTEM_CHAT”', 'SYSTEM_CHAT'],
    ['<think>The user reports a timeout, maybe KNOWLEDGE_QUERY?</think>\n\nDIAGNOSIS', 'DIAGNOSIS'],
    ['<think>\nhmm\n</think>\n**Diagnosis**', 'DIAGNOSIS'],
    ['DIAGNOSIS\nThe user reports a failing payment.', 'DIAGNOSIS'],
    ['DIAGNOSIS please', 'DIAGNOSIS'],
    ['DIAGNOSIS: the user reports a failure', 'DIAGNOSIS'],
    ['I think DIAGNOSIS', null],
    ['DIAGNOSIS or KNOWLEDGE_QUERY', null],
    ['<think>unterminated DIAGNOSIS', null],
    ['', null],
    ['DATABASE_QUERY', null],
    ['DIAGNOSISX', null],
    ['PROBABLY_DIAGNOSIS', null],
    // Chinese labels
    ['诊断', 'DIAGNOSIS'],
    ['故障诊断', 'DIAGNOSIS'],
    ['**诊断**', 'DIAGNOSIS'],
    ['诊断\n用户报告支付超时', 'DIAGNOSIS'],
    ['知识查询', 'KNOWLEDGE_QUERY'],
    ['闲聊。', 'SYSTEM_CHAT'],
    ['诊断性问题', null],
    ['诊断 or KNOWLEDGE_QUERY', null],
    // JSON-wrapped
    ['{"intent":"DIAGNOSIS"}', 'DIAGNOSIS'],
    ['```json\n{"intent": "knowledge_query", "confidence": 0.9}\n```', 'KNOWLEDGE_QUERY'],
    ['{"label":"诊断"}', 'DIAGNOSIS'],
    ['{"intent":"DIAGNOSIS","reason":"KNOWLEDGE_QUERY is wrong"}', 'DIAGNOSIS'],
    ['{"a":"DIAGNOSIS","b":"SYSTEM_CHAT"}', null],
    // gpt-oss harmony
    [
      '<|channel|>analysis<|message|>Maybe KNOWLEDGE_QUERY, no.<|end|><|start|>assistant<|channel|>final<|message|>DIAGNOSIS<|return|>',
      'DIAGNOSIS',
    ],
    ['<|channel|>final<|message|>SYSTEM_CHAT', 'SYSTEM_CHAT'],
    ['analysisThe user wants a root cause, not KNOWLEDGE_QUERY.assistantfinalDIAGNOSIS', 'DIAGNOSIS'],
    ['<|channel|>analysis<|message|>DIAGNOSIS<|end|>', null],
  ])('%p -> %p', (text, intent) => expect(parseIntent(text)).toBe(intent));
});
