import type { Resource } from '../api/use-resource';
import type { ComponentChildren } from 'preact';

/** Loading and error states of a resource, or its content once ready. */
export function ResourceView<T>({
  resource,
  what,
  children,
}: {
  resource: Resource<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  switch (resource.state) {
    case 'loading':
      return (
        <p class="hint" role="status">
          Loading {what}…
        </p>
      );
    case 'error':
      return (
        <div class="failure" role="alert">
          Could not load {what}: {resource.message}
        </div>
      );
    case 'ready':
      return <>{children(resource.data)}</>;
  }
}

/** A wide table that scrolls on its own on small screens, reachable and scrollable by keyboard. */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
