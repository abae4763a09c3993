import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AgentReasoningAuditEntity, ContentSource } from '../entities/agent-reasoning-audit.entity';
import { AgentStepEntity } from '../entities/agent-step.entity';
import { AuditCipher } from '../audit/audit-cipher';

export const AUDIT_CIPHER = Symbol('AUDIT_CIPHER');

/** An audit row as the auditor reads it; UNDECRYPTABLE is the explicit marker of text that did not open. */
export interface OpenedReasoningAudit {
  stepIndex: number;
  role: string;
  contentSource: ContentSource | 'UNDECRYPTABLE';
  reasoningContent: string | null;
  assistantText: string | null;
}

/** Reads model steps: bounded metadata in agent_step and the restricted text in agent_reasoning_audit (written together by the run's RunJournal). */
@Injectable()
export class AgentStepRepository {
  constructor(
    @InjectRepository(AgentStepEntity) private readonly steps: Repository<AgentStepEntity>,
    @InjectRepository(AgentReasoningAuditEntity)
    private readonly audits: Repository<AgentReasoningAuditEntity>,
    @Inject(AUDIT_CIPHER) private readonly cipher: AuditCipher,
  ) {}

  listSteps(runId: string): Promise<AgentStepEntity[]> {
    return this.steps.find({ where: { runId }, order: { stepIndex: 'ASC' } });
  }

  /**
   * The restricted audit of a run, opened: for the auditor API only. A row whose text does not open
   * for this run, step, column, role and content source (copied from another row, relabelled, sealed
   * before cells were bound, or under a key no longer configured) is reported as UNDECRYPTABLE with no text, never as another row's.
   */
  async listReasoning(runId: string): Promise<OpenedReasoningAudit[]> {
    const rows = await this.audits.find({ where: { runId }, order: { stepIndex: 'ASC' } });
    return rows.map((row) => {
      const cell = {
        runId: row.runId,
        stepIndex: row.stepIndex,
        role: row.role,
        contentSource: row.contentSource,
      };
      const reasoning = this.cipher.open(row.encryptionKeyId, row.reasoningContent, {
        ...cell,
        column: 'reasoning_content',
      });
      const assistant = this.cipher.open(row.encryptionKeyId, row.assistantText, {
        ...cell,
        column: 'assistant_text',
      });
      if (!reasoning.readable || !assistant.readable) {
        return {
          stepIndex: row.stepIndex,
          role: row.role,
          contentSource: 'UNDECRYPTABLE',
          reasoningContent: null,
          assistantText: null,
        };
      }
      return {
        stepIndex: row.stepIndex,
        role: row.role,
        contentSource: row.contentSource,
        reasoningContent: reasoning.text,
        assistantText: assistant.text,
      };
    });
  }
}
