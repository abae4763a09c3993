import { Injectable } from '@nestjs/common';
import { ServiceMetrics } from '@app/metrics';
import type { AnyHarnessTool } from './harness-tool-definition';
import { TOOL_ERROR_CODES } from './tool-boundary';

/**
 * Every evidence tool of this process, registered by the module that builds it. Harness, guards and chat
 * ask the catalog what a tool is called, how it reads as evidence and what its status text says, so none
 * of them switches on tool names and a new tool is one folder with its own module.
 */
@Injectable()
export class ToolCatalog {
  private readonly tools = new Map<string, AnyHarnessTool>();

  constructor(private readonly metrics: ServiceMetrics) {}

  /** Adds a tool, and declares it with every code it can fail with to the metrics (its series start at 0). */
  register(definition: AnyHarnessTool): void {
    if (this.tools.has(definition.name)) throw new Error(`tool ${definition.name} is registered twice`);
    this.tools.set(definition.name, definition);
    this.metrics.declareTool(definition.name, [...TOOL_ERROR_CODES, ...definition.failureCodes]);
  }

  /** Every tool the Diagnosis Agent may call, in registration order. */
  all(): AnyHarnessTool[] {
    return [...this.tools.values()];
  }

  get(name: string): AnyHarnessTool | undefined {
    return this.tools.get(name);
  }
}
