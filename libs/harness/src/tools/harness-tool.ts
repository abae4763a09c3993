import { ToolMessage } from '@langchain/core/messages';
import { StructuredTool } from '@langchain/core/tools';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { z } from 'zod';
import { RunContext } from '../run/run-context';
import { HarnessToolDefinition } from './harness-tool-definition';
import { ToolBoundary } from './tool-boundary';

function isToolCall(input: unknown): input is ToolCall {
  return typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'tool_call';
}

/**
 * The LangChain face of a Harness tool for one run. The framework's ToolNode hands each call over as
 * a ToolCall whose `id` is the model's own tool_call_id; everything else (id checks, argument
 * validation, storage, projection) happens in the ToolBoundary, so the schema is only advertised here.
 */
export class HarnessTool extends StructuredTool {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType<Record<string, unknown>>;

  constructor(
    private readonly boundary: ToolBoundary,
    private readonly ctx: RunContext,
    private readonly definition: HarnessToolDefinition<Record<string, unknown>, unknown>,
  ) {
    super();
    this.name = definition.name;
    this.description = definition.description;
    this.schema = definition.schema;
  }

  override async invoke(input: unknown): Promise<ToolMessage> {
    const call = isToolCall(input) ? input : undefined;
    const toolCallId = call?.id;
    const result = await this.boundary.execute(
      this.ctx,
      this.definition,
      toolCallId,
      call ? call.args : input,
    );
    return new ToolMessage({
      content: result.content,
      tool_call_id: typeof toolCallId === 'string' ? toolCallId : '',
      name: this.name,
      status: result.isError ? 'error' : 'success',
    });
  }

  /** Only reachable by calling the tool without a tool call, which the Harness never does. */
  protected _call(): Promise<string> {
    return Promise.reject(new Error('Harness tools run only through invoke() with a framework tool call'));
  }
}

export function bindHarnessTools(
  boundary: ToolBoundary,
  ctx: RunContext,
  definitions: HarnessToolDefinition<Record<string, unknown>, unknown>[],
): HarnessTool[] {
  return definitions.map((definition) => new HarnessTool(boundary, ctx, definition));
}
