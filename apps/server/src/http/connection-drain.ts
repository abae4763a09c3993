import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/**
 * Lets shutdown finish while clients hold keep-alive connections. `server.close()` only closes the
 * connections idle at that instant; a client that keeps reusing its connection (a trace page polling
 * every two seconds) would hold the process open until it is killed. Once shutdown begins, every
 * response says `Connection: close`, so each connection ends with the request it is serving; streams
 * already under way still finish.
 */
@Injectable()
export class ConnectionDrain implements BeforeApplicationShutdown {
  private draining = false;

  /** Express middleware; registered first so it also covers the static web UI. */
  readonly middleware = (_request: Request, response: Response, next: NextFunction): void => {
    if (this.draining) response.setHeader('Connection', 'close');
    next();
  };

  beforeApplicationShutdown(): void {
    this.draining = true;
  }
}
