import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Injectable } from '@nestjs/common';

/** This replica as the owner of the runs it starts: unique per process start, readable in the table. */
@Injectable()
export class RunOwner {
  readonly id = `${hostname().slice(0, 40)}:${process.pid}:${randomBytes(4).toString('hex')}`;
}
