import { redactText } from '@app/tools';

const LIST_ITEM = /^\s*(?:\d+[.)、]|[-*•])\s+(.+)$/;
const SQL = /\b(select|insert|update|delete|drop|alter|create|truncate)\b[\s\S]*\b(from|into|table|set)\b/i;

/**
 * The agent's opening plan as a safe status message: at most 5 list items of at most 120 characters,
 * no SQL text and no secrets; null when the first message holds no plan.
 */
export function sanitizePlan(text: string): string | null {
  const items = text
    .split('\n')
    .map((line) => LIST_ITEM.exec(line)?.[1]?.trim())
    .filter((item): item is string => Boolean(item))
    .slice(0, 5)
    .map((item) =>
      SQL.test(item) ? '查询业务数据 / query business data' : redactText(item.replace(/`/g, '')),
    )
    .map((item) => (item.length > 120 ? `${item.slice(0, 119)}…` : item));
  return items.length > 0 ? items.map((item, index) => `${index + 1}. ${item}`).join('\n') : null;
}
