import { Injectable } from '@nestjs/common';
import type { AnyHarnessTool } from './harness-tool-definition';

/**
 * Every evidence tool of this process, registered by the module that builds it. Harness, guards and chat
 * ask the catalog what a tool is called, how it reads as evidence and what its status text says, so none
 * of them switches on tool names and a new tool is one folder with its own module.
 */
@Injectable()
export class ToolCatalog {
  private readonly tools = new Map<string, AnyHarnessTool>();

  register(definition: AnyHarnessTool): void {
    if (this.tools.has(definition.name)) throw new Error(`tool ${definition.name} is registered twice`);
    this.tools.set(definition.name, definition);
  }

  /** Every tool the Diagnosis Agent may call, in registration order. */
  all(): AnyHarnessTool[] {
    return [...this.tools.values()];
  }

  get(name: string): AnyHarnessTool | undefined {
    return this.tools.get(name);
  }
}
